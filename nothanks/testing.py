"""A public agent check: :func:`check_agent` runs the suite's conformance checks on any
agent, registered or written outside the repository (as scikit-learn's
``check_estimator`` checks any estimator).

An agent passes when it:

- plays every supported table size (3-7 players) to the end (``table_sizes``);
- decides from its :class:`~nothanks.rules.View` only: a deal whose hidden cards (the
  rest of the deck and the removed cards) differ gets the same moves until a differing
  card is revealed (``view_only``);
- is reproducible: the same seed gives the same moves, also when the agent object has
  played other games in between (runners reuse agents across games), and a fresh
  object gives them too (``seed_determinism``);
- reports decision info the log keeps: every key lands in a log column and reads back
  equal from Parquet, lands in another table, or is declared in
  :data:`nothanks.experiments.rows.INFO_NOT_LOGGED` (``log_round_trip``);
- declares whether it traces: with ``traces`` on, an agent whose ``can_trace`` is true
  leaves a trace per decision (and the same moves), any other none (``traces``);
- refuses a bad parameter with a one-line error naming it (``one_line_errors``; for a
  registered name or spec only: a factory has no parameters to give).

A failed check raises :class:`AgentCheckError`, one line naming the agent, the check and
what was wrong. Example (docs/agent-specs.md, "Checking an agent")::

    from nothanks.testing import check_agent
    check_agent(MyAgent)            # a class or any function making a fresh agent
    check_agent("tom1:rt=-1.5")     # a registered spec
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence

from .agents import Agent, AgentSpec, AgentSpecError, agent_parameters, make_agent, parse_spec
from .experiments import schema
from .experiments.design import Design
from .experiments.rows import INFO_NOT_LOGGED, LogContext, LogRows
from .play.match import Match
from .rules import Action, Game, Variant
from .rules.game import deal

#: Decision-info keys the decisions table keeps in a column of the same name.
LOGGED_AS_COLUMN = ("model_time", "latency", "reason", "instance_failures")
#: Keys the log turns into rows of other tables or derived columns (``learning``: the
#: learning table's state column).
LOGGED_ELSEWHERE = frozenset({"own_tom0_action", "predictions", "recalled_tokens",
                              "leaf_is_newest", "tom_order", "learning"})
#: The table sizes the rules support, every one of which an agent must play.
TABLE_SIZES = (3, 4, 5, 6, 7)


class AgentCheckError(AssertionError):
    """An agent failed a check; the message is one line: agent, check, what was wrong."""


AgentFactory = Callable[[], Agent]


def _factory(agent: str | AgentSpec | AgentFactory) -> tuple[AgentFactory, str, str | None]:
    """A function making a fresh agent, the agent's name for messages, and its registry
    name (None for a factory)."""
    if isinstance(agent, (str, AgentSpec)):
        spec = parse_spec(agent) if isinstance(agent, str) else agent
        return (lambda: make_agent(spec)), str(agent), spec.name
    if isinstance(agent, Agent):
        raise TypeError("check_agent needs a spec or a function making a fresh agent "
                        f"(e.g. the class), not the agent object {agent!r}")
    if not callable(agent):
        raise TypeError(f"check_agent needs an agent spec (str) or a function making an "
                        f"agent, not {type(agent).__name__}")
    return agent, getattr(agent, "__name__", repr(agent)), None


class _Checker:
    """The checks for one agent; ``fail`` raises :class:`AgentCheckError`."""

    def __init__(self, agent: str | AgentSpec | AgentFactory) -> None:
        self.make, self.title, self.registry_name = _factory(agent)
        self.check = ""

    def fail(self, what: str) -> AgentCheckError:
        line = " ".join(what.split())  # one line, whatever the message held
        return AgentCheckError(f"{self.title}: check {self.check!r} failed: {line}")

    def fresh(self) -> Agent:
        agent = self.make()
        if not isinstance(agent, Agent):
            raise self.fail(f"the factory made {type(agent).__name__}, not a "
                            "nothanks.agents.Agent")
        return agent

    def table_sizes(self) -> None:
        for players in TABLE_SIZES:
            variant = Variant(players=players)
            record = Match([self.fresh()] + ["random"] * (players - 1), variant,
                           seed=11 + players).run()
            if len(record.scores) != players:
                raise self.fail(f"{players} players: {len(record.scores)} scores")
            own = [d for d in record.decisions if d.seat == 0]
            if not own:
                raise self.fail(f"{players} players: the agent never decided")
            wrong = [d for d in own if d.action not in (Action.TAKE, Action.PASS)
                     or (d.forced and d.action is not Action.TAKE)]
            if wrong:
                raise self.fail(f"{players} players: turn {wrong[0].turn}: action "
                                f"{wrong[0].action!r} (forced={wrong[0].forced})")

    def _play_on_order(self, table: Sequence[Agent | str], variant: Variant,
                       order: tuple[int, ...], agent_seeds: Sequence[int]) -> list[tuple]:
        """Drive a game on an explicit deck order as :class:`~nothanks.play.match.Match`
        does: ``start``, events to observers, ``decide(view)`` on the seat's own view.
        Returns ``(face-up card index, card, seat, action)`` per decision."""
        agents = [make_agent(a) if isinstance(a, str) else a for a in table]
        for seat, agent in enumerate(agents):
            agent.start(seat, variant, agent_seeds[seat])
        game = Game(variant, order=order,
                    listeners=[a.observe for a in agents if a.observes()])
        moves = []
        while not game.over:
            seat = game.seat
            action = Action(agents[seat].decide(game.view(seat)))
            moves.append((variant.cards_played - game.cards_left - 1, game.card, seat,
                          action))
            game.apply(action, seat)
        return moves

    def view_only(self) -> None:
        variant = Variant(players=4)
        order, removed = deal(variant, 2024)
        shown = 12  # cards revealed identically in both deals
        hidden = list(order[shown:]) + list(removed)
        random.Random(7).shuffle(hidden)
        other = tuple(order[:shown]) + tuple(hidden[:len(order) - shown])
        seeds = [101, 102, 103, 104]
        first = self._play_on_order([self.fresh(), "heuristic", self.fresh(), "random:p=0.3"],
                                    variant, order, seeds)
        second = self._play_on_order([self.fresh(), "heuristic", self.fresh(),
                                      "random:p=0.3"], variant, other, seeds)
        before = [m for m in first if m[0] < shown]
        after = [m for m in second if m[0] < shown]
        if after != before:
            part = next((i for i, (a, b) in enumerate(zip(before, after, strict=False))
                         if a != b), min(len(before), len(after)))
            raise self.fail(f"decision {part} differs between two deals with the same "
                            f"first {shown} cards: it read something its View does not show")

    def seed_determinism(self) -> None:
        variant = Variant(players=5)
        table = [self.fresh(), "heuristic", self.fresh(), "random", "random"]

        def moves(agents: list, seed: int) -> list[tuple]:
            record = Match(agents, variant, seed).run()
            return [(d.seat, d.card, d.tokens_on_card, d.action) for d in record.decisions]

        first = moves(table, 5)
        moves(table, 6)
        moves(table, 7)
        if moves(table, 5) != first:
            raise self.fail("seed 5 again, after games with seeds 6 and 7, gave other moves: "
                            "start() must reset what a game's moves depend on")
        fresh = [self.fresh(), "heuristic", self.fresh(), "random", "random"]
        if moves(fresh, 5) != first:
            raise self.fail("seed 5 gave other moves with fresh agent objects")

    def log_round_trip(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        # the design plans the games; its agent strings stand for the agent under test
        design = Design.from_dict({
            "name": "conformance", "seed": 3, "games": 2,
            "tables": [{"label": "t", "players": ["heuristic", "heuristic", "random",
                                                  "heuristic"]}],
        })
        rows = LogRows(LogContext("conformance", design.hash), design)
        infos = []
        for plan in design.plan():
            by_role = [self.fresh(), make_agent("heuristic"), make_agent("random"),
                       self.fresh()]
            record = Match([by_role[r] for r in plan.roles], design.variant, plan.seed,
                           game_id=plan.position).run()
            rows.add_game(plan, record)
            infos += [d.info for d in record.decisions]
        reported = set().union(*map(set, infos))
        unknown = reported - set(LOGGED_AS_COLUMN) - LOGGED_ELSEWHERE - INFO_NOT_LOGGED
        if unknown:
            raise self.fail(f"decision info {sorted(unknown)} is neither logged nor declared: "
                            "log it, or declare it in "
                            "nothanks.experiments.rows.INFO_NOT_LOGGED")
        parts = rows.to_parquet()
        table = schema.to_pandas(pq.read_table(pa.BufferReader(parts["decisions"])))
        if len(table) != len(infos):
            raise self.fail(f"{len(infos)} decisions played, {len(table)} logged")
        for key in LOGGED_AS_COLUMN:
            for i, (info, got) in enumerate(zip(infos, table[key].tolist(), strict=True)):
                want = info.get(key)
                if not (_missing(got) if want is None else _same(want, got)):
                    raise self.fail(f"decision {i}: {key} logged as {got!r}, reported as "
                                    f"{want!r}")
        predictions = pq.read_table(pa.BufferReader(parts["predictions"]))
        made = sum(len(i.get("predictions") or ()) for i in infos)
        if len(predictions) != made:
            raise self.fail(f"{made} predictions reported, {len(predictions)} logged")

    def traces(self) -> None:
        variant = Variant(players=3)
        plain = Match([self.fresh(), "random", "random"], variant, seed=9).run()
        traced = Match([self.fresh(), "random", "random"], variant, seed=9, traces=True).run()
        if [d.action for d in traced.decisions] != [d.action for d in plain.decisions]:
            raise self.fail("traces on changed the moves")
        if any(d.trace is not None for d in plain.decisions):
            raise self.fail("traces off, yet a decision kept a trace")
        own = [d for d in traced.decisions if d.seat == 0]
        if self.fresh().can_trace:
            if any(d.trace is None for d in own):
                raise self.fail("can_trace is true, yet a decision with traces on has none")
        elif any(d.trace is not None for d in traced.decisions):
            raise self.fail("can_trace is false, yet a decision kept a trace")

    def one_line_errors(self) -> None:
        name = self.registry_name
        if name is None:
            return  # a factory: no parameters to give
        for spec, names in [(f"{name}:no_such_key=1", ("no_such_key", "valid"))] + [
                (f"{name}:{key}=abc", (key, "abc"))
                for key, value in agent_parameters(name).items()
                if isinstance(value, (int, float)) and not isinstance(value, bool)]:
            try:
                make_agent(spec)
            except AgentSpecError as exc:
                message = str(exc)
                if "\n" in message or not all(n in message for n in names):
                    raise self.fail(f"{spec!r} was refused with {message!r}; the error "
                                    f"must be one line naming {' and '.join(names)}") from None
            else:
                raise self.fail(f"{spec!r} was accepted; a bad parameter must raise "
                                "AgentSpecError")


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def _missing(value: object) -> bool:
    import pandas as pd

    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


#: Every check, by name, in the order :func:`check_agent` runs them.
CHECKS = ("table_sizes", "view_only", "seed_determinism", "log_round_trip", "traces",
          "one_line_errors")


def check_agent(agent: str | AgentSpec | AgentFactory,
                checks: Iterable[str] = CHECKS) -> tuple[str, ...]:
    """Run the conformance checks (:data:`CHECKS`, or those named in ``checks``) on an
    agent: a registered spec (``"tom1:rt=-1.5"``, an :class:`~nothanks.agents.AgentSpec`)
    or a function returning a fresh :class:`~nothanks.agents.Agent` (its class, say).

    Returns the names of the checks passed (``one_line_errors`` only for a spec).

    Raises:
        AgentCheckError: a check failed, or the agent raised during one (one line:
            agent, check, what was wrong; the agent's own exception is its cause).
        ValueError: ``checks`` names an unknown check.
        TypeError: ``agent`` is an agent object (give its class) or not callable.
        AgentSpecError: ``agent`` is a spec that does not parse.
    """
    names = tuple(checks)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ValueError(f"unknown check(s) {unknown}; valid: {', '.join(CHECKS)}")
    checker = _Checker(agent)
    passed = []
    for name in names:
        if name == "one_line_errors" and checker.registry_name is None:
            continue
        checker.check = name
        try:
            getattr(checker, name)()
        except AgentCheckError:
            raise
        except Exception as exc:  # the agent crashed: said in one line, the cause chained
            raise checker.fail(f"{type(exc).__name__}: {exc}") from exc
        passed.append(name)
    return tuple(passed)


__all__ = ["CHECKS", "LOGGED_AS_COLUMN", "LOGGED_ELSEWHERE", "TABLE_SIZES", "AgentCheckError",
           "check_agent"]
