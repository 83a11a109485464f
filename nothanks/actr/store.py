"""The chunk store: chunks, their slot columns, their references and the clock's reference
times (docs/actr.md, "Chunks and merging" and "Performance").

The store is columnar: one :class:`Column` per slot (integer codes for exact matching,
values for scoring), one flat array of references (the chunk of each and the index of its
time among the distinct reference times), and the same references as a trie of reference
histories, which the compiled base levels sum once per node.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Real

import numpy as np

from .growable import Growable
from .parameters import real_number
from .records import Chunk, SlotValue

ABSENT = -1  # slot code of a chunk that lacks the slot
_PLAIN_NUMBERS = (int, float, bool)  # real numbers recognised without an ABC check
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
        if self.numeric and type(value) not in _PLAIN_NUMBERS and not isinstance(value, Real):
            self._to_objects()  # the rows before this one (its code is not appended yet)
        self.codes.append(code)
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
    """The chunks of a :class:`~nothanks.actr.DeclarativeMemory` and their references.

    Everything here is public for the memory's other parts to read (the base levels read
    the references and their trie, matching reads the columns, retrieval the chunks);
    only :meth:`add` and :meth:`copy_from` write. The arrays' views are the store's own:
    read them, never write to them.

    Attributes:
        chunks: every chunk, in the order first stored (row i is ``chunks[i]``).
        row_of: a chunk's key (``Chunk.key``) -> its row.
        columns: slot name -> its :class:`Column`.
        fixed: per row, the fixed activation, NaN for a learned chunk.
        learned: how many chunks have no fixed activation.
        reference_row, reference_time_index: per reference, its chunk's row and the
            index of its time in ``time_values`` (the distinct reference times, in the
            order they first occurred: a base level then needs one power per distinct
            time, not per reference).
        reference_count, created: per row, its references (float, for the log) and
            the time it was first stored.
        node_of, node_parent, node_time, deep_nodes: the references as a trie of
            reference-time sequences, for the kernel: node 0 is "no reference yet", a
            node's child adds one reference at one time (``node_time``: its index in
            ``time_values``), a chunk points to the node of its whole history
            (``node_of``). Chunks with the same history share a node, so
            ``Σ_j (t − t_j)^(−d)`` is summed once per node, each node's sum its parent's
            plus one strength: the same additions in the same order as summing the
            chunk's references one by one. ``deep_nodes`` counts the nodes of a second
            or later reference; ``node_child[node, time index]`` is a node's child.
        last_time_value: the latest entry of ``time_values`` (NaN: none yet).
        latest_reference: the time of the latest reference (−inf: none), dropped or not.
        dropped: how many references :meth:`drop_reference` made count for nothing
            (their time is −inf; the trie still holds them, so base levels are summed
            per reference while any is dropped).
    """

    __slots__ = ("_dropped_time", "chunks", "columns", "created", "deep_nodes", "dropped", "fixed",
                 "last_time_value",
                 "latest_reference", "learned", "node_child", "node_of", "node_parent",
                 "node_time", "reference_count", "reference_row", "reference_time_index",
                 "row_of", "time_values")

    def __init__(self) -> None:
        self.chunks: list[Chunk] = []
        self.row_of: dict[frozenset, int] = {}
        self.columns: dict[str, Column] = {}
        self.fixed = Growable(np.float64)
        self.learned = 0
        self.reference_row = Growable(np.int64)
        self.reference_time_index = Growable(np.int64)
        self.time_values = Growable(np.float64)
        self.last_time_value = math.nan
        self.reference_count = Growable(np.float64)
        self.created = Growable(np.float64)
        self.node_of = Growable(np.int64)
        self.node_parent = Growable(np.int64, [0])
        self.node_time = Growable(np.int64, [0])
        self.node_child: dict[tuple[int, int], int] = {}
        self.deep_nodes = 0
        self.latest_reference = -math.inf
        self.dropped = 0
        self._dropped_time: int | None = None  # the index of −inf in time_values

    def copy_from(self, other: ChunkStore) -> None:
        """Become an independent copy of ``other`` (this store must be empty): the store
        the same ``add`` calls would have built, without making them again."""
        if self.chunks:
            raise ValueError(f"copy_chunks needs an empty memory; this one holds "
                             f"{len(self.chunks)} chunk(s)")
        self.chunks = list(other.chunks)  # chunks are immutable: shared
        self.row_of = dict(other.row_of)
        self.columns = {slot: column.copy() for slot, column in other.columns.items()}
        for growable in ("fixed", "reference_row", "reference_time_index", "time_values",
                         "reference_count", "created", "node_of", "node_parent",
                         "node_time"):
            setattr(self, growable, getattr(other, growable).copy())
        self.learned = other.learned
        self.last_time_value = other.last_time_value
        self.node_child = dict(other.node_child)
        self.deep_nodes = other.deep_nodes
        self.latest_reference = other.latest_reference
        self.dropped = other.dropped
        self._dropped_time = other.dropped_time

    def add(self, slots: Mapping[str, SlotValue], fixed_activation: float | None,
            now: float) -> Chunk:
        """Store a chunk at time ``now``, or merge it into an identical one; either way add
        a reference at ``now`` (``DeclarativeMemory.add`` states the contract). ``now``
        may be earlier than references already stored (the instance memory learns
        delayed outcomes at their original time)."""
        fixed = None if fixed_activation is None else real_number("fixed_activation",
                                                                fixed_activation)
        chunk = Chunk(slots, fixed)
        row = self.row_of.get(chunk.key)
        new = row is None
        if new:
            row = self._store(chunk, now)
            node = 0
        else:
            chunk = self.chunks[row]
            if fixed is not None and chunk.fixed_activation != fixed:
                raise ValueError(f"{chunk!r} is already stored with fixed_activation "
                                 f"{chunk.fixed_activation!r}; merging cannot change it to "
                                 f"{fixed!r}")
            node = self.node_of.items[row]
        self._reference(row, node, new, now)
        return chunk

    def add_reference(self, row: int, now: float) -> None:
        """Add a reference at ``now`` to the chunk in row ``row`` (``add`` of that chunk,
        without making the chunk again: the instance memory knows its rows)."""
        self._reference(row, self.node_of.items[row], False, now)

    def _reference(self, row: int, node: int, new: bool, now: float) -> None:
        """Append a reference of ``row`` at ``now``, whose history so far is trie ``node``
        (``new``: the chunk's first reference)."""
        if now != self.last_time_value:
            self.time_values.append(now)
            self.last_time_value = now
        time_index = len(self.time_values.items) - 1
        self.reference_time_index.append(time_index)
        self.reference_row.append(row)
        child = self.node_child.get((node, time_index))
        if child is None:
            child = self.node_child[node, time_index] = len(self.node_parent.items)
            self.node_parent.append(node)
            self.deep_nodes += node != 0
            self.node_time.append(time_index)
        if new:  # the chunk's first reference: its per-chunk entries start here
            self.node_of.append(child)
            self.reference_count.append(1.0)
        else:
            self.node_of[row] = child
            self.reference_count[row] = self.reference_count.items[row] + 1
        if now > self.latest_reference:
            self.latest_reference = now

    def drop_reference(self, index: int) -> None:
        """Make reference ``index`` (a position in ``reference_row``) count for nothing: its
        time becomes −inf, whose strength ``(t + inf)^(−d)`` is 0 for d > 0 (one entry
        of ``time_values``, shared by every dropped reference)."""
        if self._dropped_time is None:
            self.time_values.append(-math.inf)
            self.last_time_value = -math.inf
            self._dropped_time = len(self.time_values.items) - 1
        self.reference_time_index[index] = self._dropped_time
        row = self.reference_row.items[index]
        self.reference_count[row] = self.reference_count.items[row] - 1
        self.dropped += 1

    def _store(self, chunk: Chunk, now: float) -> int:
        """Append a new chunk's row to every column (its references: ``add``)."""
        row = len(self.chunks)
        self.chunks.append(chunk)
        self.row_of[chunk.key] = row
        slots = chunk.slots
        columns = self.columns
        for slot in slots:
            if slot not in columns:
                columns[slot] = Column(row)
        for slot, column in columns.items():
            value = slots.get(slot, _ABSENT_VALUE)
            if value is _ABSENT_VALUE:
                column.append_absent()
            else:
                column.append(row, value)
        fixed = chunk.fixed_activation
        self.fixed.append(math.nan if fixed is None else fixed)
        self.learned += fixed is None
        self.created.append(now)
        return row

    @property
    def dropped_time(self) -> int | None:
        """The index in ``time_values`` of the −inf all dropped references point to (None:
        none dropped yet)."""
        return self._dropped_time

    def find(self, slots: Mapping[str, SlotValue]) -> int | None:
        """The row of the chunk with exactly these slots, None if not stored."""
        key = slots.key if isinstance(slots, Chunk) else frozenset(slots.items())
        return self.row_of.get(key)

    def row(self, chunk: Mapping[str, SlotValue]) -> int:
        """The row of ``chunk``; a KeyError if it is not stored."""
        row = self.find(chunk)
        if row is None:
            raise KeyError(f"{chunk!r} is not in this memory")
        return row

    def references(self, row: int) -> tuple[float, ...]:
        """The times at which row ``row``'s chunk was stored or merged, oldest first."""
        index = self.reference_time_index.view()[self.reference_row.view() == row]
        times = self.time_values.view()[index]
        return tuple(times.tolist())
