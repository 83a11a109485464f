"""Base-level learning: every chunk's base level at the current time (docs/actr.md,
"Base level").

``B_i = ln Σ_j (t − t_j)^(−d)`` over the chunk's references, the optimized-learning
approximation ``ln(n/(1−d)) − d·ln L``, a fixed value, or 0 with base-level learning off.
A learned chunk referenced at the current time has no finite base level
(:class:`CurrentTimeReferenceError`).
"""
from __future__ import annotations

import numpy as np

from . import kernel as _kernel_module


class CurrentTimeReferenceError(ValueError):
    """A chunk's base level was needed at the very time it was referenced.

    ``(t − t_j)^(−d)`` is infinite for ``t = t_j``; ACT-R models always let some time
    pass between storing and retrieving, so this signals a missing ``advance``.
    """


def log_in_place(values: np.ndarray) -> np.ndarray:
    """``ln`` in place; a strength that underflowed to 0 gives −inf without a warning."""
    if values.all():
        return np.log(values, out=values)
    with np.errstate(divide="ignore"):
        return np.log(values, out=values)


class BaseLevels:
    """The base levels of :class:`~nothanks.actr.DeclarativeMemory` (a part of the memory,
    not a class of its own), kept until the clock, the chunks or the references change."""

    def _init_base_levels(self) -> None:
        """Nothing computed yet (the memory's constructor calls it)."""
        # caches: base levels per (time, chunks, references); noise per model time
        self._base_key: tuple[float, int, int] | None = None
        self._base: np.ndarray = np.empty(0)
        self._base_undefined = False
        self._log_strengths_key: tuple | None = None
        self._log_strengths_of = np.empty(0)

    def _base_levels(self) -> np.ndarray:
        """Base level of every chunk at the current time (cached until anything changes).

        An infinite entry marks a learned chunk referenced at the current time; callers
        raise ``CurrentTimeReferenceError`` only if that chunk is actually needed.
        """
        t = self._time
        key = (t, len(self._chunks), len(self._reference_row.items))
        if key == self._base_key:
            return self._base
        fixed = self._fixed.view()
        undefined = self._base_level_learning and self._latest_reference >= t
        if self._learned == 0:
            base = fixed
            undefined = False
        elif not self._base_level_learning:
            base = np.where(np.isnan(fixed), 0.0, fixed)
        else:
            if undefined:  # a reference at t: (t − t_j)^(−d) divides by zero
                with np.errstate(divide="ignore"):
                    learned = self._learned_base_levels(t)
            else:
                learned = self._learned_base_levels(t)
            base = learned if self._learned == len(fixed) else np.where(np.isnan(fixed),
                                                                         learned, fixed)
        self._base_key, self._base, self._base_undefined = key, base, undefined
        return base

    def _learned_base_levels(self, t: float) -> np.ndarray:
        d = self._decay
        if self._optimized_learning:
            lifetime = t - self._created.view()
            return np.log(self._reference_count.view() / (1.0 - d)) - d * np.log(lifetime)
        ages = t - self._time_values.view()
        strengths = np.power(ages, -d, out=ages)  # one per distinct reference time
        compiled = _kernel_module.kernels()
        if compiled is not None and not self._deep_nodes:
            # every chunk has one reference: its sum is 0.0 + its strength, the strength
            return log_in_place(strengths)[self._node_time.view()[self._node_of.view()]]
        if compiled is not None:
            # one sum per history node, then per chunk its node's (NumPy's log is
            # elementwise: the same bits whether taken per node or per chunk)
            sums = compiled.node_sums(self._node_parent.view(), self._node_time.view(),
                                      strengths)
            sums[0] = 1.0  # the root, which no chunk points to: no log(0)
            return log_in_place(sums)[self._node_of.view()]
        summed = np.bincount(self._reference_row.view(),
                             weights=strengths[self._reference_time_index.view()],
                             minlength=len(self._chunks))
        return log_in_place(summed)

    def _single_references_now(self) -> bool:
        """Whether every chunk is learned, has one reference, none at the current time,
        with per-time noise on (the token memory's case): then a chunk's base level is
        its reference time's log strength, and ties need no random draw."""
        return (not self._deep_nodes and self._learned == len(self._chunks)
                and self._noise > 0 and self._noise_mode == "per_time"
                and self._base_level_learning and not self._optimized_learning
                and self._latest_reference < self._time)

    def _log_strengths(self) -> np.ndarray:
        """``ln (t − t_j)^(−d)`` per distinct reference time, at the current time (kept
        until the clock moves or a reference time is added): what
        ``_learned_base_levels`` takes per chunk when every chunk has one reference."""
        key = (self._time, len(self._time_values.items), self._decay)
        if key != self._log_strengths_key:
            ages = self._time - self._time_values.view()
            self._log_strengths_of = log_in_place(np.power(ages, -self._decay, out=ages))
            self._log_strengths_key = key
        return self._log_strengths_of

    def _raise_current_time_reference(self, rows: np.ndarray | None, base: np.ndarray) -> None:
        position = int(np.flatnonzero(np.isinf(base))[0])
        chunk = self._chunks[position if rows is None else int(rows[position])]
        raise CurrentTimeReferenceError(
            f"{chunk!r} has a reference at the current time t={self._time:g}, so its base "
            f"level ln Σ (t − t_j)^(−d) is infinite. Advance the clock "
            f"(memory.advance(dt)) between storing and retrieving, give the chunk a fixed "
            f"activation, or switch base_level_learning off.")
