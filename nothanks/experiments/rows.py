"""From game records to log rows: the one place where played games are shaped for Parquet.

The driver (:mod:`nothanks.play.match`) hands over typed records in native Python values;
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

from ..play.match import DecisionRecord, GameRecord
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

#: Decision-info keys the log tables do not keep. The search agents' per-move statistics
#: (``ismcts``, ``alphazero``: iterations, and visits and mean value of each action;
#: ``alphazero`` also the network's prior and every seat's value), and bayes-tom's
#: posterior over opponent models stay in the in-memory GameRecord (and the step-through
#: explorer); every other key an agent reports must land in a column (checked for every
#: registered agent by tests/integration/test_agent_conformance.py).
INFO_NOT_LOGGED = frozenset({"iterations", "pass_value", "pass_visits", "take_value",
                             "take_visits", "opponent_models", "prior", "root_values"})


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
            "activation": None if retrieval is None else retrieval.best_activation,
            "tom0_action": node.tom0_action, "action": node.action, "reason": node.reason,
        })
    return json.dumps({"seat": trace.seat, "model_time": trace.model_time, "card": trace.card,
                       "nodes": nodes, "recalls": recalls}, default=_plain)


def _source_by_count(values: Sequence[int]) -> str:
    """Recall source from the number of candidates (Table 5: 1 leaf, 2 root, 3 default)."""
    return {1: "leaf", 2: "root"}.get(len(values), "default")


def _next_actions(cards: Sequence[int], seats: Sequence[int],
                  actions: Sequence[str]) -> dict[tuple[int, int], list[tuple[int, str]]]:
    """(card, seat) -> [(decision index, action)] in play order: what each player did
    with each card, to score predictions against (one game's decisions, as columns)."""
    out: dict[tuple[int, int], list[tuple[int, str]]] = {}
    for i, key in enumerate(zip(cards, seats, strict=True)):
        out.setdefault(key, []).append((i, actions[i]))
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


#: Columns of a prediction row after game_id, in the order add_game gathers them.
_PREDICTION_FIELDS = ("turn", "seat", "agent", "index", "target_seat", "predicted_action",
                      "tokens_assumed", "source", "true_tokens", "actual_action", "correct")
#: Columns of a recall row after game_id, in the order add_game gathers them.
_RECALL_FIELDS = ("turn", "seat", "agent", "target_seat", "recalled", "source", "true_tokens",
                  "exact", "leaf_is_newest")

#: Columns of a learning row after game_id, in the order add_game gathers them.
_LEARNING_FIELDS = ("turn", "seat", "role", "agent", "trial", "trial_game", "state")


def _extend(columns: dict[str, list], fields: Sequence[str], rows: Sequence[tuple],
            game_id: int) -> None:
    """Append one game's ``rows`` (tuples of ``fields``) to ``columns``, column by column."""
    if not rows:
        return
    columns["game_id"] += [game_id] * len(rows)
    for column, values in zip(fields, zip(*rows, strict=True), strict=True):
        columns[column] += values


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
        """Append the rows of one played game (``plan``: its place in the design).

        Built column by column (a game's decisions transposed at once, the rows of
        predictions and recalls gathered as tuples and transposed per game): the values and
        types of appending row by row (tests/integration/agreement/test_log_rows.py).
        """
        cond = self.design.conditions[plan.condition]
        roles = plan.roles
        players = record.players
        focal = [cond.focal is not None and roles[s] == cond.focal for s in range(players)]
        decisions = record.decisions
        n = len(decisions)
        keys = (("game_id", plan.position), ("condition", plan.condition),
                ("block", plan.block), ("practice", plan.practice),
                ("deal", plan.occurrence), ("seed", record.seed))

        g = self.columns["games"]
        for column, value in keys:
            g[column] += [value] * players
        g["seat"] += range(players)
        g["role"] += [roles[s] for s in range(players)]
        g["focal"] += focal
        for column, values in (("player_kind", record.kinds), ("agent", record.agents),
                               ("agent_label", record.labels),
                               ("tom_order", record.tom_orders), ("tokens", record.tokens),
                               ("score", record.scores), ("rank", record.ranks),
                               ("rank_points", record.rank_points)):
            g[column] += values[:players]
        g["cards"] += [tuple(cards) for cards in record.cards[:players]]
        g["card_points"] += [card_points(cards) for cards in record.cards[:players]]
        g["turns"] += [n] * players

        d = self.columns["decisions"]
        for column, value in keys:
            d[column] += [value] * n
        if not n:
            return
        # one tuple per DecisionRecord field, in play order
        field = dict(zip(DecisionRecord._fields, zip(*decisions, strict=True), strict=True))
        seats = field["seat"]
        kinds = [record.kinds[s] for s in seats]
        actions = [str(a) for a in field["action"]]
        infos = field["info"]
        for column in ("turn", "seat", "agent", "card", "tokens_on_card", "tokens_before",
                       "cards_before", "cards_left", "sequence_category", "forced",
                       "decision_time"):
            d[column] += field[column]
        for column, per_seat in (("role", roles), ("focal", focal),
                                 ("agent_label", record.labels),
                                 ("tom_order", record.tom_orders)):
            d[column] += [per_seat[s] for s in seats]
        d["player_kind"] += kinds
        d["action"] += actions
        for column in ("model_time", "latency", "reason", "instance_failures"):
            d[column] += [info.get(column) for info in infos]
        d["own_tom0_action"] += [
            ("forced" if info["own_tom0_action"] is None else str(info["own_tom0_action"]))
            if "own_tom0_action" in info else None for info in infos]
        # a participant session records marks at every human decision; a stand-in run
        # through ``nothanks run`` does not, and its rows leave the session columns null
        marks = field["marks"]
        if any(m is not None for m in marks):
            marked = _marked(decisions)
            d["marks"] += [m if kind == "human" else None
                           for m, kind in zip(marks, kinds, strict=True)]
            d["marked_bad"] += [(i in marked) if kind == "model" else None
                                for i, kind in enumerate(kinds)]
        else:
            d["marks"] += [None] * n
            d["marked_bad"] += [None] * n

        made: list[int | None] = []
        failed: list[int | None] = []
        predicted: list[tuple] = []
        recalled_rows: list[tuple] = []
        next_action: dict[tuple[int, int], list] | None = None
        for i, info in enumerate(infos):
            is_model = "tom_order" in info
            predictions = info.get("predictions") or ()
            recalled = info.get("recalled_tokens")
            made.append(len(predictions) if is_model else None)
            if not predictions and not recalled:
                failed.append(0 if is_model else None)
                continue
            dec = decisions[i]
            turn, seat, spec, card, truth = (dec.turn, dec.seat, dec.agent, dec.card,
                                             dec.true_tokens)
            sources: dict[int, str] = {}
            if predictions and next_action is None:
                next_action = _next_actions(field["card"], seats, actions)
            for k, pred in enumerate(predictions):
                target = int(pred["seat"])
                action, source = str(pred["action"]), str(pred["source"])
                sources.setdefault(target, source)
                actual = None  # the target's next action on this card
                for j, later in next_action.get((card, target), ()):
                    if j > i:
                        actual = later
                        break
                predicted.append((
                    turn, seat, spec, k, target, action,
                    tuple(map(int, pred["tokens_assumed"])), source, truth[target], actual,
                    None if actual is None else actual == action))
            if not recalled:
                failed.append(0 if is_model else None)
                continue
            failures = 0
            oracle = "oracle" in sources.values()  # an oracle model reads every count
            newest = info.get("leaf_is_newest") or {}
            for target, values in sorted(recalled.items()):
                values = tuple(map(int, values))
                source = sources.get(target) or ("oracle" if oracle else
                                                 _source_by_count(values))
                failures += source in ("root", "default")
                true = truth[target]
                recalled_rows.append((turn, seat, spec, target, values, source, true,
                                      values == (true,), newest.get(target)))
            failed.append(failures if is_model else None)
        d["predictions"] += made
        d["recall_failures"] += failed
        _extend(self.columns["predictions"], _PREDICTION_FIELDS, predicted, plan.position)
        _extend(self.columns["recalls"], _RECALL_FIELDS, recalled_rows, plan.position)
        if self.design.learns:
            learned = [(dec.turn, dec.seat, dec.agent, json.dumps(
                _json_ready(info["learning"]), default=_plain, sort_keys=True))
                for dec, info in zip(decisions, infos, strict=True) if "learning" in info]
            trial = self.design.trial_of(plan) or (None, None)
            _extend(self.columns["learning"], _LEARNING_FIELDS,
                    [(turn, seat, roles[seat], spec, *trial, state)
                     for turn, seat, spec, state in learned], plan.position)
        if self.traces:
            t = self.columns["traces"]
            for dec in decisions:
                if dec.trace is not None:
                    for column, value in (("game_id", plan.position), ("turn", dec.turn),
                                          ("seat", dec.seat), ("trace", trace_json(dec.trace))):
                        t[column].append(value)

    def to_parquet(self) -> dict[str, bytes]:
        """The batch's tables as the bytes of part files (validated by the Arrow schema on
        the way; written with :data:`.schema.PART`: the merge reads them back once)."""
        ctx = self.context
        constant = dict(zip(self.CONSTANT, (ctx.experiment, ctx.design_hash, ctx.participant,
                                            ctx.synthetic), strict=True))
        out = {}
        for table in schema.ROW_TABLES:
            if (table == "traces" and not self.traces) or (
                    table == "learning" and not self.design.learns):
                continue
            columns = self.columns[table]
            rows = len(columns["game_id"])
            columns = {k: [v] * rows for k, v in constant.items()} | columns
            out[table] = schema.parquet_bytes(schema.to_arrow(table, columns),
                                              schema.PART)
        return out
