"""The experiment session app: schedule, practice flag, bad-move marks, logs, resume."""
from __future__ import annotations

from nothanks.experiments import Design, load
from nothanks.rules import Action
from nothanks.ui import ThinkingTime
from nothanks.ui.session import ExperimentSessionApp

#: Table 6 in miniature: a practice game, then one game against each table.
SMALL = Design.from_dict({
    "name": "mini-schedule", "seed": 3, "rotate": True,
    "tables": [
        {"label": "A", "players": ["human", "heuristic", "heuristic", "heuristic"], "focal": 0},
        {"label": "B", "players": ["human", "random", "random", "random"], "focal": 0},
    ],
    "schedule": {"tables": ["A", "B", "A"], "blocks": [1, 2, 2], "practice_blocks": [1]},
})


def make_app(tmp_path, pid="P01"):
    return ExperimentSessionApp(tmp_path, pid, design=SMALL, thinking=ThinkingTime.off(),
                                min_click_interval=0)


def play_one_game(app, mark_first_chance=False):
    """Click through the current game; mark the first opponent that can be marked."""
    marked = []
    while not app.session.game_over:
        if mark_first_chance and not marked:
            ready = [s for s, b in app.mark_buttons.items() if not b.disabled]
            if ready:
                app.mark_buttons[ready[0]].value = True
                assert ready[0] in app.marks and "nt-marked" in app.table.value
                marked.append((app.session.game.turn, ready[0]))
        view = app.session.view()
        button = app.take_button if view.tokens_on_card >= 2 or app.pass_button.disabled \
            else app.pass_button
        button.click()
    return marked


def test_a_session_with_marks_practice_and_resume(tmp_path):
    app = make_app(tmp_path)
    assert "new session" in app.message.value
    assert "practice game" in app.progress.value and "Game <b class='nt-game-number'>1</b> of 3" \
        in app.progress.value
    marked = play_one_game(app, mark_first_chance=True)
    assert marked, "an opponent could have been marked"
    assert "Game over" in app.table.value and not app.next_game_button.disabled
    app.take_button.click()  # no effect after the end
    app.next_game_button.click()
    assert "practice" not in app.progress.value and "block 2" in app.progress.value

    # a crash mid-game: a new app with the same id resumes at the unfinished game
    app.take_button.click()
    resumed = make_app(tmp_path)
    assert "resuming after 1 finished games" in resumed.message.value
    assert resumed.session.game_number == 2
    play_one_game(resumed)
    resumed.next_game_button.click()
    play_one_game(resumed)
    resumed.next_game_button.click()
    assert "All 3 games are done" in resumed.progress.value
    assert resumed.take_button.disabled

    log = load(tmp_path / "P01")
    assert sorted(log.games["game_id"].unique()) == [0, 1, 2]
    assert log.games.groupby("game_id")["practice"].first().tolist() == [True, False, False]
    human = log.decisions[log.decisions["player_kind"] == "human"]
    turn, seat = marked[0]
    row = human[(human["game_id"] == 0) & (human["turn"] == turn)]
    assert [list(m) for m in row["marks"]] == [[seat]]
    models = log.decisions[(log.decisions["game_id"] == 0) & (log.decisions["seat"] == seat)]
    assert models[models["turn"] < turn]["marked_bad"].iloc[-1]


def test_marks_only_for_opponents_who_moved(tmp_path):
    app = make_app(tmp_path, "P02")
    s = app.session
    assert s.human_seat == 0 and s.game.turn == 0  # first game: the participant starts
    assert all(b.disabled for b in app.mark_buttons.values())
    app.mark_buttons[1].value = True  # refused: player 2 has not moved yet
    assert app.marks == set() and app.mark_buttons[1].value is False
    app.pass_button.click()  # now every model moves (or someone took and moved on)
    assert "Player 2 passed on" in app.table.value or "Player 2 took" in app.table.value
    if s.human_to_move:
        movers = app.moved()
        assert movers and all(app.mark_buttons[m].disabled is False for m in movers)


def test_invalid_participant_id_is_explained(tmp_path):
    app = ExperimentSessionApp(tmp_path, design=SMALL, thinking=ThinkingTime.off())
    assert app.start("Jane Doe") is False
    assert "invalid" in app.message.value and "never a name" in app.message.value
    assert app.play_area.layout.display == "none"


def test_pass_at_zero_tokens_is_refused(tmp_path):
    design = Design.from_dict({**SMALL.to_dict(), "name": "mini-zero",
                               "variant": {"starting_tokens": 0}})
    app = ExperimentSessionApp(tmp_path, "P03", design=design, thinking=ThinkingTime.off(),
                               min_click_interval=0)
    assert app.session.human_to_move and app.pass_button.disabled
    assert app.act(Action.PASS) is False
    assert app.act(Action.TAKE) is True


def test_the_thesis_schedule_opens_with_a_practice_game(tmp_path):
    app = ExperimentSessionApp(tmp_path, "P07", thinking=ThinkingTime.off())
    assert "of 24" in app.progress.value and "practice game" in app.progress.value
    assert app.session.opponents == "ToM0"
    assert "ToM" not in app.table.value  # participants are blind to the models' order
