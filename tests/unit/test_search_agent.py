"""The ismcts agent: spec, legality, reproducibility, and sense at obvious decisions."""
from __future__ import annotations

import pytest

from nothanks.agents import AgentSpecError, make_agent
from nothanks.play.runner import play_game
from nothanks.rules import Action, Game, Variant
from nothanks.search import root_state, search

SMALL = Variant(players=3, low_card=3, high_card=14, removed=3)


def test_spec_and_bad_parameters():
    agent = make_agent("ismcts:iterations=50,c=1.2,rollout=random")
    assert (agent.iterations, agent.c, agent.rollout) == (50, 1.2, "random")
    with pytest.raises(AgentSpecError, match="rollout='greedy' is unknown; valid: heuristic"):
        make_agent("ismcts:rollout=greedy")
    with pytest.raises(AgentSpecError, match="iterations=0 is invalid"):
        make_agent("ismcts:iterations=0")
    with pytest.raises(AgentSpecError, match="spread=-0.1 is invalid"):
        make_agent("ismcts:spread=-0.1")
    with pytest.raises(AgentSpecError, match="ratio=nan is invalid"):
        make_agent("ismcts:ratio=nan")


@pytest.mark.parametrize("rollout", ["heuristic", "random"])
def test_same_seed_same_game_and_values(rollout):
    spec = f"ismcts:iterations=60,rollout={rollout}"

    def play(seed):
        agents = [make_agent(spec), make_agent("heuristic"), make_agent(spec)]
        return play_game(agents, SMALL, seed=seed)

    first, again = play(5), play(5)
    assert [d.move() for d in first.decisions] == [d.move() for d in again.decisions]
    assert [d.info for d in first.decisions] == [d.info for d in again.decisions]
    assert first.scores == again.scores
    assert [d.move() for d in play(6).decisions] != [d.move() for d in first.decisions]


@pytest.mark.parametrize("players", [3, 5, 7])
def test_legal_moves_and_forced_takes(players):
    """Every move is legal (the driver raises otherwise); with no tokens it takes without
    searching; decision info reports the search of every free decision."""
    variant = Variant(players=players, low_card=3, high_card=20, removed=4, starting_tokens=2)
    agents = [make_agent("ismcts:iterations=40") for _ in range(players)]
    record = play_game(agents, variant, seed=players)
    forced = [d for d in record.decisions if d.tokens_before == 0]
    assert forced and all(d.action == Action.TAKE and d.info["iterations"] == 0
                          for d in forced)
    free = [d for d in record.decisions if d.tokens_before > 0]
    assert all(d.info["take_visits"] + d.info["pass_visits"] == 40 for d in free)


def test_takes_a_card_that_completes_a_run_with_tokens():
    """Holding 10 and 12 with 11 face up and 6 tokens on it, taking gains 6 tokens and
    lowers the card points; a small search takes (and values take higher)."""
    game = Game(Variant(players=3), order=(10, 12, 11, *range(20, 35), 3, 4, 5, 6, 7, 8))
    game.apply("take")  # seat 0 takes 10
    game.apply("pass")  # seat 0 passes on 12
    game.apply("pass")  # seat 1
    game.apply("pass")  # seat 2
    game.apply("take")  # seat 0 takes 12 with 3 tokens; 11 is revealed
    for _ in range(6):
        game.apply("pass")
    assert game.card == 11 and game.seat == 0 and game.tokens_on_card == 6
    agent = make_agent("ismcts:iterations=300")
    agent.start(0, game.variant, seed=1)
    for event in game.history:
        agent.observe(event)
    assert agent.decide(game.view(0)) == Action.TAKE
    info = agent.decision_info()
    assert info["take_value"] > info["pass_value"]


def test_search_rejects_bad_budget_and_finished_games():
    state = root_state(Game(SMALL, seed=1).view(0))
    with pytest.raises(ValueError, match="c=-1 is invalid"):
        search(state, c=-1)
    with pytest.raises(ValueError, match="root='all' is unknown"):
        search(state, root="all")


def test_spread_varies_the_playouts_only_when_positive():
    """spread=0 is the fixed-ratio rule (same values as leaving it out); a spread draws
    each play-out's taking point afresh, so the values move but stay reproducible."""
    state = root_state(Game(SMALL, seed=4).view(0))

    def values(**policy):
        result = search(state, iterations=200, seed=9, ratio=0.4, **policy)
        return {k: (v.visits, v.rank_points) for k, v in result.values.items()}

    assert values(spread=0.0) == values()
    assert values(spread=0.3) == values(spread=0.3) != values()


def test_even_root_splits_the_budget():
    state = root_state(Game(SMALL, seed=2).view(0))
    result = search(state, iterations=101, root="even", seed=3)
    visits = sorted(v.visits for v in result.values.values())
    assert visits == [50, 51]
    assert all(v.rank_points_se > 0 and v.score_se > 0 for v in result.values.values())
