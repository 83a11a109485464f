"""The per-time noise hand-out and the token memory's kept recalls give bit for bit what
the plain way gives: noise scaled when handed out, and on the reference
(``kernels.reference_mode``) recalls through the memory's own retrievals on its NumPy
path (whole games: tests/integration/agreement/test_games.py)."""
from __future__ import annotations

import numpy as np
import pytest

from nothanks.actr import DeclarativeMemory
from nothanks.agents.cognitive import TokenMemory
from nothanks.kernels import reference_mode

BLOCK = 4096  # the memory's block of uniforms


def _bits(values) -> list[int]:
    return np.asarray(values, dtype=np.float64).view(np.uint64).tolist()


def _reference_draws(seed: int, sizes: list[int], scales: list[float]) -> list[np.ndarray]:
    """Logistic draws as the memory defines them, each draw scaled when handed out:
    uniforms in blocks of max(4096, count) (a zero replaced by fresh draws), a block
    transformed to ln(u/(1−u)) whole, or, when one draw takes more than half of it, only
    the uniforms handed out, when they are."""
    rng = np.random.default_rng(seed)
    block, raw, position, out = np.empty(0), False, 0, []
    for count, s in zip(sizes, scales, strict=True):
        if position + count > len(block):
            uniform = rng.random(max(BLOCK, count))
            while not uniform.all():
                zero = uniform == 0.0
                uniform[zero] = rng.random(int(zero.sum()))
            raw = 2 * count > len(uniform)
            block = uniform if raw else np.log(uniform / (1.0 - uniform))
            position = 0
        drawn = block[position:position + count]
        position += count
        if raw:
            drawn = np.log(drawn / (1.0 - drawn))
        out.append(drawn * s)
    return out


def test_draws_are_the_reference_draws_bit_for_bit():
    """Sizes small and large (a raw block), the scale changed now and then, s = 0."""
    for seed in range(3):
        plan = np.random.default_rng(100 + seed)
        sizes = [int(plan.choice([0, 1, 7, 150, 400, 2117, 3000, 5000]))
                 for _ in range(120)]
        scales = [0.25] * 40 + [float(plan.choice([0.05, 0.25, 0.8, 0.0])) for _ in range(80)]
        memory = DeclarativeMemory(noise=0.25, seed=np.random.default_rng(seed))
        held = []
        for count, s in zip(sizes, scales, strict=True):
            if s != memory.noise:
                memory.noise = s
            held.append(memory._draw_noise(count))
        expected = _reference_draws(seed, sizes, scales)
        # every draw handed out keeps its values whatever was drawn or rescaled after it
        assert [_bits(a) for a in held] == [_bits(b) for b in expected]


def test_a_restored_random_state_draws_what_it_would_have_drawn():
    """Fresh noise from another generator in between (as a choice-probability estimate
    draws it), then the saved state back: the draws of a memory that never left."""
    sizes = (200, 3000, 50, 2117, 10, 700)
    plain = DeclarativeMemory(noise=0.3, seed=np.random.default_rng(7))
    plain._draw_noise(100)
    expected = [plain._draw_noise(n) for n in sizes]
    memory = DeclarativeMemory(noise=0.3, seed=np.random.default_rng(7))
    memory._draw_noise(100)
    saved = memory.random_state()
    memory.reseed_noise(np.random.default_rng(99))
    memory.noise = 0.7
    detour = [memory._draw_noise(n) for n in sizes[:4]]
    memory.noise = 0.3
    memory.set_random_state(saved)
    assert [_bits(a) for a in (memory._draw_noise(n) for n in sizes)] == [
        _bits(b) for b in expected]
    assert [_bits(a) for a in detour] == [
        _bits(b) for b in _reference_draws(99, list(sizes[:4]), [0.7] * 4)]


def _token_run(seed: int, *, engine: bool, rt: float, noise: float,
               decay: float, steps: tuple[float, ...]) -> tuple[list, tuple, float]:
    """Random updates and recalls with the clock moving by ``steps`` (the first one
    first), the leaf penalty reset to other objects (float, int, zero), the noise scale
    and the decay changed and the random state saved and restored along the way; the
    recalls, the memory's end state and the token memory's clock grid step."""
    with reference_mode(not engine):
        memory = DeclarativeMemory(retrieval_threshold=rt, noise=noise, decay=decay,
                                   seed=np.random.default_rng(seed))
        tokens = TokenMemory(memory, leaf_penalty=1.0)
        tokens.truth = lambda seat: 10 * seat
        ops = np.random.default_rng(500 + seed)
        out: list = []
        for seat in (1, 2, 3):
            tokens.store(seat, 11)
        memory.advance(steps[0])
        saved = None
        for _ in range(120):
            r = ops.random()
            seat = int(ops.integers(1, 5))
            if r < 0.45:
                change = -1 if ops.random() < 0.75 else int(ops.integers(1, 12))
                out.append(tokens.update(seat, change))
                memory.advance(float(ops.choice(steps)))
            elif r < 0.8:
                out.append(tokens.recall(seat))
            elif r < 0.85:
                tokens.leaf_penalty = [0.5, 2, 0, 0.0, 1.5][int(ops.integers(5))]
            elif r < 0.88 and noise > 0:
                memory.noise = float(ops.choice([0.1, noise, 0.6]))
            elif r < 0.9:
                memory.decay = float(ops.choice([0.3, decay, 0.7]))
            elif r < 0.95:
                if saved is None:
                    saved = tokens.memory.random_state()
                else:
                    tokens.memory.set_random_state(saved)
                    saved = None
            else:
                memory.advance(float(ops.choice(steps)))
        state = tokens.memory.random_state()
        end = (len(tokens.memory), state[0].bit_generator.state, _bits(state[1]),
               state[2:4], None if state[4] is None else _bits(state[4]))
        return [tuple(r) for r in out], end, tokens._step


@pytest.mark.parametrize("rt,noise,decay,steps,grid", [
    (-2.0, 0.25, 0.5, (2.0,), 2.0),  # a model's fixed time per turn: one grid throughout
    (1.0, 0.5, 0.5, (3.0, 2.0), 1.0),  # a finer grid once a time falls between
    (-8.0, 0.1, 0.3, (0.75, 1.5, 0.25), 0.25),
    (4.0, 0.25, 0.5, (2.0, 0.3), 0.0),  # off the grid for good: per-time strengths
    (-1.0, 0.0, 0.5, (2.0,), 2.0),  # no noise: the memory's own retrievals
    (-2.0, 0.25, 0.5, (0.1, 0.2), 0.0),  # a step whose multiples round: no grid
])
def test_kept_recalls_are_the_memorys_retrievals(rt, noise, decay, steps, grid, counted):
    """Leaves, roots and defaults each win in some case, on and off the clock's grid."""
    for seed in range(2):
        args = {"rt": rt, "noise": noise, "decay": decay, "steps": steps}
        recalls, end, _ = _token_run(seed, engine=False, **args)
        kept = _token_run(seed, engine=True, **args)
        assert kept[:2] == (recalls, end)
        assert kept[2] == grid
        sources = {r[3] for r in recalls}
        assert (counted[0] > 50) == (noise > 0)  # the kept rows answered (with noise)
        if rt >= 4:
            assert "leaf" not in sources and "default" in sources
        elif rt <= -8:
            assert "leaf" in sources
        elif noise > 0 and rt == 1.0:
            assert {"leaf", "root"} <= sources
