"""The one planned-games loop (nothanks.play.runner.play_planned) and the one batch form
of the agent seed (nothanks.rules.seeding.agent_seeds), issue 45."""
from __future__ import annotations

from nothanks.agents import make_agent
from nothanks.play.match import Match
from nothanks.play.runner import GameToPlay, play_games, play_planned
from nothanks.rules import Variant
from nothanks.rules.seeding import agent_seed, agent_seeds, game_seed, stream_seeds


def test_agent_seeds_are_agent_seed_for_every_seat_and_offset():
    seeds = [game_seed(7, i) for i in range(5)] + [0, 2**63 - 1]
    for offset in (1, 101):
        assert agent_seeds(seeds, 4, offset) == [[agent_seed(s, seat, offset)
                                                  for seat in range(4)] for s in seeds]
    assert agent_seed(5, 2) == agent_seed(5, 2, 1)  # the default family: 1 + seat
    assert stream_seeds(40, 3) == [40, 41, 42]


def test_play_planned_is_match_per_game_in_order_batched_or_not():
    """Baseline games (played in compiled batches when the engine is on) and model games
    interleaved: every record equals its own Match, in the order planned, with its key."""
    variant = Variant(players=3)
    base = [make_agent("random"), make_agent("heuristic"), make_agent("always-pass")]
    model = [make_agent("tom0"), make_agent("random"), make_agent("heuristic")]
    plan = [GameToPlay(10 + i, game_seed(3, i), model if i % 3 == 2 else base,
                       batch=i != 4, key=f"game {i}") for i in range(7)]
    played = list(play_planned(plan, variant))
    assert [game.key for game, _ in played] == [f"game {i}" for i in range(7)]
    for game, record in played:
        alone = Match([make_agent(a.spec) for a in game.agents], variant, game.seed,
                      game_id=game.game_id).run()
        assert record.decisions == alone.decisions and record.scores == alone.scores
        assert record.game_id == game.game_id
    # another agent-seed family: the same deals, other random draws
    other = [r for _, r in play_planned(plan[:2], variant, seat_offset=101)]
    assert [r.seed for r in other] == [p.seed for p in plan[:2]]
    assert [r.decisions for r in other] != [r.decisions for _, r in played[:2]]


def test_play_games_is_play_planned_over_a_runs_seats_and_seeds():
    records = list(play_games(["random", "heuristic", "tom0"], 4, seed=9,
                              variant=Variant(players=3), start=2))
    assert [r.game_id for r in records] == [2, 3, 4, 5]
    assert [r.seed for r in records] == [game_seed(9, i) for i in range(2, 6)]
