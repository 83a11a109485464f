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
from .store import ChunkStore


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
    """Every chunk's base level in a :class:`~.store.ChunkStore` at a given time, kept until
    the time, the chunks or the references change.

    ``decay`` (d), ``optimized_learning`` and ``learning`` (base-level learning on) are
    checked by the memory that sets them; whoever sets one calls :meth:`forget`. A
    reference's strength is ``(t − t_j)^(−d)``; with ``root_at_half`` it is
    ``1/√(t − t_j)`` at d = 0.5 (the instance memory's shortcut: up to an ulp from the
    power), and d = 0 counts every reference not dropped as 1. ``compiled`` lets the
    compiled kernels sum the references once per node of the store's trie (else NumPy
    sums them per chunk: the same additions in the same order).
    ``undefined`` says whether the last array :meth:`at` gave may hold an infinite entry:
    a learned chunk referenced at that very time, whose retrieval raises
    :class:`CurrentTimeReferenceError` (:meth:`raise_current_time_reference`).
    """

    __slots__ = ("_base", "_key", "_log_strengths", "_log_strengths_key", "compiled",
                 "decay", "learning", "optimized_learning", "root_at_half", "store",
                 "undefined")

    def __init__(self, store: ChunkStore, *, decay: float, optimized_learning: bool,
                 learning: bool, root_at_half: bool = False, compiled: bool = True):
        self.store = store
        self.root_at_half = root_at_half
        self.compiled = compiled
        self.decay = decay
        self.optimized_learning = optimized_learning
        self.learning = learning
        self._log_strengths_key: tuple | None = None
        self._log_strengths = np.empty(0)
        self.forget()

    def forget(self) -> None:
        """Drop the kept base levels (a parameter changed, or the store was replaced)."""
        self._key: tuple[float, int, int] | None = None
        self._base: np.ndarray = np.empty(0)
        self.undefined = False

    def at(self, t: float) -> np.ndarray:
        """Base level of every chunk at time ``t`` (kept until anything changes).

        An infinite entry marks a learned chunk referenced at ``t``; callers raise
        ``CurrentTimeReferenceError`` only if that chunk is actually needed.
        """
        store = self.store
        key = (t, len(store.chunks), len(store.reference_row.items))
        if key == self._key:
            return self._base
        undefined = self.learning and store.latest_reference >= t
        if store.learned == 0:
            base = store.fixed.view()
            undefined = False
        elif not self.learning:
            fixed = store.fixed.view()
            base = np.where(np.isnan(fixed), 0.0, fixed)
        else:
            if undefined:  # a reference at t: (t − t_j)^(−d) divides by zero
                with np.errstate(divide="ignore"):
                    learned = self.learned_at(t)
            else:
                learned = self.learned_at(t)
            if store.learned == len(store.chunks):
                base = learned
            else:
                fixed = store.fixed.view()
                base = np.where(np.isnan(fixed), learned, fixed)
        self._key, self._base, self.undefined = key, base, undefined
        return base

    def learned_at(self, t: float) -> np.ndarray:
        """The learned base level of every chunk at ``t`` (not kept; fixed chunks get a
        value too, which :meth:`at` replaces)."""
        store = self.store
        d = self.decay
        if self.optimized_learning:
            lifetime = t - store.created.view()
            return np.log(store.reference_count.view() / (1.0 - d)) - d * np.log(lifetime)
        strengths = self._strengths(t)  # one per distinct reference time
        compiled = (_kernel_module.kernels() if self.compiled and not store.dropped
                    else None)
        if compiled is not None and not store.deep_nodes:
            # every chunk has one reference: its sum is 0.0 + its strength, the strength
            return log_in_place(strengths)[store.node_time.view()[store.node_of.view()]]
        if compiled is not None:
            # one sum per history node, then per chunk its node's (NumPy's log is
            # elementwise: the same bits whether taken per node or per chunk)
            sums = compiled.node_sums(store.node_parent.view(), store.node_time.view(),
                                      strengths)
            sums[0] = 1.0  # the root, which no chunk points to: no log(0)
            return log_in_place(sums)[store.node_of.view()]
        if not store.deep_nodes and not store.dropped:
            # one reference per chunk, stored with it: reference j is row j's, and its
            # sum 0.0 + strength is the strength
            return log_in_place(strengths)[store.reference_time_index.view()]
        summed = np.bincount(store.reference_row.view(),
                             weights=strengths[store.reference_time_index.view()],
                             minlength=len(store.chunks))
        return log_in_place(summed)

    def _strengths(self, t: float) -> np.ndarray:
        """``(t − t_j)^(−d)`` per distinct reference time (a fresh array)."""
        ages = t - self.store.time_values.view()
        d = self.decay
        if self.root_at_half and d == 0.5:  # a square root instead of a power
            strengths = np.sqrt(ages, out=ages)
            return np.reciprocal(strengths, out=strengths)
        if d == 0:  # every reference not dropped counts 1
            return np.isfinite(ages).astype(np.float64)
        return np.power(ages, -d, out=ages)

    def single_references(self, t: float) -> bool:
        """Whether every chunk is learned with one reference, none at ``t``, and the full
        sum is in use (the token memory's case): then a chunk's base level is its
        reference time's log strength (:meth:`log_strengths`)."""
        store = self.store
        return (not store.deep_nodes and store.learned == len(store.chunks)
                and self.learning and not self.optimized_learning
                and store.latest_reference < t)

    def log_strengths(self, t: float) -> np.ndarray:
        """``ln (t − t_j)^(−d)`` per distinct reference time at ``t`` (kept until the time
        moves or a reference time is added): what :meth:`learned_at` takes per chunk when
        every chunk has one reference."""
        time_values = self.store.time_values
        key = (t, len(time_values.items), self.decay)
        if key != self._log_strengths_key:
            ages = t - time_values.view()
            self._log_strengths = log_in_place(np.power(ages, -self.decay, out=ages))
            self._log_strengths_key = key
        return self._log_strengths

    def raise_current_time_reference(self, rows: np.ndarray | None, base: np.ndarray,
                                     t: float) -> None:
        """Raise :class:`CurrentTimeReferenceError` for the first infinite entry of
        ``base`` (the base levels of ``rows``, None: every chunk)."""
        position = int(np.flatnonzero(np.isinf(base))[0])
        chunk = self.store.chunks[position if rows is None else int(rows[position])]
        raise CurrentTimeReferenceError(
            f"{chunk!r} has a reference at the current time t={t:g}, so its base "
            f"level ln Σ (t − t_j)^(−d) is infinite. Advance the clock "
            f"(memory.advance(dt)) between storing and retrieving, give the chunk a fixed "
            f"activation, or switch base_level_learning off.")
