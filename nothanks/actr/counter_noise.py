"""The counter noise stream: activation noise as a pure function of (key, position).

The default stream (``noise_stream="pcg64"``) draws uniforms from NumPy's PCG64 and takes
NumPy's ``log``, whose last bit depends on the CPU's SIMD code (docs/architecture.md,
"Same seed, same game"), and a draw of ToM0's 2,117 chunks costs more than the rest of
the decision. The counter stream (``noise_stream="counter"``) gives the logistic draw at
position ``p`` of a memory's stream as

    w = mix(mix(k₁ + p·γ) ⊕ k₂);   u = (⌊w / 2¹²⌋ + ½) / 2⁵²;   ε = s · ln(u / (1 − u))

with ``mix`` the SplitMix64 finalizer (Stafford's variant 13), γ the golden-ratio Weyl
increment, and a logarithm of our own (the fdlibm reduction and polynomial, written with
+, −, ×, ÷ only). Every step is an integer operation or one correctly rounded IEEE
operation in a fixed order, so the bits are the same on every machine and in both
implementations here: NumPy (the reference, used without numba) and the compiled kernel
(``actr.kernel``). ``u`` lies strictly inside (0, 1) and is symmetric about ½, so no draw is
ever redrawn, and the logarithm is within one ulp of the exact one (tested).

A draw's values depend only on its positions, never on how the stream was cut into draws
before it, so nothing is pre-drawn and no tail is skipped.
"""
from __future__ import annotations

import numpy as np

# The stream's constants live in ``nothanks.kernels.stream``.
from ..kernels.stream import (
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
    MANTISSA,
    MIX_1,
    MIX_2,
    SQRT2_MINUS_1,
    TWO_TO_MINUS_52,
)


def stream_key(rng: np.random.Generator) -> np.ndarray:
    """A stream's key (k₁, k₂): two raw 64-bit outputs of the memory's generator, so a
    seed gives one stream and memories seeded apart get unrelated ones."""
    return rng.bit_generator.random_raw(2).astype(np.uint64)


def _mix(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


def log_odds(odds: np.ndarray) -> np.ndarray:
    """``ln`` of positive normal doubles with the kernel's operations (same bits)."""
    bits = odds.view(np.int64)
    k = (bits >> 52) - 1023
    mantissa = (bits & MANTISSA).astype(np.float64) * TWO_TO_MINUS_52
    halved = mantissa > SQRT2_MINUS_1
    f = np.where(halved, (1.0 + mantissa) * 0.5 - 1.0, mantissa)
    dk = (k + halved).astype(np.float64)
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (LG2 + w * (LG4 + w * LG6))
    t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)))
    r = t2 + t1
    hfsq = 0.5 * f * f
    return dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f)


def logistic(key: np.ndarray, start: int, count: int, scale: float) -> np.ndarray:
    """Positions ``start`` … ``start + count − 1`` of the stream keyed ``key``, times
    ``scale`` (the NumPy reference of ``nothanks.kernels.counter.logistic``)."""
    position = np.arange(start, start + count, dtype=np.uint64)
    with np.errstate(over="ignore"):  # wrapping 64-bit arithmetic is the point
        w = _mix(_mix(key[0] + position * GAMMA) ^ key[1])
    m = (w >> np.uint64(12)).astype(np.float64)
    odds = (m + 0.5) / (HALF_BELOW_2_52 - m)
    return scale * log_odds(odds)
