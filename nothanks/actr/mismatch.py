"""Mismatch functions for partial matching (thesis §3.3, Table 2).

A mismatch function says how far a chunk's slot value is from the value a retrieval
request asks for: ``fn(request_value, chunk_value) -> float``, 0 for a perfect match
and more negative the worse the match. The memory multiplies it by the mismatch
penalty MP and adds it to the chunk's activation.

Any callable of that shape can be registered for a slot. The built-ins below also
offer ``vectorized(request_value, chunk_values) -> numpy array``, which the memory
uses to score every candidate in one numpy pass; a user function that provides the
same method is used the same way.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from numbers import Real
from typing import Any, Protocol, runtime_checkable

import numpy as np

MismatchFunction = Callable[[Any, Any], float]
"""``(request_value, chunk_value) -> float <= 0``."""


@runtime_checkable
class VectorizedMismatch(Protocol):
    """A mismatch function that can also score a whole array of chunk values at once."""

    def __call__(self, request_value: Any, chunk_value: Any) -> float: ...

    def vectorized(self, request_value: Any, chunk_values: np.ndarray) -> np.ndarray: ...


_PLAIN_REALS = (int, float)  # real numbers recognised without an ABC check


def _reals(values: Any) -> np.ndarray:
    """``values`` as a float64 array of real numbers, or a TypeError saying which is not."""
    for value in values:
        if type(value) not in _PLAIN_REALS:
            _real("request value", value)
    return np.asarray(values, dtype=np.float64)


def _real(name: str, value: Any) -> float:
    """``value`` as a float, or a TypeError naming the offending argument."""
    if not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    return float(value)


@dataclass(frozen=True, slots=True)
class ExactMatch:
    """0 for equal values, ``-weight`` otherwise; works for numbers and symbols alike.

    ACT-R's default similarity is exactly this with weight 1. The thesis's sequence
    category slot uses weight 100, so a chunk of another category is effectively never
    retrieved while partial matching still scores the other slots.
    """

    weight: float = 1.0

    def __post_init__(self) -> None:
        weight = _real("ExactMatch weight", self.weight)
        if not (math.isfinite(weight) and weight >= 0):
            raise ValueError(f"ExactMatch weight must be finite and >= 0, got {self.weight!r}")
        object.__setattr__(self, "weight", weight)

    def __call__(self, request_value: Hashable, chunk_value: Hashable) -> float:
        return 0.0 if request_value == chunk_value else -self.weight

    def vectorized(self, request_value: Hashable, chunk_values: np.ndarray) -> np.ndarray:
        return (chunk_values != request_value) * -self.weight


@dataclass(frozen=True, slots=True)
class Linear:
    """``-|x - y| / value_range``: distance on a scale of known width.

    The thesis scores the playing card this way with ``value_range`` 32 (cards 3-35),
    so neighbouring cards differ by 1/32 and the extremes by 1. Values farther apart
    than ``value_range`` give less than -1; nothing is clipped.
    """

    value_range: float

    def __post_init__(self) -> None:
        value_range = _real("Linear value_range", self.value_range)
        if not (math.isfinite(value_range) and value_range > 0):
            raise ValueError(f"Linear value_range must be finite and > 0, got {self.value_range!r}")
        object.__setattr__(self, "value_range", value_range)

    def __call__(self, request_value: Real, chunk_value: Real) -> float:
        x = _real("Linear request value", request_value)
        return -abs(x - _real("Linear chunk value", chunk_value)) / self.value_range

    def vectorized(self, request_value: Real, chunk_values: np.ndarray) -> np.ndarray:
        x = _real("Linear request value", request_value)
        mismatch = np.abs(chunk_values - x)
        mismatch *= -1.0 / self.value_range
        return mismatch

    def grid(self, request_values: np.ndarray, chunk_values: np.ndarray) -> np.ndarray:
        """Row i is ``vectorized(request_values[i], chunk_values)``, the same bits (the
        same elementwise operations, broadcast)."""
        mismatch = np.abs(chunk_values[None, :] - _reals(request_values)[:, None])
        mismatch *= -1.0 / self.value_range
        return mismatch


@dataclass(frozen=True, slots=True)
class Weber:
    """``-|x - y| / max(|x|, |y|)``: relative difference, as in Weber's law.

    The thesis scores token counts this way: 1 vs 2 tokens differ by 1/2, 10 vs 11 by
    1/11, because a small supply changes strategy more than a large one. 0 vs 0 is a
    perfect match (0), and 0 vs anything else the worst (-1).
    """

    def __call__(self, request_value: Real, chunk_value: Real) -> float:
        x = _real("Weber request value", request_value)
        y = _real("Weber chunk value", chunk_value)
        largest = max(abs(x), abs(y))
        return 0.0 if largest == 0 else -abs(x - y) / largest

    def vectorized(self, request_value: Real, chunk_values: np.ndarray) -> np.ndarray:
        x = _real("Weber request value", request_value)
        if x == 0:
            # |0 - y| / |y| is 1 for every y != 0, and 0 vs 0 is defined as a match.
            return (chunk_values != 0) * -1.0
        # |x| > 0, so the denominator is never 0.
        mismatch = np.abs(chunk_values - x)
        mismatch /= np.maximum(np.abs(chunk_values), abs(x))
        np.negative(mismatch, out=mismatch)
        return mismatch

    def grid(self, request_values: np.ndarray, chunk_values: np.ndarray) -> np.ndarray:
        """Row i is ``vectorized(request_values[i], chunk_values)``, the same bits (the
        same elementwise operations, broadcast; a request 0's row as ``vectorized``'s)."""
        x = _reals(request_values)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):  # 0 vs 0: replaced below
            mismatch = np.abs(chunk_values[None, :] - x)
            mismatch /= np.maximum(np.abs(chunk_values)[None, :], np.abs(x))
        np.negative(mismatch, out=mismatch)
        zero = x[:, 0] == 0
        if zero.any():
            mismatch[zero] = (chunk_values != 0) * -1.0
        return mismatch


BUILT_IN_MISMATCH = (ExactMatch, Linear, Weber)
"""Types whose output is trusted to be finite and <= 0 (user functions are checked)."""
