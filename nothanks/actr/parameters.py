"""The declarative memory's parameters: their checks and the noise modes and streams
(``DeclarativeMemory``'s properties read and set them; docs/actr.md, "Parameters").

A wrong value raises a TypeError or a ValueError that names the parameter, the value given
and what would be valid. :class:`Parameters` is every parameter at one moment, the object
fast paths keep and check by identity.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Real
from typing import Any, Literal, NamedTuple

NoiseMode = Literal["per_time", "per_retrieval"]
#: The noise modes and streams, with what each means (the error of a wrong one lists them).
_NOISE_MODE_MEANINGS = {"per_time": "one draw per chunk per model time, the thesis's Swift core",
                        "per_retrieval": "a fresh draw per chunk per retrieval, canonical ACT-R"}
_NOISE_STREAM_MEANINGS = {"pcg64": "NumPy's generator and log, pre-drawn blocks",
                          "counter": "a pure function of the position, the same bits on every "
                                     "machine"}
NOISE_MODES: tuple[str, ...] = tuple(_NOISE_MODE_MEANINGS)
#: Where the noise comes from (``NoiseSource.draw``; docs/actr.md, "Noise streams").
NOISE_STREAMS: tuple[str, ...] = tuple(_NOISE_STREAM_MEANINGS)


def real_number(name: str, value: Any) -> float:
    """``value`` as a finite float; a TypeError (not a real number, or a bool) or a
    ValueError (NaN, infinite) naming ``name`` and the value otherwise."""
    if type(value) is float and -math.inf < value < math.inf:  # the common case, checked fast
        return value
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def check_flag(name: str, value: Any) -> bool:
    """``value`` if it is a bool; a TypeError naming ``name`` otherwise."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def check_decay(value: Any, optimized_learning: bool) -> float:
    """``value`` as the decay d: a real number > 0, and < 1 with optimized learning
    (a TypeError or a ValueError saying which otherwise)."""
    decay = real_number("decay", value)
    if decay <= 0.0:
        raise ValueError(f"decay d must be > 0 (0.5 is ACT-R's usual value), got {decay!r}")
    if optimized_learning and decay >= 1.0:
        raise ValueError(f"with optimized learning decay d must be < 1 (the approximation "
                         f"divides by 1 − d; 0.5 is ACT-R's usual value), got {decay!r}; "
                         f"switch optimized_learning off to use d >= 1")
    return decay


MP_HINT = ("MP scales every slot's mismatch; 0 makes the partially matched slots count "
           "for nothing (they are ignored, not matched exactly)")


def check_at_least(name: str, value: Any, lowest: float, strict: bool, hint: str) -> float:
    """``value`` as a finite float at least ``lowest`` (above it if ``strict``); a
    ValueError naming ``name``, the bound and ``hint`` (what the parameter does)
    otherwise."""
    number = real_number(name, value)
    if number < lowest or (strict and number == lowest):
        sign = ">" if strict else ">="
        raise ValueError(f"{name} must be {sign} {lowest:g} ({hint}), got {number!r}")
    return number


def _check_choice(name: str, value: Any, meanings: Mapping[str, str]) -> str:
    if value not in tuple(meanings):  # (a tuple: an unhashable value is not an error here)
        options = " or ".join(f"{key!r} ({meaning})" for key, meaning in meanings.items())
        raise ValueError(f"{name} must be {options}, got {value!r}")
    return value


def check_noise_mode(value: Any) -> str:
    """``value`` if it is one of :data:`NOISE_MODES`; a ValueError listing them otherwise."""
    return _check_choice("noise_mode", value, _NOISE_MODE_MEANINGS)


def check_noise_stream(value: Any) -> str:
    """``value`` if it is one of :data:`NOISE_STREAMS`; a ValueError listing them
    otherwise."""
    return _check_choice("noise_stream", value, _NOISE_STREAM_MEANINGS)


def check_mismatch_function(slot: Any, fn: Any) -> None:
    """A TypeError unless ``slot`` is a non-empty string and ``fn`` is callable."""
    if not isinstance(slot, str) or not slot:
        raise TypeError(f"slot names must be non-empty strings, got {slot!r}")
    if not callable(fn):
        raise TypeError(f"the mismatch function for slot {slot!r} must be callable as "
                        f"fn(request_value, chunk_value) -> float <= 0, got {fn!r}")


class Parameters(NamedTuple):
    """A memory's parameters at one moment (:attr:`DeclarativeMemory.parameters`).

    The memory hands out the same object until one of its parameters is set, so a fast
    path may keep it and check it by identity (``memory.parameters is kept``) instead of
    reading every parameter at every call.
    """

    decay: float
    noise: float
    retrieval_threshold: float
    mismatch_penalty: float
    latency_factor: float
    noise_mode: str
    noise_stream: str
    optimized_learning: bool
    base_level_learning: bool
