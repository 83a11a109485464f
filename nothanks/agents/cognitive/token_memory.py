"""Remembering opponents' token supplies in declarative memory (thesis §3.4.2-3.4.3).

Per opponent the memory holds *leaf* chunks (an exact count) and *root* chunks (a token
class, Table 5). Recalling a count tries the most active leaf first; leaves carry an
extra penalty (``leaf_penalty``, applied as the retrieval's activation offset) so the
class is easier to recall than the number. If the leaf fails, the root's class gives
two candidate counts; if both fail, the defaults 3, 8 and 11 are used. On every observed
pass and take the count is recalled the same way, changed, and stored again as a new
leaf and root. By default every update makes new chunks (an ``update`` slot numbers
them), as in the thesis ("a new chunk is created with every update", §3.4.3): were
identical chunks merged, a count the opponent held often would outweigh its recent
count. ``merge=True`` is the ACT-R default instead: an identical chunk gets one more
reference.

The ``player`` slot has no mismatch function, so the memory treats it as an exact-match
constraint: supplies of different players are never confused (the thesis's "large
mismatch", taken to its limit, as the thesis says it intended).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...actr import DeclarativeMemory, Parameters, RetrievalRecord
from ...actr.growable import Growable
from ...actr.kernel import kernels
from ...actr.memory import log_in_place, real_number, retrieval_latency


@dataclass(frozen=True, slots=True)
class TokenClass:
    """A row of thesis Table 5: a range of counts, its prediction values and default."""

    name: str
    low: int
    high: int | None  # None: no upper bound
    prediction_values: tuple[int, ...]
    default: int

    def contains(self, tokens: int) -> bool:
        return tokens >= self.low and (self.high is None or tokens <= self.high)


#: Thesis Table 5.
TOKEN_CLASSES = (
    TokenClass("low", 0, 5, (2, 5), 3),
    TokenClass("sufficient", 6, 10, (6, 10), 8),
    TokenClass("many", 11, None, (11, 16), 11),
)
#: Candidates when neither leaf nor root is recalled, and the count an update assumes.
NO_RECALL_VALUES = (3, 8, 11)
NO_RECALL_DEFAULT = 8


def token_class(tokens: int) -> TokenClass:
    """The Table 5 class of a token count."""
    for cls in TOKEN_CLASSES:
        if cls.contains(tokens):
            return cls
    raise ValueError(f"token count {tokens} is negative; valid: >= 0")


_CLASS_BY_NAME = {cls.name: cls for cls in TOKEN_CLASSES}
_new = tuple.__new__
_exp = math.exp
_UNCHECKED = object()  # no leaf penalty checked yet
#: the class of each count below 64, looked up instead of searched for
_CLASS_OF = tuple(token_class(tokens) for tokens in range(64))
_CLASSES_LISTED = len(_CLASS_OF)
#: A clock step whose numerator (over a power of two) is below this, and grid indices
#: below _GRID_INDEX: every multiple k·step and every difference of two is exact.
_GRID_NUMERATOR = 1 << 21
_GRID_INDEX = 1 << 16  # (a grid of at most 2^17 strengths, 1 MB)


def _rows_recallable(parameters: Parameters) -> bool:
    """Whether a memory with ``parameters`` retrieves as the kept rows recall: per-time
    noise (s > 0) and full base-level learning."""
    return (parameters.noise > 0 and parameters.noise_mode == "per_time"
            and parameters.base_level_learning and not parameters.optimized_learning)


def _grid_step(time: float) -> float:
    """``time`` as the step of the clock's grid, or 0.0 when its multiples could round."""
    if not 0.0 < time < math.inf:
        return 0.0
    return time if time.as_integer_ratio()[0] < _GRID_NUMERATOR else 0.0


class Recall(NamedTuple):
    """One attempt to remember a player's count, for the token-memory history.

    ``source`` is ``leaf``, ``root`` or ``default`` (nothing recalled: Table 5's 3, 8,
    11); ``candidates`` are the counts the model will reason with; ``value`` the single
    count an update starts from. ``leaf_is_newest`` says whether a retrieved leaf is the
    player's most recently stored one (None when no leaf was retrieved): the thesis
    expects an older leaf to win only rarely. ``true_tokens`` is logged from outside the
    model and never used by it. (An immutable named tuple: one is made per recall,
    hundreds per game.)
    """

    time: float
    seat: int
    purpose: str  # "decide" or "update"
    source: str
    candidates: tuple[int, ...]
    value: int
    leaf_activation: float | None
    root_activation: float | None
    threshold: float
    latency: float
    true_tokens: int | None
    leaf_record: RetrievalRecord | None = None
    root_record: RetrievalRecord | None = None
    leaf_is_newest: bool | None = None


class TokenMemory:
    """Leaf and root token chunks for every opponent in one declarative memory.

    Args:
        memory: the declarative memory to use (its retrieval threshold is the model's
            ``rt``); the token memory owns its clock only through ``advance``.
        leaf_penalty: extra mismatch subtracted from every leaf's activation.
        record: keep each retrieval's record in the history (for traces).
        merge: store an update as a reference to an identical chunk (ACT-R's default)
            instead of a new chunk.

    With new chunks per update (the default) every chunk has one reference, so a
    recall needs only each chunk's reference time and per-time noise: the token memory
    keeps those itself, per player the updates whose leaf and root rows it made, and
    recalls from them directly, in one compiled call searching the leaves and, only if
    the best fails, the roots (the cost: docs/benchmarks.md). While every model time is
    a multiple of one step (a model's fixed time per turn), every age is too, so each
    age's log strength is computed once (by the calls the memory makes, elementwise: the
    same bits) and looked up at later times.
    The chunks reach ``memory`` when it is read: :attr:`memory` stores the ones still
    waiting, at their own model times, so it holds what storing each at once would have
    built, and every recall draws the same noise in the same order (the model's clock
    may move the memory directly; anything else reads it through :attr:`memory`).
    Records (``record=True``), merged chunks and memory settings other than per-time
    noise with full base-level learning use the memory's own retrieval.
    """

    # slots: CPython keeps at most 30 attributes of an instance in its fast inline form;
    # with more, every lookup and store goes through a dict (an update or recall makes
    # dozens; docs/benchmarks.md)
    __slots__ = ("_memory", "merge", "leaf_penalty", "record", "history", "stored", "_newest",
                 "truth", "_keeping", "_count", "_synced", "_kept", "_seat_of", "_tokens_of",
                 "_time_of", "_grid_of", "_times", "_last_time", "_last_grid",
                 "_step", "_index_at", "_index", "_grid", "_grid_decay", "_latest",
                 "_strengths", "_strength_of", "_strengths_at", "_strengths_count",
                 "_strengths_decay", "_penalty", "_offset", "_fast_parameters")

    def __init__(self, memory: DeclarativeMemory, *, leaf_penalty: float,
                 record: bool = False, merge: bool = False) -> None:
        self._memory = memory
        self.merge = merge
        self.leaf_penalty = leaf_penalty
        self.record = record
        self.history: list[Recall] = []
        self.stored = 0  # updates stored so far; tags each new chunk
        self._newest: dict[int, tuple[int, int]] = {}  # seat -> (update, tokens) last stored
        #: set from outside (runner, UI) to log each player's true count; never read by
        #: the model's decisions
        self.truth: Callable[[int], int] | None = None
        # the chunks as rows in storing order (the memory's rows once stored there), kept
        # while they mirror the memory's chunks
        # (on the reference, or without the compiled kernels, every chunk goes into the
        # memory at once and every recall is the memory's own retrieval: what the kept
        # rows are tested against)
        self._keeping = kernels() is not None and not merge and len(memory) == 0
        self._count = 0  # rows, stored in the memory or waiting (the rows from _synced)
        self._synced = 0  # rows stored in the memory
        # seat -> [its updates k, in an array with room to grow (the kernel reads the
        # first n), n]
        self._kept: dict[int, list] = {}
        # per update k (rows 2k, its leaf, and 2k + 1, its root; update number k + 1):
        self._seat_of: list[int] = []  # the player
        self._tokens_of: list[int] = []  # the count stored
        self._time_of = Growable(np.int64)  # the index of its reference time
        # its time's index on the clock's grid (an array with room to grow: the kernel
        # reads it by update index, so it needs no view of the filled part)
        self._grid_of = np.zeros(64, np.int64)
        self._times = Growable(np.float64)  # the distinct reference times
        self._last_time = math.nan
        self._last_grid = 0  # the grid index of the last time
        # The clock's grid (None: no positive time yet; 0.0: a time off the grid): while
        # every time is k·step exactly, an age is (n − k)·step exactly, and its log strength
        # is looked up (see _log_strengths).
        self._step: float | None = None
        # the time _grid_index last placed on the grid, and its index there (a store
        # follows its update's recall at the same time)
        self._index_at = math.nan
        self._index = 0
        self._grid = np.empty(0)  # log strength of age (len − 1 − i)·step at i
        self._grid_decay = math.nan
        self._latest = -math.inf  # time of the latest store
        # log strengths at time _strengths_at (NaN: none yet), and per update the index
        # of its own among them
        self._strengths = np.empty(0)
        self._strength_of = self._time_of.view()
        self._strengths_at = math.nan
        self._strengths_count = 0
        self._strengths_decay = math.nan
        # the leaf offset for the leaf_penalty object last checked
        self._penalty: object = _UNCHECKED
        self._offset = 0.0
        # the memory's parameters when last seen allowing recalls from the kept rows
        # (None: they do not, or not seen yet)
        self._fast_parameters: Parameters | None = None

    @property
    def memory(self) -> DeclarativeMemory:
        """The declarative memory, holding every chunk stored so far."""
        if self._synced != self._count:
            self._sync()
        return self._memory

    @property
    def time(self) -> float:
        return self._memory.time

    def _sync(self) -> None:
        """Store the waiting chunks in the memory, each at its own model time."""
        added: list[tuple[float, dict]] = []
        times, time_of = self._times.items, self._time_of.items
        for k in range(self._synced >> 1, self._count >> 1):
            seat, tokens, time = self._seat_of[k], self._tokens_of[k], times[time_of[k]]
            added.append((time, {"kind": "leaf", "player": seat, "tokens": tokens,
                                 "update": k + 1}))
            added.append((time, {"kind": "root", "player": seat,
                                 "class": token_class(tokens).name, "update": k + 1}))
        self._memory.add_past(added)
        self._synced = self._count

    def _check_kept(self) -> None:
        """Stop keeping rows once they no longer mirror the memory (merging switched on,
        or a chunk stored there from elsewhere), storing the waiting chunks first."""
        if self._keeping and (self.merge or len(self._memory) != self._synced):
            if self._synced != self._count:
                self._sync()
            self._keeping = False

    def store(self, seat: int, tokens: int) -> None:
        """Store ``seat``'s count as a leaf and its class as a root, at the current time.

        While the rows are kept: a new leaf and root as rows of their own (update ``k``
        makes rows ``2k`` and ``2k + 1``; every update so far was kept, so its number is
        ``k + 1``), stored in the memory on demand.
        """
        self.stored = stored = self.stored + 1
        self._newest[seat] = (stored, tokens)
        now, chunks, _, _ = self._memory.compiled_view  # (one read for the clock and size)
        if self._keeping and not self.merge and chunks == self._synced:
            if not (type(tokens) is int and 0 <= tokens < _CLASSES_LISTED):
                token_class(tokens)  # raises on a negative count, as storing it would
            if now != self._last_time:
                self._times.append(now)
                self._last_time = now
                if self._step != 0.0:
                    self._last_grid = self._grid_index(now)
            self._time_of.append(len(self._times.items) - 1)
            update = self._count >> 1
            if self._step != 0.0:
                grid_of = self._grid_of
                if update == len(grid_of):
                    grid_of = self._grid_of = np.concatenate([grid_of, grid_of])
                grid_of[update] = self._last_grid
            self._tokens_of.append(tokens)
            self._seat_of.append(seat)
            self._count += 2
            kept = self._kept.get(seat)
            if kept is None:
                kept = self._kept[seat] = [np.empty(16, np.int64), 0]
            updates, n = kept
            if n == len(updates):
                updates = kept[0] = np.concatenate([updates, updates])
            updates[n] = update
            kept[1] = n + 1
            self._latest = now
            return
        self._check_kept()
        leaf = {"kind": "leaf", "player": seat, "tokens": tokens}
        root = {"kind": "root", "player": seat, "class": token_class(tokens).name}
        if not self.merge:
            leaf["update"] = root["update"] = self.stored
        memory = self.memory
        memory.add(leaf)
        memory.add(root)

    def recall(self, seat: int, purpose: str = "decide") -> Recall:
        """Remember ``seat``'s count: leaf, else root class, else defaults (Figure 6).

        From the kept rows (what ``_retrieve`` gives, bit for bit) unless records, other
        memory settings, a chunk stored at this very time, or rows that no longer mirror
        the memory (the next store stops keeping them) take the memory's retrievals.
        From the rows, each candidate's activation is ``(B + ε) + offset``, ``B`` its
        reference time's log strength and ``ε`` its per-time noise (drawn for every
        chunk, as the memory draws it), the best being the first highest, as in the
        memory's retrieval; the root is searched only when the leaf fails (one compiled
        call does both). (Built with ``tuple.__new__``: the named tuple without its
        Python constructor; the kept path is written out here, hundreds of recalls a
        game.)
        """
        memory = self._memory
        now, chunks, parameters, noise = memory.compiled_view
        if parameters is not self._fast_parameters:  # (the same object: checked already)
            self._fast_parameters = parameters if _rows_recallable(parameters) else None
        compiled = kernels()  # (None on the reference: the memory's retrievals)
        if not (self._keeping and compiled is not None and self._latest < now
                and not self.record
                and chunks == self._synced and not self.merge
                and self._fast_parameters is not None):
            recall = self._retrieve(seat, purpose)
            self.history.append(recall)
            return recall
        decay = parameters.decay
        tau = parameters.retrieval_threshold
        factor = parameters.latency_factor
        truth = self.truth
        if truth is not None:
            truth = truth(seat)
        kept = self._kept.get(seat)
        if kept is None:  # nothing stored about this player: no candidate, no draw
            failed = retrieval_latency(factor, tau)
            recall = _new(Recall, (now, seat, purpose, "default", NO_RECALL_VALUES,
                                   NO_RECALL_DEFAULT, None, None, tau, failed + failed, truth,
                                   None, None, None))
            self.history.append(recall)
            return recall
        count = self._count
        if noise is None or len(noise) < count:  # not drawn for every row at this time
            noise = memory.per_time_noise(count)
        if (now != self._strengths_at or count != self._strengths_count
                or decay != self._strengths_decay):
            self._log_strengths(now, decay)
        penalty = self.leaf_penalty
        if penalty is self._penalty:  # checked already (the same object)
            offset = self._offset
        else:  # checked as the memory's retrieval checks its offset
            offset = -penalty
            offset = float(real_number("offset", offset)) if offset else 0.0
            self._penalty, self._offset = penalty, offset
        update, activation, root, root_activation = compiled.recall_best(
            self._strengths, self._strength_of, kept[0], kept[1], noise, offset, tau)
        if root < 0:  # the leaf is recalled
            tokens = self._tokens_of[update]
            if type(tokens) is not int:
                tokens = int(tokens)
            try:  # retrieval_latency, inlined
                latency = factor * _exp(-activation) + 0.0
            except OverflowError:
                latency = math.inf
            recall = _new(Recall, (now, seat, purpose, "leaf", (tokens,), tokens, activation,
                                   None, tau, latency, truth, None, None,
                                   update + 1 == self._newest[seat][0]))
        else:
            latency = retrieval_latency(factor, tau)
            if root_activation >= tau:
                tokens = self._tokens_of[root]
                cls = (_CLASS_OF[tokens]
                       if type(tokens) is int and 0 <= tokens < _CLASSES_LISTED
                       else token_class(tokens))
                recall = _new(Recall, (now, seat, purpose, "root", cls.prediction_values,
                                       cls.default, activation, root_activation, tau,
                                       latency + retrieval_latency(factor, root_activation), truth,
                                       None, None, None))
            else:
                recall = _new(Recall, (now, seat, purpose, "default", NO_RECALL_VALUES,
                                       NO_RECALL_DEFAULT, activation, root_activation, tau,
                                       latency + latency, truth, None, None, None))
        self.history.append(recall)
        return recall

    def _retrieve(self, seat: int, purpose: str) -> Recall:
        """A recall through the memory's own retrievals."""
        memory = self.memory
        leaf = memory.retrieve({"kind": "leaf", "player": seat}, offset=-self.leaf_penalty,
                               record=self.record)
        root = None
        newest = None
        if leaf.chunk is not None:
            tokens = int(leaf.chunk["tokens"])
            source, candidates, value = "leaf", (tokens,), tokens
            update, latest = self._newest.get(seat, (None, None))
            # merged chunks: the newest count's chunk is the one holding that count
            newest = tokens == latest if self.merge else leaf.chunk["update"] == update
        else:
            root = memory.retrieve({"kind": "root", "player": seat}, record=self.record)
            if root.chunk is not None:
                cls = _CLASS_BY_NAME[str(root.chunk["class"])]
                source, candidates, value = "root", cls.prediction_values, cls.default
            else:
                source, candidates, value = "default", NO_RECALL_VALUES, NO_RECALL_DEFAULT
        # positional: the fields' order (a named tuple builds fastest so)
        if root is None:
            return Recall(memory.time, seat, purpose, source, candidates, value,
                          leaf.activation, None, memory.retrieval_threshold,
                          leaf.latency + 0.0,
                          None if self.truth is None else self.truth(seat),
                          leaf.record, None, newest)
        return Recall(memory.time, seat, purpose, source, candidates, value,
                      leaf.activation, root.activation, memory.retrieval_threshold,
                      leaf.latency + root.latency,
                      None if self.truth is None else self.truth(seat),
                      leaf.record, root.record, newest)

    def _log_strengths(self, now: float, decay: float) -> None:
        """``ln (t − t_j)^(−d)`` per reference time, as the memory computes it.

        On the clock's grid (every time so far, and now, an exact multiple of one step,
        as a model's fixed time per turn makes them) the strength of each age is
        computed once, by the same NumPy calls on an array of ages (elementwise: the same
        bits), and looked up from then on: ``_grid`` holds them from the oldest age down,
        so the strengths at grid index n are its tail from ``len − 1 − n``, indexed by each
        update's grid index. Off the grid: per distinct reference time at every new time.
        """
        if self._step != 0.0:
            index = self._grid_index(now)
            if index >= 0:
                if index >= len(self._grid) or decay != self._grid_decay:
                    self._grow_grid(index, decay)
                self._strengths = self._grid[len(self._grid) - 1 - index:]
                self._strength_of = self._grid_of
                self._strengths_at, self._strengths_count = now, self._count
                self._strengths_decay = decay
                return
        times = self._times
        ages = now - times.view()
        strengths = np.power(ages, -decay, out=ages)
        if decay * math.log(now - times.items[0]) < 700.0:
            # no strength underflowed to 0 (that needs an age beyond e^(744/d)): the log
            # needs no guard against ln 0
            self._strengths = np.log(strengths, out=strengths)
        else:
            self._strengths = log_in_place(strengths)
        self._strength_of = self._time_of.view()
        self._strengths_at, self._strengths_count = now, self._count
        self._strengths_decay = decay

    def _grid_index(self, time: float) -> int:
        """``k`` with ``time == k·step`` exactly (the first positive time sets the step,
        a time between its multiples a finer one), or -1 when ``time`` cannot be on the
        grid, which ends the grid for good."""
        step = self._step
        if step is None:
            if time == 0.0:
                return 0
            step = self._step = _grid_step(time)
            if step == 0.0:
                return -1
        if time == self._index_at:
            return self._index
        index = round(time / step)
        if not (index * step == time and index < _GRID_INDEX):
            index = self._refine_grid(time)
            if index < 0:
                return index
        self._index_at, self._index = time, index
        return index

    def _refine_grid(self, time: float) -> int:
        """The grid of the greatest step that both the step and ``time`` are multiples of
        (the kept grid indices scaled to it): ``time``'s index on it, or -1 (no grid)."""
        step = self._step
        if 0.0 < time < math.inf:
            # step = a / m and time = b / m with m a power of two: the common step is
            # gcd(a, b) / m, exact while gcd(a, b) < 2^53
            a, p = step.as_integer_ratio()
            b, q = time.as_integer_ratio()
            m = max(p, q)
            a, b = a * (m // p), b * (m // q)
            common = math.gcd(a, b)
            finer = _grid_step(common / m) if common < 1 << 53 else 0.0
            index, scale = b // common, a // common
            if finer and index < _GRID_INDEX and index * finer == time and (
                    scale * finer == step):
                self._grid_of = self._grid_of * scale  # (a fresh array: views keep theirs)
                self._last_grid *= scale
                self._step, self._grid, self._grid_decay = finer, np.empty(0), math.nan
                return index
        self._step = 0.0
        return -1

    def _grow_grid(self, index: int, decay: float) -> None:
        """The log strengths of ages 1·step .. (size − 1)·step, for grid indices up to at
        least ``index``, made by the calls ``_log_strengths`` makes off the grid."""
        size = max(2 * len(self._grid), index + 1, 64)
        oldest = (size - 1) * self._step
        ages = np.arange(1, size, dtype=np.float64) * self._step
        strengths = np.power(ages, -decay, out=ages)
        if decay * math.log(oldest) < 700.0:  # no strength underflowed to 0
            strengths = np.log(strengths, out=strengths)
        else:
            strengths = log_in_place(strengths)
        grid = np.empty(size)
        grid[:-1] = strengths[::-1]
        grid[-1] = math.nan  # age 0: never a candidate's (a chunk stored now is not kept)
        self._grid, self._grid_decay = grid, decay

    def update(self, seat: int, change: int) -> Recall:
        """An observed pass (-1) or take (+tokens): recall, apply, store (§3.4.3)."""
        recall = self.recall(seat, "update")
        tokens = recall[5] + change  # the count it starts from, changed
        self.store(seat, tokens if tokens > 0 else 0)
        return recall

    def history_frame(self):
        """One row per recall attempt: model time, seat, purpose (decide/update), source
        (leaf/root/default), the recalled candidate counts, the count an update starts
        from (``value``), leaf and root activations, threshold, latency, true count."""
        import pandas as pd

        columns = ["time", "seat", "purpose", "source", "recalled", "value",
                   "leaf_activation", "root_activation", "threshold", "latency",
                   "true_tokens"]
        rows = [[r.time, r.seat, r.purpose, r.source, list(r.candidates), r.value,
                 r.leaf_activation, r.root_activation, r.threshold, r.latency, r.true_tokens]
                for r in self.history]
        return pd.DataFrame(rows, columns=columns)
