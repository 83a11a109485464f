"""Faults around participant sessions and writer locks, without a browser: a full disk at
the end of a game, runs starting together on a stale lock, ids that differ only in case,
lock files' mode, a refusal worded for the page, a just-closed tab handing over, and the
Makefile's port. (The page itself, reloaded and closed in Chromium, is in
tests/integration/test_web_session.py.)"""
from __future__ import annotations

import errno
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nothanks.experiments import Design, ParticipantSession, load
from nothanks.experiments.design import Schedule, Table
from nothanks.experiments.run import RunInUse, claim_run
from nothanks.experiments.session import ParticipantIdClash
from nothanks.experiments.store import ExperimentDir
from nothanks.rules import Action
from nothanks.ui import LabSessionApp, ThinkingTime
from nothanks.ui.session import ExperimentSessionApp

ROOT = Path(__file__).resolve().parents[2]
#: Three quick games against baselines (block 1 practice).
MINI = Design(
    name="mini-schedule", seed=11, rotate=True,
    tables=(Table("R", ("human", "random", "random", "random"), 0),
            Table("H", ("human", "heuristic", "heuristic", "heuristic"), 0)),
    schedule=Schedule(("R", "H", "R"), (1, 2, 2), (1,)),
)
#: A process id no process has (over Linux's largest pid_max): a crashed holder.
DEAD_PID = "999999999"


class Clock:
    """A clock that moves one second per reading (decision times are reproducible)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def finish_game(session: ParticipantSession) -> None:
    """Play the current game to its end (the participant takes when the card carries
    chips or passing is impossible, else passes)."""
    while not session.game_over:
        if not session.human_to_move:
            session.step()
            continue
        view = session.view()
        session.human_acts(Action.TAKE if view.tokens_on_card or not view.own_tokens
                           else Action.PASS)


def disk_full(monkeypatch) -> None:
    def no_space(self, start, stop, parts):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(ExperimentDir, "write_chunk", no_space)


def logged_games(folder: Path):
    games = load(folder, allow_incomplete=True).games
    return games.drop(columns=[c for c in ("started_at", "finished_at") if c in games])


# ------------------------------------------------------------------ a full disk (item 4)
def test_a_game_finished_on_a_full_disk_is_saved_once_space_is_freed(tmp_path, monkeypatch):
    reference = ParticipantSession("P01", tmp_path / "reference", MINI, clock=Clock())
    finish_game(reference)
    reference.next_game()

    session = ParticipantSession("P01", tmp_path / "full", MINI, clock=Clock())
    disk_full(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        finish_game(session)  # the move that ends game 1 cannot save it
    assert session.game_over and session.last_result is not None
    with pytest.raises(OSError, match="No space left"):
        session.next_game()  # still full: stays at the finished game
    assert session.game_number == 1 and session.game_over and session.games_done == 0

    monkeypatch.undo()  # space is freed
    assert session.next_game()
    assert session.games_done == 1 and session.game_number == 2 and session.game.turn == 0
    assert logged_games(tmp_path / "full" / "P01").equals(
        logged_games(tmp_path / "reference" / "P01"))  # game 1 as if the disk never filled


def test_the_session_page_keeps_a_game_it_could_not_save(tmp_path, monkeypatch):
    app = ExperimentSessionApp(tmp_path, "P02", design=MINI, thinking=ThinkingTime.off(),
                               min_click_interval=0, show_log_folder=False)
    disk_full(monkeypatch)
    while not app.session.game_over:
        view = app.session.view()
        (app.take_button if view.tokens_on_card or app.pass_button.disabled
         else app.pass_button).click()
    assert "could not be saved (No space left on device)" in app.message.value
    assert str(tmp_path) not in app.message.value and "Game over" in app.table.value
    app.next_game_button.click()  # still full
    assert app.session.game_number == 1 and "could not be saved" in app.message.value
    monkeypatch.undo()
    app.next_game_button.click()
    assert app.session.game_number == 2 and app.session.games_done == 1
    assert app.message.value == ""
    assert sorted(load(tmp_path / "P02", allow_incomplete=True).games["game_id"].unique()) \
        == [0]


# ------------------------------------------------------------------ the lock (item 6)
def _start_on_a_stale_lock(out: Path, delay: float, ready, done, results) -> None:
    """One run starting: its liveness check of the lock's holder takes ``delay`` seconds
    (as on a loaded machine), which holds the race window open."""
    real_kill = os.kill

    def slow_kill(pid, sig):
        if sig == 0:
            time.sleep(delay)
        return real_kill(pid, sig)

    os.kill = slow_kill
    ready.wait()
    try:
        claim_run(out)
        results.put("claimed")
    except RunInUse:
        results.put("refused")
    done.wait()  # holds its lock (stays alive) until every starter has tried


@pytest.mark.skipif(sys.platform != "linux", reason="forks the test process")
def test_runs_starting_together_on_a_stale_lock_let_exactly_one_play(tmp_path):
    out = tmp_path / "run"
    lock = tmp_path / ".run.lock"
    lock.write_text(DEAD_PID)  # left by a crashed run
    fork = multiprocessing.get_context("fork")
    starters = 4
    ready, done, results = fork.Barrier(starters), fork.Barrier(starters), fork.Queue()
    processes = [fork.Process(target=_start_on_a_stale_lock,
                              args=(out, 0.05 * (i + 1), ready, done, results))
                 for i in range(starters)]
    for process in processes:
        process.start()
    outcomes = sorted(results.get(timeout=30) for _ in processes)
    for process in processes:
        process.join(30)
    assert outcomes == ["claimed"] + ["refused"] * (starters - 1)
    assert lock.read_text() in {str(p.pid) for p in processes}


def test_lock_files_are_not_executable(tmp_path):
    session = ParticipantSession("P03", tmp_path / "sessions", MINI)
    run_lock = claim_run(tmp_path / "run")
    for lock in (session.lock, run_lock):
        assert lock.stat().st_mode & 0o111 == 0, oct(lock.stat().st_mode)
        assert lock.read_text() == str(os.getpid())


# ------------------------------------------------------------------ participant ids
def test_an_id_differing_only_in_case_from_a_participant_is_refused(tmp_path):
    first = ParticipantSession("P01", tmp_path, MINI)
    first.close()
    with pytest.raises(ParticipantIdClash, match="'p01' differs from the existing participant "
                                                 "'P01' only in letter case: use 'P01'"):
        ParticipantSession("p01", tmp_path, MINI)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["P01"]  # no folder, no lock left
    lab = LabSessionApp(tmp_path, design=MINI, thinking=ThinkingTime.off())
    assert not lab.start("p01") and "only in letter case" in lab.message.value
    assert ParticipantSession("P01", tmp_path, MINI).games_done == 0  # the right code resumes


# ------------------------------------------------------------------ the page's refusal
def holder(seconds: float) -> subprocess.Popen:
    """Another live process (the kernel of another tab)."""
    return subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"])


def test_the_page_refuses_a_participant_open_elsewhere_without_a_path(tmp_path):
    other = holder(60)
    try:
        (tmp_path / ".P04.lock").write_text(str(other.pid))
        lab = LabSessionApp(tmp_path, design=MINI, thinking=ThinkingTime.off(), handover=0)
        assert not lab.start("P04")
    finally:
        other.kill()
        other.wait()
    text = re.sub(r"<[^>]+>", "", lab.message.value)  # what the page shows
    assert f"P04 is already playing in another window or tab (process {other.pid})" in text
    assert str(tmp_path) not in text and ".lock" not in text and "/" not in text


def test_a_participant_resumes_as_soon_as_a_closed_tab_lets_go(tmp_path):
    """A reloaded or closed tab's kernel takes a moment to shut down: Start waits for it."""
    ParticipantSession("P05", tmp_path, MINI).close()
    other = holder(1.0)  # the old tab's kernel, shutting down
    try:
        (tmp_path / ".P05.lock").write_text(str(other.pid))
        lab = LabSessionApp(tmp_path, design=MINI, thinking=ThinkingTime.off())
        began = time.monotonic()
        assert lab.start("P05"), lab.message.value
        assert time.monotonic() - began < 5
    finally:
        other.kill()
        other.wait()
    assert lab.app.session.game_number == 1


# ------------------------------------------------------------------ the Makefile's port
@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize(("target", "notebook"), [("session", "08_lab_session.ipynb"),
                                                  ("play", "01_play.ipynb")])
def test_make_serves_the_pages_on_the_port_given(target, notebook):
    dry = subprocess.run(["make", "-n", target, "PORT=8871"], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    served = [line for line in dry.stdout.splitlines() if notebook in line]
    assert len(served) == 1 and "--port=8871" in served[0], dry.stdout
    assert "nothanks.ui.serve" in served[0]  # with the shared server options
