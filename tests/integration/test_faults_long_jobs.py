"""Faults in the long jobs (issue 28): an interrupted calibration resumes its unfinished
stage, a resumed or extended study never re-tests a finished point and proposes what an
uninterrupted one would, a command that fails before its first game fixes no settings,
a killed and resumed simulated player plays as an uninterrupted one, and the workers of
a killed ``nothanks infer`` exit with it. (Random kills of every long job:
tests/integration/test_random_kills.py.)
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from nothanks.experiments import load
from nothanks.experiments.design import Design, DesignError, Schedule, Table
from nothanks.processes import alive, descendants, end_orphans

from helpers import ROOT

optuna = pytest.importorskip("optuna")
from nothanks.studies import calibration as cal  # noqa: E402  (needs optuna)
from nothanks.studies.calibration import outputs as cal_outputs  # noqa: E402
from nothanks.studies.calibration import study as cal_study  # noqa: E402

#: A real study small enough for a test: two parameters, one target, two stages.
TINY = {"params": ["fraction", "s"], "targets": ["tom1_share"], "heldout": [],
        "stages": (0.5, 1.0), "progress": False, "seed": 3}


def finished(study) -> list:
    return [t for t in study.trials if t.state.name in ("COMPLETE", "PRUNED")]


def memory() -> dict:
    """A study kept in memory, for the calls of one test (no SQLite file to set up)."""
    return {"storage": optuna.storages.InMemoryStorage()}


# ------------------------------------------------------------------ item 1
def test_a_calibration_interrupted_in_its_second_stage_resumes_that_stage(tmp_path,
                                                                          monkeypatch):
    """Ctrl-C (or a kill) while a trial plays its second stage: the next run replays the
    trial, keeps its first stage and finishes the second from the games on disk, and
    the trial measures what an uninterrupted one does (before: every later run failed
    with 'stage1: N of M games are missing')."""
    import nothanks.experiments.run as run_module
    real = run_module.execute
    state = {"interrupted": False}

    def interrupted(chunks, design, *args):
        for number, item in enumerate(real(chunks, design, *args)):
            if design.name.endswith("stage1") and number == 1 and not state["interrupted"]:
                state["interrupted"] = True
                raise KeyboardInterrupt  # after one chunk of the second stage is saved
            yield item

    monkeypatch.setattr(run_module, "execute", interrupted)
    monkeypatch.setattr(cal_outputs, "write_plots", lambda study, out: [])  # not what is tested
    # the study's storage (SQLite under kills: tests/integration/test_random_kills.py)
    kept = memory()
    with pytest.raises(KeyboardInterrupt):
        cal.calibrate(tmp_path / "study", trials=1, games=4, **TINY, **kept)
    [folder] = (tmp_path / "study" / "trials").iterdir()
    assert len(load(folder / "stage1", allow_incomplete=True).games) == 4  # one game saved
    resumed = cal.calibrate(tmp_path / "study", trials=1, games=4, **TINY, **kept)
    reference = cal.calibrate(tmp_path / "reference", trials=1, games=4, **TINY, **memory())
    [trial], [expected] = finished(resumed.study), finished(reference.study)
    assert trial.params == expected.params
    assert trial.value == expected.value
    assert trial.user_attrs["metrics"] == expected.user_attrs["metrics"]
    assert len(load(folder / "stage1").games) == 2 * 4  # the whole stage, each game once


# ------------------------------------------------------------------ item 2
@pytest.fixture
def no_games(monkeypatch):
    """Trials measured without games: the loss is a function of the trial's point (its
    folder), so the sampler's history matters. Returns the folders in the order played;
    ``interrupt`` holds the numbers of the stage plays that raise KeyboardInterrupt."""
    plays: list[str] = []
    interrupt: set[int] = set()

    def run_design(design, out, **options):
        plays.append(Path(out).parent.name)
        if len(plays) in interrupt:
            raise KeyboardInterrupt

    monkeypatch.setattr(cal_study.ex, "run_design", run_design)
    monkeypatch.setattr(cal_outputs, "write_plots", lambda study, out: [])  # not what is tested
    def trial_folder(paths) -> str:  # what a trial loads: its folder, or its stages'
        return (Path(paths).name if isinstance(paths, str | Path)
                else Path(paths[0]).parent.name)

    monkeypatch.setattr(cal_study.ex, "load", trial_folder)
    monkeypatch.setattr(cal_study, "measure", lambda folder, targets: {
        t: cal.Measure(int(hashlib.sha256(folder.encode()).hexdigest()[:4], 16) / 65536)
        for t in targets})
    return plays, interrupt


def points(study) -> list[dict]:
    return [t.params for t in finished(study)]


def test_an_extended_study_never_repeats_a_point_and_matches_a_direct_one(tmp_path,
                                                                          no_games):
    """--trials 1, then --trials 3 on the same folder: three different points, the same
    three a direct --trials 3 study tries (before: trials 0 and 1 were identical)."""
    kept = memory()
    cal.calibrate(tmp_path / "extended", trials=1, games=4, **TINY, **kept)
    extended = cal.calibrate(tmp_path / "extended", trials=3, games=4, **TINY, **kept)
    direct = cal.calibrate(tmp_path / "direct", trials=3, games=4, **TINY, **memory())
    tried = points(extended.study)
    assert len({tuple(sorted(p.items())) for p in tried}) == 3
    assert tried == points(direct.study)


def test_an_interrupted_study_finishes_the_points_an_uninterrupted_one_would(tmp_path,
                                                                             no_games):
    """Interrupted in trial 0's second stage, trial 1's first and trial 3's first, and
    resumed each time: the finished trials are the uninterrupted study's, point for point
    and loss for loss, with no point twice (before: 3 'complete' trials covered 2)."""
    plays, interrupt = no_games
    reference = cal.calibrate(tmp_path / "reference", trials=4, games=4, **TINY, **memory())
    plays.clear()
    interrupt.update({2, 5, 10})  # stage plays, counted over the attempts
    attempts, kept = 1, memory()
    while True:
        try:
            study = cal.calibrate(tmp_path / "study", trials=4, games=4, **TINY, **kept).study
            break
        except KeyboardInterrupt:
            attempts += 1
    assert attempts == 4
    assert points(study) == points(reference.study)
    assert [t.value for t in finished(study)] == [t.value for t in finished(reference.study)]
    assert len({tuple(sorted(p.items())) for p in points(study)}) == 4


def test_a_small_discrete_space_is_covered_without_repeats_then_refused(tmp_path, no_games):
    """Two reading switches have 4 combinations: 4 trials try each once; a 5th is refused
    with the reason (before: TPE re-tested finished combinations)."""
    options = TINY | {"params": ["candidate_rule", "thresholds"]} | memory()
    study = cal.calibrate(tmp_path, trials=4, games=4, **options).study
    assert len({tuple(sorted(p.items())) for p in points(study)}) == 4
    with pytest.raises(cal.CalibrationError, match="every one of the 4 points"):
        cal.calibrate(tmp_path, trials=5, games=4, **options)


def test_a_study_that_failed_before_its_first_game_fixes_no_settings(tmp_path, no_games,
                                                                    monkeypatch):
    """A bad fixed value fails the first trial before it plays: the corrected command
    (other settings) then runs in the same folder, and tries its start point first
    (before: 'started with other settings' until the folder was deleted)."""
    plays, _ = no_games
    stub = cal_study.ex.run_design

    def checking(design, out, **options):
        design.validate_agents()  # as the real run_design does before anything else
        return stub(design, out, **options)

    monkeypatch.setattr(cal_study.ex, "run_design", checking)
    with pytest.raises(DesignError, match="'abc' is not a valid float"):
        cal.calibrate(tmp_path, trials=1, games=4, **(TINY | {"params": ["fraction"]}),
                      fixed={"s": "abc"})
    assert not plays  # nothing was played
    assert (tmp_path / "study.db").exists()  # the failed trial is on record
    study = cal.calibrate(tmp_path, trials=2, games=6, **TINY, fixed={"d": 0.6},
                          start={"fraction": 0.4, "s": 0.05}).study
    assert [t.state.name for t in study.trials] == ["COMPLETE", "COMPLETE"]
    assert study.trials[0].params == {"fraction": 0.4, "s": 0.05}
    with pytest.raises(cal.CalibrationError, match="other settings"):  # now they are fixed
        cal.calibrate(tmp_path, trials=2, games=4, **TINY, fixed={"d": 0.6})


# ------------------------------------------------------------------ infer --validate
#: Three scheduled games of a simulated player against three ToM0 models.
PLAYER_DESIGN = Design(name="faults-player", seed=4, rotate=True,
                       tables=(Table("ToM0", ("human", "tom0", "tom0", "tom0"), 0),),
                       schedule=Schedule(("ToM0",) * 3, (1, 2, 3), ()))


def test_a_simulated_player_resumed_after_a_kill_plays_as_an_uninterrupted_one(
        tmp_path, monkeypatch):
    """``infer --validate`` killed while a simulated player is in its second game: the
    resumed player makes the same lapses as an uninterrupted one (before, its lapse coin
    started again from the first draw)."""
    from nothanks.experiments.session import ParticipantSession
    from nothanks.studies.inference import play_simulated_player
    play_simulated_player("sim-a", tmp_path / "reference", "tom0", 0.5, PLAYER_DESIGN)
    real = ParticipantSession.human_acts
    acted = {"n": 0}

    def killed(self, action, marks=()):
        if self.games_done == 1 and acted["n"] >= 0:
            acted["n"] += 1
            if acted["n"] == 3:  # the third decision of the second game
                acted["n"] = -1
                self.close()  # what the process's death does to its lock
                raise KeyboardInterrupt
        return real(self, action, marks)

    monkeypatch.setattr(ParticipantSession, "human_acts", killed)
    with pytest.raises(KeyboardInterrupt):
        play_simulated_player("sim-a", tmp_path / "killed", "tom0", 0.5, PLAYER_DESIGN)
    monkeypatch.undo()
    play_simulated_player("sim-a", tmp_path / "killed", "tom0", 0.5, PLAYER_DESIGN)
    columns = ["game_id", "turn", "seat", "action", "card", "tokens_before"]
    expected = load(tmp_path / "reference").decisions[columns]
    pd.testing.assert_frame_equal(load(tmp_path / "killed").decisions[columns], expected)


# ------------------------------------------------------------------ item 7
def test_infer_workers_exit_when_the_parent_is_killed(tmp_path):
    """kill -9 of ``nothanks infer --processes 2``: its two workers exit within seconds,
    as the other commands' workers do (before: alive more than 60 s later). The command
    runs as a user starts it (``python -m nothanks``); the waits end as soon as what they
    wait for happened, their bounds are far beyond load."""
    from nothanks.studies.inference import play_simulated_player
    play_simulated_player("sim-b", tmp_path / "players", "tom0", 0.05, PLAYER_DESIGN)
    env = os.environ | {"PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    command = subprocess.Popen(
        [sys.executable, "-m", "nothanks", "infer", str(tmp_path / "players"), "--samples",
         "400", "--processes", "2", "--out", str(tmp_path / "out")],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        deadline = time.time() + 600
        while time.time() < deadline and len(workers) < 2 and command.poll() is None:
            time.sleep(0.05)
            workers = descendants(command.pid)
        assert len(workers) >= 2, "infer should have started its two workers"
    finally:
        workers = descendants(command.pid) or workers
        command.kill()
        command.wait()
    deadline = time.time() + 60
    while time.time() < deadline and any(alive(w) for w in workers):
        time.sleep(0.1)
    assert not end_orphans(workers), "workers outlived their parent"


def test_a_kill_during_the_first_manifest_write_does_not_block_the_rerun(tmp_path):
    """Killed between the manifest's temporary file and its rename, a new run directory
    holds only that temporary file: the rerun clears it and plays (it used to refuse the
    folder as 'not empty'); anything else in the folder is still refused."""
    from nothanks.experiments import load, run_design
    from nothanks.experiments.store import MANIFEST

    out = tmp_path / "run"
    out.mkdir()
    (out / f".{MANIFEST}.k2x9.tmp").write_text('{"schema_version": 2, "exper')
    run_design("smoke", out, jobs=1, progress=False)
    assert not list(out.glob("*.tmp")) and len(load(out).games)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(Exception, match="is not empty and has no manifest.json"):
        run_design("smoke", other, jobs=1, progress=False)
