"""The compiled ToM-k core (``nothanks.kernels.tom``) against the plain reference
recursion (``ToMAgent._reason``): one core, one reference, every caller.

- The models (``ToMAgent`` through ``tom_kernel``): the same moves and the same logged
  info (latencies, failures, predictions, recalls) as the reference, bit for bit, for
  orders 0-4, in every reading, with the token memory (one or several recalled counts)
  and with exact counts, score tables grown and windows made along the way; where the
  core steps aside (other noise, traces, an opponent model).
- The search's ToM-k stand-in (``kernel.skips``, the play-outs' model players and the
  player-kind inference): the reference recursion with ToM0 read from the same take
  table predicts the same skips, for orders 1-5 and 3-7 players.

The reference is the same model on the reference (``kernels.reference_mode``); whole
games of every kind of table: tests/integration/agreement/test_games.py.
"""
from __future__ import annotations

import numba  # noqa: F401 (a dependency: without it both paths would be NumPy)
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nothanks.actr import Linear
from nothanks.agents import make_agent
from nothanks.agents.cognitive import tom_kernel
from nothanks.agents.cognitive.state import category_name
from nothanks.agents.cognitive.tom import Belief, ToMAgent
from nothanks.agents.population import CATEGORIES, tom0_take_table
from nothanks.kernels import reference_mode
from nothanks.kernels import tom as tom_core
from nothanks.play.match import Match
from nothanks.rules import Action, Variant
from nothanks.search import kernel as k
from nothanks.search import root_state

SMALL = Variant(removed=14)  # 19 cards: short games


def _play(orders: tuple[int, ...], params: dict, seed: int, *, reference: bool):
    """A small game's decisions (seat, action, info), what each model did along the way
    (failures, clocks, token recalls), how many decisions the core took (orders >= 1),
    the largest score table, and how many ToM0 models' decisions the core took."""
    with reference_mode(reference):
        return _play_on(orders, params, seed)


def _play_on(orders: tuple[int, ...], params: dict, seed: int):
    agents = [ToMAgent(order, **params) for order in orders]
    taken = taken0 = 0
    for agent in agents:
        reason, decide0 = agent._reason_compiled, agent._decide_tom0

        def counted(view, world, reason=reason):
            nonlocal taken
            outcome = reason(view, world)
            taken += outcome is not None
            return outcome

        def counted0(view, decide0=decide0):
            nonlocal taken0
            action = decide0(view)
            taken0 += action is not None
            return action
        agent._reason_compiled, agent._decide_tom0 = counted, counted0
    record = Match(agents, SMALL, seed).run()
    decisions = [(d.seat, d.action, repr(d.info)) for d in record.decisions]
    ends = [(a.instance_failures, a._instance_dm.time, a._token_dm.time,
             repr(a.token_memory.history)) for a in agents]
    rows = max(a._score_tables.rows if a._score_tables else 0 for a in agents)
    return decisions, ends, record, taken, rows, taken0


@pytest.mark.parametrize("params", [
    {},
    {"rt": 0.0},  # leaves often fail: root classes and defaults, several counts each
    {"rt": 0.0, "candidate_rule": "any", "project_self": False},
    {"thresholds": "shared", "token_chunks": "merge", "token_s": "0.3", "rt": -1.0},
    {"instance_rt": 0.3},  # instance retrievals fail: the default action
    {"oracle_tokens": True, "mp": 1.0, "lf": 0.5},
    {"noise_mode": "per_retrieval"},  # the core steps aside: the shortcuts decide
    {"s": 0.0},
], ids=lambda params: ",".join(f"{k}={v}" for k, v in params.items()) or "defaults")
@pytest.mark.parametrize("orders", [(1, 0, 2, 1), (3, 4, 2, 0)], ids=["orders0-2", "orders0-4"])
def test_the_core_decides_and_logs_as_the_reference(params, orders, monkeypatch):
    # first tables of 16 counts (the models start with FIRST_ROWS): the games grow them
    monkeypatch.setattr(tom_kernel, "FIRST_ROWS", 16)
    several = failures = takers = grown = core = 0
    for seed in (3, 4):
        fast = _play(orders, params, seed, reference=False)
        slow = _play(orders, params, seed, reference=True)
        assert fast[:2] == slow[:2]
        assert slow[3] == 0  # every reference decision by the plain recursion
        decided = [d for d in fast[2].decisions if d.info.get("tom_order", 0) >= 1]
        assert len(decided) > 5
        grown += fast[4] > 16
        core += fast[3]
        if fast[3]:  # the core took every decision of an order >= 1, and of ToM0
            assert fast[3] == len(decided)
            assert fast[5] == sum(d.info.get("tom_order") == 0 for d in fast[2].decisions) > 0
        assert slow[5] == 0
        for d in decided:
            several += any(len(c) > 1 for c in (d.info["recalled_tokens"] or {}).values())
            failures += d.info["instance_failures"] > 0
            takers += "predicted to take" in d.info["reason"]
    # what the switches are there to reach was reached
    assert (core > 0) == (params.get("noise_mode") != "per_retrieval" and "s" not in params)
    if params.get("rt") == 0.0:
        assert several > 0
    if "instance_rt" in params:
        assert failures > 0
    else:  # (failed retrievals pass: nobody is predicted to take)
        assert takers > 0
    if orders == (3, 4, 2, 0) and core:  # deep projections pile tokens on the card
        assert grown > 0


def test_tom0_models_that_meet_a_query_again_retrieve_from_its_window_as_the_reference():
    """ToM0 models keep a window per query met twice (``kernels.retrieval.window``) and
    retrieve lazily, drawing the noise of only the instances that can win; over enough
    small games for queries to come again, their records are the reference's, and the
    windows were used."""
    orders = (0, 0, 0)
    variant = Variant(players=3, removed=20)  # 13 cards: queries repeat within 40 games

    def play(reference: bool):
        with reference_mode(reference):
            return play_on()

    def play_on():
        agents = [ToMAgent(order) for order in orders]
        records = []
        for index in range(40):
            shift = index % 3
            seats = agents[shift:] + agents[:shift]
            match = Match(seats, variant=variant, seed=1000 + index)
            record = match.run()
            records.append(([(d.seat, d.action, d.info) for d in record.decisions],
                            record.scores))
        return records, agents

    fast, agents = play(False)
    windows = [w for agent in agents for w in agent._kept_inputs[3].windows.values()]
    assert sum(len(w[0]) > 0 for w in windows) > 20  # windows made and used
    reference, _ = play(True)
    assert fast == reference


def _per_retrieval_memories(orders, seed, *, compiled: bool):
    """Decisions of a game whose models' instance memories were switched to per-retrieval
    noise after the models were built (a public memory setting)."""
    with reference_mode(not compiled):
        agents = [ToMAgent(k) for k in orders]
        for agent in agents:
            agent._instance_dm.noise_mode = "per_retrieval"
        record = Match(agents, SMALL, seed).run()
    return [(d.action, repr(d.info)) for d in record.decisions], [
        a._instance_dm._rng.bit_generator.state for a in agents]


def test_the_core_steps_aside():
    """Per-retrieval noise (asked for, or set on the memory later), no noise and traces
    reason by the reference; the ACT-R kernels switched off switch the core off too."""
    for params in ({"noise_mode": "per_retrieval"}, {"s": 0.0}, {"trace": True}):
        assert _play((1, 2, 0, 1), params, 5, reference=False)[3] == 0
    assert (_per_retrieval_memories((1, 2, 0, 1), 3, compiled=True)
            == _per_retrieval_memories((1, 2, 0, 1), 3, compiled=False))
    with reference_mode():
        assert tom_kernel.compiled() is None
    assert tom_kernel.compiled() is not None


def _mismatch_changed_between_games(*, reference: bool):
    """Two games of the same models, the card's mismatch function changed between them
    (the score tables made in the first game no longer hold)."""
    with reference_mode(reference):
        agents = [ToMAgent(k) for k in (2, 1, 1, 0)]
        games = [Match(agents, SMALL, 1).run()]
        for agent in agents:
            agent._instance_dm.set_mismatch("card", Linear(4.0))
        games.append(Match(agents, SMALL, 2).run())
    return [[(d.action, repr(d.info)) for d in game.decisions] for game in games]


def test_scores_changed_after_the_tables_were_made_are_read_anew():
    assert (_mismatch_changed_between_games(reference=False)
            == _mismatch_changed_between_games(reference=True))


def test_a_count_beyond_the_score_tables_asks_for_more_rows():
    """The tables hold counts up to their rows; a state beyond them decides nothing and
    returns the rows it needs (the caller grows the tables and asks again: in the games
    above, tables grow past their first 16 rows); the table layout is the one the agents'
    ScoreTables fill."""
    assert (tom_kernel.TAKES_ROW, tom_kernel.CATEGORY_ROW, tom_kernel.N_CATEGORIES) == (
        tom_core.TAKES_ROW, tom_core.CATEGORY_ROW, tom_core.N_CATEGORIES)
    # ToM0 of one player holding one instance; table rows: takes, 3 categories, one
    # card, then 2 x 2 counts; 5 tokens on the card, 2 rows per count
    state = np.array([0, 0, 5, 1, 1, 1, 0, 1, 1, 4, 5, 7, 0, 1, 1], np.int64)

    def decide():
        return tom_core.decide(state, np.zeros((9, 1)), np.zeros(1), np.zeros(1), 1.0, 0.0,
                               1.0, np.empty((1, 3), np.int64))
    assert decide()[-1] == 6
    state[-1] = -1  # a negative count assumed: no row for it, left to the reference
    assert decide()[-1] == -1
    state[-1] = 1
    state[2] = 1  # within the tables: decided
    assert decide()[-1] == 0


def _table_reference(order: int, table: np.ndarray) -> ToMAgent:
    """The reference recursion with the search's ToM0, through the model's public seam
    (``tom0_rule``): P(take) from the take table, taking when >= 1/2; the root's ToM0
    (``agent.root``: seat, tokens on the card, tokens) takes, which is what ``skips``
    asks."""
    agent = ToMAgent(order)
    agent.root = (-1, -1, -1)
    last = table.shape[2] - 1

    def rule(view, seat, tokens_on_card, tokens):
        if (seat, tokens_on_card, tokens) == agent.root:
            return Action.TAKE
        category = CATEGORIES.index(category_name(view.cards[seat], view.card))
        p = table[category, view.card, min(tokens_on_card, last), min(tokens, last)]
        return Action.TAKE if p >= 0.5 else Action.PASS

    agent.tom0_rule = rule
    return agent


@settings(max_examples=5, deadline=None)
@given(players=st.integers(3, 7), seed=st.integers(0, 2**31))
def test_the_search_model_skips_as_the_reference_predicts(players, seed):
    """``kernel.skips`` (the core with ToM0 from the table, exact counts) against the
    reference recursion given the same ToM0, orders 1-5, in the states of a random game."""
    variant = Variant(players=players)
    table = tom0_take_table(variant)
    references = [_table_reference(order, table) for order in range(6)]
    for reference in references:
        reference.start(0, variant, 0)  # (the seat only matters with project_self=false)
    match = Match([make_agent("random") for _ in range(players)], variant, seed)
    while not match.over:
        if match.game.turn % 3:  # every third state (the reference's ToM5 is slow)
            match.step()
            continue
        view = match.game.view(match.to_move)
        s = root_state(view)
        seat, on_card, tokens = view.seat, view.tokens_on_card, view.own_tokens
        world = tuple(Belief((int(count),), "exact") for count in s[k.HEADER:k.HEADER + players])
        for order in range(1, 6) if tokens else ():
            scratch = np.zeros((order + 1, players), np.int64)
            skips = bool(k.skips(s, table, order, seat, tokens, scratch))
            reference = references[order]
            reference.root = (seat, on_card, tokens)
            reference._begin(view)
            outcome = reference._reason(order, seat, on_card, tokens, world, root=True)
            assert skips == (outcome.action is Action.PASS), (order, world)
        match.step()


def test_an_instance_file_is_read_again_once_it_changed(tmp_path):
    """Parsed instance sets are kept per file, but only while the file is unchanged."""
    import os

    from nothanks.agents.cognitive import DEFAULT_INSTANCES, load_instances

    path = tmp_path / "instances.csv"
    text = DEFAULT_INSTANCES.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    first = load_instances(path)
    assert load_instances(path) is first  # unchanged: not parsed again
    lines = text.splitlines(keepends=True)
    shorter = "".join(line for line in lines if not line.startswith("none,35,"))
    path.write_text(shorter, encoding="utf-8")
    os.utime(path, ns=(1, 1))  # even with an old time stamp the size differs
    second = load_instances(path)
    assert second is not first and len(second) < len(first)


def test_a_tom0_rule_replaces_the_retrieval_and_steps_the_core_aside():
    """The public seam: a ToM0 rule decides every ToM0 the recursion asks (here: always
    pass, so a ToM2 model passes whenever it holds tokens); a non-callable is refused."""
    agent = ToMAgent(2)
    asked = []

    def always_pass(view, seat, tokens_on_card, tokens):
        asked.append(seat)
        return Action.PASS

    agent.tom0_rule = always_pass
    record = Match([agent, *[make_agent("random") for _ in range(3)]], SMALL, 3).run()
    mine = [d for d in record.decisions if d.seat == 0]
    assert mine and asked
    forced = "no tokens left: must take"
    assert all(d.action is Action.PASS for d in mine if d.info["reason"] != forced)
    with pytest.raises(TypeError, match="must be None or callable"):
        agent.tom0_rule = "pass"
