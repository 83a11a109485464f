"""Lazy retrieval on the counter stream: the eager retrieval's chunk and activation, bit
for bit, computing the noise of only the instances that can still win.

An instance retrieval over n chunks (a ToM0 model's decision) is eagerly
``A_j = (B_j + ε_j) + Σm_j·MP`` for every j, then NumPy's ``argmax`` (the first maximum,
or the first NaN). Drawing ε_j for all n chunks dominated its cost. On the counter stream
ε_j is a pure function of position, and bounded: ``|ε_j| < s·36.74``
(``counter.MAX_LN_ODDS``). So with ``det_j = B_j + Σm_j·MP`` and M the exact activation of
the best so far, a chunk with ``det_j + s·36.74 < M`` cannot win and needs no draw; one
that passes gets its odds hashed, and the odds' binary exponent bounds ``ln(odds)`` before
any logarithm is taken. Survivors get the eager arithmetic exactly (same operations, same
order), and ties keep the lowest index, as ``argmax`` does. Every comparison that prunes
allows a margin (:func:`rounding_margin`) for the few ulps ``det_j + ε_j`` may differ from
``A_j``, so pruning never drops a chunk the eager retrieval could pick.

The memory's stream advances by n all the same (the caller reserves the positions), so
what comes after is unchanged. Nothing drawn is kept: a retrieval draws a few dozen
hashes and a logarithm or two, cheaper than keeping them for the next.

:func:`window` orders one query's chunks by ``det`` once, keeping those near the top;
:func:`windowed_best` then scans them in that order and stops at the first that cannot
win. With fixed base levels a query's window never changes, so a model keeps it.
"""
from __future__ import annotations

import math

import numpy as np

from .compiling import jit
from .counter import ln_bound, ln_of, logistic, odds_at
from .stream import MAX_LN_ODDS

#: The relative size of the margin pruning allows for rounding (``rounding_margin``): the
#: error of ``det_j + ε_j`` against ``A_j`` is a few units of 2⁻⁵³ of the magnitudes.
ROUNDING = 1e-12


@jit
def rounding_margin(base_extent, top, scale):
    """What pruning adds to an upper bound for rounding: ``ROUNDING`` times the largest
    magnitude an activation's additions can involve, from ``base_extent`` (the largest
    ``|B_j|``), the top det and the noise bound (every chunk that can win has a det
    within twice the noise bound of ``top``)."""
    return ROUNDING * (base_extent + 6.0 * abs(top) + 9.0 * scale * MAX_LN_ODDS + 1.0)


#: An activation's bits as an integer that orders as the activation does (negative
#: values' other bits flipped): the largest is found by an integer reduction, which the
#: compiler vectorizes (a float maximum it leaves as a chain of comparisons, each waiting
#: for the last). ±0 order apart here, but the first index holding the best is searched
#: by float equality, as NumPy's argmax compares.
_MAGNITUDE = 0x7FFFFFFFFFFFFFFF
_KEY_OF_MINUS_INF = -0x7FF0000000000001  # 0xFFF0... with its magnitude flipped
_KEY_OF_INF = 0x7FF0000000000000


@jit
def first_best(values, scratch):
    """NumPy's ``argmax`` of ``values`` with its value: the first maximum, or the first NaN
    if there is one (an integer reduction the compiler vectorizes, then a search);
    ``scratch``: room for one int64."""
    count = values.shape[0]
    keys = values.view(np.int64)
    top = -_MAGNITUDE - 1
    low = _MAGNITUDE
    for i in range(count):
        bits = keys[i]
        key = bits ^ ((bits >> 63) & _MAGNITUDE)
        top = key if key > top else top
        low = key if key < low else low
    if top > _KEY_OF_INF or low < _KEY_OF_MINUS_INF:  # a NaN: the first one
        for i in range(count):
            if values[i] != values[i]:
                return i, values[i]
    scratch[0] = top ^ ((top >> 63) & _MAGNITUDE)
    best = scratch.view(np.float64)[0]
    for i in range(count):
        if values[i] == best:
            return i, values[i]
    return 0, values[0]


@jit
def _draw(key1, key2, first, i, scale):
    """Chunk ``i``'s noise: the stream's value at ``first + i`` times ``scale`` (scalars
    only: a compiled call passing arrays pays for their reference counts)."""
    return scale * ln_of(odds_at(key1, key2, first + np.uint64(i)))


@jit
def _draw_reaching(key1, key2, first, i, scale, det_i, bar):
    """Chunk ``i``'s noise if ``det_i`` plus it may reach ``bar``, else NaN: the odds are
    hashed, and their logarithm taken only if their exponent does not rule it out."""
    odds = odds_at(key1, key2, first + np.uint64(i))
    if det_i + scale * ln_bound(odds) < bar:
        return math.nan
    return scale * ln_of(odds)


@jit
def _challenge(i, det_i, key1, key2, first, scale, base_i, summed_i, penalty, best,
               activation):
    """The best (index, activation) after chunk ``i`` (det ``det_i`` plus the rounding
    margin, base level ``base_i``, summed scores ``summed_i``) challenges ``best``: its
    noise is drawn if it may reach the best; its activation the eager additions; a tie
    goes to the lower index, as ``argmax``'s first maximum."""
    drawn = _draw_reaching(key1, key2, first, i, scale, det_i, activation)
    if drawn != drawn:
        return best, activation
    value = (base_i + drawn) + summed_i * penalty
    if value > activation or (value == activation and i < best):
        return i, value
    return best, activation


@jit
def eager_best(base, by_category, by_card, on_card, owned, penalty, noise, out):
    """The eager retrieval itself, with ``noise`` holding every chunk's draw: every
    activation into ``out``, then NumPy's ``argmax`` (:func:`first_best`)."""
    count = base.shape[0]
    for i in range(count):
        out[i] = (base[i] + noise[i]) + (
            ((by_category[i] + by_card[i]) + on_card[i]) + owned[i]) * penalty
    return first_best(out[:count], np.empty(1, np.int64))


@jit
def _eager(base, by_category, by_card, on_card, owned, penalty, noise, key1, key2, first,
           scale, out):
    """:func:`eager_best`, the noise drawn first when not given."""
    if noise.shape[0] == 0:
        noise = logistic(key1, key2, first, scale, np.empty(base.shape[0]))
    return eager_best(base, by_category, by_card, on_card, owned, penalty, noise, out)


@jit
def lazy_best(base, base_extent, by_category, by_card, on_card, owned, penalty, noise, key1,
              key2, first, scale, det):
    """The eager retrieval's (first best index, its activation) over every chunk, with
    ``A_j = (base_j + ε_j) + (((by_category_j + by_card_j) + on_card_j) + owned_j)·penalty``.

    Noise: ``noise`` holds every chunk's draw, or is empty: then chunk j's draw is the
    value at position ``first + j`` (uint64) of the counter stream keyed
    ``(key1, key2)``, times ``scale`` (> 0), computed only where needed.
    ``base_extent``: the largest finite ``|base_j|`` (or more); ``det``: room for n
    values."""
    count = base.shape[0]
    if noise.shape[0] != 0:  # drawn already, nothing to save: the eager pass
        return eager_best(base, by_category, by_card, on_card, owned, penalty, noise, det)
    for i in range(count):
        det[i] = base[i] + (((by_category[i] + by_card[i]) + on_card[i]) + owned[i]) * penalty
    best, top = first_best(det[:count], np.empty(1, np.int64))
    if top != top or math.isinf(top):  # NaN, or no finite best: eagerly
        return _eager(base, by_category, by_card, on_card, owned, penalty, noise, key1, key2,
                      first, scale, det)
    top_index = best
    activation = (base[best] + _draw(key1, key2, first, best, scale)) + (
        ((by_category[best] + by_card[best]) + on_card[best]) + owned[best]) * penalty
    margin = rounding_margin(base_extent, top, scale)
    reach = scale * MAX_LN_ODDS + margin
    for i in range(count):
        det_i = det[i]
        if det_i + reach < activation or i == top_index:
            continue
        best, activation = _challenge(
            i, det_i + margin, key1, key2, first, scale, base[i],
            ((by_category[i] + by_card[i]) + on_card[i]) + owned[i], penalty, best,
            activation)
    return best, activation


#: How far below the top det (beyond the noise bound) a window reaches, in units of s:
#: a retrieval the window does not settle (the top chunk's noise below -10·s, chance
#: about 5·10⁻⁵ at any s) passes over every chunk instead.
WINDOW_SLACK = 10.0


@jit
def window(base, base_extent, by_category, by_card, on_card, owned, penalty, scale, det):
    """One query's candidates for :func:`windowed_best`: (the chunks whose det lies within
    the noise bound plus ``WINDOW_SLACK``·s of the top det, ordered by det from the top
    (int32); their summed scores; the lowest det they may have, ``cutoff``: every other
    chunk's det is below it; the :func:`rounding_margin` used). Empty when some det is
    NaN or none is finite (then :func:`windowed_best` retrieves over every chunk).
    ``det``: room for n values."""
    count = base.shape[0]
    for i in range(count):
        det[i] = base[i] + (((by_category[i] + by_card[i]) + on_card[i]) + owned[i]) * penalty
    _, top = first_best(det[:count], np.empty(1, np.int64))
    margin = rounding_margin(base_extent, top, scale)
    if top != top or math.isinf(top):
        return np.empty(0, np.int32), np.empty(0), top, margin
    cutoff = top - (scale * (MAX_LN_ODDS + WINDOW_SLACK) + margin)
    inside = np.flatnonzero(det[:count] >= cutoff)
    indices = inside[np.argsort(-det[inside])]
    summed = np.empty(indices.shape[0])
    for w in range(indices.shape[0]):
        i = indices[w]
        summed[w] = ((by_category[i] + by_card[i]) + on_card[i]) + owned[i]
    return indices.astype(np.int32), summed, cutoff, margin


@jit
def windowed_best(indices, summed, cutoff, margin, base, base_extent, by_category, by_card,
                  on_card, owned, penalty, noise, key1, key2, first, scale, det):
    """:func:`lazy_best` over a query's :func:`window` (``indices``, their summed scores,
    ``cutoff`` and the ``margin`` it was made with): the same (first best index,
    activation), scanning from the top det and stopping at the first chunk that cannot
    win; when the window does not settle it (or is empty: a query met for the first
    time), :func:`lazy_best` itself. The window keeps each chunk's summed scores beside
    its index, so the scan reads them in order instead of gathering from four rows."""
    size = indices.shape[0]
    if size == 0 or noise.shape[0] != 0:
        return lazy_best(base, base_extent, by_category, by_card, on_card, owned, penalty,
                         noise, key1, key2, first, scale, det)
    best = np.int64(indices[0])
    activation = (base[best] + _draw(key1, key2, first, best, scale)) + summed[0] * penalty
    reach = scale * MAX_LN_ODDS + margin
    for w in range(1, size):
        i = np.int64(indices[w])
        det_i = base[i] + summed[w] * penalty
        if det_i + reach < activation:
            return best, activation
        best, activation = _challenge(i, det_i + margin, key1, key2, first, scale, base[i],
                                      summed[w], penalty, best, activation)
    if cutoff + reach < activation:  # no chunk outside the window can reach it
        return best, activation
    return lazy_best(base, base_extent, by_category, by_card, on_card, owned, penalty, noise,
                     key1, key2, first, scale, det)
