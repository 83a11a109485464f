"""The counter noise stream, compiled: a draw is a pure function of (key, position).

``nothanks.actr.counter_noise`` states the stream and is its NumPy reference; this module
is the one compiled form of it: the odds ``u / (1 − u)`` at one position
(:func:`odds_at`), their logarithm (:func:`ln_odds`, fdlibm's reduction and polynomial
with +, −, ×, ÷ only) and a run of draws (:func:`logistic`). Both forms make the same
integer steps and the same correctly rounded IEEE operations in the same order, so they
give the same bits on every machine.

Because a draw depends only on its position, a retrieval may compute the draws of just
the instances that can still win and leave the others undrawn: the stream advances by
the same count either way (:mod:`nothanks.kernels.retrieval`). Every draw is bounded:
``|ln(odds)| <`` :data:`MAX_LN_ODDS` (``m + ½`` and ``2⁵² − ½ − m`` lie in
``[½, 2⁵² − ½]``, so ``odds`` lies in ``(2⁻⁵³, 2⁵³)``), and the binary exponent of the
odds bounds the logarithm without computing it.
"""
from __future__ import annotations

import math

import numpy as np

from .compiling import jit_vectorized
from .stream import (
    GAMMA,
    HALF_BELOW_2_52,
    LG1,
    LG2,
    LG3,
    LG4,
    LG5,
    LG6,
    LG7,
    LN2_HI,
    LN2_LO,
    LN2_UP,
    MANTISSA,
    MIX_1,
    MIX_2,
    SQRT2_MINUS_1,
    TWO_TO_MINUS_52,
)


@jit_vectorized
def odds_at(key1, key2, position):
    """The odds ``u / (1 − u)`` of the draw at ``position`` of the stream keyed
    ``(key1, key2)`` (uint64 each): two SplitMix64 finalizers, then ``m = ⌊w / 2¹²⌋``
    and ``(m + ½) / (2⁵² − ½ − m)``, exact up to the one division's rounding."""
    z = key1 + position * GAMMA
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    z = (z ^ (z >> np.uint64(31))) ^ key2
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    z = z ^ (z >> np.uint64(31))
    m = float(z >> np.uint64(12))
    return (m + 0.5) / (HALF_BELOW_2_52 - m)


@jit_vectorized
def _ln_reduced(k, mantissa):
    """fdlibm's logarithm of ``(1 + mantissa)·2^k`` (``mantissa`` in [0, 1): the stored
    fraction bits): the reduction to ``1 + f`` in [√2/2, √2) and the polynomial, within
    one ulp of the exact logarithm."""
    if mantissa > SQRT2_MINUS_1:
        f = (1.0 + mantissa) * 0.5 - 1.0
        k += 1
    else:
        f = mantissa
    dk = float(k)
    s = f / (2.0 + f)
    z2 = s * s
    w = z2 * z2
    t1 = w * (LG2 + w * (LG4 + w * LG6))
    t2 = z2 * (LG1 + w * (LG3 + w * (LG5 + w * LG7)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    return dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f)


@jit_vectorized
def ln_odds(word):
    """``ln`` of a positive normal double given as its bits ``word`` (int64): the form a
    loop over an array's bit view vectorizes."""
    return _ln_reduced((word >> 52) - 1023, float(word & MANTISSA) * TWO_TO_MINUS_52)


@jit_vectorized
def ln_of(odds):
    """``ln`` of one positive normal double, the same bits as :func:`ln_odds` (numba has
    no bit view of a scalar): ``frexp`` gives ``odds = m·2^e``, m in [½, 1), so the
    exponent is ``e − 1`` and the stored fraction ``2m − 1``, both exact."""
    m, e = math.frexp(odds)
    return _ln_reduced(e - 1, 2.0 * m - 1.0)


@jit_vectorized
def ln_bound(odds):
    """An upper bound on ``ln(odds)`` from the binary exponent alone (no logarithm):
    ``odds < 2^e`` with ``e`` from ``frexp``, so ``ln(odds) < e·ln 2`` (the caller allows
    for :func:`ln_odds`'s last bit)."""
    return float(math.frexp(odds)[1]) * LN2_UP


@jit_vectorized
def logistic(key1, key2, start, scale, out):
    """Positions ``start`` … ``start + len(out) − 1`` of the stream, times ``scale``, into
    ``out`` (returned): ``counter_noise.logistic``'s bits, in two passes (the odds, then
    their logarithms) that the compiler vectorizes."""
    count = out.shape[0]
    first = np.uint64(start)
    odds = np.empty(count)
    for i in range(count):
        odds[i] = odds_at(key1, key2, first + np.uint64(i))
    words = odds.view(np.int64)
    for i in range(count):
        out[i] = scale * ln_odds(words[i])
    return out
