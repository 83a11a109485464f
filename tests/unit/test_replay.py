"""The one logged-game replay (nothanks.play.replay): a logged game replays from its seed
to the same decisions, and a log that does not fit names the game, turn and field."""
from __future__ import annotations

import dataclasses

import pytest

from nothanks.experiments import load
from nothanks.play import LoggedMove, ReplayError, logged_moves, replay_logged_game
from nothanks.play.match import Match
from nothanks.rules import Variant

WHERE = "game 0"


@pytest.fixture(scope="module")
def game():
    """A played game of mixed agents: its moves as a log has them, and its records."""
    variant = Variant(players=4)
    record = Match(["tom1", "heuristic", "random", "tom0"], variant, seed=31).run()
    moves = [LoggedMove(d.turn, d.seat, d.card, d.tokens_on_card, d.tokens_before,
                        str(d.action), tuple(d.cards_before)) for d in record.decisions]
    return variant, record, moves


def test_a_logged_game_replays_to_the_same_decisions(game):
    variant, record, moves = game
    steps = list(replay_logged_game(moves, variant, 31, where=WHERE))
    assert [s.index for s in steps] == list(range(len(moves)))
    for step, logged in zip(steps, record.decisions, strict=True):
        assert step.record.seat == logged.seat == step.view.seat
        assert (step.view.card, step.view.tokens_on_card, step.view.own_tokens) == (
            logged.card, logged.tokens_on_card, logged.tokens_before)
        assert step.record.true_tokens == logged.true_tokens
        assert step.record.action == logged.action


@pytest.mark.parametrize(("field", "change", "named"), [
    ("card", 1, "card: logged"),
    ("tokens_on_card", 1, "tokens on card: logged"),
    ("tokens_before", -1, "own tokens: logged"),
    ("turn", 7, "turn: logged"),
])
def test_a_changed_field_is_named_with_game_and_turn(game, field, change, named):
    variant, _, moves = game
    bad = list(moves)
    bad[10] = dataclasses.replace(bad[10], **{field: getattr(bad[10], field) + change})
    with pytest.raises(ReplayError, match=f"{WHERE} turn {bad[10].turn}: {named}"):
        list(replay_logged_game(bad, variant, 31, where=WHERE))


def test_wrong_seed_missing_extra_and_illegal_moves_are_refused(game):
    variant, _, moves = game
    with pytest.raises(ReplayError, match=f"{WHERE} turn 0: card: logged"):
        list(replay_logged_game(moves, variant, 32, where=WHERE))
    with pytest.raises(ReplayError, match="the logged moves end before the game does"):
        list(replay_logged_game(moves[:-1], variant, 31, where=WHERE))
    extra = [*moves, dataclasses.replace(moves[-1], turn=moves[-1].turn + 1)]
    with pytest.raises(ReplayError, match="the replayed game is over but the log has 1 more"):
        list(replay_logged_game(extra, variant, 31, where=WHERE))
    swapped = list(moves)
    i = next(i for i, m in enumerate(moves) if m.action == "pass")
    swapped[i] = dataclasses.replace(moves[i], action="take")
    with pytest.raises(ReplayError, match="turn"):
        list(replay_logged_game(swapped, variant, 31, where=WHERE))


def test_the_moves_of_a_log_replay(tom2_log):
    log = load(tom2_log)
    games = log.games.drop_duplicates("game_id")
    for game_id, seed in zip(games["game_id"], games["seed"], strict=True):
        rows = log.decisions[log.decisions["game_id"] == game_id].to_dict("records")
        moves = logged_moves(rows)
        assert [m.turn for m in moves] == sorted(int(r["turn"]) for r in rows)
        steps = replay_logged_game(moves, Variant(), int(seed), where=f"game {game_id}")
        assert len(list(steps)) == len(rows)
