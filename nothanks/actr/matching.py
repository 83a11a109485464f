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
from .records import SlotValue
from .store import ABSENT, Column

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
        else:
            for row in range(self.seen, upto):
                if all(codes[row] == code for codes, code in exact) and all(
                        codes[row] != ABSENT for codes in needed):
                    append(row)
        self.seen = upto



Scores = tuple
"""A request whose slots are all scored by built-in mismatch functions and held by every
chunk (a ToM0 state against the instances), as a plain tuple made from the per-slot
score caches at every retrieval of it (a class instance costs several times as much):
``(chunks, base, scratch, slots, m0, m1, m2, m3)``: the chunk count, the base levels
while every chunk has a fixed activation (else None), the memory's activations array
(``_HELD``), and the mismatch columns as the ``activations`` kernel takes them
(``slots`` of the four used). A retrieval of such a request is the per-time noise, one
kernel pass, the first best and the threshold: no candidate filter. It is not kept
among the plans: most ToM0 states are met once (a model meets ~3,300 distinct states in
200 games), and keeping each (six tuples that outlive the decision) cost more in
hashing and in the garbage collector's passes than making it anew (a few dict lookups:
in a 4 x ToM2 game 3.4 young-generation collections before, 0.9 after, no full ones)."""


_HELD = object()
"""The key, among a memory's kept plans, of ``(chunks, slots, base, scratch)``: the
per-slot score caches (``_compiled_scores``'s) of the scored slots every chunk holds, the
base levels if every chunk has a fixed activation (they never change; else None) and an
array for the activations, valid for that chunk count. Kept with the plans because
whatever invalidates plans (a mismatch function set, a new slot, copied chunks)
invalidates it too."""


class RequestMatching:
    """Candidates and mismatch scores of :class:`~nothanks.actr.DeclarativeMemory`'s
    retrieval requests (a part of the memory, not a class of its own)."""

    def _init_matching(self) -> None:
        """No scores or plans kept yet (the memory's constructor calls it)."""
        # unscaled mismatch of every chunk per (slot, request value), for built-in functions
        # (pure); cleared when a chunk is stored or a slot's function changes
        self._scores: dict[str, dict[SlotValue, np.ndarray]] = {}
        self._scores_chunks = 0
        self._plans: dict[tuple, Plan] = {}  # request items -> its candidates

    def _split(self, request: Mapping[str, SlotValue],
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
        columns = self._columns
        for slot, value in request.items():
            column = columns.get(slot)
            if column is None:
                if not isinstance(slot, str):
                    raise TypeError(f"slot names must be strings, got {slot!r}")
                if exact is not None:
                    exact.clear()
                return np.empty(0, np.int64), []
            fn = self._mismatch.get(slot)
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
        n = len(self._chunks)
        for _, _, column, _ in scored:
            if column.present < n:
                if rows is None:
                    rows = np.flatnonzero(column.codes.view() != ABSENT)
                else:
                    rows = rows[column.codes.view()[rows] != ABSENT]
        return rows, scored

    @staticmethod
    def _score_slot(slot: str, value: SlotValue, column: Column, rows: np.ndarray | None,
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

    def _compiled_scores(self, scored: Scored) -> tuple[np.ndarray, ...] | None:
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
        if self._scores_chunks != len(self._chunks):
            self._scores.clear()
            self._scores_chunks = len(self._chunks)
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
                scores = self._score_slot(slot, value, column, None, fn)
                if len(cache) >= _SCORE_CACHE_SIZE:
                    cache.clear()
                cache[value] = scores
            columns.append(scores)
        return tuple(columns)

    def _plan(self, request: dict[str, SlotValue], key: tuple | None, plan: Plan | None
              ) -> tuple[Plan | None, tuple[np.ndarray | None, Scored] | None]:
        """The kept plan of a plain-dict request with exact-match slots (``plan``: what
        ``retrieve`` found under its ``key``, the request's items; key None: an
        unhashable value), brought up to date with the chunks stored since; for any
        other request (unhashable values, only scored slots, or no chunk can match it
        yet) no plan but, when worked out already, its candidates and scored slots
        (``_split``). (All-scored requests ``retrieve`` keeps itself: ``Scores``.)"""
        if key is None:
            return None, None
        if plan is not None:
            count = len(self._chunks)
            if plan.seen != count:
                plan.extend(count)
                plan.scores = self._compiled_scores(plan.scored)
            return plan, None
        exact: list[tuple[Column, int]] = []
        rows, scored = self._split(request, exact)
        if not exact:
            return None, (rows, scored)
        if len(self._plans) >= _PLAN_CACHE_SIZE:
            self._plans.clear()
        plan = self._plans[key] = Plan(exact, scored, rows, len(self._chunks))
        plan.scores = self._compiled_scores(scored)
        return plan, None

    def _held_slots(self, count: int) -> tuple:
        """The ``_HELD`` entry for ``count`` chunks, made anew from the per-slot caches."""
        if self._scores_chunks != count:
            self._scores.clear()
            self._scores_chunks = count
        columns = self._columns
        # a slot's cache exists only for a built-in function the kernel can run on it
        # (set_mismatch drops it with the function), see _compiled_scores
        slots = {slot: cache for slot, cache in self._scores.items()
                 if columns[slot].present == count}
        # the activations' scratch array: a retrieval of an all-scored request hands out
        # only the winner, so one array per memory serves them all
        held = (count, slots, self._fixed.view() if self._learned == 0 else None,
                np.empty(count))
        self._plans[_HELD] = held
        return held

    def _scores_of(self, key: tuple) -> Scores | None:
        """The ``Scores`` of the request whose items are ``key``, from the memory's per-slot
        score caches, or None when it is not such a request (an exact-match slot, a slot some
        chunk lacks or none holds, a user-defined function, a slot not scored before: the
        general path sorts it out and fills the caches)."""
        count = len(self._chunks)
        held = self._plans.get(_HELD)
        if held is None or held[0] != count:
            held = self._held_slots(count)
        slots = held[1]
        try:
            if len(key) == 4:  # the thesis's four slots, unrolled (a ToM0 state's first sight)
                (s0, v0), (s1, v1), (s2, v2), (s3, v3) = key
                return (count, held[2], held[3], 4, slots[s0][v0], slots[s1][v1], slots[s2][v2],
                        slots[s3][v3])
            picked = [slots[slot][value] for slot, value in key]
        except KeyError:  # a slot not held (yet), or a value not scored yet
            picked = []
            for slot, value in key:
                cache = slots.get(slot)
                if cache is None:
                    cache = self._scores.get(slot)
                    if cache is None or self._columns[slot].present != count:
                        return None
                    slots[slot] = cache
                scores = cache.get(value)
                if scores is None:
                    scores = self._score_slot(slot, value, self._columns[slot], None,
                                              self._mismatch[slot])
                    if len(cache) >= _SCORE_CACHE_SIZE:
                        cache.clear()
                    cache[value] = scores
                picked.append(scores)
        used = len(picked)
        if used == 4:
            return (count, held[2], held[3], 4, *picked)
        if used == 0:
            return None
        if used > 4:  # the kernel takes four columns: fold all but the last three,
            head = picked[0] + picked[1]  # adding left to right as the kernel would
            for column in picked[2:-3]:
                head += column
            return (count, held[2], held[3], 4, head, *picked[-3:])
        return (count, held[2], held[3], used, *picked, *[picked[0]] * (4 - used))
