"""The chunk store: chunks, their slot columns, their references and the clock's reference
times (docs/actr.md, "Chunks and merging" and "Performance").

The store is columnar: one :class:`Column` per slot (integer codes for exact matching,
values for scoring), one flat array of references (the chunk of each and the index of its
time among the distinct reference times), and the same references as a trie of reference
histories, which the compiled base levels sum once per node.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real

import numpy as np

from .growable import Growable
from .parameters import real_number
from .records import Chunk, SlotValue

ABSENT = -1  # slot code of a chunk that lacks the slot
_PLAIN_NUMBERS = (int, float)  # real numbers recognised without an ABC check
_ABSENT_VALUE = object()  # a slot a chunk lacks


class Column:
    """One slot across all chunks: integer codes for exact matching, values for scoring.

    ``codes[i]`` is the code of chunk i's value (``ABSENT`` if it lacks the slot);
    ``rows_of[code]`` lists the chunks holding that value, which makes the exact-match
    filter a dict lookup and a list copy. ``values`` is float64 while every value is a
    real number, so numeric mismatch functions run on a plain float array, and object
    otherwise.
    """

    __slots__ = ("code_of", "codes", "numeric", "present", "rows_of", "value_of", "values")

    def __init__(self, chunks_before: int):
        self.codes = Growable(np.int64, [ABSENT] * chunks_before)
        self.values = Growable(np.float64, [math.nan] * chunks_before)
        self.numeric = True
        self.code_of: dict[SlotValue, int] = {}
        self.value_of: list[SlotValue] = []
        # plain lists: most values of a unique slot (the token memory's ``update``) are
        # never looked up, so none gets an array until a request reads it
        self.rows_of: list[list[int]] = []
        self.present = 0  # how many chunks hold this slot

    def append(self, row: int, value: SlotValue) -> None:
        code = self.code_of.get(value)
        if code is None:
            code = self.code_of[value] = len(self.value_of)
            self.value_of.append(value)
            self.rows_of.append([row])
        else:
            self.rows_of[code].append(row)
        self.codes.append(code)
        if self.numeric and type(value) not in _PLAIN_NUMBERS and not isinstance(value, Real):
            self._to_objects()
        self.values.append(value)
        self.present += 1

    def copy(self) -> Column:
        """An independent copy, for a memory that starts from another's chunks."""
        column = Column.__new__(Column)
        column.codes, column.values = self.codes.copy(), self.values.copy()
        column.numeric, column.present = self.numeric, self.present
        column.code_of, column.value_of = dict(self.code_of), list(self.value_of)
        column.rows_of = [list(rows) for rows in self.rows_of]
        return column

    def append_absent(self) -> None:
        self.codes.append(ABSENT)
        self.values.append(math.nan if self.numeric else None)

    def _to_objects(self) -> None:
        """Switch to an object array once a symbol arrives, keeping the original values."""
        self.numeric = False
        self.values = Growable(object, self.original(self.codes.view()))

    def original(self, codes: np.ndarray) -> list[SlotValue | None]:
        """The values as stored (ints stay ints), None where the slot is absent."""
        return [None if code == ABSENT else self.value_of[code] for code in codes.tolist()]


class ChunkStore:
    """The chunks of :class:`~nothanks.actr.DeclarativeMemory` and their references (a
    part of the memory, not a class of its own)."""

    def _init_store(self) -> None:
        """An empty store (the memory's constructor calls it)."""
        # chunks and their columns
        self._chunks: list[Chunk] = []
        self._row_of: dict[frozenset, int] = {}
        self._columns: dict[str, Column] = {}
        self._fixed = Growable(np.float64)  # fixed activation, NaN when learned
        self._learned = 0  # chunks without a fixed activation
        # references: one flat array with the chunk row of each and the index of its time
        # among the distinct reference times (a base level then needs one power per
        # distinct time, not per reference)
        self._reference_row = Growable(np.int64)
        self._reference_time_index = Growable(np.int64)
        self._time_values = Growable(np.float64)
        self._time_value_last = math.nan
        self._reference_count = Growable(np.float64)  # per chunk, float for the log
        self._created = Growable(np.float64)
        # The same references as a trie of reference-time sequences, for the kernel: node
        # 0 is "no reference yet", a node's child adds one reference at one time, and a
        # chunk points to the node of its whole history. Chunks with the same history
        # share a node, so Σ_j (t − t_j)^(−d) is summed once per node, each node's sum
        # its parent's plus one strength: the same additions in the same order as
        # summing the chunk's references one by one.
        self._node_of = Growable(np.int64)  # per chunk
        self._node_parent = Growable(np.int64, [0])
        self._node_time = Growable(np.int64, [0])  # index of the node's reference time
        self._node_child: dict[tuple[int, int], int] = {}
        self._deep_nodes = 0  # nodes of a second or later reference
        self._latest_reference = -math.inf

    def copy_chunks(self, other: ChunkStore) -> None:
        """Start from ``other``'s chunks, references and clock (``other``: another
        :class:`~nothanks.actr.DeclarativeMemory`; this memory must be empty).

        The result is the memory that the same ``add`` calls would have built, without
        making them again: a model with thousands of fixed instance chunks copies them
        from a memory built once instead of storing each. This memory keeps its own
        parameters, mismatch functions and random generator.
        """
        if self._chunks:
            raise ValueError(f"copy_chunks needs an empty memory; this one holds "
                             f"{len(self._chunks)} chunk(s)")
        self._time = other._time
        self._chunks = list(other._chunks)  # chunks are immutable: shared
        self._row_of = dict(other._row_of)
        self._columns = {slot: column.copy() for slot, column in other._columns.items()}
        for name in ("_fixed", "_reference_row", "_reference_time_index", "_time_values",
                     "_reference_count", "_created", "_node_of", "_node_parent",
                     "_node_time"):
            setattr(self, name, getattr(other, name).copy())
        self._learned = other._learned
        self._time_value_last = other._time_value_last
        self._node_child = dict(other._node_child)
        self._deep_nodes = other._deep_nodes
        self._latest_reference = other._latest_reference
        self._base_key = None
        self._sums_of = (None, None, None)
        self._forget_time_noise()
        self._scores.clear()
        self._plans.clear()

    def add(self, slots: Mapping[str, SlotValue], *,
            fixed_activation: float | None = None) -> Chunk:
        """Store a chunk, or merge it into an identical one; either way add a reference.

        ``fixed_activation`` gives a base level that never decays (the thesis's instance
        chunks use 0). When merging, None keeps the existing chunk's setting; a different
        value is an error, because a chunk cannot both decay and not decay.
        """
        fixed = None if fixed_activation is None else real_number("fixed_activation",
                                                                fixed_activation)
        chunk = Chunk(slots, fixed)
        row = self._row_of.get(chunk.key)
        new = row is None
        if new:
            row = self._store(chunk)
            node = 0
        else:
            chunk = self._chunks[row]
            if fixed is not None and chunk.fixed_activation != fixed:
                raise ValueError(f"{chunk!r} is already stored with fixed_activation "
                                 f"{chunk.fixed_activation!r}; merging cannot change it to "
                                 f"{fixed!r}")
            node = self._node_of.items[row]
        now = self._time
        if now != self._time_value_last:
            self._time_values.append(now)
            self._time_value_last = now
        time_index = len(self._time_values.items) - 1
        self._reference_time_index.append(time_index)
        self._reference_row.append(row)
        child = self._node_child.get((node, time_index))
        if child is None:
            child = self._node_child[node, time_index] = len(self._node_parent.items)
            self._node_parent.append(node)
            self._deep_nodes += node != 0
            self._node_time.append(time_index)
        if new:  # the chunk's first reference: its per-chunk entries start here
            self._node_of.append(child)
            self._reference_count.append(1.0)
        else:
            self._node_of[row] = child
            self._reference_count[row] = self._reference_count.items[row] + 1
        self._latest_reference = now
        return chunk

    def _store(self, chunk: Chunk) -> int:
        """Append a new chunk's row to every column (its references: ``add``)."""
        row = len(self._chunks)
        self._chunks.append(chunk)
        self._row_of[chunk.key] = row
        slots = chunk.slots
        columns = self._columns
        for slot in slots:
            if slot not in columns:
                columns[slot] = Column(row)
                self._plans.clear()  # a request naming this slot may now have candidates
        for slot, column in columns.items():
            value = slots.get(slot, _ABSENT_VALUE)
            if value is _ABSENT_VALUE:
                column.append_absent()
            else:
                column.append(row, value)
        fixed = chunk.fixed_activation
        self._fixed.append(math.nan if fixed is None else fixed)
        self._learned += fixed is None
        self._created.append(self._time)
        return row

    @property
    def chunks(self) -> tuple[Chunk, ...]:
        """All chunks, in the order they were first stored."""
        return tuple(self._chunks)

    def __len__(self) -> int:
        return len(self._chunks)

    def __contains__(self, slots: object) -> bool:
        return isinstance(slots, Mapping) and self._find(slots) is not None

    def _find(self, slots: Mapping[str, SlotValue]) -> int | None:
        key = slots.key if isinstance(slots, Chunk) else frozenset(slots.items())
        return self._row_of.get(key)

    def _row(self, chunk: Mapping[str, SlotValue]) -> int:
        row = self._find(chunk)
        if row is None:
            raise KeyError(f"{chunk!r} is not in this memory")
        return row

    def references(self, chunk: Mapping[str, SlotValue]) -> tuple[float, ...]:
        """The times at which ``chunk`` was stored or merged, oldest first."""
        row = self._row(chunk)
        index = self._reference_time_index.view()[self._reference_row.view() == row]
        times = self._time_values.view()[index]
        return tuple(times.tolist())

    def add_past(self, added: Sequence[tuple[float, Mapping[str, SlotValue]]]) -> None:
        """``add`` each of ``added``'s ``(time, slots)`` at its own past model time, then
        put the clock back: the memory the same ``add`` calls, made at those times, would
        have built (the token memory stores its chunks on demand with it).

        Raises:
            ValueError: a time before the latest reference already stored (or the one
                before it in ``added``) or after the clock; the chunks before it are
                stored, the clock is put back.
        """
        now = self._time
        try:
            for time, slots in added:
                if not self._latest_reference <= time <= now:
                    raise ValueError(
                        f"add_past: time {time!r} of {dict(slots)!r} is not between the "
                        f"latest reference stored ({self._latest_reference:g}) and the "
                        f"clock ({now:g}); past chunks must come in time order")
                self._time = time
                self.add(slots)
        finally:
            self._time = now
