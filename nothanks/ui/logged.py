"""Step through a logged game: a participant's game from a session folder, or any game of
a run, decision by decision.

:class:`LoggedGame` replays the game from its logged seed and variant through the one
replay (:func:`nothanks.play.replay_logged_game`), every seat playing its logged moves, which checks
each replayed decision against the log (turn, seat, card, tokens on it, own tokens, own
cards; and that the logged move is legal there). For each decision it gives:

* the table as the deciding player saw it (their :class:`~nothanks.rules.View`: own
  tokens shown, the others' hidden as in the game) and the move actually made, with the
  bad-move marks of the session (Figure 7: seats a participant marked at this turn, and
  whether this move was marked);
* what ToM0, ToM1 and ToM2 would have done in that player's place, with their
  reasoning trees: fresh models seated at that seat, seeded as the game seeds that seat
  (:func:`~nothanks.play.match.agent_seed`), observe every public event and decide at each of
  that seat's turns while the logged moves are played — the same seed gives the same
  answers, whatever decision is looked at first;
* where a model made the move, its logged reasoning (reason, own ToM0 action,
  predictions, recalls; the full trace if the run logged traces) and the reasoning of
  the logged spec replayed at its seat, with whether the replay made the logged move;
* optionally an order posterior per decision (a DataFrame or a callable given by the
  caller, e.g. the per-decision table of an order inference).

:class:`LoggedGameExplorer` is the ipywidgets app over it (next / back / jump, or only
one seat's decisions).
"""
from __future__ import annotations

import html
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd

from ..agents import Agent
from ..experiments.log import Log, load
from ..play.match import DecisionRecord, build_agents
from ..play.replay import ReplayStep, logged_moves, replay_logged_game
from ..rules import Action, Variant, View
from ..rules.seeding import agent_seed
from .explorer import frame_html, runners_up
from .pacing import load_cognitive_models
from .render import TableState, moves_since, table_html

#: The models put in the deciding player's place, by default.
COUNTERFACTUAL_MODELS = ("tom0", "tom1", "tom2")
#: Columns identifying a decision across logs, in the order they are matched.
DECISION_KEYS = ("experiment", "participant", "game_id", "turn")

#: Columns shown of a long posterior table (one row per model), when it has them.
POSTERIOR_COLUMNS = ("model", "p_take", "se", "likelihood", "posterior", "block_posterior")
#: A posterior source: a per-decision DataFrame, or a callable from the logged decision
#: row to the rows (or a mapping model -> probability) to show.
PosteriorSource = pd.DataFrame | Callable[[Mapping[str, Any]], Any]


class LoggedGameError(ValueError):
    """A logged game cannot be opened or does not replay; says which and where."""


@dataclass(frozen=True)
class Counterfactual:
    """What one model would have done at a decision, in the deciding player's place."""

    spec: str
    label: str
    action: Action
    reason: str
    info: Mapping[str, Any]
    trace: Any = None


@dataclass
class LoggedDecision:
    """One logged decision replayed: the log row, the player's view, the replayed record."""

    index: int
    row: dict[str, Any]
    view: View
    record: DecisionRecord
    counterfactuals: dict[str, Counterfactual] = field(default_factory=dict)
    #: the logged spec replayed at its seat (model seats only)
    replayed: Counterfactual | None = None

    @property
    def seat(self) -> int:
        return int(self.row["seat"])

    @property
    def turn(self) -> int:
        return int(self.row["turn"])


def _select(frame: pd.DataFrame, game_id: int, participant: str | None,
            experiment: str | None) -> pd.DataFrame:
    part = frame[frame["game_id"] == game_id]
    if participant is not None:
        part = part[part["participant"].astype("string") == participant]
    if experiment is not None:
        part = part[part["experiment"].astype("string") == experiment]
    return part


def _load(source: str | Path | Log, participant: str | None) -> Log:
    if isinstance(source, Log):
        return source
    path = Path(source)
    if not path.exists():
        raise LoggedGameError(f"no log at {path}: give an experiment directory, a session "
                              "folder (e.g. data/synthetic) or a loaded Log")
    if participant is not None and (path / participant / "manifest.json").exists():
        path = path / participant  # one session of a folder: load only that one
    return load(path)


class LoggedGame:
    """One logged game, replayed and checked against its log (see the module docstring).

    Args:
        source: a loaded :class:`~nothanks.experiments.Log`, an experiment directory, or
            a folder of participant sessions.
        game_id: the game's ``game_id`` (default: the first game of the selection).
        participant: the participant whose game it is (logs of several sessions).
        experiment: the design name (logs of several experiments).
        models: agent specs put in the deciding player's place.
    """

    def __init__(self, source: str | Path | Log, game_id: int | None = None, *,
                 participant: str | None = None, experiment: str | None = None,
                 models: Sequence[str] = COUNTERFACTUAL_MODELS) -> None:
        load_cognitive_models()
        self.log = _load(source, participant)
        games = self.log.games
        if participant is not None:
            known = sorted(games["participant"].dropna().astype(str).unique())
            if participant not in known:
                raise LoggedGameError(f"participant {participant!r} is not in this log; "
                                      f"participants: {known or 'none (a simulation log)'}")
        if game_id is None:
            pool = games if participant is None else \
                games[games["participant"].astype("string") == participant]
            if experiment is not None:
                pool = pool[pool["experiment"].astype("string") == experiment]
            if pool.empty:
                raise LoggedGameError(f"no game of experiment {experiment!r} in this log")
            game_id = int(pool["game_id"].min())
        players = _select(games, game_id, participant, experiment).sort_values("seat")
        if players.empty:
            raise LoggedGameError(f"game {game_id} is not in this log (participant="
                                  f"{participant!r}, experiment={experiment!r}); game ids: "
                                  f"{int(games['game_id'].min())} to "
                                  f"{int(games['game_id'].max())}")
        owners = players[["experiment", "participant"]].astype("string").drop_duplicates()
        if len(owners) > 1:
            raise LoggedGameError(f"game {game_id} is logged {len(owners)} times (by "
                                  f"{owners.to_dict(orient='records')}); pass participant= "
                                  "or experiment= to choose one")
        self.game_id = int(game_id)
        self.participant = None if pd.isna(players["participant"].iloc[0]) else \
            str(players["participant"].iloc[0])
        self.experiment = str(players["experiment"].iloc[0])
        self.players = players.reset_index(drop=True)
        self.seed = int(players["seed"].iloc[0])
        self.condition = int(players["condition"].iloc[0])
        conditions = self.log.conditions[self.log.conditions["condition"] == self.condition]
        conditions = conditions[conditions["experiment"].astype(str) == self.experiment]
        self.condition_label = str(conditions["label"].iloc[0]) if len(conditions) else ""
        self.variant = (Variant.from_options(json.loads(conditions["variant"].iloc[0]))
                        if len(conditions) else Variant())
        self.specs = [str(s) for s in players["agent"]]
        self.kinds = [str(k) for k in players["player_kind"]]
        self.synthetic = bool(players["synthetic"].fillna(False).astype(bool).any())
        self.names = [self._name(row) for row in players.itertuples()]
        self.models = tuple(models)
        rows = _select(self.log.decisions, self.game_id, self.participant,
                       self.experiment).sort_values("turn")
        if rows.empty:
            raise LoggedGameError(f"game {game_id}: the log has no decisions for it")
        self.rows = rows.reset_index(drop=True)
        self.records = self.rows.to_dict(orient="records")
        self.moves = logged_moves(self.records)
        self.decisions = self._replay()
        self._shadowed: set[int] = set()
        self._pool: dict[str, Agent] = {}  # reused: start() resets an agent
        self._traces: dict[int, dict[str, Counterfactual]] = {}

    def _name(self, row: Any) -> str:
        if row.player_kind == "human":
            who = "participant" + (" (stand-in)" if self.synthetic else "")
        else:
            who = str(row.agent_label)
        return f"Seat {row.seat} · {who}"

    def __len__(self) -> int:
        return len(self.decisions)

    def __getitem__(self, index: int) -> LoggedDecision:
        decision = self.decisions[index]
        if decision.seat not in self._shadowed:
            self._shadow(decision.seat)
        return decision

    # --- replay -------------------------------------------------------------------------
    def _replay_steps(self, listeners: Sequence[Callable] = ()) -> Iterator[ReplayStep]:
        """The game from its seed, every seat playing its logged moves in turn order
        (:func:`nothanks.play.replay_logged_game`: each decision checked against the log)."""
        return replay_logged_game(self.moves, self.variant, self.seed,
                                  where=f"game {self.game_id}", game_id=self.game_id,
                                  specs=self.specs, listeners=listeners)

    def _replay(self) -> list[LoggedDecision]:
        return [LoggedDecision(step.index, self.records[step.index], step.view, step.record)
                for step in self._replay_steps()]

    def _own_spec(self, seat: int) -> str | None:
        return self.specs[seat] if self.kinds[seat] == "model" else None

    def _shadows(self, seat: int) -> dict[str, Agent]:
        """The models put at ``seat`` (and the logged model of a model seat), started
        with the seat's seed and without traces."""
        specs = list(dict.fromkeys(self.models))
        own = self._own_spec(seat)
        if own is not None and own not in specs:
            specs.append(own)
        missing = [s for s in specs if s not in self._pool]
        self._pool.update(zip(missing, build_agents(missing), strict=True))
        shadows = {spec: self._pool[spec] for spec in specs}
        for agent in shadows.values():
            if agent.can_trace:
                agent.traces = False
            agent.start(seat, self.variant, agent_seed(self.seed, seat))
        return shadows

    def _shadow(self, seat: int, trace_at: int | None = None) -> dict[str, Counterfactual]:
        """Let the models at ``seat`` watch the game and decide at each of its turns while
        the logged moves are played; fill every decision's ``counterfactuals`` and
        ``replayed``, or (``trace_at``) stop at that decision and return the answers made
        with reasoning traces (traces never change a decision)."""
        shadows = self._shadows(seat)
        own = self._own_spec(seat)
        steps = self._replay_steps([a.observe for a in shadows.values() if a.observes()])
        for step in steps:
            decision = self.decisions[step.index]
            if decision.seat == seat:
                if decision.index == trace_at:
                    for agent in shadows.values():
                        if agent.can_trace:
                            agent.traces = True
                answers = {spec: _ask(agent, spec, step.view)
                           for spec, agent in shadows.items()}
                if decision.index == trace_at:
                    return answers
                if trace_at is None:
                    decision.counterfactuals = {s: answers[s]
                                                for s in dict.fromkeys(self.models)}
                    decision.replayed = answers.get(own) if own is not None else None
        self._shadowed.add(seat)
        return {}

    def reasoning(self, index: int) -> dict[str, Counterfactual]:
        """The answers of the models in the deciding player's place at decision ``index``
        with their reasoning traces (and the logged model's, replayed, under its spec),
        by spec. Cached; each call replays the game up to the decision."""
        if index not in self._traces:
            self._traces[index] = self._shadow(self.decisions[index].seat, trace_at=index)
        return self._traces[index]

    # --- what the log says about a decision ---------------------------------------------
    def marks(self, index: int) -> dict[str, Any]:
        """The session's bad-move marks at a decision: ``given`` (opponent seats the
        deciding participant marked at this turn) and ``marked`` (whether this model move
        was marked bad by the participant at their next turn; ``None`` outside sessions)."""
        row = self.decisions[index].row
        given = row.get("marks")
        marked = row.get("marked_bad")
        return {"given": [] if given is None else [int(s) for s in given],
                "marked": None if marked is None or pd.isna(marked) else bool(marked)}

    def _rows_of(self, table: pd.DataFrame, index: int) -> pd.DataFrame:
        decision = self.decisions[index]
        if table.empty:
            return table
        part = _select(table, self.game_id, self.participant, self.experiment)
        return part[(part["turn"] == decision.turn) & (part["seat"] == decision.seat)]

    def predictions(self, index: int) -> pd.DataFrame:
        """The logged predictions the deciding model made at this decision."""
        columns = ["index", "target_seat", "predicted_action", "tokens_assumed", "source",
                   "true_tokens", "actual_action", "correct"]
        return self._rows_of(self.log.predictions, index)[columns].sort_values("index")

    def recalls(self, index: int) -> pd.DataFrame:
        """The logged token recalls of the deciding model at this decision."""
        columns = ["target_seat", "recalled", "source", "true_tokens", "exact",
                   "leaf_is_newest"]
        return self._rows_of(self.log.recalls, index)[columns]

    def logged_trace(self, index: int) -> dict[str, Any] | None:
        """The reasoning trace the run logged for this decision (runs with traces)."""
        rows = self._rows_of(self.log.traces, index)
        return json.loads(rows["trace"].iloc[0]) if len(rows) else None

    def logged_reasoning(self, index: int) -> dict[str, Any]:
        """What the log holds of the deciding model's reasoning (empty for a person)."""
        row = self.decisions[index].row
        keys = ("reason", "own_tom0_action", "latency", "model_time", "instance_failures",
                "recall_failures")
        return {k: row[k] for k in keys if k in row and not _missing(row[k])}

    def table(self, seat: int | None = None) -> pd.DataFrame:
        """Every decision (of ``seat``, if given) with the moves of the models in the
        player's place, and of the logged model replayed, beside the logged move."""
        out = []
        for i in range(len(self)):
            if seat is not None and self.decisions[i].seat != seat:
                continue
            decision = self[i]
            line = {k: decision.row[k] for k in ("turn", "seat", "card", "tokens_on_card",
                                                 "tokens_before", "action")}
            line["player"] = self.names[decision.seat]
            for answer in decision.counterfactuals.values():
                line[answer.label] = str(answer.action)
            if decision.replayed is not None:
                line["replayed"] = str(decision.replayed.action)
            out.append(line)
        return pd.DataFrame(out)


def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _ask(agent: Agent, spec: str, view: View) -> Counterfactual:
    """The model's move on ``view``, its reason and trace (the game is not changed)."""
    action = Action(agent.decide(view))
    info = agent.decision_info()
    return Counterfactual(spec, agent.label, action,
                          str(info.get("reason") or ""), info,
                          agent.last_trace)


def posterior_rows(posterior: PosteriorSource | None, row: Mapping[str, Any]
                   ) -> pd.DataFrame | None:
    """The posterior to show at a logged decision ``row``.

    A DataFrame is matched on the decision keys it has (``experiment``, ``participant``,
    ``game_id``, ``turn``; it needs ``game_id`` and ``turn``); its other columns are shown
    (long form, one row per model: :data:`POSTERIOR_COLUMNS` when present). A callable
    gets the row and returns a DataFrame, a mapping (model -> probability) or ``None``.
    """
    if posterior is None:
        return None
    if callable(posterior) and not isinstance(posterior, pd.DataFrame):
        found = posterior(row)
        if found is None or isinstance(found, pd.DataFrame):
            return found
        if isinstance(found, Mapping):
            return pd.DataFrame({"model": list(found), "posterior": list(found.values())})
        raise TypeError(f"the posterior callable returned {type(found).__name__}; valid: "
                        "a DataFrame, a mapping model -> probability, or None")
    if not isinstance(posterior, pd.DataFrame):
        raise TypeError(f"posterior is a {type(posterior).__name__}; valid: a DataFrame, a "
                        "callable or None")
    missing = [k for k in ("game_id", "turn") if k not in posterior.columns]
    if missing:
        raise LoggedGameError(f"the posterior table lacks {missing}; it needs game_id and "
                              "turn (and participant/experiment when the log has several) to "
                              f"find a decision; columns: {list(posterior.columns)}")
    keys = [k for k in DECISION_KEYS if k in posterior.columns and not _missing(row.get(k))]
    mask = pd.Series(True, index=posterior.index)
    for key in keys:
        mask &= posterior[key].astype(str) == str(row[key])
    found = posterior.loc[mask].drop(columns=keys)
    shown = [c for c in POSTERIOR_COLUMNS if c in found.columns]
    return found[shown] if "model" in shown and len(shown) > 1 else found


# ------------------------------------------------------------------------ the app
def _action_cell(answer: Counterfactual, logged: str) -> str:
    same = str(answer.action) == logged
    colour = "#1a7f37" if same else "#b42318"
    return (f"<td><b>{html.escape(str(answer.action))}</b></td>"
            f"<td style='color:{colour}'>{'same' if same else 'differs'}</td>"
            f"<td>{html.escape(answer.reason)}</td>")


def _pre(text: str) -> str:
    return ("<pre style='font-size:12px;line-height:1.35;margin:4px 0;white-space:pre'>"
            f"{html.escape(text)}</pre>")


class LoggedGameExplorer:
    """Step through a :class:`LoggedGame` with ``next_button`` / ``back_button`` /
    ``jump_button``; ``seat_filter`` restricts the steps to one seat's decisions.

    Args:
        source, game_id, participant, experiment, models: as :class:`LoggedGame` (or a
            ready ``LoggedGame`` as ``source``).
        posterior: an order posterior per decision (see :func:`posterior_rows`).
    """

    def __init__(self, source: str | Path | Log | LoggedGame, game_id: int | None = None,
                 *, participant: str | None = None, experiment: str | None = None,
                 models: Sequence[str] = COUNTERFACTUAL_MODELS,
                 posterior: PosteriorSource | None = None, start: int = 0) -> None:
        self.game = source if isinstance(source, LoggedGame) else LoggedGame(
            source, game_id, participant=participant, experiment=experiment, models=models)
        self.posterior = posterior
        game = self.game
        self.back_button = w.Button(description="◀ back")
        self.next_button = w.Button(description="next ▶")
        self.jump_input = w.BoundedIntText(value=1, min=1, max=len(game),
                                           description="decision",
                                           layout=w.Layout(width="170px"))
        self.jump_button = w.Button(description="jump")
        human = [s for s, k in enumerate(game.kinds) if k == "human"]
        self.seat_filter = w.Dropdown(
            options=[("every seat", None)] + [(n, s) for s, n in enumerate(game.names)],
            value=human[0] if human else None, description="step",
            layout=w.Layout(width="300px"))
        self.position_label = w.HTML()
        self.header = w.HTML(self._header_html())
        self.table = w.HTML()
        self.decision_panel = w.HTML()
        self.models_panel = w.HTML()
        self.logged_panel = w.HTML()
        self.posterior_panel = w.HTML()
        self.traces = w.HTML()
        self.retrievals = w.HTML()
        self.details = w.Accordion(
            children=[self.traces, self.retrievals],
            titles=("Reasoning trees (the models in this player's place; a model seat's "
                    "logged model, replayed)",
                    "Retrieved instances and runners-up"), selected_index=None)
        self.details.observe(lambda _: self._fill_details(), names="selected_index")
        for widget, css in ((self.back_button, "nt-back"), (self.next_button, "nt-next"),
                            (self.jump_button, "nt-jump"), (self.table, "nt-table-widget")):
            widget.add_class(css)
        self.next_button.on_click(lambda _: self.next())
        self.back_button.on_click(lambda _: self.back())
        self.jump_button.on_click(lambda _: self.go_to(self.jump_input.value - 1))
        self.widget = w.VBox([
            self.header,
            w.HBox([self.back_button, self.next_button, self.jump_input, self.jump_button,
                    self.seat_filter, self.position_label]),
            self.table, self.decision_panel, self.models_panel, self.posterior_panel,
            self.logged_panel, self.details])
        self.seat_filter.observe(lambda _: self._follow_filter(), names="value")
        self.index = 0
        steps = self._steps()
        self.go_to(next((i for i in steps if i >= start), start))

    # --- navigation ---------------------------------------------------------------------
    @property
    def current(self) -> LoggedDecision:
        return self.game[self.index]

    def _steps(self) -> list[int]:
        seat = self.seat_filter.value
        return [d.index for d in self.game.decisions if seat is None or d.seat == seat]

    def next(self) -> None:
        """The next decision (of the chosen seat)."""
        later = [i for i in self._steps() if i > self.index]
        if later:
            self.go_to(later[0])

    def back(self) -> None:
        """The previous decision (of the chosen seat)."""
        earlier = [i for i in self._steps() if i < self.index]
        if earlier:
            self.go_to(earlier[-1])

    def _follow_filter(self) -> None:
        """After the seat filter changes: stay, or move to that seat's next decision."""
        steps = self._steps()
        if self.index in steps or not steps:
            self._show()
        else:
            self.go_to(next((i for i in steps if i > self.index), steps[-1]))

    def go_to(self, index: int) -> None:
        """Show decision ``index`` (0-based, clamped to the game)."""
        self.index = max(0, min(int(index), len(self.game) - 1))
        self._show()

    # --- drawing ------------------------------------------------------------------------
    def _header_html(self) -> str:
        g = self.game
        who = f"participant <b>{html.escape(g.participant)}</b> · " if g.participant else ""
        label = ("<b style='color:#b42318'>SYNTHETIC — a stand-in played the participant's "
                 "seat</b> · " if g.synthetic else "")
        result = ", ".join(f"{html.escape(n)}: place {int(r.rank)} (score {int(r.score)})"
                           for n, r in zip(g.names, g.players.itertuples(), strict=True))
        return (f"<div>{label}{who}{html.escape(g.experiment)} game <b>{g.game_id}</b> "
                f"({html.escape(g.condition_label)}), seed {g.seed}<br>"
                f"<span style='color:#555'>final: {result}</span></div>")

    def _show(self) -> None:
        g, d = self.game, self.current
        marks = g.marks(self.index)
        steps = self._steps()
        self.back_button.disabled = not any(i < self.index for i in steps)
        self.next_button.disabled = not any(i > self.index for i in steps)
        self.jump_input.value = self.index + 1
        self.position_label.value = (f"decision <b class='nt-position'>{self.index + 1}</b>"
                                     f" of {len(g)} · turn {d.turn + 1}")
        status = f"{g.names[d.seat]} decides"
        notes = tuple(moves_since(d.view.history, g.names, d.seat))
        state = TableState.from_view(d.view, g.names, status, marked=marks["given"])
        self.table.value = table_html(replace(state, notes=notes))
        self.decision_panel.value = self._decision_html(d, marks)
        self.models_panel.value = self._models_html(d)
        self.posterior_panel.value = self._posterior_html(d)
        self.logged_panel.value = self._logged_html(d)
        self._fill_details()

    def _decision_html(self, d: LoggedDecision, marks: Mapping[str, Any]) -> str:
        g = self.game
        row = d.row
        text = (f"<b>Decision {d.index + 1} (turn {d.turn + 1}):</b> "
                f"{html.escape(g.names[d.seat])} saw card {row['card']} with "
                f"{row['tokens_on_card']} tokens on it, held {row['tokens_before']} tokens, "
                f"and <b class='nt-logged-action'>{row['action']}</b>"
                + (" (forced: no tokens)" if row["forced"] else ""))
        if not _missing(row.get("decision_time")):
            text += f" after {float(row['decision_time']):.1f} s"
        lines = [text]
        if marks["given"]:
            lines.append("Marked as bad moves at this turn (Figure 7): " + ", ".join(
                html.escape(g.names[s]) for s in marks["given"]))
        if marks["marked"]:
            lines.append("<b style='color:#b42318'>The participant marked this move bad "
                         "at their next turn.</b>")
        return "<div>" + "<br>".join(lines) + "</div>"

    def _models_html(self, d: LoggedDecision) -> str:
        logged = str(d.row["action"])
        rows = "".join(f"<tr><td>{html.escape(a.label)}</td>{_action_cell(a, logged)}</tr>"
                       for a in d.counterfactuals.values())
        return ("<div style='margin-top:6px'><b>In this player's place</b> (fresh models "
                "at this seat that watched the game so far):"
                "<table class='nt-frame nt-models'><tr><th>model</th><th>would</th>"
                "<th>vs logged</th><th>reason</th></tr>" + rows + "</table></div>")

    def _posterior_html(self, d: LoggedDecision) -> str:
        if self.posterior is None:
            return ""
        found = posterior_rows(self.posterior, d.row)
        if found is None or found.empty:
            return "<div><b>Order posterior:</b> <i>none for this decision</i></div>"
        return "<div><b>Order posterior after this decision:</b>" + frame_html(
            found.reset_index(drop=True)) + "</div>"

    def _logged_html(self, d: LoggedDecision) -> str:
        g = self.game
        if g.kinds[d.seat] != "model":
            return ""
        parts = ["<div style='margin-top:6px'><b>The model's own reasoning (logged)</b>: "
                 + html.escape(", ".join(f"{k}: {v}" for k, v in
                                         g.logged_reasoning(d.index).items())) + "</div>"]
        predictions, recalls = g.predictions(d.index), g.recalls(d.index)
        if len(predictions):
            parts.append("predictions" + frame_html(predictions))
        if len(recalls):
            parts.append("token recalls" + frame_html(recalls))
        trace = g.logged_trace(d.index)
        if trace is not None:
            parts.append("logged trace" + frame_html(pd.DataFrame(trace.get("nodes", []))))
        elif d.replayed is not None:
            agrees = str(d.replayed.action) == str(d.row["action"])
            parts.append(
                f"No trace logged; the logged spec <code>{html.escape(g.specs[d.seat])}"
                f"</code> replayed at its seat {'makes' if agrees else 'does NOT make'} the "
                "logged move (its reasoning tree: see below).")
        return "".join(parts)

    def _fill_details(self) -> None:
        """The reasoning trees, computed only while their section is open."""
        open_section = self.details.selected_index
        if open_section is None:
            return
        g, d = self.game, self.current
        answers = g.reasoning(d.index)
        own = g.specs[d.seat] if g.kinds[d.seat] == "model" else None
        titled = [(a, f"{a.label} in this player's place") for s, a in answers.items()
                  if s in g.models]
        if own is not None and own in answers:
            titled.append((answers[own], f"the logged model {own}, replayed"))
        if open_section == 0:
            self.traces.value = "".join(
                f"<b>{html.escape(title)}</b>" + _pre(a.trace.render())
                for a, title in titled if hasattr(a.trace, "render"))
        if open_section == 1:
            frames = [runners_up(a.trace.retrievals_frame()).assign(model=title)
                      for a, title in titled if hasattr(a.trace, "retrievals_frame")]
            frames = [f for f in frames if not f.empty]
            self.retrievals.value = frame_html(pd.concat(frames, ignore_index=True)) \
                if frames else "<i>none</i>"

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(self.widget)


def explore_logged(source: str | Path | Log, participant: str | None = None,
                   game_id: int | None = None, *, posterior: PosteriorSource | None = None,
                   **options: Any) -> LoggedGameExplorer:
    """The explorer on one logged game, e.g. ``explore_logged("data/synthetic",
    "synthetic-01", 5, posterior=inference.decisions)``."""
    return LoggedGameExplorer(source, game_id, participant=participant, posterior=posterior,
                              **options)


__all__ = ["COUNTERFACTUAL_MODELS", "Counterfactual", "LoggedDecision", "LoggedGame",
           "LoggedGameError", "LoggedGameExplorer", "explore_logged", "posterior_rows"]
