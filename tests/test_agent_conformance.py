"""Agent conformance: every registered agent spec, tested the same way.

In the spirit of a game framework's random-simulation test, each agent the spec registry
knows (``nothanks agents``) must, with no test written for it:

- play every supported table size (3-7 players) to the end;
- decide from its :class:`~nothanks.rules.View` only: a deal whose hidden cards (the
  rest of the deck and the removed cards) differ gets the same moves until a differing
  card is revealed;
- be reproducible: the same seed gives the same moves, also when the agent object has
  played other games in between (runners reuse agents across games);
- report decision info the log keeps: every key either lands in a log column and reads
  back equal from Parquet, or is declared in :data:`nothanks.experiments.rows.INFO_NOT_LOGGED`;
- refuse a bad parameter with a one-line error that names it.

A new agent registered with :func:`nothanks.agents.register` is covered automatically.
"""
from __future__ import annotations

import math
import random
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import nothanks.agents.cognitive  # noqa: F401  (registers the cognitive models)
from nothanks.agents import AgentSpecError, agent_parameters, make_agent
from nothanks.agents.spec import registered
from nothanks.experiments import schema
from nothanks.experiments.design import Design
from nothanks.experiments.rows import INFO_NOT_LOGGED, LogContext, LogRows
from nothanks.match import Match
from nothanks.rules import Action, Game, Variant
from nothanks.rules.game import deal
from nothanks.search.network import NetworkConfig, init_weights, save_checkpoint

#: Stands for the folder of :func:`agent_files` in a spec (replaced when a test runs).
FILES = "<files>"
#: Parameters that keep an agent's games short in a test (every other agent: defaults).
CHEAP = {"ismcts": "iterations=12", "openspiel-mcts": "sims=2", "openspiel-ismcts": "sims=2",
         "alphazero": f"sims=6,checkpoint={FILES}/alphazero-{{players}}.npz"}
#: Decision-info keys the decisions table keeps in a column of the same name.
LOGGED_AS_COLUMN = ("model_time", "latency", "reason", "instance_failures")
#: Keys the log turns into rows of other tables or derived columns (``learning``: the
#: learning table's state column).
LOGGED_ELSEWHERE = {"own_tom0_action", "predictions", "recalled_tokens", "leaf_is_newest",
                    "tom_order", "learning"}


def spec_of(name: str) -> str:
    return f"{name}:{CHEAP[name]}" if name in CHEAP else name


SPECS = [spec_of(name) for name in registered()]


@pytest.fixture(scope="module")
def agent_files(tmp_path_factory) -> Path:
    """The files agents load: untrained (small) alphazero networks for 3-7 players."""
    folder = tmp_path_factory.mktemp("agent-files")
    for players in range(3, 8):
        config = NetworkConfig(players=players, hidden=16)
        save_checkpoint(folder / f"alphazero-{players}.npz", init_weights(config, players),
                        config, {})
    return folder


@pytest.fixture
def spec(request, agent_files) -> str:
    """The spec under test, with :data:`FILES` pointing at :func:`agent_files`."""
    return request.param.replace(FILES, str(agent_files))


def test_the_registry_is_what_this_suite_covers():
    """Guards the parametrisation: the cognitive models registered, so did the rest."""
    assert {"random", "heuristic", "tom0", "tom1", "tom2", "ismcts"} <= set(registered())


def play_on_order(specs: list[str], variant: Variant, order: tuple[int, ...],
                  agent_seeds: list[int]) -> list[tuple[int, int, int, Action]]:
    """Drive a game on an explicit deck order, as :class:`~nothanks.match.Match` does:
    ``start``, events to observers, ``decide(view)`` on the seat's own view. Returns
    ``(face-up card index, card, seat, action)`` per decision."""
    agents = [make_agent(s) for s in specs]
    for seat, agent in enumerate(agents):
        agent.start(seat, variant, agent_seeds[seat])
    game = Game(variant, order=order,
                listeners=[a.observe for a in agents if a.observes()])
    moves = []
    while not game.over:
        seat = game.seat
        view = game.view(seat)
        action = Action(agents[seat].decide(view))
        moves.append((variant.cards_played - game.cards_left - 1, game.card, seat, action))
        game.apply(action, seat)
    return moves


@pytest.mark.parametrize("spec", SPECS, indirect=True)
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_plays_every_table_size_to_the_end(spec, players):
    variant = Variant(players=players)
    record = Match([spec] + ["random"] * (players - 1), variant, seed=11 + players).run()
    assert len(record.scores) == players
    own = [d for d in record.decisions if d.seat == 0]
    assert own, "the agent under test never decided"
    assert all(d.action in (Action.TAKE, Action.PASS) for d in own)
    assert all(not d.forced or d.action is Action.TAKE for d in own)


@pytest.mark.parametrize("spec", SPECS, indirect=True)
def test_decides_from_its_view_only(spec):
    """The same public history gives the same moves whatever the hidden cards are."""
    variant = Variant(players=4)
    order, removed = deal(variant, 2024)
    shown = 12  # cards revealed identically in both deals
    hidden = list(order[shown:]) + list(removed)
    random.Random(7).shuffle(hidden)
    other = tuple(order[:shown]) + tuple(hidden[:len(order) - shown])
    assert other[shown] != order[shown] and other[:shown] == order[:shown]
    specs = [spec, "heuristic", spec, "random:p=0.3"]
    seeds = [101, 102, 103, 104]
    first = play_on_order(specs, variant, order, seeds)
    second = play_on_order(specs, variant, other, seeds)
    before = [m for m in first if m[0] < shown]
    assert len(before) >= shown
    assert [m for m in second if m[0] < shown] == before
    assert first != second  # past the shared cards the deals part


@pytest.mark.parametrize("spec", SPECS, indirect=True)
def test_same_seed_same_moves_even_after_other_games(spec):
    variant = Variant(players=5)
    table = [make_agent(spec), "heuristic", make_agent(spec), "random", "random"]

    def moves(seed: int) -> list[tuple]:
        record = Match(table, variant, seed).run()
        return [(d.seat, d.card, d.tokens_on_card, d.action) for d in record.decisions]

    first = moves(5)
    moves(6)
    moves(7)
    assert moves(5) == first
    fresh = [make_agent(spec), "heuristic", make_agent(spec), "random", "random"]
    record = Match(fresh, variant, 5).run()
    assert [(d.seat, d.card, d.tokens_on_card, d.action) for d in record.decisions] == first


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


@pytest.mark.parametrize("spec", SPECS, indirect=True)
def test_decision_info_round_trips_through_the_log(spec):
    design = Design.from_dict({
        "name": "conformance", "seed": 3, "games": 2,
        "tables": [{"label": "t", "players": [spec, "heuristic", "random", spec]}],
    })
    rows = LogRows(LogContext("conformance", design.hash), design)
    infos = []
    for plan in design.plan():
        agents = [make_agent(s) for s in design.conditions[plan.condition].players]
        record = Match([agents[r] for r in plan.roles], design.variant, plan.seed,
                       game_id=plan.position).run()
        rows.add_game(plan, record)
        infos += [d.info for d in record.decisions]
    reported = set().union(*map(set, infos))
    unknown = reported - set(LOGGED_AS_COLUMN) - LOGGED_ELSEWHERE - INFO_NOT_LOGGED
    assert not unknown, (f"{spec} reports {sorted(unknown)}: log them, or declare them in "
                         "nothanks.experiments.rows.INFO_NOT_LOGGED")
    parts = rows.to_parquet()
    table = schema.to_pandas(pq.read_table(pa.BufferReader(parts["decisions"])))
    assert len(table) == len(infos)
    for key in LOGGED_AS_COLUMN:
        logged = table[key].tolist()
        for i, info in enumerate(infos):
            want, got = info.get(key), logged[i]
            if want is None:
                assert got is None or got is pd.NA or (isinstance(got, float)
                                                       and math.isnan(got)), (spec, i, key, got)
            else:
                assert _same(want, got), f"{spec}: row {i} {key}: logged {got!r}, info {want!r}"
    predictions = pq.read_table(pa.BufferReader(parts["predictions"]))
    assert len(predictions) == sum(len(i.get("predictions") or ()) for i in infos)


@pytest.mark.parametrize("name", registered())
def test_a_bad_parameter_gets_a_one_line_error(name):
    with pytest.raises(AgentSpecError) as unknown:
        make_agent(f"{name}:no_such_key=1")
    message = str(unknown.value)
    assert "\n" not in message and "no_such_key" in message and "valid" in message
    typed = {k: v for k, v in agent_parameters(name).items()
             if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for key in typed:
        with pytest.raises(AgentSpecError) as bad:
            make_agent(f"{name}:{key}=abc")
        message = str(bad.value)
        assert "\n" not in message and key in message and "abc" in message


@pytest.mark.parametrize("spec", SPECS, indirect=True)
def test_traces_are_declared_not_probed(spec):
    """``can_trace`` says whether the agent records reasoning traces; with ``traces`` on
    it leaves one per decision (and the same moves), otherwise none."""
    variant = Variant(players=3)
    plain = Match([spec, "random", "random"], variant, seed=9).run()
    traced = Match([spec, "random", "random"], variant, seed=9, traces=True).run()
    assert [d.action for d in traced.decisions] == [d.action for d in plain.decisions]
    own = [d for d in traced.decisions if d.seat == 0]
    if make_agent(spec).can_trace:
        assert all(d.trace is not None for d in own)
    else:
        assert all(d.trace is None for d in traced.decisions)
    assert all(d.trace is None for d in plain.decisions)
