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
    finite = np.abs(base[np.isfinite(base)])
    extent = finite.max() if len(finite) else 0.0
    det = np.empty(count)
    window = retrieval.window(base, extent, *rows, penalty, scale, np.empty(count))
    # the noise drawn lazily (empty) or handed in drawn
    for given_noise in (np.empty(0), noise):
        assert _same(retrieval.lazy_best(base, extent, *rows, penalty, given_noise, key[0],
                                         key[1], start, scale, det), eager)
        assert _same(retrieval.windowed_best(*window, base, extent, *rows, penalty,
                                             given_noise, key[0], key[1], start, scale, det),
                     eager)


def test_a_window_that_does_not_settle_the_retrieval_passes_over_every_chunk():
    """When the top chunk's noise falls below the window's slack (chance ~5e-5), chunks
    outside the window are not ruled out by the window alone: the retrieval goes over
    every chunk, and is still the eager one."""
    key, scale, count = np.array([5, 6], np.uint64), 0.1, 50
    positions = np.arange(200_000)
    draws = counter_noise.logistic(key, 0, len(positions), scale)
    first = int(positions[np.argmax(draws < -retrieval.WINDOW_SLACK * scale)])
    assert draws[first] < -retrieval.WINDOW_SLACK * scale  # chunk 0's draw at `first`
    base = np.zeros(count)
    base[0] = 1.0  # the top det: chunk 0; the others 1 below (all inside the window)
    base[1:10] = -4.0  # and some outside it
    rows = [np.zeros(count)] * 4
    noise = counter_noise.logistic(key, first, count, scale)
    eager = _eager(base, rows, 5.0, noise)
    window = retrieval.window(base, 4.0, *rows, 5.0, scale, np.empty(count))
    assert 0 < len(window[0]) < count
    assert _same(retrieval.windowed_best(*window, base, 4.0, *rows, 5.0, np.empty(0), key[0],
                                         key[1], np.uint64(first), scale, np.empty(count)),
                 eager)
