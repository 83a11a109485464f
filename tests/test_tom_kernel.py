"""The compiled ToM-k recursion (``tom_kernel``) decides and logs exactly as the Python
reasoning, bit for bit, in every reading, with several counts assumed for a player,
failed instance retrievals and orders up to 4; it steps aside where it does not apply."""
from __future__ import annotations

import numpy as np
import pytest

from nothanks.actr import Linear
from nothanks.actr import kernel as actr_kernel
from nothanks.agents.cognitive import tom_kernel
from nothanks.agents.cognitive.tom import ToMAgent
from nothanks.match import Match
from nothanks.rules import Variant

SMALL = Variant(removed=14)  # 19 cards: short games


@pytest.fixture
def recursion():
    """The compiled recursion, switched back on after the test."""
    if tom_kernel.compiled() is None:
        pytest.skip("compiled kernels off (numba missing or NOTHANKS_ACTR_KERNEL=0)")
    yield
    tom_kernel.use(True)


def _play(orders: tuple[int, ...], params: dict, seed: int, *, compiled: bool):
    """Decisions (seat, action, info) of a small game, what every model did along the way,
    and how many decisions the compiled recursion took."""
    tom_kernel.use(compiled)
    agents = [ToMAgent(k, **params) for k in orders]
    taken = 0
    for agent in agents:
        reason = agent._reason_compiled

        def counted(view, world, reason=reason):
            nonlocal taken
            outcome = reason(view, world)
            taken += outcome is not None
            return outcome
        agent._reason_compiled = counted
    record = Match(agents, SMALL, seed).run()
    decisions = [(d.seat, d.action, repr(d.info)) for d in record.decisions]
    ends = [(a.instance_failures, a._instance_dm.time, repr(a.token_memory.history))
            for a in agents]
    rows = max(a._score_tables.rows if a._score_tables else 0 for a in agents)
    return decisions, ends, record, taken, rows


@pytest.mark.parametrize("params", [
    {},
    {"rt": 0.0},  # leaves often fail: root classes and defaults, several counts each
    {"rt": 0.0, "candidate_rule": "any", "project_self": False},
    {"thresholds": "shared", "token_chunks": "merge", "token_s": "0.3", "rt": -1.0},
    {"instance_rt": 0.3},  # instance retrievals fail: the default action
    {"oracle_tokens": True, "mp": 1.0, "lf": 0.5},
], ids=lambda params: ",".join(f"{k}={v}" for k, v in params.items()) or "defaults")
@pytest.mark.parametrize("orders", [(1, 0, 2, 1), (3, 4, 2, 1)], ids=["orders0-2", "orders1-4"])
def test_the_compiled_recursion_decides_and_logs_as_python(recursion, params, orders):
    several = failures = takers = grown = 0
    for seed in (3, 4):
        fast = _play(orders, params, seed, compiled=True)
        slow = _play(orders, params, seed, compiled=False)
        assert fast[:2] == slow[:2]
        assert slow[3] == 0  # switched off: every decision reasoned in Python
        decided = [d for d in fast[2].decisions if d.info.get("tom_order", 0) >= 1]
        grown += fast[4] > 16
        assert fast[3] == len(decided) > 5
        for d in decided:
            several += any(len(c) > 1 for c in (d.info["recalled_tokens"] or {}).values())
            failures += d.info["instance_failures"] > 0
            takers += "predicted to take" in d.info["reason"]
    # what the switches are there to reach was reached
    if params.get("rt") == 0.0:
        assert several > 0
    if "instance_rt" in params:
        assert failures > 0
    else:  # (failed retrievals pass: nobody is predicted to take)
        assert takers > 0
    if orders == (3, 4, 2, 1):  # deep projections pile tokens on the card
        assert grown > 0


def _per_retrieval_memories(orders, seed, *, compiled: bool):
    """Decisions of a game whose models' instance memories were switched to per-retrieval
    noise after the models were built (a public memory setting)."""
    tom_kernel.use(compiled)
    agents = [ToMAgent(k) for k in orders]
    for agent in agents:
        agent._instance_dm.noise_mode = "per_retrieval"
    record = Match(agents, SMALL, seed).run()
    return [(d.action, repr(d.info)) for d in record.decisions], [
        a._instance_dm._rng.bit_generator.state for a in agents]


def test_the_compiled_recursion_steps_aside(recursion):
    """Per-retrieval noise (asked for, or set on the memory later), no noise, traces and
    subclasses reason in Python; the kernels switched off switch the recursion off too."""
    for params in ({"noise_mode": "per_retrieval"}, {"s": 0.0}, {"trace": True}):
        assert _play((1, 2, 0, 1), params, 5, compiled=True)[3] == 0
    assert (_per_retrieval_memories((1, 2, 0, 1), 3, compiled=True)
            == _per_retrieval_memories((1, 2, 0, 1), 3, compiled=False))
    tom_kernel.use(True)
    actr_kernel.use(False)
    try:
        assert tom_kernel.compiled() is None
    finally:
        actr_kernel.use(True)
    assert tom_kernel.compiled() is not None


def _mismatch_changed_between_games(*, compiled: bool):
    """Two games of the same models, the card's mismatch function changed between them
    (the score tables made in the first game no longer hold)."""
    tom_kernel.use(compiled)
    agents = [ToMAgent(k) for k in (2, 1, 1, 0)]
    games = [Match(agents, SMALL, 1).run()]
    for agent in agents:
        agent._instance_dm.set_mismatch("card", Linear(4.0))
    games.append(Match(agents, SMALL, 2).run())
    return [[(d.action, repr(d.info)) for d in game.decisions] for game in games]


def test_scores_changed_after_the_tables_were_made_are_read_anew(recursion):
    assert (_mismatch_changed_between_games(compiled=True)
            == _mismatch_changed_between_games(compiled=False))


def test_a_count_beyond_the_score_tables_asks_for_more_rows(recursion):
    """The tables hold counts up to their rows; a state beyond them decides nothing and
    returns the rows it needs (the caller grows the tables and asks again: in the games
    above, tables grow past their first 16 rows)."""
    # ToM0 of one player holding one instance; table rows: takes, 3 categories, one
    # card, then 2 x 2 counts; 5 tokens on the card, 2 rows per count
    state = np.array([0, 0, 5, 1, 1, 1, 0, 1, 1, 4, 2, 5, 7, 0, 1, 1], np.int64)
    result = tom_kernel.compiled().decide(state, np.zeros((9, 1)), np.zeros(1),
                                          np.zeros(1), 1.0, 0.0, 1.0,
                                          np.empty((1, 3), np.int64))
    assert result[-1] == 6
    state[-1] = -1  # a negative count assumed: no row for it, left to the Python path
    assert tom_kernel.compiled().decide(state, np.zeros((9, 1)), np.zeros(1),
                                        np.zeros(1), 1.0, 0.0, 1.0,
                                        np.empty((1, 3), np.int64))[-1] == -1
    state[-1] = 1
    state[2] = 1  # within the tables: decided
    assert tom_kernel.compiled().decide(state, np.zeros((9, 1)), np.zeros(1),
                                        np.zeros(1), 1.0, 0.0, 1.0,
                                        np.empty((1, 3), np.int64))[-1] == 0
