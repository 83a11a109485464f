"""The token memory's kept rows recall exactly what the declarative memory's own
retrievals recall (the engine against the reference, ``kernels.reference_mode``): the
same recalls (every field, bit for bit), the same chunks and references in the memory
and the same random state afterwards (whole games: tests/integration/agreement/test_games.py).

The token memory's one-call recall (leaf, then root only if the leaf fails): the
compiled search finds the chunks and activations NumPy's argmax finds, long histories grow
the kept arrays without changing a recall, and memory settings changed between recalls
give what the memory's own retrievals give."""
from __future__ import annotations

import math

import numpy as np
import pytest

from nothanks.actr import DeclarativeMemory
from nothanks.actr import kernel as actr_kernel
from nothanks.actr.memory import CurrentTimeReferenceError
from nothanks.agents.cognitive import TokenMemory
from nothanks.kernels import reference_mode


def _history(seed: int, *, engine: bool, leaf_penalty: float, rt: float,
             noise: float, merge: bool = False, touch: bool = False, record: bool = False,
             external: bool = False, decay: float = 0.5) -> tuple[list, TokenMemory]:
    """A random run of updates, recalls and clock steps (sometimes none, so a chunk can
    be needed at its own storing time); ``touch`` reads the memory now and then
    (storing the waiting chunks), ``record`` switches records on and off, ``external``
    adds a chunk of another kind to the memory directly."""
    with reference_mode(not engine):
        memory = DeclarativeMemory(retrieval_threshold=rt, noise=noise, decay=decay,
                                   seed=np.random.default_rng(seed))
        tokens = TokenMemory(memory, leaf_penalty=leaf_penalty, merge=merge)
        tokens.truth = lambda seat: 100 + seat
        ops = np.random.default_rng(1000 + seed)
        out: list = []
        for seat in (1, 2, 3):  # seat 4 is only ever stored by an update
            tokens.store(seat, 11)
        memory.advance(1.0)
        for step in range(110):
            r = ops.random()
            seat = int(ops.integers(1, 5))
            try:
                if r < 0.4:
                    change = -1 if ops.random() < 0.75 else int(ops.integers(1, 15))
                    out.append(tokens.update(seat, change))
                    if ops.random() < 0.8:  # mostly, as in a game, time passes after one
                        memory.advance(float(ops.choice([0.25, 1.0, 1.5])))
                elif r < 0.7:
                    out.append(tokens.recall(seat))
                elif r < 0.75 and touch:
                    out.append((len(tokens.memory), tokens.memory.references(
                        tokens.memory.chunks[-1])))
                elif r < 0.8 and record:
                    tokens.record = not tokens.record
                elif r < 0.82 and external and step > 50:
                    tokens.memory.add({"kind": "other", "step": step})
                else:
                    memory.advance(float(ops.choice([0.0, 0.25, 1.0, 1.0, 2.5])))
            except CurrentTimeReferenceError as error:
                out.append(str(error))
        return out, tokens


def _same_memories(a: DeclarativeMemory, b: DeclarativeMemory) -> None:
    assert a.time == b.time
    assert a.chunks == b.chunks
    assert [c.slots for c in a.chunks] == [c.slots for c in b.chunks]  # slot order too
    assert [a.references(c) for c in a.chunks] == [b.references(c) for c in b.chunks]
    state_a, state_b = a.random_state(), b.random_state()
    assert state_a[0].bit_generator.state == state_b[0].bit_generator.state
    assert np.array_equal(state_a[1], state_b[1])
    assert state_a[2:4] == state_b[2:4]
    assert (state_a[4] is None) == (state_b[4] is None)
    if state_a[4] is not None:
        assert np.array_equal(state_a[4], state_b[4])
    assert state_a[5] == state_b[5] or (math.isnan(state_a[5]) and math.isnan(state_b[5]))


CASES = [  # (leaf_penalty, rt, noise): leaves, roots and defaults all win somewhere
    (1.0, -1.0, 0.25), (0.0, -2.0, 0.25), (2.5, -0.5, 0.5), (1.0, 1.5, 0.8),
    (0.0, 4.0, 0.25), (1.0, -8.0, 0.05), (1.0, -1.0, 0.0),
]


@pytest.mark.parametrize("leaf_penalty,rt,noise", CASES)
def test_kept_rows_recall_what_the_memory_retrieves(leaf_penalty, rt, noise, counted):
    sources = set()
    for seed in range(3):
        args = {"leaf_penalty": leaf_penalty, "rt": rt, "noise": noise,
                "touch": seed == 1, "decay": 0.5 if seed else 0.3}
        before = counted[0]
        reference, by_memory = _history(seed, engine=False, **args)
        assert counted[0] == before
        kept, by_rows = _history(seed, engine=True, **args)
        assert kept == reference  # every field: activations, latencies, sources, ...
        _same_memories(by_rows.memory, by_memory.memory)
        sources |= {r.source for r in kept if hasattr(r, "source")}
    if noise > 0:
        assert counted[0] > 100  # the kept rows answered most recalls
    else:
        assert counted[0] == 0  # without noise ties are drawn at random: the memory's way
    if rt <= -8:
        assert sources == {"leaf", "default"}  # default: a player never stored
    if rt >= 4:
        assert sources == {"default"}


def test_records_merges_and_outside_chunks_fall_back_to_the_memory(counted):
    for seed in range(2):
        args = {"leaf_penalty": 1.0, "rt": -0.5, "noise": 0.3}
        for switches in ({"record": True}, {"external": True, "touch": True}):
            reference, by_memory = _history(seed, engine=False, **args, **switches)
            before = counted[0]
            kept, by_rows = _history(seed, engine=True, **args, **switches)
            assert counted[0] > before
            assert kept == reference  # records included: they are the memory's
            _same_memories(by_rows.memory, by_memory.memory)
            if "record" in switches:
                assert any(r.leaf_record is not None for r in kept if hasattr(r, "leaf_record"))
        before = counted[0]
        merged, by_memory = _history(seed, engine=True, merge=True, **args)
        assert counted[0] == before and by_memory._synced == by_memory._count
        assert merged == _history(seed, engine=False, merge=True, **args)[0]


def test_chunks_reach_the_memory_when_it_is_read():
    memory = DeclarativeMemory(seed=1)
    tokens = TokenMemory(memory, leaf_penalty=1.0)
    tokens.store(1, 11)
    memory.advance(2.0)
    tokens.update(1, -1)
    assert len(memory) == 0  # still waiting ...
    assert len(tokens.memory) == 4  # ... until read, each at its own time
    assert [tokens.memory.references(c) for c in tokens.memory.chunks] == [(0.0,)] * 2 + [
        (2.0,)] * 2
    assert tokens.memory.time == 2.0
    assert {"kind": "root", "player": 1, "class": "sufficient", "update": 2} in tokens.memory


@pytest.mark.parametrize("engine", [True, False])
def test_a_bad_leaf_penalty_fails_the_same_way_on_both_paths(engine):
    with reference_mode(not engine):
        tokens = TokenMemory(DeclarativeMemory(seed=2), leaf_penalty=math.inf)
        tokens.store(1, 5)
        tokens.memory.advance(1.0)
        with pytest.raises(ValueError, match="offset must be finite"):
            tokens.recall(1)


def _numpy_best(strengths, strength_of, updates, noise, offset, tau):
    """The compiled recall's answer in NumPy (its additions, ``B + ε`` then the offset if
    nonzero, and NumPy's argmax, as the memory's retrieval adds): the best leaf of
    ``updates``, and the best root when the leaf's activation is below ``tau``."""
    strengths = strengths[strength_of[updates]]
    rows = updates << 1
    total = strengths + noise[rows]
    if offset:
        total += offset
    best = int(total.argmax())
    activation = float(total[best])
    if activation >= tau:
        return int(updates[best]), activation, -1, activation
    total = strengths + noise[rows + 1]
    root = int(total.argmax())
    return int(updates[best]), activation, int(updates[root]), float(total[root])


def test_the_compiled_search_finds_the_numpy_first_best():
    compiled = actr_kernel.kernels().recall_best
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
        expected = _numpy_best(strengths, strength_of, updates[:count], noise, offset, tau)
        found = compiled(strengths, strength_of, updates, count, noise, offset, tau)
        assert found[:3] == expected[:3]
        if expected[2] >= 0:
            roots += 1
            assert found[3] == expected[3]
    assert 30 < roots < 270  # leaves and roots both searched


def _run(*, engine: bool, step: float, settings: bool,
         seed: int = 0) -> tuple[list, TokenMemory, object]:
    """Updates (one player far more often than the others, so its kept arrays grow) and
    decisions' recalls on a clock moving by ``step``; ``settings`` changes the memory's
    settings now and then, as a model's user may between recalls. Also returns the
    kernels the run used (None: the NumPy path)."""
    with reference_mode(not engine):
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


@pytest.mark.parametrize("step,settings", [(1.0, False), (0.1, False), (1.0, True)])
def test_long_histories_and_changed_settings_recall_what_the_memory_retrieves(
        step, settings, counted):
    """120 updates of one player (its kept arrays grow past 16, 32 and 64, and the grid
    indices past 64 updates); a step of 0.1 takes the clock off its exact grid."""
    reference, by_memory, _ = _run(engine=False, step=step, settings=settings)
    assert counted[0] == 0
    kept, by_rows, used = _run(engine=True, step=step, settings=settings)
    assert kept == reference
    _same_memories(by_rows.memory, by_memory.memory)
    assert {r.source for r in kept} == {"leaf", "root", "default"}
    assert max(by_rows._kept[1][1], by_rows._kept[2][1]) > 64
    if settings:  # the changed settings took the memory's retrievals, the others not
        assert 0 < counted[0] < len(kept) - 30
    else:
        assert counted[0] == len(kept)
    assert len(used.recall_best.signatures) == 1  # one machine code for every call
