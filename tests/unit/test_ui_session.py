"""The experiment session app (schedule, practice flag, bad-move marks, logs, resume) and
the lab's start screen in front of it."""
from __future__ import annotations

from pathlib import Path

from nothanks.experiments import Design, load
from nothanks.rules import Action
from nothanks.ui import LabSessionApp, ThinkingTime
from nothanks.ui.lab import DEFAULT_SESSIONS, PROJECT_ROOT, sessions_dir
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


# --- the lab's start screen (make session) -------------------------------------------------
def make_lab(tmp_path):
    return LabSessionApp(tmp_path, design=SMALL, thinking=ThinkingTime.off(),
                         min_click_interval=0)


def start_lab(lab, pid):
    lab.participant_input.value = pid
    lab.start_button.click()


def test_lab_refuses_ids_that_are_not_codes(tmp_path):
    lab = make_lab(tmp_path / "sessions")
    for bad in ("../x", "a b", "", "/etc", "P01/../P02", "x" * 25, "-P01", "Pé01"):
        start_lab(lab, bad)
        assert lab.app is None and "invalid" in lab.message.value, bad
        assert "nt-lab-error" in lab.message.value
        assert lab.start_screen.layout.display != "none" and lab.game_area.children == ()
    assert not (tmp_path / "sessions").exists()  # nothing written for a bad id


def test_lab_starts_the_game_without_paths_or_the_id_box(tmp_path):
    lab = make_lab(tmp_path)
    start_lab(lab, "  P05 ")  # surrounding spaces from typing are dropped
    app = lab.app
    assert app is not None and app.session.participant_id == "P05"
    assert lab.start_screen.layout.display == "none" and lab.game_area.children == (app.widget,)
    assert app.id_row.layout.display == "none"
    assert "new session" in app.message.value and "Game <b class='nt-game-number'>1</b>" \
        in app.progress.value
    shown = app.message.value + app.progress.value + app.table.value
    assert str(tmp_path) not in shown and "<code>" not in shown
    start_lab(lab, "P06")  # the page serves one participant
    assert lab.app is app and not (tmp_path / "P06").exists()


def test_lab_resumes_and_says_when_a_session_is_finished(tmp_path):
    lab = make_lab(tmp_path)
    start_lab(lab, "P08")
    play_one_game(lab.app)
    lab.app.next_game_button.click()

    resumed = make_lab(tmp_path)
    start_lab(resumed, "P08")
    assert "resuming after 1 finished games" in resumed.app.message.value
    assert resumed.app.session.game_number == 2
    for _ in range(2):
        play_one_game(resumed.app)
        resumed.app.next_game_button.click()
    assert "All 3 games are done" in resumed.app.progress.value
    assert str(tmp_path) not in resumed.app.progress.value

    again = make_lab(tmp_path)
    start_lab(again, "P08")
    assert again.app is None and "already played all 3 games" in again.message.value
    assert again.start_screen.layout.display != "none"
    assert sorted(load(tmp_path / "P08").games["game_id"].unique()) == [0, 1, 2]


def test_lab_settings_come_from_the_environment(tmp_path):
    design = tmp_path / "mini.toml"
    design.write_text(MINI_TOML)
    lab = LabSessionApp.from_env({"NOTHANKS_SESSIONS": str(tmp_path / "s"),
                                  "NOTHANKS_SESSION_DESIGN": str(design),
                                  "NOTHANKS_THINKING": "0"})
    assert lab.sessions == tmp_path / "s" and lab.design.name == "mini-toml"
    assert lab.thinking.is_off
    default = LabSessionApp.from_env({})
    assert default.sessions == DEFAULT_SESSIONS and default.design.name == "human-schedule"
    assert sessions_dir({}) == DEFAULT_SESSIONS
    assert DEFAULT_SESSIONS.relative_to(PROJECT_ROOT) == Path("data", "participants")


MINI_TOML = """
name = "mini-toml"
seed = 5
rotate = true
[[tables]]
label = "A"
players = ["human", "random", "random", "random"]
[schedule]
tables = ["A", "A"]
blocks = [1, 2]
practice_blocks = [1]
"""
