"""Request plans and partial matching: which chunks are candidates for a request, and each
one's mismatch per scored slot (docs/actr.md, "Partial matching" and "Performance").

A requested slot without a mismatch function filters the candidates through its value
index; a slot with one is scored. The built-in mismatch functions are pure, so a slot's
scores for one request value are computed once over the whole column and kept until a
chunk is stored; a plain-dict request with exact-match slots keeps its candidate rows
(:class:`Plan`) and checks only the chunks stored since.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from . import kernel as _kernel_module
from .growable import Growable
from .mismatch import BUILT_IN_MISMATCH, ExactMatch, MismatchFunction
from .parameters import check_mismatch_function
from .records import SlotValue
from .store import ABSENT, ChunkStore, Column

Scored = list[tuple[str, SlotValue, Column, MismatchFunction]]
"""Requested slots scored by partial matching: (slot, request value, column, function)."""

UNKNOWN_CODE = -2  # slot code of a request value no chunk holds
_UNKNOWN = UNKNOWN_CODE
_SCORE_CACHE_SIZE = 4096  # request values whose scores are kept per slot
_PLAN_CACHE_SIZE = 4096  # retrieval requests whose candidates are kept


class Plan:
    """One retrieval request's candidates, kept from retrieval to retrieval.

    A model asks the same few requests over and over ({kind, player} for token counts,
    the same ToM0 states within and across games), so the rows matching the exact-match
    slots are kept and extended with each chunk that arrives instead of being filtered
    anew. ``rows`` is None while every chunk is a candidate. The scored slots' mismatch
    columns and their MP-scaled sum over all chunks (``penalized``: the part of the
    activation that depends on the request, not on the clock) are kept until a chunk
    arrives.
    """

    __slots__ = ("exact", "needed", "penalized", "rows", "scored", "scores", "seen")

    def __init__(self, exact: list[tuple[Column, int]], scored: Scored,
                 rows: np.ndarray | None, seen: int):
        # the code lists themselves: a column's codes are appended to, never replaced
        self.exact = [(column.codes.items, code) for column, code in exact]
        self.scored = scored
        # slots a candidate must hold (scored slots some chunk lacks)
        self.needed = [column.codes.items for _, _, column, _ in scored]
        self.rows = None if rows is None else Growable(np.int64, rows.tolist())
        self.seen = seen
        self.scores: tuple[np.ndarray, ...] | None = None
        self.penalized: np.ndarray | None = None

    def extend(self, upto: int) -> None:
        """Add the matching rows among chunks ``seen .. upto - 1``."""
        append = self.rows.append
        exact, needed = self.exact, self.needed
        if len(exact) == 2 and not needed:  # the token memory's {kind, player}
            (first, one), (second, two) = exact
            for row in range(self.seen, upto):
                if first[row] == one and second[row] == two:
                    append(row)
        elif len(exact) == 1 and not needed:  # the IBL agent's action
            ((codes, code),) = exact
            for row in range(self.seen, upto):
                if codes[row] == code:
                    append(row)
        else:
            for row in range(self.seen, upto):
                if all(codes[row] == code for codes, code in exact) and all(
                        codes[row] != ABSENT for codes in needed):
                    append(row)
        self.seen = upto



class RequestMatching:
    """Candidates and mismatch scores of retrieval requests over a
    :class:`~.store.ChunkStore`.

    ``functions`` maps a slot to its mismatch function (set through
    :meth:`set_mismatch`, which counts its calls in ``changes``); ``penalty`` is MP
    (checked by the memory that sets it). Scores of the built-in (pure) functions and
    request plans are kept: :meth:`forget` drops them.
    """

    def __init__(self, store: ChunkStore, *, penalty: float):
        self.store = store
        self.penalty = penalty
        self.functions: dict[str, MismatchFunction] = {}
        self.changes = 0  # set_mismatch calls: scores kept elsewhere go stale
        # unscaled mismatch of every chunk per (slot, request value), for built-in functions
        # (pure); cleared when a chunk is stored or a slot's function changes
        self._scores: dict[str, dict[SlotValue, np.ndarray]] = {}
        self._scores_chunks = 0
        self.plans: dict[tuple, Plan] = {}  # request items -> its candidates

    def forget(self) -> None:
        """Drop every kept score and plan (the store was replaced)."""
        self._scores.clear()
        self.plans.clear()

    def set_mismatch(self, slot: str, fn: MismatchFunction | None) -> None:
        """Register ``fn`` for ``slot``; None makes the slot an exact-match constraint."""
        self.changes += 1
        self._scores.pop(slot, None)
        self.plans.clear()
        if fn is None:
            self.functions.pop(slot, None)
            return
        check_mismatch_function(slot, fn)
        self.functions[slot] = fn

    def split(self, request: Mapping[str, SlotValue],
              exact: list[tuple[Column, int]] | None = None
              ) -> tuple[np.ndarray | None, Scored]:
        """Candidate rows (None = every chunk) and the slots scored by partial matching.

        A requested slot with no mismatch function filters candidates through its value
        index; a slot with one keeps only chunks that have the slot. ``exact`` (if given)
        receives the exact-match (column, code) pairs, and is emptied when no chunk can
        match (a slot or value no chunk holds yet: no plan can be kept).
        """
        if type(request) is not dict and not isinstance(request, Mapping):
            raise TypeError(f"a retrieval request must be a mapping of slot name to value, "
                            f"got {type(request).__name__}")
        rows: np.ndarray | None = None
        scored: Scored = []
        columns = self.store.columns
        for slot, value in request.items():
            column = columns.get(slot)
            if column is None:
                if not isinstance(slot, str):
                    raise TypeError(f"slot names must be strings, got {slot!r}")
                if exact is not None:
                    exact.clear()
                return np.empty(0, np.int64), []
            fn = self.functions.get(slot)
            if fn is not None:
                scored.append((slot, value, column, fn))
                continue
            try:
                code = column.code_of.get(value)
            except TypeError:
                raise TypeError(f"request value for slot {slot!r} must be hashable, "
                                f"got {value!r}") from None
            if code is None:
                if exact is not None:
                    exact.clear()
                return np.empty(0, np.int64), []
            if exact is not None:
                exact.append((column, code))
            if rows is None:
                rows = np.array(column.rows_of[code], dtype=np.int64)
            else:
                rows = rows[column.codes.view()[rows] == code]
        n = len(self.store.chunks)
        for _, _, column, _ in scored:
            if column.present < n:
                if rows is None:
                    rows = np.flatnonzero(column.codes.view() != ABSENT)
                else:
                    rows = rows[column.codes.view()[rows] != ABSENT]
        return rows, scored

    @staticmethod
    def score_slot(slot: str, value: SlotValue, column: Column, rows: np.ndarray | None,
                    fn: MismatchFunction) -> np.ndarray:
        """Unscaled mismatch of every candidate for one slot.

        Exact matching compares integer codes (fast for symbols too); other vectorized
        functions get the column's values (float64 for numeric slots) in one call; plain
        callables are called once per chunk with the values as stored.
        """
        try:
            if type(fn) is ExactMatch:
                codes = column.codes.view()
                if rows is not None:
                    codes = codes[rows]
                return (codes != column.code_of.get(value, _UNKNOWN)) * -fn.weight
            built_in = type(fn) in BUILT_IN_MISMATCH
            vectorized = getattr(fn, "vectorized", None)
            if vectorized is not None:
                values = column.values.view()
                if rows is not None:
                    values = values[rows]
                result = vectorized(value, values)
                if built_in:  # a fresh array already (object dtype for symbol slots)
                    return np.asarray(result, dtype=np.float64)
                mismatch = np.array(result, dtype=np.float64)
            else:
                codes = column.codes.view()
                values = column.original(codes if rows is None else codes[rows])
                mismatch = np.fromiter((fn(value, v) for v in values), dtype=np.float64,
                                       count=len(values))
        except (TypeError, ValueError) as error:
            raise type(error)(f"mismatch function {fn!r} for slot {slot!r} failed on request "
                              f"value {value!r}: {error}") from error
        expected = len(column.codes) if rows is None else len(rows)
        if mismatch.shape != (expected,) or not (np.isfinite(mismatch) & (mismatch <= 0)).all():
            raise ValueError(f"mismatch function {fn!r} for slot {slot!r} must return one "
                             f"finite value <= 0 per chunk; got {mismatch!r} for request "
                             f"value {value!r}")
        return mismatch

    def compiled_scores(self, scored: Scored) -> tuple[np.ndarray, ...] | None:
        """Every chunk's unscaled mismatch per scored slot, for the compiled kernel; None
        when the NumPy path must run (no kernel, a user-defined function, a symbol slot
        scored numerically).

        Built-in mismatch functions are pure, so a slot's scores for one request value
        are computed once over the whole column and reused until a chunk is stored.
        """
        if _kernel_module.kernels() is None:
            return None
        if not scored:
            return ()
        if self._scores_chunks != len(self.store.chunks):
            self._scores.clear()
            self._scores_chunks = len(self.store.chunks)
        columns = []
        caches = self._scores
        for slot, value, column, fn in scored:
            kind = type(fn)
            if kind not in BUILT_IN_MISMATCH or not (column.numeric or kind is ExactMatch):
                return None
            cache = caches.get(slot)
            if cache is None:
                cache = caches[slot] = {}
            try:
                scores = cache.get(value)
            except TypeError:  # unhashable: the NumPy path reports it
                return None
            if scores is None:
                scores = self.score_slot(slot, value, column, None, fn)
                if len(cache) >= _SCORE_CACHE_SIZE:
                    cache.clear()
                cache[value] = scores
            columns.append(scores)
        return tuple(columns)

    def plan(self, request: dict[str, SlotValue], key: tuple | None, plan: Plan | None
             ) -> tuple[Plan | None, tuple[np.ndarray | None, Scored] | None]:
        """The kept plan of a plain-dict request with exact-match slots (``plan``: what
        ``retrieve`` found under its ``key``, the request's items; key None: an
        unhashable value), brought up to date with the chunks stored since; for any
        other request (unhashable values, only scored slots, or no chunk can match it
        yet) no plan but, when worked out already, its candidates and scored slots
        (:meth:`split`)."""
        if key is None:
            return None, None
        if plan is not None:
            count = len(self.store.chunks)
            if plan.seen != count:
                plan.extend(count)
                if plan.scored:  # (an exact-only plan's retrieval never reads its scores)
                    plan.scores = self.compiled_scores(plan.scored)
            return plan, None
        exact: list[tuple[Column, int]] = []
        rows, scored = self.split(request, exact)
        if not exact:
            return None, (rows, scored)
        if len(self.plans) >= _PLAN_CACHE_SIZE:
            self.plans.clear()
        plan = self.plans[key] = Plan(exact, scored, rows, len(self.store.chunks))
        if scored:  # (an exact-only plan's retrieval never reads its scores)
            plan.scores = self.compiled_scores(scored)
        return plan, None
