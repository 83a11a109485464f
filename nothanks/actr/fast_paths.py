"""The public API for fast paths: the members of :class:`~nothanks.actr.DeclarativeMemory`
that code computing retrievals of its own from the memory's state reads (the ToM
recursion's compiled decision, the token memory's kept rows; docs/actr.md, "Public API for
fast paths"). Nothing outside ``nothanks.actr`` reads a private member of the memory.

The arrays handed out are the memory's own (valid until the clock moves or a chunk is
stored): read them, never write to them.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import kernel as _kernel_module
from .matching import UNKNOWN_CODE
from .mismatch import BUILT_IN_MISMATCH, ExactMatch
from .parameters import Parameters
from .records import SlotValue


class FastPathView:
    """The fast-path members of :class:`~nothanks.actr.DeclarativeMemory` (a part of the
    memory, not a class of its own); with :attr:`~ParameterSettings.parameters`,
    ``time``, ``len(memory)``, ``chunks`` and ``add_past`` they are the whole seam."""

    @property
    def compiled_view(self) -> tuple[float, int, Parameters, np.ndarray | None]:
        """``(time, chunks, parameters, noise)`` in one read: the model time, how many
        chunks are stored, :attr:`parameters`, and the per-time noise drawn so far at
        this time (None when none is yet; it may hold fewer rows than a caller needs,
        who then asks :meth:`per_time_noise`). A plain tuple, made anew at every read: a
        fast path reads it once per call instead of four members."""
        parameters = self._parameters
        if parameters is None:
            parameters = self.parameters
        time = self._time
        return (time, len(self._chunks), parameters,
                self._time_noise if self._time_noise_at == time else None)

    @property
    def learned_count(self) -> int:
        """How many chunks have a learned (not a fixed) base level."""
        return self._learned

    @property
    def mismatch_version(self) -> int:
        """A number that changes whenever a mismatch function is set or removed: mismatch
        scores kept outside the memory are stale once it differs."""
        return self._mismatch_changes

    def fixed_activations(self) -> np.ndarray:
        """Every chunk's fixed activation in storing order, NaN for a learned chunk: the
        base levels themselves while :attr:`learned_count` is 0. A view of the memory's
        own array, valid until the next chunk is stored; do not write to it."""
        return self._fixed.view()

    def base_levels(self) -> np.ndarray:
        """Every chunk's base level at the current time, in storing order: what a
        retrieval now adds for each chunk before mismatches and noise (the fixed
        activations while :attr:`learned_count` is 0, then the same array as
        :meth:`fixed_activations`). An infinite entry marks a learned chunk referenced at
        the current time (its retrieval would raise
        :class:`~nothanks.actr.CurrentTimeReferenceError`). The memory's own cached array,
        valid until the clock moves or a chunk or reference is stored; do not write to it.
        """
        return self._base_levels()

    def per_time_noise(self, count: int | None = None) -> np.ndarray:
        """The per-time noise of the first ``count`` chunks (default: every chunk) at the
        current model time: the draws every retrieval at this time adds, drawn now if
        none has needed them yet. The array may be longer than ``count``; do not write
        to it.

        A caller keeping chunks of its own not yet stored here (the token memory, which
        stores them later with :meth:`add_past`) may ask for more rows than are stored:
        the draws, in order, are those the stored chunks will have.

        Raises:
            ValueError: the noise is off (s = 0) or drawn per retrieval, so there is no
                per-time noise.
        """
        if count is None:
            count = len(self._chunks)
        noise = self._time_noise
        if noise is None or self._time_noise_at != self._time or len(noise) < count:
            self._require_per_time_noise()
            return self._noise_for(count)
        return noise

    def reserve_per_time_noise(self, count: int | None = None
                                ) -> tuple[np.uint64, np.uint64, np.uint64, float] | None:
        """The per-time noise of the first ``count`` chunks (default: every chunk) at the
        current model time as positions of the counter stream, reserved now and not drawn:
        ``(key1, key2, first position, s)``, the draw of chunk j being the stream's value
        at ``first + j`` times s (``nothanks.kernels.counter``). The stream moves on as if
        the draws were made, and a later :meth:`per_time_noise` at this time draws the
        reserved positions, so a caller computing only the draws it needs
        (``nothanks.kernels.retrieval``) sees the values an eager draw gives. None when
        the memory is on the pcg64 stream, or has drawn or reserved this time's noise
        already (then :meth:`per_time_noise` hands it out).

        Raises:
            ValueError: the noise is off (s = 0) or drawn per retrieval.
        """
        if self._noise_mode != "per_time" or not self._noise > 0:
            self._require_per_time_noise()
        first = self._reserve_time_noise(len(self._chunks) if count is None else count)
        if first is None:
            return None
        key = self._stream_key
        return key[0], key[1], np.uint64(first), self._noise

    def _require_per_time_noise(self) -> None:
        if self._noise_mode != "per_time" or not self._noise > 0:
            raise ValueError(f"per-time noise needs noise_mode='per_time' and noise > 0; "
                             f"this memory has noise_mode={self._noise_mode!r}, "
                             f"noise={self._noise!r}")

    def score_columns(self, items: Sequence[tuple[str, SlotValue]]
                      ) -> tuple[np.ndarray, ...] | None:
        """Every chunk's unscaled mismatch for each slot of the request ``items`` (its
        ``(slot, value)`` pairs), in the request's order: the columns the compiled
        retrieval adds, times MP, to the base levels and noise. None when the compiled
        retrieval would not take the request as one pass over every chunk: an exact-match
        slot, a slot some chunk lacks, a user-defined mismatch function, or the compiled
        kernels off. The arrays are the memory's own cached columns (valid until a chunk
        is stored or a mismatch function set); do not write to them.
        """
        rows, scored = self._split(dict(items))
        if rows is not None:
            return None
        return self._compiled_scores(scored)

    def score_rows(self, slot: str, values: Sequence[SlotValue], start: int = 0
                   ) -> np.ndarray | None:
        """The unscaled mismatch of the chunks stored from row ``start`` on, for ``slot``
        requested at each of ``values``: one row per value (``len(values)`` by
        ``len(memory) − start``), each the same bits as that value's column of
        :meth:`score_columns` from ``start`` on (a caller keeping those columns extends
        them by the chunks stored since with it). None where :meth:`score_columns` would
        give None: the slot unknown, without a built-in mismatch function, or lacking
        in some chunk, or the compiled kernels off.
        """
        column = self._columns.get(slot)
        fn = self._mismatch.get(slot)
        count = len(self._chunks)
        if (column is None or fn is None or type(fn) not in BUILT_IN_MISMATCH
                or column.present < count or _kernel_module.kernels() is None
                or not (column.numeric or type(fn) is ExactMatch)):
            return None
        if type(fn) is ExactMatch:  # as _score_slot: the codes compared, times −weight
            codes = np.array([column.code_of.get(value, UNKNOWN_CODE) for value in values])
            return (column.codes.view()[start:] != codes[:, None]) * -fn.weight
        # elementwise, broadcast: the bits of the whole column's scores
        return fn.grid(list(values), column.values.view()[start:])
