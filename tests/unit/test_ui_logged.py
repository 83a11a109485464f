"""The logged-game explorer replays a logged game exactly and puts models in a player's
place reproducibly."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from nothanks.experiments import load
from nothanks.play import ReplayError
from nothanks.rules import Action
from nothanks.ui import LoggedGame, LoggedGameExplorer, explore_logged
from nothanks.ui.logged import LoggedGameError, posterior_rows
from nothanks.ui.render import TableState

SESSIONS = Path(__file__).resolve().parents[2] / "data" / "synthetic"
PARTICIPANT = "synthetic-01"
#: a game against ToM1 with bad-move marks given and model moves marked bad
GAME = 6


@pytest.fixture(scope="module")
def session():
    if not (SESSIONS / PARTICIPANT).exists():
        pytest.skip("the shipped synthetic sessions are not in this checkout")
    return load(SESSIONS / PARTICIPANT)


@pytest.fixture(scope="module")
def game(session) -> LoggedGame:
    return LoggedGame(session, GAME, participant=PARTICIPANT)


def test_replayed_decisions_match_the_log_row_by_row(game, session):
    rows = session.decisions[session.decisions["game_id"] == GAME].sort_values("turn")
    assert len(game) == len(rows) > 50
    for decision, row in zip(game.decisions, rows.itertuples(), strict=True):
        view = decision.view
        assert (view.seat, view.card, view.tokens_on_card, view.own_tokens) == (
            row.seat, row.card, row.tokens_on_card, row.tokens_before)
        assert list(view.own_cards) == list(row.cards_before)
        assert str(decision.record.action) == row.action
        # the player's screen: own tokens shown, the others' hidden as in the game
        state = TableState.from_view(view, game.names)
        assert state.tokens[row.seat] == row.tokens_before
        assert all(t is None for s, t in enumerate(state.tokens) if s != row.seat)
    human = int(session.games.query("game_id == @GAME and player_kind == 'human'")["seat"]
                .iloc[0])
    assert "participant (stand-in)" in game.names[human]


def test_models_in_the_players_place_are_legal_reproducible_and_match_logged_models(
        game, session):
    human = game.kinds.index("human")
    model_seat = next(s for s, k in enumerate(game.kinds) if k == "model")
    mine = [d for d in (game[i] for i in range(len(game))) if d.seat in (human, model_seat)]
    for decision in mine:
        assert set(decision.counterfactuals) == {"tom0", "tom1", "tom2"}
        for answer in decision.counterfactuals.values():
            assert answer.action in (Action.TAKE, Action.PASS)
            if decision.view.own_tokens == 0:
                assert answer.action == Action.TAKE  # no tokens: a pass is illegal
        if decision.seat == model_seat:
            # the logged spec, seeded as the game seeded that seat, makes the logged moves
            assert str(decision.replayed.action) == decision.row["action"]
        else:
            assert decision.replayed is None
    again = LoggedGame(session, GAME, participant=PARTICIPANT)
    for decision in mine:
        twin = again[decision.index]
        assert {s: a.action for s, a in twin.counterfactuals.items()} == {
            s: a.action for s, a in decision.counterfactuals.items()}
    # the reasoning trees are those of the same decisions
    index = next(d.index for d in mine if d.seat == human and d.view.own_tokens > 0)
    traced = game.reasoning(index)
    assert {s: a.action for s, a in traced.items() if s in game.models} == {
        s: a.action for s, a in game[index].counterfactuals.items()}
    assert "ToM2 as player" in traced["tom2"].trace.render()


def test_marks_logged_predictions_and_bad_input(game):
    given = [i for i in range(len(game)) if game.marks(i)["given"]]
    marked = [i for i in range(len(game)) if game.marks(i)["marked"]]
    assert given and marked
    assert all(game.kinds[game.decisions[i].seat] == "human" for i in given)
    assert all(game.kinds[game.decisions[i].seat] == "model" for i in marked)
    tom = next(i for i in range(len(game)) if game.decisions[i].row["agent"] == "tom1"
               and game.logged_reasoning(i).get("reason"))
    assert len(game.predictions(tom)) >= 1 and set(game.recalls(tom)["source"]) <= {
        "leaf", "root", "default"}
    with pytest.raises(LoggedGameError, match="participant 'nobody' is not in this log"):
        LoggedGame(game.log, GAME, participant="nobody")
    with pytest.raises(LoggedGameError, match="game 999 is not in this log"):
        LoggedGame(game.log, 999, participant=PARTICIPANT)
    # a log whose moves do not fit its seed is refused, naming the turn
    decisions = game.log.decisions.copy()
    row = decisions.index[(decisions["game_id"] == GAME) & (decisions["turn"] == 5)][0]
    decisions.loc[row, "tokens_on_card"] += 1
    with pytest.raises(ReplayError, match=f"game {GAME} turn 5: tokens on card: logged "):
        LoggedGame(dataclasses.replace(game.log, decisions=decisions), GAME,
                   participant=PARTICIPANT)


def test_the_explorer_steps_through_one_seat_and_shows_the_posterior(game):
    human = game.kinds.index("human")
    turns = [d.turn for d in game.decisions if d.seat == human]
    posterior = pd.DataFrame({"participant": PARTICIPANT, "game_id": GAME,
                              "turn": [turns[1]] * 2, "model": ["ToM0", "ToM1"],
                              "posterior": [0.7, 0.3], "card": 0})
    app = LoggedGameExplorer(game, posterior=posterior)
    assert app.seat_filter.value == human and app.current.seat == human
    assert app.back_button.disabled
    app.next_button.click()
    assert app.current.turn == turns[1]
    assert "0.700" in app.posterior_panel.value and "ToM1" in app.posterior_panel.value
    assert "card" not in app.posterior_panel.value  # long form: the model columns only
    assert "In this player's place" in app.models_panel.value
    app.next_button.click()
    assert "none for this decision" in app.posterior_panel.value
    app.back_button.click()
    assert app.current.turn == turns[1]
    app.seat_filter.value = None
    app.jump_input.value = 2
    app.jump_button.click()
    assert app.index == 1 and "decision <b class='nt-position'>2</b>" in \
        app.position_label.value
    app.details.selected_index = 0
    assert "in this player&#x27;s place" in app.traces.value
    marked = next(i for i in range(len(game)) if game.marks(i)["given"])
    app.go_to(marked)
    assert "Marked as bad moves at this turn" in app.decision_panel.value
    # a callable posterior, and one that cannot be matched to a decision
    assert list(posterior_rows(lambda row: {"ToM0": 1.0}, app.current.row)["model"]) == [
        "ToM0"]
    with pytest.raises(LoggedGameError, match="needs game_id and turn"):
        posterior_rows(pd.DataFrame({"model": ["ToM0"]}), app.current.row)


def test_a_game_of_a_run_opens_from_its_directory(tom2_log):
    app = explore_logged(tom2_log, game_id=1, models=("tom0",))
    game = app.game
    assert game.participant is None and game.condition_label == "ToM2 vs ToM0"
    logged = load(tom2_log).decisions.query("game_id == 1").sort_values("turn")
    assert [str(d.record.action) for d in game.decisions] == list(logged["action"])
    assert app.seat_filter.value is None  # no participant: every seat
    for i in range(len(game)):  # every model seat's logged spec replays its moves
        assert str(game[i].replayed.action) == game[i].row["action"]
