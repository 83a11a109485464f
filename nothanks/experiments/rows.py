"""From game records to log rows: the one place where played games are shaped for Parquet.

The driver (:mod:`nothanks.match`) hands over typed records in native Python values;
here they become the columns of the log tables (:mod:`.schema`): seat keys, JSON text
for traces, ``forced`` for a model that was not consulted, and the outcome of every
prediction (the target's next action on the same card, read from the later records).
:func:`compact_frames` makes the two plain tables ``nothanks simulate`` writes.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..match import DecisionRecord, GameRecord
from ..rules import card_points
from . import schema
from .design import Design

#: Columns of the compact decision table of ``nothanks simulate``, in order.
DECISION_COLUMNS = (
    "game_id", "turn", "seat", "agent", "card", "tokens_on_card", "tokens_before",
    "cards_before", "action", "forced", "agent_label", "tom_order",
)
#: Columns of the compact per-player game table of ``nothanks simulate``, in order.
GAME_COLUMNS = (
    "game_id", "seed", "seat", "agent", "cards", "card_points", "tokens", "score", "rank",
    "rank_points", "agent_label", "tom_order",
)


@dataclass(frozen=True)
class LogContext:
    """What every row of one experiment directory shares."""

    experiment: str
    design_hash: str
    participant: str | None = None
    synthetic: bool = False


def model_info(info: dict[str, Any]) -> dict[str, Any]:
    """A model's decision info with Parquet-ready scalars (the nested values stay)."""
    if "own_tom0_action" not in info:
        return info
    own = info["own_tom0_action"]
    return {**info, "own_tom0_action": "forced" if own is None else str(own)}


def _json_ready(value: Any) -> Any:
    """Nested info values (predictions, recalled counts) with string keys and lists."""
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    return value


def _plain(value: object) -> object:
    """JSON for numpy scalars and enums inside traces and infos."""
    return value.item() if hasattr(value, "item") else str(value)


def compact_frames(records: Sequence[GameRecord]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-player game table and the compact decision table of ``records``.

    Models' decision info is added as extra decision columns, nested values as JSON text.
    """
    games = pd.DataFrame(
        [(r.game_id, r.seed, s, r.agents[s], list(r.cards[s]), card_points(r.cards[s]),
          r.tokens[s], r.scores[s], r.ranks[s], r.rank_points[s], r.labels[s],
          r.tom_orders[s])
         for r in records for s in range(r.players)],
        columns=list(GAME_COLUMNS),
    )
    decisions = [d for r in records for d in r.decisions]
    frame = pd.DataFrame(
        [(r.game_id, d.turn, d.seat, d.agent, d.card, d.tokens_on_card, d.tokens_before,
          list(d.cards_before), str(d.action), d.forced, r.labels[d.seat],
          r.tom_orders[d.seat]) for r in records for d in r.decisions],
        columns=list(DECISION_COLUMNS),
    )
    for table in (games, frame):  # nullable: baselines and people have no ToM order
        table["tom_order"] = table["tom_order"].astype("Int8")
    infos = [model_info(d.info) for d in decisions]
    if any(infos):
        extra = pd.DataFrame(infos, index=frame.index)
        extra = extra.drop(columns=[c for c in extra.columns if c in frame.columns])
        for column in extra.columns:
            if extra[column].map(lambda v: isinstance(v, (list, tuple, dict))).any():
                extra[column] = extra[column].map(
                    lambda v: json.dumps(_json_ready(v), default=_plain)
                    if isinstance(v, (list, tuple, dict)) else None)
        frame = pd.concat([frame, extra], axis=1)
    return games, frame


def trace_json(trace: Any) -> str | None:
    """A cognitive model's decision trace as JSON text (None without a trace)."""
    if trace is None:
        return None
    recalls = [
        {k: getattr(rc, k) for k in ("time", "seat", "purpose", "source", "candidates",
                                     "value", "leaf_activation", "root_activation",
                                     "threshold", "latency", "true_tokens")}
        for rc in trace.recalls
    ]
    nodes = []
    for path, depth, node in trace.root.walk():
        retrieval = node.retrieval
        nodes.append({
            "path": path, "depth": depth, "level": node.level, "seat": node.seat,
            "tokens_on_card": node.tokens_on_card, "tokens": node.tokens,
            "source": node.source, "state": node.state, "instance": node.winner(),
            "activation": None if retrieval is None or not retrieval.candidates else
            max(c.activation for c in retrieval.candidates),
            "tom0_action": node.tom0_action, "action": node.action, "reason": node.reason,
        })
    return json.dumps({"seat": trace.seat, "model_time": trace.model_time, "card": trace.card,
                       "nodes": nodes, "recalls": recalls}, default=_plain)


def _source_by_count(values: Sequence[int]) -> str:
    """Recall source from the number of candidates (Table 5: 1 leaf, 2 root, 3 default)."""
    return {1: "leaf", 2: "root"}.get(len(values), "default")


def _next_actions(decisions: Sequence[DecisionRecord]) -> dict[tuple[int, int], list]:
    """(card, seat) -> [(decision index, action)] in play order: what each player did
    with each card, to score predictions against."""
    out: dict[tuple[int, int], list[tuple[int, str]]] = {}
    for i, d in enumerate(decisions):
        out.setdefault((d.card, d.seat), []).append((i, str(d.action)))
    return out


def _marked(decisions: Sequence[DecisionRecord]) -> set[int]:
    """Indices of the moves a participant marked bad (marks name a seat's last move)."""
    marked: set[int] = set()
    last_move: dict[int, int] = {}
    for i, d in enumerate(decisions):
        if d.marks:
            marked.update(last_move[s] for s in d.marks if s in last_move)
        last_move[d.seat] = i
    return marked


class LogRows:
    """Columnar rows of the log tables for a batch of games (a chunk or one game)."""

    #: Columns with one value for every row of an experiment, filled in by to_parquet.
    CONSTANT = ("experiment", "design_hash", "participant", "synthetic")

    def __init__(self, context: LogContext, design: Design, traces: bool = False) -> None:
        self.context = context
        self.design = design
        self.traces = traces
        self.columns = {t: {k: v for k, v in schema.empty_columns(t).items()
                            if k not in self.CONSTANT} for t in schema.ROW_TABLES}

    def add_game(self, plan, record: GameRecord) -> None:
        """Append the rows of one played game (``plan``: its place in the design)."""
        cond = self.design.conditions[plan.condition]
        roles = plan.roles
        focal = [cond.focal is not None and roles[s] == cond.focal
                 for s in range(record.players)]
        decisions = record.decisions
        n = len(decisions)
        # a participant session records marks at every human decision; a stand-in run
        # through ``nothanks run`` does not, and its rows leave the session columns null
        human_game = any(dec.marks is not None for dec in decisions)

        g = self.columns["games"]
        for seat in range(record.players):
            cards = record.cards[seat]
            for column, value in (
                ("game_id", plan.position), ("condition", plan.condition),
                ("block", plan.block), ("practice", plan.practice),
                ("deal", plan.occurrence), ("seed", record.seed),
                ("seat", seat), ("role", roles[seat]), ("focal", focal[seat]),
                ("player_kind", record.kinds[seat]), ("agent", record.agents[seat]),
                ("agent_label", record.labels[seat]), ("tom_order", record.tom_orders[seat]),
                ("cards", tuple(cards)), ("card_points", card_points(cards)),
                ("tokens", record.tokens[seat]), ("score", record.scores[seat]),
                ("rank", record.ranks[seat]), ("rank_points", record.rank_points[seat]),
                ("turns", n),
            ):
                g[column].append(value)

        next_action = _next_actions(decisions)
        marked = _marked(decisions) if human_game else set()
        d = self.columns["decisions"]
        for column, value in (("game_id", plan.position), ("condition", plan.condition),
                              ("block", plan.block), ("practice", plan.practice),
                              ("deal", plan.occurrence), ("seed", record.seed)):
            d[column] += [value] * n
        p = self.columns["predictions"]
        r = self.columns["recalls"]
        t = self.columns["traces"]
        for i, dec in enumerate(decisions):
            seat, turn, spec = dec.seat, dec.turn, dec.agent
            info = model_info(dec.info)
            is_model = "tom_order" in info
            kind = record.kinds[seat]
            predictions = info.get("predictions") or []
            recalled = info.get("recalled_tokens") or {}
            newest = info.get("leaf_is_newest") or {}
            for column, value in (
                ("turn", turn), ("seat", seat), ("role", roles[seat]), ("focal", focal[seat]),
                ("player_kind", kind), ("agent", spec), ("agent_label", record.labels[seat]),
                ("tom_order", record.tom_orders[seat]), ("card", dec.card),
                ("tokens_on_card", dec.tokens_on_card), ("tokens_before", dec.tokens_before),
                ("cards_before", dec.cards_before), ("cards_left", dec.cards_left),
                ("sequence_category", dec.sequence_category), ("action", str(dec.action)),
                ("forced", dec.forced), ("model_time", info.get("model_time")),
                ("latency", info.get("latency")), ("reason", info.get("reason")),
                ("own_tom0_action", info.get("own_tom0_action")),
                ("instance_failures", info.get("instance_failures")),
                ("predictions", len(predictions) if is_model else None),
                ("decision_time", dec.decision_time),
                ("marks", dec.marks if human_game and kind == "human" else None),
                ("marked_bad", (i in marked) if human_game and kind == "model" else None),
            ):
                d[column].append(value)

            sources: dict[int, str] = {}
            for k, pred in enumerate(predictions):
                target = int(pred["seat"])
                sources.setdefault(target, str(pred["source"]))
                later = [a for j, a in next_action.get((dec.card, target), ()) if j > i]
                actual = later[0] if later else None
                for column, value in (
                    ("game_id", plan.position), ("turn", turn), ("seat", seat),
                    ("agent", spec), ("index", k), ("target_seat", target),
                    ("predicted_action", str(pred["action"])),
                    ("tokens_assumed", tuple(map(int, pred["tokens_assumed"]))),
                    ("source", str(pred["source"])),
                    ("true_tokens", dec.true_tokens[target]), ("actual_action", actual),
                    ("correct", None if actual is None else actual == str(pred["action"])),
                ):
                    p[column].append(value)
            failures = 0
            oracle = "oracle" in sources.values()  # an oracle model reads every count
            for target, values in sorted(recalled.items()):
                values = tuple(map(int, values))
                source = sources.get(target) or ("oracle" if oracle else
                                                 _source_by_count(values))
                failures += source in ("root", "default")
                truth = dec.true_tokens[target]
                for column, value in (
                    ("game_id", plan.position), ("turn", turn), ("seat", seat),
                    ("agent", spec), ("target_seat", target), ("recalled", values),
                    ("source", source), ("true_tokens", truth), ("exact", values == (truth,)),
                    ("leaf_is_newest", newest.get(target)),
                ):
                    r[column].append(value)
            d["recall_failures"].append(failures if is_model and recalled else
                                        (0 if is_model else None))
            if self.traces and dec.trace is not None:
                for column, value in (("game_id", plan.position), ("turn", turn),
                                      ("seat", seat), ("trace", trace_json(dec.trace))):
                    t[column].append(value)

    def to_parquet(self) -> dict[str, bytes]:
        """The batch's tables as Parquet bytes (validated by the Arrow schema on the way)."""
        ctx = self.context
        constant = dict(zip(self.CONSTANT, (ctx.experiment, ctx.design_hash, ctx.participant,
                                            ctx.synthetic), strict=True))
        out = {}
        for table in schema.ROW_TABLES:
            if table == "traces" and not self.traces:
                continue
            columns = self.columns[table]
            rows = len(columns["game_id"])
            columns = {k: [v] * rows for k, v in constant.items()} | columns
            out[table] = schema.parquet_bytes(schema.to_arrow(table, columns))
        return out
