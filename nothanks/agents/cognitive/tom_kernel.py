"""The ToM-k recursion of one decision compiled as a whole (no traces, per-time noise).

A ToM2 decision asks ToM0 a few dozen times, each a retrieval over ~2,000 instances; in
Python every ask costs a dozen calls around the compiled activation pass, and the
recursion around them as much again. Here the whole recursion of
:meth:`ToMAgent._reason <nothanks.agents.cognitive.tom.ToMAgent._reason>` is one
compiled call: the same projections in the same order, each ToM0 retrieval the same
additions as the memory's compiled path (``kernel.activations``: ``(B + ε) + Σm·MP``
with ``Σm`` summed left to right) and NumPy's first-best argmax, and the latencies
summed in the same order, so actions, latencies and failure counts are bit for bit the
Python path's (tested on random games over every reading switch). The noise is the
memory's per-time noise, drawn by the caller (NumPy), and the mismatch scores are the
memory's own score columns, stacked into tables by slot value.

numba is imported on first use (as in ``actr.kernel``); without it, or with
``NOTHANKS_ACTR_KERNEL=0``, the models reason in Python.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from ...actr import kernel as _kernel_module
from ...actr.memory import DeclarativeMemory
from .state import CATEGORY_NAMES, state_items

_compiled: SimpleNamespace | None = None
_loaded = False

# a frame's fields (the compiled recursion's stack): its level, seat, tokens on the card
# and tokens held; its ToM0 retrieval's action and failure, failures so far, the taker
# (-1: none yet) and predictions made; the other player projected (an index into the
# seat's turn order), the tokens on the card for it, its candidate being projected and
# how many of its candidates passed
(_LEVEL, _SEAT, _ON_CARD, _TOKENS, _TOM0, _FAILED, _FAILURES, _TAKER, _PREDICTED, _OTHER,
 _ON, _CANDIDATE, _PASSES) = range(13)
_FIELDS = 13
# what the frame on top does next
_ENTER, _NEXT, _PROJECT, _RETURNED, _FINISH = range(5)
_MEMO = 256  # ToM0 states kept per decision (beyond: retrieved again, the same result)


def _compile() -> SimpleNamespace | None:
    import numba

    @numba.njit(cache=True, nogil=True)
    def decide(level, seat, on_card, tokens, world, counts, categories, others, self_seat,
               project_self, all_pass, base, noise, category_rows, card_row, on_rows,
               own_rows, takes, penalty, tau, factor, out, predictions):
        """ToM-``level`` from ``seat``'s view holding ``tokens`` (> 0) at the root of a
        decision: (takes, latency, failures, ToM0 takes, ToM0 failed, taker or -1,
        predicted count); the predictions' (seat, tokens on the card, takes) rows fill
        ``predictions``. ``world[p, :counts[p]]`` are the counts assumed for player p.

        ``ToMAgent._reason`` without recursion (numba cannot cache a recursive
        function): one frame per level on explicit stacks, in the same order.
        """
        depth = level + 1
        worlds = np.empty((depth, world.shape[0], world.shape[1]), np.int64)
        assumed = np.empty((depth, counts.shape[0]), np.int64)
        frames = np.zeros((depth, _FIELDS), np.int64)
        latencies = np.zeros((depth, 2))  # the latency so far, a candidates' sum
        # ToM0's retrievals of this decision by state (per-time noise: the same state
        # retrieves the same), (takes, latency, failed) each
        memo_keys = np.empty(_MEMO, np.int64)
        memo_values = np.empty((_MEMO, 3))
        memo_size = 0
        chunks = out.shape[0]
        worlds[0] = world
        assumed[0] = counts
        frames[0, _LEVEL] = level
        frames[0, _SEAT] = seat
        frames[0, _ON_CARD] = on_card
        frames[0, _TOKENS] = tokens
        d = 0
        phase = _ENTER
        passing = False
        returned_takes = False
        returned_latency = 0.0
        returned_failures = 0
        while True:
            frame = frames[d]
            if phase == _ENTER:
                if frame[_TOKENS] == 0:  # no tokens: must take, nothing retrieved
                    returned_takes, returned_latency, returned_failures = True, 0.0, 0
                    d -= 1
                    phase = _RETURNED
                    continue
                category = categories[frame[_SEAT]]
                on = frame[_ON_CARD]
                held = frame[_TOKENS]
                if on >= on_rows.shape[0] or held >= own_rows.shape[0]:
                    raise IndexError("a ToM0 state outside the score tables")
                key = (category * on_rows.shape[0] + on) * own_rows.shape[0] + held
                known = -1
                for i in range(memo_size):
                    if memo_keys[i] == key:
                        known = i
                        break
                if known >= 0:
                    tom0 = memo_values[known, 0] != 0.0
                    latency = memo_values[known, 1]
                    failed = memo_values[known, 2] != 0.0
                else:  # the retrieval: kernel.activations' additions, NumPy's argmax
                    m0 = category_rows[category]
                    m2 = on_rows[on]
                    m3 = own_rows[held]
                    for i in range(chunks):
                        out[i] = (base[i] + noise[i]) + (
                            ((m0[i] + card_row[i]) + m2[i]) + m3[i]) * penalty
                    best = 0
                    top = out[0]
                    if top == top:  # the first maximum, or the first NaN
                        for i in range(1, chunks):
                            value = out[i]
                            if value > top:
                                top = value
                                best = i
                            elif value != value:
                                best = i
                                top = value
                                break
                    if top >= tau:
                        tom0 = takes[best] != 0
                        latency = factor * math.exp(-top)
                        failed = False
                    else:  # no instance retrieved: the default action, pass
                        tom0 = False
                        latency = factor * math.exp(-tau)
                        failed = True
                    if memo_size < _MEMO:
                        memo_keys[memo_size] = key
                        memo_values[memo_size, 0] = 1.0 if tom0 else 0.0
                        memo_values[memo_size, 1] = latency
                        memo_values[memo_size, 2] = 1.0 if failed else 0.0
                        memo_size += 1
                frame[_TOM0] = tom0
                frame[_FAILED] = failed
                frame[_FAILURES] = 1 if failed else 0
                frame[_TAKER] = -1
                frame[_PREDICTED] = 0
                latencies[d, 0] = latency
                if frame[_LEVEL] >= 1 and (d == 0 or tom0):
                    worlds[d, frame[_SEAT], 0] = frame[_TOKENS] - 1
                    assumed[d, frame[_SEAT]] = 1
                    frame[_ON] = frame[_ON_CARD] + 1
                    frame[_OTHER] = 0
                    phase = _NEXT
                else:
                    phase = _FINISH
            elif phase == _NEXT:  # project the next other player, its first candidate
                row = others[frame[_SEAT]]
                while frame[_OTHER] < row.shape[0] and (
                        d > 0 and not project_self and row[frame[_OTHER]] == self_seat):
                    frame[_OTHER] += 1
                if frame[_OTHER] == row.shape[0]:
                    phase = _FINISH
                    continue
                frame[_CANDIDATE] = 0
                frame[_PASSES] = 0
                latencies[d, 1] = 0.0
                phase = _PROJECT
            elif phase == _PROJECT:  # a child frame for the current candidate
                other = others[frame[_SEAT], frame[_OTHER]]
                child = frames[d + 1]
                worlds[d + 1] = worlds[d]
                assumed[d + 1] = assumed[d]
                count = worlds[d, other, frame[_CANDIDATE]]
                if assumed[d, other] > 1:  # one projection per count, as its only belief
                    worlds[d + 1, other, 0] = count
                    assumed[d + 1, other] = 1
                child[_LEVEL] = frame[_LEVEL] - 1
                child[_SEAT] = other
                child[_ON_CARD] = frame[_ON]
                child[_TOKENS] = count
                d += 1
                phase = _ENTER
            elif phase == _RETURNED:  # frame d's projection returned
                other = others[frame[_SEAT], frame[_OTHER]]
                n = assumed[d, other]
                frame[_FAILURES] += returned_failures
                if n == 1:
                    latencies[d, 0] += returned_latency
                    passing = not returned_takes
                else:
                    latencies[d, 1] += returned_latency
                    frame[_PASSES] += 0 if returned_takes else 1
                    frame[_CANDIDATE] += 1
                    if frame[_CANDIDATE] < n:
                        phase = _PROJECT
                        continue
                    latencies[d, 0] += latencies[d, 1]  # summed first, then added
                    passing = frame[_PASSES] == n if all_pass else frame[_PASSES] > 0
                if d == 0:
                    predictions[frame[_PREDICTED], 0] = other
                    predictions[frame[_PREDICTED], 1] = frame[_ON]
                    predictions[frame[_PREDICTED], 2] = 0 if passing else 1
                frame[_PREDICTED] += 1
                if not passing:
                    frame[_TAKER] = other
                    phase = _FINISH
                    continue
                for c in range(n):  # Belief.after_pass
                    if worlds[d, other, c] > 0:
                        worlds[d, other, c] -= 1
                frame[_ON] += 1
                frame[_OTHER] += 1
                phase = _NEXT
            else:  # _FINISH
                tom0 = frame[_TOM0] != 0
                action = tom0
                if frame[_LEVEL] >= 1 and tom0 and frame[_TAKER] < 0:
                    action = False
                if d == 0:
                    return (action, latencies[0, 0], frame[_FAILURES], tom0,
                            frame[_FAILED] != 0, frame[_TAKER], frame[_PREDICTED])
                returned_takes = action
                returned_latency = latencies[d, 0]
                returned_failures = frame[_FAILURES]
                d -= 1
                phase = _RETURNED

    return SimpleNamespace(decide=decide)


def compiled() -> SimpleNamespace | None:
    """The compiled recursion (``decide``), or None: switched off here (``use``), or the
    ACT-R kernels are off (numba missing, ``NOTHANKS_ACTR_KERNEL=0``, ``kernel.use``)."""
    global _compiled, _loaded
    if _kernel_module.kernels() is None:
        return None
    if not _loaded:
        _loaded = True
        _compiled = _compile()
    return _compiled


def warm() -> None:
    """Load the compiled recursion's machine code now (see ``actr.kernel.warm``)."""
    recursion = compiled()
    if recursion is None:
        return
    one = np.zeros(1)
    seat = np.zeros((1, 1), np.int64)
    recursion.decide(0, 0, 0, 1, seat, np.ones(1, np.int64), np.zeros(1, np.int64),
                     np.zeros((1, 0), np.int64), 0, True, True, one, one, np.zeros((1, 1)),
                     one, np.zeros((2, 1)), np.zeros((2, 1)), np.zeros(1, np.int8), 1.0, 0.0,
                     1.0, np.empty(1), np.empty((1, 3), np.int64))


def use(enabled: bool) -> None:
    """Switch the compiled recursion on or off for this process (tests compare both)."""
    global _compiled, _loaded
    _compiled, _loaded = (None, False) if enabled else (None, True)


class ScoreTables:
    """An instance memory's mismatch scores of every state slot, stacked by value for the
    compiled recursion: the category's by name (``CATEGORY_NAMES`` order), the card's by
    card, and the two token slots' by count, from 0 up to the highest count asked for so
    far. The rows are the memory's own score columns (``_compiled_scores``: the same bits
    the Python path adds), gathered when first needed.

    None from :meth:`rows` when the memory's requests are not all scored (the Python
    path handles them).
    """

    def __init__(self, memory: DeclarativeMemory, takes: np.ndarray) -> None:
        self.memory = memory
        self.takes = takes  # per instance: 1 when its action is to take
        self._functions = tuple(memory._mismatch.items())
        self._categories: np.ndarray | None = None
        self._cards: dict[int, np.ndarray] = {}
        self._on_card = np.empty((0, len(memory)))
        self._owned = np.empty((0, len(memory)))
        self.out = np.empty(len(memory))  # the activations' scratch array

    def current(self) -> bool:
        """Whether the memory still scores as when the tables were made (the same chunks
        and mismatch functions)."""
        memory = self.memory
        return (len(memory._chunks) == len(self.takes)
                and tuple(memory._mismatch.items()) == self._functions)

    def _scores(self, category: str, card: int, on_card: int, owned: int):
        """The four score columns of a state, as the memory's compiled retrieval gets
        them (and keeps them in its own caches), or None."""
        memory = self.memory
        rows, scored = memory._split(dict(state_items(category, card, on_card, owned)))
        if rows is not None or len(scored) != 4:
            return None
        return memory._compiled_scores(scored)

    def rows(self, card: int, highest_on_card: int, highest_owned: int):
        """(category rows, the card's row, tokens-on-card rows, tokens-owned rows) with
        rows up to the given counts, or None (not all scored)."""
        if self._categories is None:
            columns = [self._scores(name, card, 0, 0) for name in CATEGORY_NAMES]
            if any(column is None for column in columns):
                return None
            self._categories = np.stack([column[0] for column in columns])
        card_row = self._cards.get(card)
        if card_row is None:
            columns = self._scores(CATEGORY_NAMES[0], card, 0, 0)
            if columns is None:
                return None
            card_row = self._cards[card] = columns[1]
        for name, highest in (("_on_card", highest_on_card), ("_owned", highest_owned)):
            table = getattr(self, name)
            if highest >= len(table):
                grown = np.empty((max(2 * len(table), highest + 1, 16), table.shape[1]))
                grown[:len(table)] = table
                for value in range(len(table), len(grown)):
                    columns = self._scores(CATEGORY_NAMES[0], card, value, value)
                    if columns is None:
                        return None
                    grown[value] = columns[2] if name == "_on_card" else columns[3]
                setattr(self, name, grown)
        return self._categories, card_row, self._on_card, self._owned
