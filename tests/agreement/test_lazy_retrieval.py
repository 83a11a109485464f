"""The lazy retrieval (``nothanks.kernels.retrieval``) returns exactly the eager one's chunk
and activation: every chunk's noise drawn from the counter stream (its NumPy reference,
``actr.counter_noise``), ``(B + ε) + Σm·MP`` for all of them, NumPy's ``argmax``. Over
random memories, queries, stream keys and positions, ties, NaNs and infinite base levels;
whether the noise comes drawn, is drawn lazily and kept, or drawn lazily and dropped."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nothanks.actr import counter_noise
from nothanks.kernels import retrieval

# a score row's values: exact matches (0), near and far mismatches, the other categories
# (about 100 below), so ties between chunks are common
_SCORES = (0.0, -0.25, -0.5, -1.0, -2.0, -100.0)


def _eager(base, rows, penalty, noise):
    total = (base + noise) + (((rows[0] + rows[1]) + rows[2]) + rows[3]) * penalty
    best = int(np.argmax(total))
    return best, total[best]


def _same(a: tuple[int, float], b: tuple[int, float]) -> bool:
    return a[0] == b[0] and (a[1] == b[1] or (np.isnan(a[1]) and np.isnan(b[1])))


@st.composite
def _memories(draw):
    count = draw(st.integers(1, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # base levels: few distinct values (ties) or continuous ones; now and then -inf
    if draw(st.booleans()):
        base = rng.choice([-1.0, -0.5, 0.0, 0.5], count)
    else:
        base = rng.normal(0.0, draw(st.sampled_from([0.01, 1.0, 5.0])), count)
    special = draw(st.sampled_from([None, -np.inf, np.inf, np.nan]))
    if special is not None and draw(st.integers(0, 3)) == 0:
        base[rng.integers(count, size=draw(st.integers(1, count)))] = special
    rows = [rng.choice(_SCORES, count) for _ in range(4)]
    penalty = draw(st.sampled_from([0.5, 5.0, 20.0]))
    scale = draw(st.sampled_from([1e-6, 0.01, 0.1, 0.25, 1.0, 3.0]))
    key = np.array([draw(st.integers(0, 2**64 - 1)), draw(st.integers(0, 2**64 - 1))],
                   np.uint64)
    first = draw(st.integers(0, 2**62))
    return base, rows, penalty, scale, key, first


@settings(max_examples=400, deadline=None)
@given(_memories())
def test_lazy_and_windowed_retrievals_are_the_eager_one(memory):
    base, rows, penalty, scale, key, first = memory
    count = len(base)
    noise = counter_noise.logistic(key, first, count, scale)
    with np.errstate(invalid="ignore"):
        eager = _eager(base, rows, penalty, noise)
    start = np.uint64(first)
    odds = np.empty(1)
    det = np.empty(count)
    kept, drawn = np.empty(count), np.zeros(count, np.uint8)
    # drawn lazily and kept; then again from what was kept (another query's retrieval at
    # the same time reads the same draws)
    for _ in range(2):
        lazy = retrieval.lazy_best(base, *rows, penalty, kept, drawn, key[0], key[1], start,
                                   scale, det, odds)
        assert _same(lazy, eager)
    assert np.array_equal(kept[drawn == 1], noise[drawn == 1])  # kept: the stream's bits
    # the noise handed in drawn (every draw), and drawn lazily without keeping any
    no_flags = np.empty(0, np.uint8)
    assert _same(retrieval.lazy_best(base, *rows, penalty, noise, no_flags, key[0], key[1],
                                     start, scale, det, odds), eager)
    assert _same(retrieval.lazy_best(base, *rows, penalty, np.empty(0), no_flags, key[0],
                                     key[1], start, scale, det, odds), eager)
    window, margin = retrieval.window(base, *rows, penalty, scale, det)
    for given_noise in (noise, np.empty(0)):
        assert _same(retrieval.windowed_best(window, margin, base, *rows, penalty,
                                             given_noise, no_flags, key[0], key[1], start,
                                             scale, odds), eager)


def test_a_retrieval_draws_few_instances_of_a_thesis_sized_memory():
    """With 2,117 chunks and the models' s = 0.1, the lazy retrieval takes the logarithm
    of a handful of draws, not all of them: the saving is real, not only a bound."""
    rng = np.random.default_rng(7)
    count = 2117
    base = rng.normal(0.0, 0.5, count)
    rows = [rng.choice(_SCORES, count) for _ in range(4)]
    key = np.array([11, 12], np.uint64)
    kept, drawn = np.empty(count), np.zeros(count, np.uint8)
    eager = _eager(base, rows, 5.0, counter_noise.logistic(key, 99, count, 0.1))
    lazy = retrieval.lazy_best(base, *rows, 5.0, kept, drawn, key[0], key[1], np.uint64(99),
                               0.1, np.empty(count), np.empty(1))
    assert _same(lazy, eager)
    assert 1 <= drawn.sum() < count // 10
