"""The token memory's one-call recall (leaf, then root only if the leaf fails): the
compiled and the NumPy search find the same chunks and activations, long histories grow
the kept arrays without changing a recall, and memory settings changed between recalls
give what the memory's own retrievals give."""
from __future__ import annotations

import numpy as np
import pytest
from test_token_speed import _same_memories

from nothanks.actr import DeclarativeMemory
from nothanks.actr import kernel as actr_kernel
from nothanks.agents.cognitive import TokenMemory


def _searcher(strengths: np.ndarray, strength_of: np.ndarray) -> TokenMemory:
    """A token memory holding only the strengths its NumPy search reads."""
    searcher = TokenMemory.__new__(TokenMemory)
    searcher._strengths, searcher._strength_of = strengths, strength_of
    return searcher


def test_the_compiled_search_finds_the_numpy_first_best():
    kernels = actr_kernel.kernels()
    if kernels is None:
        pytest.skip("compiled kernels off (numba missing or NOTHANKS_ACTR_KERNEL=0)")
    compiled = kernels.recall_best
    rng = np.random.default_rng(5)
    roots = 0
    for _ in range(300):
        updates_made = int(rng.integers(1, 40))
        # few distinct values: ties, which the first of them wins; -inf: an age whose
        # strength underflowed
        strengths = rng.choice([-2.0, -1.0, -0.5, 0.0, -np.inf], size=8)
        strength_of = rng.integers(0, 8, size=updates_made + 5)
        noise = rng.choice([0.0, 0.25, -0.25], size=2 * updates_made)
        count = int(rng.integers(1, updates_made + 1))
        updates = np.zeros(count + 7, np.int64)  # room beyond the count, never read
        updates[:count] = np.sort(rng.choice(updates_made, size=count, replace=False))
        updates[count:] = 10**9
        offset = float(rng.choice([0.0, -1.0, -0.5]))
        tau = float(rng.choice([-3.0, -1.0, 0.0, 1.0]))
        expected = _searcher(strengths, strength_of)._best(updates[:count], noise, offset,
                                                           tau)
        found = compiled(strengths, strength_of, updates, count, noise, offset, tau)
        assert found[:3] == expected[:3]
        if expected[2] >= 0:
            roots += 1
            assert found[3] == expected[3]
    assert 30 < roots < 270  # leaves and roots both searched


def _run(*, keep: bool, compiled: bool, step: float, settings: bool,
         seed: int = 0) -> tuple[list, TokenMemory, object]:
    """Updates (one player far more often than the others, so its kept arrays grow) and
    decisions' recalls on a clock moving by ``step``; ``settings`` changes the memory's
    settings now and then, as a model's user may between recalls. Also returns the
    kernels the run used (None: the NumPy path)."""
    actr_kernel.use(compiled)
    TokenMemory.keep_rows = keep
    try:
        memory = DeclarativeMemory(retrieval_threshold=-0.5, noise=0.3, decay=0.5,
                                   seed=np.random.default_rng(seed))
        tokens = TokenMemory(memory, leaf_penalty=1.0)
        tokens.truth = lambda seat: seat
        moves = np.random.default_rng(100 + seed)
        for seat in (1, 2):
            tokens.store(seat, 11)
        changes = [("decay", 0.3), ("noise", 0.6), ("noise_mode", "per_retrieval"),
                   ("noise_mode", "per_time"), ("base_level_learning", False),
                   ("base_level_learning", True), ("optimized_learning", True),
                   ("optimized_learning", False), ("decay", 0.5), ("noise", 0.3)]
        out: list = []
        for turn in range(150):
            memory.advance(step)
            if settings and turn % 12 == 5 and changes:
                setattr(memory, *changes.pop(0))
            if turn % 5 == 0:
                out.extend(tokens.recall(seat) for seat in (1, 2, 3))
            else:
                seat = 1 if turn % 5 < 4 else 2
                out.append(tokens.update(seat, -1 if moves.random() < 0.7 else 6))
        return out, tokens, actr_kernel.kernels()
    finally:
        actr_kernel.use(True)
        TokenMemory.keep_rows = True


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("step,settings", [(1.0, False), (0.1, False), (1.0, True)])
def test_long_histories_and_changed_settings_recall_what_the_memory_retrieves(
        compiled, step, settings, counted):
    """120 updates of one player (its kept arrays grow past 16, 32 and 64, and the grid
    indices past 64 updates); a step of 0.1 takes the clock off its exact grid."""
    reference, by_memory, _ = _run(keep=False, compiled=compiled, step=step, settings=settings)
    assert counted[0] == 0
    kept, by_rows, used = _run(keep=True, compiled=compiled, step=step, settings=settings)
    assert kept == reference
    _same_memories(by_rows.memory, by_memory.memory)
    assert {r.source for r in kept} == {"leaf", "root", "default"}
    assert max(by_rows._kept[1][1], by_rows._kept[2][1]) > 64
    if settings:  # the changed settings took the memory's retrievals, the others not
        assert 0 < counted[0] < len(kept) - 30
    else:
        assert counted[0] == len(kept)
    if used is not None:  # one machine code for every call
        assert len(used.recall_best.signatures) == 1
