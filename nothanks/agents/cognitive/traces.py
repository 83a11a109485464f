"""Reasoning traces: what a cognitive model considered at each level of a decision.

A decision's trace is a tree. Its root is the model's own view; each node holds the
ToM level reasoned at, whose view it is, the tokens assumed for that player and where
they came from (``leaf``, ``root``, ``default`` = Table 5 defaults, ``exact-own``,
``oracle``), the ToM0 state chunk with its retrieval record (every candidate instance
with base level, per-slot mismatch, noise and total), the predictions made about the
other players (each with one projection node per candidate count), and the result
with its reason. Traces are built only when asked for and never feed back into a
decision.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from ...actr import RetrievalRecord
from ...rules import Action
from .token_memory import Recall


class Prediction(NamedTuple):
    """What a reasoner expects ``seat`` to do at ``tokens_on_card``, and why (an
    immutable named tuple: several are made per decision)."""

    seat: int
    tokens_on_card: int
    tokens_assumed: tuple[int, ...]
    source: str
    action: Action
    #: one projection per assumed count (traces only)
    projections: tuple[TraceNode, ...] = ()

    def as_dict(self) -> dict[str, object]:
        """The flat form used in ``decision_info``."""
        return {"seat": self.seat, "action": str(self.action),
                "tokens_assumed": list(self.tokens_assumed), "source": self.source}


@dataclass(frozen=True, slots=True)
class TraceNode:
    """One player's decision as reasoned at one ToM level."""

    level: int
    seat: int
    tokens_on_card: int
    tokens: int
    source: str
    state: dict[str, object] | None
    retrieval: RetrievalRecord | None
    tom0_action: Action | None
    predictions: tuple[Prediction, ...]
    action: Action
    reason: str

    def walk(self, path: str = "0") -> Iterator[tuple[str, int, TraceNode]]:
        """(path, depth, node) for this node and every projection below it."""
        yield path, path.count("."), self
        for p, prediction in enumerate(self.predictions):
            for c, node in enumerate(prediction.projections):
                yield from node.walk(f"{path}.{p}.{c}")

    def winner(self) -> dict[str, object] | None:
        """Slots of the retrieved instance, if any."""
        if self.retrieval is None or self.retrieval.winner is None:
            return None
        return dict(self.retrieval.winner)


@dataclass
class DecisionTrace:
    """The reasoning behind one decision, and the token recalls made for it."""

    seat: int
    model_time: float
    card: int
    root: TraceNode
    recalls: list[Recall] = field(default_factory=list)

    @property
    def action(self) -> Action:
        return self.root.action

    def render(self) -> str:
        """The tree as indented text, one line per node and per prediction."""
        lines = [(f"player {self.seat} at t={self.model_time:g}s, card {self.card}: "
                  f"{self.root.action} ({self.root.reason})")]
        for recall in self.recalls:
            lines.append(f"  recalled player {recall.seat}: {recall.source} -> "
                         f"{list(recall.candidates)}")
        lines.extend(_render_node(self.root, "  "))
        return "\n".join(lines)

    def to_frame(self):
        """One row per node: path in the tree, level, seat, tokens assumed and source,
        state, retrieved instance and its activation, ToM0 action, result, reason."""
        import pandas as pd

        rows = []
        for path, depth, node in self.root.walk():
            winner = node.winner() or {}
            best = None if node.retrieval is None else node.retrieval.best_activation
            rows.append({
                "path": path, "depth": depth // 2, "level": node.level, "seat": node.seat,
                "tokens_on_card": node.tokens_on_card, "tokens": node.tokens,
                "source": node.source,
                "category": None if node.state is None else node.state["category"],
                "instance_card": winner.get("card"),
                "instance_tokens_on_card": winner.get("tokens_on_card"),
                "instance_tokens_owned": winner.get("tokens_owned"),
                "activation": best,
                "tom0_action": None if node.tom0_action is None else str(node.tom0_action),
                "action": str(node.action), "reason": node.reason,
            })
        return pd.DataFrame(rows)

    def retrievals_frame(self):
        """Every instance retrieval in the tree: the record's rows plus the node path."""
        import pandas as pd

        frames = []
        for path, _, node in self.root.walk():
            if node.retrieval is not None:
                frame = node.retrieval.to_frame()
                frame.insert(0, "path", path)
                frames.append(frame)
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _render_node(node: TraceNode, indent: str) -> list[str]:
    head = (f"{indent}ToM{node.level} as player {node.seat}: {node.tokens} tokens "
            f"({node.source}), {node.tokens_on_card} on card")
    if node.state is not None:
        head += f", {node.state['category']}"
        winner = node.winner()
        if winner is not None:
            head += (f"; instance {winner['category']}/{winner['card']}/"
                     f"{winner['tokens_on_card']}/{winner['tokens_owned']} says "
                     f"{winner['action']}")
    lines = [head + f" -> {node.action} ({node.reason})"]
    for prediction in node.predictions:
        lines.append(f"{indent}  predict player {prediction.seat} with "
                     f"{prediction.tokens_on_card} on card, tokens "
                     f"{list(prediction.tokens_assumed)} ({prediction.source}): "
                     f"{prediction.action}")
        for projection in prediction.projections:
            lines.extend(_render_node(projection, indent + "    "))
    return lines
