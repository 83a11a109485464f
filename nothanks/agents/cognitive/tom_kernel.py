"""The agents' side of the compiled ToM-k decision (``nothanks.kernels.tom``).

A ToM2 decision asks ToM0 a few dozen times, each a retrieval over ~2,000 instances; in
Python every ask costs a dozen calls around the compiled activation pass, and the
recursion around them as much again. The compiled core (``tom_core.decide``, the one
compiled copy of the recursion, shared with the search's play-outs) runs
:meth:`ToMAgent._reason <nothanks.agents.cognitive.tom.ToMAgent._reason>` at the root in
one call, for every order k >= 1: the same projections in the same order, each ToM0
retrieval the same additions as the memory's compiled path (``kernel.activations``) and
NumPy's first-best argmax, and the latencies summed in the same order, so actions,
latencies, failure counts and predictions are bit for bit the Python path's
(tests/integration/agreement/test_tom.py). A ToM0 model's decision is the core's retrieval without
the recursion's set-up (``tom_core.decide_tom0``: its state as four table rows, no
packed array).

The noise is the memory's per-time noise: for ToM-k, drawn by the caller; for a ToM0
model's decision, drawn already or its counter-stream positions reserved by the caller
and drawn by the core only for the instances that can win
(``nothanks.kernels.retrieval``); the mismatch scores are
the memory's own score columns, stacked into one table by slot value
(:class:`ScoreTables`).

numba is imported on first use (``tom_core``, as ``actr.kernel`` does); without it, or
on the reference (``nothanks.kernels.reference_mode``, ``NOTHANKS_REFERENCE=1``), the
models reason in Python (the reference recursion).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ...actr import kernel as _kernel_module
from ...actr.memory import DeclarativeMemory
from .state import CATEGORY_NAMES, state_items

_compiled: SimpleNamespace | None = None
_loaded = False

# the score table's first rows, as the compiled core reads them: each instance's action
# (1.0: take), then the categories' scores (``tom_core.TAKES_ROW``, ``CATEGORY_ROW``;
# tests/integration/agreement/test_tom.py checks they agree)
TAKES_ROW = 0
CATEGORY_ROW = 1
N_CATEGORIES = len(CATEGORY_NAMES)
#: Counts the score tables first hold per token slot (0-63): what a game of up to seven
#: players asks for, scored at a model's first decision (about 5 ms) rather than grown
#: while it plays; a larger count grows them (doubling).
FIRST_ROWS = 64


def _compile() -> SimpleNamespace | None:
    from ...kernels import retrieval
    from ...kernels import tom as tom_core

    if not tom_core.COMPILED:  # the core as plain Python: the reference is as fast
        return None
    return SimpleNamespace(decide=tom_core.decide, decide_tom0=tom_core.decide_tom0,
                           window=retrieval.window)


def compiled() -> SimpleNamespace | None:
    """The compiled decision (``decide``, ``decide_tom0``, ``window``), its machine code
    loaded on the first call (:func:`warm`), or None: numba is missing or the reference is
    in force (``nothanks.kernels.reference_mode``)."""
    global _compiled, _loaded
    if _kernel_module.kernels() is None:  # (None on the reference)
        return None
    if not _loaded:
        _loaded = True
        _compiled = _compile()
        if _compiled is not None:
            _load(_compiled)
    return _compiled


def warm() -> None:
    """Load the compiled decision's machine code now (see ``actr.kernel.warm``)."""
    compiled()


def _load(core: SimpleNamespace) -> None:
    """Call every entry once on tiny inputs, so numba loads each one's machine code (from
    its disk cache) now rather than at the first decision that needs it (a window is
    first made in a model's second game or later)."""
    # a ToM0 of one player with one instance: table rows takes, 3 categories, one card,
    # then 2 x 2 counts
    state = np.array([0, 0, 0, 1, 1, 1, 0, 1, 1, 4, 5, 7, 0, 1, 1], np.int64)
    core.decide(state, np.zeros((9, 1)), np.zeros(1), np.zeros(1), 1.0, 0.0, 1.0,
                np.empty((1, 3), np.int64))
    stream = (np.uint64(0), np.uint64(0), np.uint64(0))
    rows = np.zeros(1)
    made = core.window(rows, 0.0, rows, rows, rows, rows, 1.0, 0.1, np.empty(1))
    for window in (made, (np.empty(0, np.int32), np.empty(0), 0.0, 0.0)):
        for noise in (np.zeros(1), np.empty(0)):
            core.decide_tom0(np.zeros((9, 1)), rows, 0.0, *window, noise, *stream, 0.1, 4,
                             0, 5, 7, 1.0, 0.0, 1.0, np.empty(1))


class ScoreTables:
    """An instance memory's mismatch scores of every state slot value, as the rows of one
    table for the compiled recursion: each instance's action (``TAKES_ROW``), the
    category's scores by name (``CATEGORY_NAMES`` order), the card's by card of the
    deck, then the tokens on the card's and the tokens owned's by count, 0 to ``rows``
    − 1 each. The rows are the memory's own score columns
    (:meth:`~nothanks.actr.DeclarativeMemory.score_columns`: the same bits the Python
    path adds). Column i scores chunk i; the table may hold spare columns past the
    chunks scored (:meth:`extend` fills them as chunks are learned), which the compiled
    recursion never reads (it reads as many as the base levels it is given).
    """

    def __init__(self, memory: DeclarativeMemory, takes: np.ndarray, low_card: int,
                 high_card: int) -> None:
        self.memory = memory
        self.deck = (low_card, high_card)
        self._changes = memory.mismatch_version
        self._chunks = len(takes)
        self._takes = takes
        self.table = np.empty((0, len(takes)))
        #: room for every scored chunk's det (``kernels.retrieval.window``'s ``det``)
        self.out = np.empty(len(takes))
        self.rows = 0  # counts held per token slot
        self.on_start = CATEGORY_ROW + N_CATEGORIES + high_card - low_card + 1
        self.own_start = self.on_start

    def current(self, low_card: int, high_card: int) -> bool:
        """Whether the memory still scores as when the tables were made (the same chunks,
        mismatch functions and deck)."""
        memory = self.memory
        return (memory.mismatch_version == self._changes
                and len(memory) == self._chunks and low_card == self.deck[0]
                and high_card == self.deck[1])

    @property
    def chunks(self) -> int:
        """How many of the memory's chunks the tables score (its first ``chunks``)."""
        return self._chunks

    def extend(self, takes: np.ndarray) -> bool:
        """Score the chunks stored since the tables were made (``takes``: their actions,
        1.0 for take), keeping the columns already made; False (the tables unchanged)
        unless the memory only gained chunks since, with the same mismatch functions, and
        scores them all: then the caller makes new tables. The new columns are the
        memory's own scores (:meth:`~nothanks.actr.DeclarativeMemory.score_rows`)."""
        memory = self.memory
        old, new = self._chunks, len(memory)
        if (memory.mismatch_version != self._changes or new <= old
                or len(takes) != new - old or not self.rows):
            return False
        low, high = self.deck
        counts = range(self.rows)
        parts = [memory.score_rows("category", CATEGORY_NAMES, old),
                 memory.score_rows("card", range(low, high + 1), old),
                 memory.score_rows("tokens_on_card", counts, old),
                 memory.score_rows("tokens_owned", counts, old)]
        if any(part is None for part in parts):
            return False
        table = self.table
        if new > table.shape[1]:  # room for as many again: copied once per doubling
            table = np.empty((len(table), 2 * new))
            table[:, :old] = self.table[:, :old]
        table[TAKES_ROW, old:new] = takes
        table[CATEGORY_ROW:, old:new] = np.concatenate(parts)
        self.table, self._chunks, self.out = table, new, np.empty(new)
        return True

    def card_row(self, card: int) -> int:
        return CATEGORY_ROW + N_CATEGORIES + card - self.deck[0]

    def _scores(self, category: str, card: int, on_card: int, owned: int):
        """The four score columns of a state, as the memory's compiled retrieval gets
        them (and keeps them in its own caches), or None."""
        columns = self.memory.score_columns(state_items(category, card, on_card, owned))
        if columns is None or len(columns) != 4:  # not every chunk, all scored
            return None
        return columns

    def grow(self, rows: int) -> bool:
        """Hold counts up to at least ``rows`` − 1 (doubling); False when the memory's
        requests are not all scored (the Python path takes them)."""
        low, high = self.deck
        old = self.rows
        new = max(rows, 2 * old, 16)
        head = self.on_start
        chunks = self._chunks
        table = np.empty((head + 2 * new, max(chunks, self.table.shape[1])))
        if old:
            table[:head] = self.table[:head]
            table[head:head + old] = self.table[head:head + old]
            table[head + new:head + new + old] = self.table[head + old:head + 2 * old]
        else:
            table[TAKES_ROW, :chunks] = self._takes
            for index, name in enumerate(CATEGORY_NAMES):
                columns = self._scores(name, low, 0, 0)
                if columns is None:
                    return False
                table[CATEGORY_ROW + index, :chunks] = columns[0]
            for card in range(low, high + 1):
                columns = self._scores(CATEGORY_NAMES[0], card, 0, 0)
                if columns is None:
                    return False
                table[self.card_row(card), :chunks] = columns[1]
        for count in range(old, new):
            columns = self._scores(CATEGORY_NAMES[0], low, count, count)
            if columns is None:
                return False
            table[head + count, :chunks] = columns[2]
            table[head + new + count, :chunks] = columns[3]
        self.table, self.rows, self.own_start = table, new, head + new
        return True
