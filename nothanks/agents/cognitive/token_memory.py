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

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from ...actr import DeclarativeMemory, RetrievalRecord


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
    """

    def __init__(self, memory: DeclarativeMemory, *, leaf_penalty: float,
                 record: bool = False, merge: bool = False) -> None:
        self.memory = memory
        self.merge = merge
        self.leaf_penalty = leaf_penalty
        self.record = record
        self.history: list[Recall] = []
        self.stored = 0  # updates stored so far; tags each new chunk
        self._newest: dict[int, tuple[int, int]] = {}  # seat -> (update, tokens) last stored
        #: set from outside (runner, UI) to log each player's true count; never read by
        #: the model's decisions
        self.truth: Callable[[int], int] | None = None

    @property
    def time(self) -> float:
        return self.memory.time

    def store(self, seat: int, tokens: int) -> None:
        """Store ``seat``'s count as a leaf and its class as a root, at the current time."""
        self.stored += 1
        self._newest[seat] = (self.stored, tokens)
        leaf = {"kind": "leaf", "player": seat, "tokens": tokens}
        root = {"kind": "root", "player": seat, "class": token_class(tokens).name}
        if not self.merge:
            leaf["update"] = root["update"] = self.stored
        self.memory.add(leaf)
        self.memory.add(root)

    def recall(self, seat: int, purpose: str = "decide") -> Recall:
        """Remember ``seat``'s count: leaf, else root class, else defaults (Figure 6)."""
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
            recall = Recall(memory.time, seat, purpose, source, candidates, value,
                            leaf.activation, None, memory.retrieval_threshold,
                            leaf.latency + 0.0,
                            None if self.truth is None else self.truth(seat),
                            leaf.record, None, newest)
        else:
            recall = Recall(memory.time, seat, purpose, source, candidates, value,
                            leaf.activation, root.activation, memory.retrieval_threshold,
                            leaf.latency + root.latency,
                            None if self.truth is None else self.truth(seat),
                            leaf.record, root.record, newest)
        self.history.append(recall)
        return recall

    def update(self, seat: int, change: int) -> Recall:
        """An observed pass (-1) or take (+tokens): recall, apply, store (§3.4.3)."""
        recall = self.recall(seat, "update")
        self.store(seat, max(0, recall.value + change))
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
