"""Lazy retrieval on the counter stream: the eager retrieval's chunk and activation, bit
for bit, computing the noise of only the instances that can still win.

An instance retrieval over n chunks (a ToM0 decision, each of a ToM-k decision's ToM0
asks) is eagerly ``A_j = (B_j + ε_j) + Σm_j·MP`` for every j, then NumPy's ``argmax`` (the
first maximum, or the first NaN). Drawing ε_j for all n chunks dominated its cost. On the
counter stream ε_j is a pure function of position, and bounded: ``|ε_j| < s·36.74``
(``counter.MAX_LN_ODDS``). So with ``det_j = B_j + Σm_j·MP`` and M the exact activation of
the best so far, a chunk with ``det_j + s·36.74 < M`` cannot win and needs no draw; one
that passes gets its odds hashed, and the odds' binary exponent bounds ``ln(odds)`` before
any logarithm is taken. Survivors get the eager arithmetic exactly (same operations, same
order), and ties keep the lowest index, as ``argmax`` does. Every comparison that prunes
allows a margin (:func:`rounding_margin`) for the few ulps ``det_j + ε_j`` may differ from
``A_j``, so pruning never drops a chunk the eager retrieval could pick.

The memory's stream advances by n all the same (the caller reserves the positions), so
what comes after is unchanged. The noise drawn is kept (``noise`` with ``known``) for the
next retrieval at the same model time (per-time noise).

:func:`window` orders one query's chunks by ``det`` once, keeping those within
``2·s·36.74`` of the top (no chunk below can beat the top's activation);
:func:`windowed_best` then scans them in that order and stops at the first that cannot
win. With fixed base levels a query's window never changes, so a model keeps it.
"""
from __future__ import annotations

import math

import numpy as np

from .compiling import jit
from .counter import ln_odds, ln_odds_bound, odds_at
from .stream import MAX_LN_ODDS

#: The relative size of the margin pruning allows for rounding (``rounding_margin``): the
#: error of ``det_j + ε_j`` against ``A_j`` is a few units of 2⁻⁵³ of the magnitudes.
ROUNDING = 1e-12


@jit
def rounding_margin(largest, scale):
    """What pruning adds to an upper bound: ``ROUNDING`` times the largest magnitude
    (``largest``: of any base level, det and the noise bound) and the noise scale."""
    return ROUNDING * (largest + scale * MAX_LN_ODDS + 1.0)


@jit
def _draw(i, noise, known, key1, key2, first, scale, odds, words):
    """The noise of chunk ``i`` (:func:`lazy_best` says where it comes from)."""
    if noise.shape[0] != 0 and (known.shape[0] == 0 or known[i]):
        return noise[i]
    odds[0] = odds_at(key1, key2, first + np.uint64(i))
    value = scale * ln_odds(words[0])
    if noise.shape[0] != 0:
        noise[i] = value
        known[i] = 1
    return value


@jit
def _contender(i, det_i, bar, noise, known, key1, key2, first, scale, odds, words):
    """Chunk ``i``'s noise if it may still reach ``bar`` (its activation's upper bound
    ``det_i`` + noise bound is not below), else NaN; an unknown draw is hashed first and
    its logarithm taken only if the odds' exponent does not already rule it out."""
    if noise.shape[0] != 0 and (known.shape[0] == 0 or known[i]):
        return noise[i]
    odds[0] = odds_at(key1, key2, first + np.uint64(i))
    word = words[0]
    if det_i + scale * ln_odds_bound(word) < bar:
        return math.nan
    value = scale * ln_odds(word)
    if noise.shape[0] != 0:
        noise[i] = value
        known[i] = 1
    return value


@jit
def _eager(base, by_category, by_card, on_card, owned, penalty, noise, known, key1, key2,
           first, scale, odds, words):
    """Every chunk's activation, then NumPy's ``argmax`` (the first NaN, else the first
    maximum): for the rare retrieval whose det holds a NaN."""
    best = 0
    top = -math.inf
    for i in range(base.shape[0]):
        value = (base[i] + _draw(i, noise, known, key1, key2, first, scale, odds, words)) + (
            ((by_category[i] + by_card[i]) + on_card[i]) + owned[i]) * penalty
        if value != value:
            return i, value
        if value > top or i == 0:
            top = value
            best = i
    return best, top


@jit
def lazy_best(base, by_category, by_card, on_card, owned, penalty, noise, known, key1, key2,
              first, scale, det, odds):
    """The eager retrieval's (first best index, its activation) over every chunk, with
    ``A_j = (base_j + ε_j) + (((by_category_j + by_card_j) + on_card_j) + owned_j)·penalty``.

    Noise: chunk j's draw is the value at position ``first + j`` (uint64) of the counter
    stream keyed ``(key1, key2)``, times ``scale`` (> 0). ``noise`` empty: drawn when
    needed, nothing kept; else ``known`` empty: ``noise`` holds every draw; else
    ``noise[j]`` holds it where ``known[j]``, and the others are drawn when needed and
    kept there.
    ``det``: room for n values; ``odds``: room for one."""
    count = base.shape[0]
    words = odds.view(np.int64)
    top = -math.inf
    top_index = -1
    largest = 0.0
    undefined = False
    for i in range(count):
        value = base[i] + (((by_category[i] + by_card[i]) + on_card[i]) + owned[i]) * penalty
        det[i] = value
        undefined |= value != value
        if value > top:
            top = value
            top_index = i
        largest = max(largest, abs(value), abs(base[i]))
    if undefined or top_index < 0 or math.isinf(top):  # NaN, or no finite best: eagerly
        return _eager(base, by_category, by_card, on_card, owned, penalty, noise, known,
                      key1, key2, first, scale, odds, words)
    best = top_index
    activation = (base[best] + _draw(best, noise, known, key1, key2, first, scale, odds,
                                     words)) + (((by_category[best] + by_card[best])
                                                 + on_card[best]) + owned[best]) * penalty
    margin = rounding_margin(largest, scale)
    reach = scale * MAX_LN_ODDS + margin
    for i in range(count):
        det_i = det[i]
        if det_i + reach < activation or i == top_index:
            continue
        drawn = _contender(i, det_i + margin, activation, noise, known, key1, key2, first,
                           scale, odds, words)
        if drawn != drawn:
            continue
        value = (base[i] + drawn) + (
            ((by_category[i] + by_card[i]) + on_card[i]) + owned[i]) * penalty
        if value > activation or (value == activation and i < best):
            activation = value
            best = i
    return best, activation


@jit
def window(base, by_category, by_card, on_card, owned, penalty, scale, det):
    """One query's candidates for :func:`windowed_best`: the chunks whose det lies within
    ``2·s·36.74`` (plus :func:`rounding_margin`) of the top det, ordered by det from the
    top (ties by index), as (one int64 array: their indices, then their det's bits; the
    :func:`rounding_margin` used). A chunk below that cannot beat the top chunk's
    activation whatever the noise. Empty when some det is NaN or none is finite (then
    :func:`windowed_best` retrieves eagerly). ``det``: room for n values."""
    count = base.shape[0]
    top = -math.inf
    largest = 0.0
    undefined = False
    for i in range(count):
        value = base[i] + (((by_category[i] + by_card[i]) + on_card[i]) + owned[i]) * penalty
        det[i] = value
        undefined |= value != value
        top = max(top, value)
        largest = max(largest, abs(value), abs(base[i]))
    margin = rounding_margin(largest, scale)
    if undefined or math.isinf(top):
        return np.empty(0, np.int64), margin
    floor = top - 2.0 * (scale * MAX_LN_ODDS + margin)
    inside = np.flatnonzero(det[:count] >= floor)
    order = np.argsort(-det[inside], kind="mergesort")  # stable: ties by index
    size = inside.shape[0]
    packed = np.empty(2 * size, np.int64)
    dets = packed[size:].view(np.float64)
    for w in range(size):
        packed[w] = inside[order[w]]
        dets[w] = det[packed[w]]
    return packed, margin


@jit
def windowed_best(packed, margin, base, by_category, by_card, on_card, owned, penalty,
                  noise, known, key1, key2, first, scale, odds):
    """:func:`lazy_best` over a query's :func:`window` (``packed`` and the ``margin`` it
    was made with): the same (first best index, activation), scanning from the top det
    and stopping at the first chunk that cannot win; an empty window retrieves eagerly."""
    words = odds.view(np.int64)
    size = packed.shape[0] // 2
    if size == 0:
        return _eager(base, by_category, by_card, on_card, owned, penalty, noise, known,
                      key1, key2, first, scale, odds, words)
    dets = packed[size:].view(np.float64)
    best = packed[0]
    activation = (base[best] + _draw(best, noise, known, key1, key2, first, scale, odds,
                                     words)) + (((by_category[best] + by_card[best])
                                                 + on_card[best]) + owned[best]) * penalty
    reach = scale * MAX_LN_ODDS + margin
    for w in range(1, size):
        det_i = dets[w]
        if det_i + reach < activation:
            break
        i = packed[w]
        drawn = _contender(i, det_i + margin, activation, noise, known, key1, key2, first,
                           scale, odds, words)
        if drawn != drawn:
            continue
        value = (base[i] + drawn) + (
            ((by_category[i] + by_card[i]) + on_card[i]) + owned[i]) * penalty
        if value > activation or (value == activation and i < best):
            activation = value
            best = i
    return best, activation
