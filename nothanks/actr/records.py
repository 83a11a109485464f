"""Values the declarative memory hands out: chunks, retrievals and their records.

They are immutable so a trace can keep them without copying: a chunk's slots never
change (its references live in the memory), and a retrieval record is a snapshot of
one retrieval at one model time.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

SlotValue = Hashable
"""A slot holds a number or a symbol (any hashable value except NaN)."""


class Chunk(Mapping[str, SlotValue]):
    """A fact in declarative memory: named slots with immutable values.

    Two chunks are the same fact when their slots and values are equal; that is what
    ACT-R merges. A chunk is itself a mapping of its slots, so ``memory.add(chunk)``
    strengthens it. Chunks are made by ``DeclarativeMemory.add``, which also keeps
    their references.
    """

    __slots__ = ("_fixed_activation", "_hash", "_key", "_slots")

    def __init__(self, slots: Mapping[str, SlotValue], fixed_activation: float | None = None):
        if type(slots) is not dict and not isinstance(slots, Mapping):
            raise TypeError(f"chunk slots must be a mapping of slot name to value, "
                            f"got {type(slots).__name__}")
        if not slots:
            raise ValueError("a chunk needs at least one slot")
        for name, value in slots.items():
            if type(name) is not str and not isinstance(name, str) or not name:
                raise TypeError(f"slot names must be non-empty strings, got {name!r}")
            if isinstance(value, float) and value != value:  # NaN
                raise ValueError(f"slot {name!r} is NaN; NaN never equals itself, "
                                 "so the chunk could never be matched or merged")
        self._slots = MappingProxyType(dict(slots))
        try:
            self._key = frozenset(self._slots.items())
        except TypeError:
            bad = {k: v for k, v in self._slots.items() if not isinstance(v, Hashable)}
            raise TypeError(f"slot values must be hashable numbers or symbols; "
                            f"unhashable: {bad!r}") from None
        self._hash = hash(self._key)
        self._fixed_activation = fixed_activation

    @property
    def slots(self) -> Mapping[str, SlotValue]:
        """The slots as a read-only mapping."""
        return self._slots

    @property
    def key(self) -> frozenset:
        """The chunk's identity: its ``(slot, value)`` pairs as a frozenset (two chunks
        are the same fact, and merge, when their keys are equal)."""
        return self._key

    @property
    def fixed_activation(self) -> float | None:
        """Base-level activation that never decays, or None if it is learned."""
        return self._fixed_activation

    def __getitem__(self, slot: str) -> SlotValue:
        return self._slots[slot]

    def __iter__(self) -> Iterator[str]:
        return iter(self._slots)

    def __len__(self) -> int:
        return len(self._slots)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Chunk):
            return self._key == other._key
        return NotImplemented

    def __reduce__(self) -> tuple:
        """Pickled and deep-copied as its slots and fixed activation (the read-only
        mapping it keeps cannot be pickled), so a model holding chunks travels to worker
        processes and can be cloned."""
        return (Chunk, (dict(self._slots), self._fixed_activation))

    def __repr__(self) -> str:
        slots = ", ".join(f"{name}={value!r}" for name, value in self._slots.items())
        fixed = "" if self._fixed_activation is None else f"; fixed {self._fixed_activation:g}"
        return f"Chunk({slots}{fixed})"


@dataclass(frozen=True, slots=True)
class ActivationComponents:
    """One chunk's activation for one request, term by term.

    ``activation = base_level + sum(mismatch.values()) + offset + noise``. Each mismatch
    is already multiplied by the mismatch penalty MP; only slots with a mismatch
    function appear (exact-match slots contribute nothing to a candidate).
    """

    chunk: Chunk
    base_level: float
    mismatch: Mapping[str, float]
    offset: float
    noise: float
    activation: float


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class CandidateColumns:
    """Every candidate's activation components as columns, one entry per candidate.

    A traced retrieval over thousands of instances keeps these arrays (copies, so the
    memory may move on) instead of one ``ActivationComponents`` per candidate: most
    records are never read, and ``components()`` builds the per-candidate values from
    these very floats when one is.
    """

    chunks: Sequence[Chunk]
    base_level: np.ndarray
    #: per scored slot, already multiplied by MP (and + 0.0: never −0.0)
    mismatch: Mapping[str, np.ndarray]
    offset: float
    #: None when the memory has no noise: every candidate's noise is then 0.0
    noise: np.ndarray | None
    activation: np.ndarray

    def components(self) -> tuple[ActivationComponents, ...]:
        """One ``ActivationComponents`` per candidate, in candidate order."""
        slots = tuple(self.mismatch)
        per_slot = [column.tolist() for column in self.mismatch.values()]
        count = len(self.chunks)
        mismatches = zip(*per_slot, strict=True) if per_slot else repeat((), count)
        noises = [0.0] * count if self.noise is None else self.noise.tolist()
        offset = self.offset
        return tuple(
            ActivationComponents(chunk=chunk, base_level=b,
                                 mismatch=dict(zip(slots, m, strict=True)),
                                 offset=offset, noise=e, activation=a)
            for chunk, b, m, e, a in zip(self.chunks, self.base_level.tolist(), mismatches,
                                         noises, self.activation.tolist(), strict=True))


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class RetrievalRecord:
    """Everything one retrieval saw: the request and every candidate's components.

    ``columns`` holds the components (None: no chunk could match the request);
    ``candidates`` presents them as one ``ActivationComponents`` per candidate, built
    on first read and kept. Two records are equal when these fields are.
    """

    request: Mapping[str, SlotValue]
    time: float
    threshold: float
    noise_mode: str
    columns: CandidateColumns | None
    winner: Chunk | None
    latency: float
    _candidates: tuple[ActivationComponents, ...] | None = field(default=None, init=False)

    @property
    def candidates(self) -> tuple[ActivationComponents, ...]:
        """Every candidate's components, in candidate order (empty if none matched)."""
        candidates = self._candidates
        if candidates is None:
            candidates = () if self.columns is None else self.columns.components()
            object.__setattr__(self, "_candidates", candidates)
        return candidates

    @property
    def best_activation(self) -> float | None:
        """The highest candidate activation, None without candidates: the value of
        ``max(c.activation for c in candidates)``, read from the column without
        building the candidates."""
        if self.columns is None:
            return None
        activation = self.columns.activation
        return float(activation[activation.argmax()])

    def _values(self) -> tuple[object, ...]:
        return (self.request, self.time, self.threshold, self.noise_mode, self.candidates,
                self.winner, self.latency)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __reduce__(self) -> tuple:
        """Pickled and deep-copied with its request as a read-only mapping again (the
        mapping itself cannot be pickled), so a model holding its last trace travels to
        worker processes and can be cloned."""
        return (_retrieval_record, (dict(self.request), self.time, self.threshold,
                                    self.noise_mode, self.columns, self.winner,
                                    self.latency))

    def __repr__(self) -> str:
        return (f"RetrievalRecord(request={self.request!r}, time={self.time!r}, "
                f"threshold={self.threshold!r}, noise_mode={self.noise_mode!r}, "
                f"candidates={self.candidates!r}, winner={self.winner!r}, "
                f"latency={self.latency!r})")

    def to_frame(self) -> pd.DataFrame:
        """One row per candidate, for analysis and display.

        Columns: ``time``, ``chunk``, the chunk's slot values (``chunk_<slot>``), each
        component (``base_level``, ``mismatch_<slot>``, ``offset``, ``noise``,
        ``activation``), ``threshold`` and a bool ``winner``.
        """
        import pandas as pd  # only analysis needs pandas; keep it off the import path

        slot_names: dict[str, None] = {}
        mismatch_names: dict[str, None] = {}
        for candidate in self.candidates:
            slot_names.update(dict.fromkeys(candidate.chunk))
            mismatch_names.update(dict.fromkeys(candidate.mismatch))
        rows = []
        for candidate in self.candidates:
            row: dict[str, object] = {"time": self.time, "chunk": candidate.chunk}
            row.update({f"chunk_{slot}": candidate.chunk.get(slot) for slot in slot_names})
            row["base_level"] = candidate.base_level
            row.update({f"mismatch_{slot}": candidate.mismatch.get(slot, math.nan)
                        for slot in mismatch_names})
            row.update(offset=candidate.offset, noise=candidate.noise,
                       activation=candidate.activation, threshold=self.threshold,
                       winner=candidate.chunk is self.winner)
            rows.append(row)
        columns = (["time", "chunk", *(f"chunk_{s}" for s in slot_names), "base_level",
                    *(f"mismatch_{s}" for s in mismatch_names),
                    "offset", "noise", "activation", "threshold", "winner"])
        frame = pd.DataFrame(rows, columns=columns)
        return frame.astype({"winner": bool})


class Retrieval(NamedTuple):
    """The outcome of one retrieval request.

    ``chunk`` is the retrieved chunk, or None when the retrieval failed. ``activation``
    is the winner's activation; on failure it is the best candidate's (below the
    threshold), or None when no chunk could match the request at all. ``latency`` is
    ``F·e^(−A)`` on success and ``F·e^(−τ)`` on failure. (An immutable named tuple:
    one is made per retrieval, thousands per game, so it must be cheap to build.)
    """

    chunk: Chunk | None
    activation: float | None
    latency: float
    record: RetrievalRecord | None = None

    @property
    def succeeded(self) -> bool:
        """True when a chunk was retrieved."""
        return self.chunk is not None


def _retrieval_record(request: dict, *fields: object) -> RetrievalRecord:
    """A :class:`RetrievalRecord` from its pickled fields (``__reduce__``)."""
    return RetrievalRecord(MappingProxyType(request), *fields)
