"""The compiled noise pass (``odds``: the zero check over a block of uniforms and
``u / (1 − u)`` of those transformed now, NumPy taking the log) gives the NumPy path's
draws bit for bit: the same quotients, the same zeros redrawn in the same order, the same
stream afterwards, in every noise mode."""
from __future__ import annotations

import numpy as np
import pytest

from nothanks.actr import DeclarativeMemory, ExactMatch, Linear, Weber
from nothanks.actr import kernel as actr_kernel
from nothanks.kernels import reference_mode

pytestmark = pytest.mark.skipif(actr_kernel.kernels() is None,
                                reason="needs the compiled kernels (numba; not "
                                "NOTHANKS_REFERENCE=1)")


def _bits(values) -> list[int]:
    return np.asarray(values, dtype=np.float64).view(np.uint64).tolist()


class _ZeroInjecting:
    """A generator whose ``random`` puts zeros into the blocks it hands out (at the
    positions given per call), so the redraw of a zero uniform is exercised."""

    def __init__(self, seed: int, zeros: dict[int, list[int]]):
        self._rng = np.random.default_rng(seed)
        self._zeros = zeros
        self.calls: list[int] = []

    def random(self, size: int) -> np.ndarray:
        uniform = self._rng.random(size)
        for position in self._zeros.get(len(self.calls), []):
            if position < size:
                uniform[position] = 0.0
        self.calls.append(size)
        return uniform

    def integers(self, *args, **kwargs):
        return self._rng.integers(*args, **kwargs)


def test_odds_are_numpys_quotients_and_zeros_are_counted():
    odds = actr_kernel.kernels().odds
    rng = np.random.default_rng(3)
    for count in (0, 1, 7, 8, 9, 63, 2117, 4096):
        uniform = rng.random(4096)
        uniform[:3] = (0.5, 1.0 - 2.0 ** -53, 2.0 ** -53)  # the extremes of the grid
        out = np.full(4096, np.nan)
        assert odds(uniform, count, out) == 0
        expected = np.subtract(1.0, uniform[:count])
        np.divide(uniform[:count], expected, out=expected)
        assert _bits(out[:count]) == _bits(expected)
        assert np.isnan(out[count:]).all()  # nothing written past count
    uniform = rng.random(4096)
    uniform[[5, 4000]] = 0.0  # one among those transformed, one in the tail
    out = np.full(10, np.nan)
    assert odds(uniform, 10, out) == 2
    assert np.isnan(out).all()  # nothing transformed while a zero is left


# per call of the generator (blocks and redraws alike), the positions made zero: a zero
# among the uniforms handed out and one in the unused tail of a raw block, a zero in the
# redraw itself (a second round), a tail zero alone, two zeros in one block
_ZEROS = {0: [0, 4095], 1: [1], 3: [2500], 5: [10, 11]}


@pytest.mark.parametrize(("sizes", "calls"), [
    # a fresh raw block every draw (ToM0's instances, per time): every zero is redrawn
    ([2117] * 5, [4096, 2, 1, 4096, 1, 4096, 2, 4096, 4096]),
    # raw blocks, whole blocks transformed, slices of both
    ([300, 2117, 1500, 5000, 40, 3000, 2000, 0, 10, 2117], None),
])
def test_zero_uniforms_are_redrawn_as_numpy_redraws_them(sizes, calls):
    drawn = {}
    for compiled in (True, False):
        with reference_mode(not compiled):
            memory = DeclarativeMemory(noise=0.3, seed=0)
            rng = _ZeroInjecting(11, _ZEROS)
            memory.reseed_noise(rng)
            draws = [memory._draw_noise(count).copy() for count in sizes]
            drawn[compiled] = (draws, rng.calls, rng._rng.random())
    (fused, fused_calls, fused_next), (plain, plain_calls, plain_next) = drawn[True], drawn[False]
    assert fused_calls == plain_calls
    assert calls is None or fused_calls == calls
    assert fused_next == plain_next  # the stream goes on from the same place
    assert [_bits(a) for a in fused] == [_bits(b) for b in plain]
    assert all(np.isfinite(a).all() for a in fused)


def _instance_memory(mode: str) -> DeclarativeMemory:
    """~2,100 fixed chunks with the thesis's four scored slots: one draw takes most of
    a block (the raw path)."""
    memory = DeclarativeMemory(
        noise=0.25, noise_mode=mode, seed=5,
        mismatch={"category": ExactMatch(100), "card": Linear(32),
                  "tokens_on_card": Weber(), "tokens_owned": Weber()})
    rng = np.random.default_rng(1)
    while len(memory) < 2117:
        memory.add(_state(rng) | {"action": ("take", "pass")[len(memory) % 2]},
                   fixed_activation=0.0)
    return memory


def _state(rng: np.random.Generator) -> dict:
    return {"category": ("none", "extension", "completion")[int(rng.integers(3))],
            "card": int(rng.integers(3, 36)), "tokens_on_card": int(rng.integers(0, 12)),
            "tokens_owned": int(rng.integers(0, 12))}


@pytest.mark.parametrize("mode", ["per_time", "per_retrieval"])
def test_retrievals_with_injected_zeros_match_the_numpy_path(mode):
    """Retrievals (kept all-scored requests, recorded ones, a saved random state)
    with zeros injected into the blocks: the kernel path and the NumPy path retrieve
    the same chunks at the same activations with the same noise."""
    outcomes = {}
    for compiled in (True, False):
        with reference_mode(not compiled):
            memory = _instance_memory(mode)
            memory.reseed_noise(_ZeroInjecting(2, _ZEROS))
            requests = np.random.default_rng(9)
            states = [_state(requests) for _ in range(8)]
            seen = []
            for step in range(12):
                memory.advance(1.0)
                state = states[step % 8]
                retrieval = memory.retrieve(state, record=step % 5 == 0)
                seen.append((retrieval.chunk, retrieval.activation))
                if step % 3 == 0:
                    seen.append(memory.retrieve(states[(step + 3) % 8]).activation)
                if step == 6:
                    saved = memory.random_state()
                    memory.retrieve(state)
                    memory.set_random_state(saved)
            noise = memory._noise_now() if mode == "per_time" else None
            outcomes[compiled] = (seen, None if noise is None else _bits(noise),
                                  memory._rng.random(1).tolist())
    assert outcomes[True] == outcomes[False]


def test_the_odds_kernel_keeps_one_signature():
    """Whole blocks and slices of a raw block are typed alike (no recompilation)."""
    memory = DeclarativeMemory(noise=0.2, seed=1)
    for count in (2117, 100, 3000, 900, 1, 0):
        memory._draw_noise(count)
    assert len(actr_kernel.kernels().odds.signatures) == 1
