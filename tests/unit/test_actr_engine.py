"""The one ACT-R memory engine (docs/architecture.md, "The ACT-R memory engine"): blending
over the declarative memory's parts gives the bits the separate engine gave, a dropped
reference counts for nothing, and a slot column that turns from numbers to symbols keeps
every row's value."""
from __future__ import annotations

import hashlib

import numpy as np

from nothanks.actr import (
    BlendingLearner,
    DeclarativeMemory,
    ExactMatch,
    InstanceMemory,
    Linear,
    Similarity,
    Weber,
)
from nothanks.actr.base_level import BaseLevels
from nothanks.actr.store import ChunkStore

#: sha256 of ``repr(_blending_outputs())`` with InstanceMemory's own base levels, generator,
#: exact-match index and value columns (f3a2c37, before it blended over the store).
BEFORE_THE_COMPOSITION = "e4417dfdcdcd06003d88712083bd5db4a4b98fb8503be6103689ad93a05def70"


def _blending_outputs() -> list:
    """Blended values, credited outcomes, a detailed blend and the generator's state of
    three learners (partial and exact matching, symbols, delayed outcomes, d = 0.5 / 0.3 / 0)."""
    outputs: list = []
    for decay, mp, similarity, credit, symbols in (
            (0.5, 1.0, {"a": Linear(4), "c": Similarity(ExactMatch(), 2.0)}, "td", False),
            (0.3, 2.0, {"a": Weber()}, "exponential", True),
            (0.0, 1.0, {"a": Linear(4), "b": ExactMatch()}, "equal", False)):
        memory = InstanceMemory(("a", "b", "c"), decay=decay, noise=0.3, mismatch_penalty=mp,
                                similarity=similarity, seed=7)
        learner = BlendingLearner(memory, credit=credit, gamma=0.7, default_utility=5.0)
        rng = np.random.default_rng(3)
        for step in range(120):
            options = [(int(rng.integers(1, 6)), bool(rng.integers(2)),
                        ("x", "y", 3)[int(rng.integers(3))] if symbols
                        else int(rng.integers(0, 3))) for _ in range(3)]
            outputs.append(learner.choose(options))
            learner.step(float(rng.uniform(0, 10)))
            if step % 6 == 5:
                outputs.append(learner.end_episode(float(rng.uniform(-1, 1))))
        memory.advance(1)
        blend = memory.blend(options[0], details=True)
        outputs.append((blend.value, blend.rows.tolist(), blend.probabilities.tolist(),
                        len(memory), memory.instances()[:3]))
        outputs.append(memory.rng.bit_generator.state)
    return outputs


def test_blending_over_the_store_gives_the_bits_of_the_separate_engine():
    digest = hashlib.sha256(repr(_blending_outputs()).encode()).hexdigest()
    assert digest == BEFORE_THE_COMPOSITION


def test_a_dropped_reference_counts_for_nothing():
    kept, dropped = ChunkStore(), ChunkStore()
    for store in (kept, dropped):
        store.add({"a": 1}, None, 0.0)
        store.add({"a": 2}, None, 1.0)
    dropped.add({"a": 1}, None, 2.0)
    dropped.drop_reference(2)
    kept.add({"a": 3}, None, 2.0)
    dropped.add({"a": 3}, None, 2.0)
    levels = [BaseLevels(store, decay=0.5, optimized_learning=False, learning=True).at(5.0)
              for store in (kept, dropped)]
    assert dropped.dropped == 1 and levels[0].tobytes() == levels[1].tobytes()
    assert np.isfinite(levels[1]).all()


def test_a_column_turning_from_numbers_to_symbols_keeps_every_rows_value():
    memory = DeclarativeMemory(seed=0, noise=0.0)
    for value in (1, "x", 2, "y"):
        memory.add({"a": value, "b": 0}, fixed_activation=0.0)
    assert memory.store.columns["a"].values.view().tolist() == [1, "x", 2, "y"]

    class Closeness:  # a user-defined vectorized mismatch: 0 for 2, −1 otherwise
        def __call__(self, request, value):
            return 0.0 if value == request else -1.0

        def vectorized(self, request, values):
            return np.array([self(request, value) for value in values])

    memory.set_mismatch("a", Closeness())
    assert memory.retrieve({"a": 2}).chunk["a"] == 2
