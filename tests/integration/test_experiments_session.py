"""Participant sessions, the human stand-in and the synthetic participant data set."""
from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest

from nothanks.experiments import (
    Design,
    LogError,
    ParticipantSession,
    SessionError,
    load,
    run_design,
)
from nothanks.experiments.design import Schedule, Table
from nothanks.experiments.session import participant_seed
from nothanks.experiments.synthetic import ID_PREFIX, play_session, standin_spec
from nothanks.rules import Action, IllegalActionError

ROOT = Path(__file__).resolve().parents[2]
#: Four quick games against baselines, in two blocks (block 1 practice).
MINI = Design(
    name="mini-schedule", seed=11, rotate=True,
    tables=(Table("R", ("human", "random", "random", "random"), 0),
            Table("H", ("human", "heuristic", "heuristic", "heuristic"), 0)),
    schedule=Schedule(("R", "H", "R", "H"), (1, 1, 2, 2), (1,)),
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("bad", ["", "John Smith", "a/b", "x" * 25, "-P1", "Zoë"])
def test_participant_ids_are_short_codes(tmp_path, bad):
    with pytest.raises(ValueError, match="participant id .* is invalid: use 1-24 letters"):
        ParticipantSession(bad, tmp_path, MINI)


def test_a_session_steps_models_times_the_human_and_logs_marks(tmp_path):
    clock = Clock()
    session = ParticipantSession("P01", tmp_path, MINI, clock=clock)
    assert (session.game_number, session.block, session.practice) == (1, 1, True)
    assert session.human_seat == 0 and session.human_to_move
    with pytest.raises(SessionError, match="it is the participant's turn"):
        session.step()
    with pytest.raises(ValueError, match="seat 2 has not moved yet"):
        session.human_acts("pass", marks={2})
    clock.now += 2.5
    session.human_acts("pass")
    assert not session.human_to_move
    with pytest.raises(SessionError, match="not the participant's turn"):
        session.human_acts("pass")
    moves = session.run_models()
    assert [d.seat for d in moves][:1] == [1] and session.human_to_move or session.game_over
    with pytest.raises(ValueError, match="mark 0 is not an opponent seat"):
        session.human_acts("pass", marks={0})
    with pytest.raises(ValueError, match="mark 'Player 2' is not a seat number"):
        session.human_acts("pass", marks={"Player 2"})
    clock.now += 1.25
    session.human_acts(Action.TAKE, marks={1, 3})
    while not session.game_over:
        if session.human_to_move:
            session.human_acts("take")
        else:
            session.step()
    assert session.last_result is not None and session.games_done == 1
    assert session.next_game()  # game 2 begins
    with pytest.raises(SessionError, match="game 2 is still being played"):
        session.next_game()
    data = load(tmp_path / "P01", allow_incomplete=True)
    human = data.decisions[data.decisions.player_kind == "human"]
    assert human.decision_time.tolist()[:2] == [2.5, 1.25]
    assert human.marks.tolist()[:2] == [[], [1, 3]]
    assert set(data.decisions.participant) == {"P01"} and not data.decisions.synthetic.any()
    assert human.agent.unique().tolist() == ["human"]
    # the marks flag exactly the last moves of seats 1 and 3 before the human's 2nd turn
    d = data.decisions
    second = human.turn.iloc[1]
    flagged = d[d.marked_bad.fillna(False).astype(bool)]
    expected = [d[(d.seat == s) & (d.turn < second)].turn.max() for s in (1, 3)]
    assert sorted(flagged.turn) == sorted(expected)
    assert d.loc[d.player_kind == "human", "marked_bad"].isna().all()


def test_illegal_human_action_leaves_the_game_unchanged(tmp_path):
    session = ParticipantSession("P02", tmp_path, MINI)
    game = session.game
    game._tokens[session.human_seat] = 0  # as if the participant had spent every token
    with pytest.raises(IllegalActionError, match="must take"):
        session.human_acts("pass")
    assert game.turn == 0 and session.human_to_move


def play_until(session: ParticipantSession, games: int, extra_turns: int = 0) -> None:
    while session.games_done < games:
        while not session.game_over:
            session.human_acts("pass" if session.view().own_tokens else "take") \
                if session.human_to_move else session.step()
        session.next_game()
    for _ in range(extra_turns):
        session.human_acts("pass") if session.human_to_move else session.step()


def test_restarting_a_session_resumes_at_the_next_unplayed_game(tmp_path):
    first = ParticipantSession("P03", tmp_path, MINI)
    play_until(first, 2, extra_turns=7)  # the kernel dies during game 3
    del first
    again = ParticipantSession("P03", tmp_path, MINI)
    assert again.games_done == 2 and again.game_number == 3 and again.game.turn == 0
    play_until(again, 4)
    assert again.finished
    data = load(tmp_path / "P03")
    assert sorted(data.games.game_id.unique()) == [0, 1, 2, 3]
    assert data.experiments.runs.tolist() == [2] and data.experiments.status[0] == "complete"
    with pytest.raises(SessionError, match="finished"):
        again.view()
    # the same id with another design is refused
    with pytest.raises(LogError, match="holds experiment 'mini-schedule'"):
        ParticipantSession("P03", tmp_path, "human-schedule")


def test_each_participant_gets_own_decks(tmp_path):
    a = ParticipantSession("P04", tmp_path, MINI)
    b = ParticipantSession("P05", tmp_path, MINI)
    assert a.design.seed == participant_seed(MINI.seed, "P04") != b.design.seed


def test_stand_in_decides_the_same_in_a_session_and_in_a_run(tmp_path):
    spec = standin_spec(random.Random(5))
    tom = Design(name="tom-schedule", seed=2, tables=(
        Table("ToM1", ("human", "tom1", "tom1", "tom1"), 0),
        Table("ToM0", ("human", "tom0", "tom0", "tom0"), 0)),
        schedule=Schedule(("ToM1", "ToM0", "ToM1"), (1, 1, 2)))
    session = play_session("synthetic-99", tmp_path / "sessions", spec, tom)
    design = tom.with_options(seed=participant_seed(tom.seed, "synthetic-99"), human=spec)
    run_design(design, tmp_path / "run", jobs=1, progress=False)
    a, b = load(session.directory), load(tmp_path / "run")
    skip = ["participant", "decision_time", "marks", "marked_bad"]
    pd.testing.assert_frame_equal(a.decisions.drop(columns=skip),
                                  b.decisions.drop(columns=skip))
    pd.testing.assert_frame_equal(a.games.drop(columns="participant"),
                                  b.games.drop(columns="participant"))
    assert a.decisions.synthetic.all() and b.decisions.synthetic.all()
    human = a.decisions[a.decisions.player_kind == "human"]
    assert (human.decision_time > 0).all() and human.agent.eq(spec).all()
    assert len(a.predictions) and a.predictions.target_seat.isin([0, 1, 2, 3]).all()


def test_the_synthetic_participant_set_validates_and_follows_table6():
    folder = ROOT / "data" / "synthetic"
    data = load(folder)  # validates every file against the schema
    assert len(data.experiments) == 30 and data.experiments.synthetic.all()
    assert set(data.experiments.status) == {"complete"}
    assert all(p.startswith(ID_PREFIX) for p in data.experiments.participant)
    for name, frame in data.tables().items():
        if "synthetic" in frame and len(frame):
            assert frame.synthetic.all(), name
    human = data.games[data.games.player_kind == "human"]
    assert len(human) == 30 * 24 and human.groupby("participant").size().eq(24).all()
    opponents = data.games[data.games.player_kind == "model"].groupby(
        ["participant", "game_id"]).agent.first().groupby("game_id").first()
    assert "".join(a[-1] for a in opponents) == "012000111222000111222012"
    assert human.practice.sum() == 30 * 3 and set(human.block) == set(range(1, 9))
    assert data.decisions.loc[data.decisions.player_kind == "human", "decision_time"].gt(0).all()


def test_a_session_that_died_while_merging_is_merged_on_restart(tmp_path, monkeypatch):
    from nothanks.experiments.store import ExperimentDir
    session = ParticipantSession("P06", tmp_path, MINI)
    monkeypatch.setattr(ExperimentDir, "finish", lambda self: None)  # dies before merging
    play_until(session, 4)
    assert (tmp_path / "P06" / "parts").exists()
    monkeypatch.undo()
    again = ParticipantSession("P06", tmp_path, MINI)
    assert again.finished and not (tmp_path / "P06" / "parts").exists()
    assert load(tmp_path / "P06").experiments.status.tolist() == ["complete"]


def test_watch_sees_past_and_later_events_of_the_current_game_and_later_games(tmp_path):
    session = ParticipantSession("P09", tmp_path, MINI)
    session.human_acts("pass")
    seen = []
    session.watch(seen.append)
    assert seen == list(session.game.history), "past events replayed"
    session.run_models()
    assert seen == list(session.game.history), "later events of this game delivered once each"


def test_a_session_open_in_another_live_process_is_refused_and_a_stale_lock_taken_over(
        tmp_path):
    import os
    import subprocess
    import sys

    from nothanks.experiments.session import SessionInUse

    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock = tmp_path / ".P08.lock"
        lock.write_text(str(other.pid))
        with pytest.raises(SessionInUse, match=f"already being run by process {other.pid}"):
            ParticipantSession("P08", tmp_path, MINI)
        assert not (tmp_path / "P08").exists()  # nothing written for the refused tab
    finally:
        other.kill()
        other.wait()
    session = ParticipantSession("P08", tmp_path, MINI)  # the holder died: lock is stale
    assert lock.read_text() == str(os.getpid())
    play_until(session, 4)
    assert session.finished and not lock.exists()  # released with the last game


def test_a_closed_session_releases_its_participant(tmp_path):
    first = ParticipantSession("P09", tmp_path, MINI)
    first.close()
    assert not (tmp_path / ".P09.lock").exists()
    again = ParticipantSession("P09", tmp_path, MINI)
    assert again.games_done == 0 and (tmp_path / ".P09.lock").exists()
