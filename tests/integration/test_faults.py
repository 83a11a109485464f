"""Injected faults: a write failing half-way, a killed worker, a corrupted part of each
table, a damaged merged table, a participant folder with a missing game file.

In every case: a clear message, no half-written file visible, and the data that was
complete stays complete and loads.
"""
from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from nothanks.cli import main
from nothanks.experiments import LogError, ParticipantSession, load, play_chunk, run_design
from nothanks.experiments.design import Design, Table
from nothanks.experiments.run import RunError
from nothanks.experiments.store import DAMAGED, PARTS, RECEIPTS, ExperimentDir
from nothanks.experiments.synthetic import play_session
from nothanks.experiments.verify import verify
from nothanks.processes import alive, descendants

from helpers import ROOT

#: A small design: 3 conditions x 4 games, baseline agents, chunks of 2 games.
SMALL = Design(name="faults", seed=5, games=4, tables=(
    Table("random", ("random",) * 4, 0), Table("heuristic", ("heuristic",) * 4, 0),
    Table("mixed", ("random", "heuristic", "random", "heuristic"), 1)))


def frames(path: Path) -> dict[str, pd.DataFrame]:
    log = load(path)
    return {t: getattr(log, t).drop(columns=[c for c in ("started_at", "finished_at", "runs",
                                                         "code_version") if c in
                                             getattr(log, t).columns])
            for t in ("games", "decisions", "predictions", "recalls")}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, pd.DataFrame]:
    out = tmp_path_factory.mktemp("reference") / "run"
    run_design(SMALL, out, jobs=1, chunk_size=2, progress=False)
    return frames(out)


def assert_same(path: Path, reference: dict[str, pd.DataFrame]) -> None:
    for table, frame in frames(path).items():
        pd.testing.assert_frame_equal(frame, reference[table], obj=table)


def no_temporaries(path: Path) -> bool:
    return not [p for p in path.rglob("*") if p.name.startswith(".") and p.suffix == ".tmp"]


@pytest.mark.parametrize("table", ["games", "decisions", "predictions", "recalls"])
def test_a_corrupted_part_of_any_table_is_set_aside_and_replayed(tmp_path, reference,
                                                                  table, capsys):
    out = tmp_path / "run"
    directory = ExperimentDir.open(out, SMALL, 2)
    directory.begin_run()
    from nothanks.experiments import LogContext, play_chunk
    context = LogContext(SMALL.name, SMALL.hash)
    for start, stop in directory.chunks()[:4]:  # an interrupted run
        directory.write_chunk(start, stop, play_chunk(SMALL, start, stop, context))
    part = out / PARTS / table / "part-000000002-000000004.parquet"
    part.write_bytes(part.read_bytes()[:-40] + b"\0" * 40)  # corrupted in place
    [report] = verify(out)
    assert not report.ok and str(part) in report.render() and "re-run" in report.repair
    summary = run_design(SMALL, out, jobs=1, progress=False)
    assert summary.played == 2 + 4  # the damaged chunk and the two never played
    assert "set aside" in capsys.readouterr().err
    assert_same(out, reference)
    assert (out / DAMAGED).exists() and not (out / PARTS).exists()
    assert verify(out)[0].ok


def test_a_truncated_merged_table_is_noticed_and_the_run_replayed(tmp_path, reference):
    out = tmp_path / "run"
    run_design(SMALL, out, jobs=1, chunk_size=2, progress=False)
    games = out / "games.parquet"
    games.write_bytes(games.read_bytes()[: games.stat().st_size // 2])
    assert not verify(out)[0].ok
    summary = run_design(SMALL, out, jobs=1, progress=False)
    assert summary.played == SMALL.total_games  # not "0 played now, 12 already done"
    assert_same(out, reference)
    assert verify(out)[0].ok


def test_a_write_failing_half_way_leaves_no_partial_file_and_resume_completes(
        tmp_path, reference, monkeypatch):
    out = tmp_path / "run"
    import nothanks.files as nio
    real_replace = os.replace
    calls = {"n": 0}

    def disk_full(src, dst):  # the 5th finished file cannot be put in place
        calls["n"] += 1
        if calls["n"] == 5:
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(nio.os, "replace", disk_full)
    with pytest.raises(OSError, match="No space left"):
        run_design(SMALL, out, jobs=1, chunk_size=2, progress=False)
    monkeypatch.undo()
    assert no_temporaries(out)
    done = ExperimentDir(out, __import__("json").loads((out / "manifest.json").read_text()))
    assert len(done.done_chunks()) < len(done.chunks())
    load(out, allow_incomplete=True)  # what was complete loads
    run_design(SMALL, out, jobs=1, progress=False)
    assert_same(out, reference)


def test_a_run_killed_between_manifest_and_conditions_resumes(tmp_path, reference,
                                                              monkeypatch):
    """A kill after the manifest is written but before the conditions table (the two
    writes that create a run directory) leaves no conditions.parquet; resuming writes it."""
    out = tmp_path / "run"

    def killed(self, design):
        raise KeyboardInterrupt  # the process dies here

    monkeypatch.setattr(ExperimentDir, "_write_conditions", killed)
    with pytest.raises(KeyboardInterrupt):
        run_design(SMALL, out, jobs=1, chunk_size=2, progress=False)
    monkeypatch.undo()
    assert (out / "manifest.json").exists() and not (out / "conditions.parquet").exists()
    run_design(SMALL, out, jobs=1, progress=False)
    assert_same(out, reference)
    assert verify(out)[0].ok


def test_a_merge_that_fails_changes_no_table(tmp_path, monkeypatch):
    out = tmp_path / "run"
    import nothanks.experiments.store as store
    real = store.ExperimentDir._merge

    def failing(self, table):
        if table == "games":
            raise OSError(28, "No space left on device")
        return real(self, table)

    monkeypatch.setattr(store.ExperimentDir, "_merge", failing)
    with pytest.raises(OSError):
        run_design(SMALL, out, jobs=1, chunk_size=4, progress=False)
    monkeypatch.undo()
    assert not [p for p in out.glob("*.parquet") if p.stem in ("decisions", "predictions",
                                                               "recalls", "games")]
    assert no_temporaries(out) and (out / PARTS).exists()
    assert len(load(out).games) == SMALL.total_games * 4  # loads from the parts
    run_design(SMALL, out, jobs=1, progress=False)
    assert (out / "games.parquet").exists() and verify(out)[0].ok


def _dying_chunk(design, start, stop, context, traces=False):
    """A worker that dies on its second chunk (as if killed by the OOM killer)."""
    if start == 4:
        os.kill(os.getpid(), signal.SIGKILL)
    return play_chunk(design, start, stop, context, traces)


def test_a_killed_worker_fails_the_run_with_a_message_and_resume_completes(
        tmp_path, monkeypatch):
    import nothanks.experiments.backends as backends
    out = tmp_path / "run"
    design = SMALL.with_options(name="faults-kill")
    monkeypatch.setattr(backends, "play_chunk", _dying_chunk)
    with pytest.raises(RunError, match="a worker process died .* re-run the same command"):
        run_design(design, out, jobs=2, chunk_size=2, progress=False)
    monkeypatch.undo()
    assert no_temporaries(out)
    load(out, allow_incomplete=True)
    run_design(design, out, jobs=2, progress=False)
    log = load(out)
    assert len(log.games) == design.total_games * 4
    assert not log.games.duplicated(["game_id", "seat"]).any()


def _workers(pid: int) -> list[int]:
    """The worker processes below ``pid``: forks of ``nothanks run`` (the same command
    line), not multiprocessing's helpers (its resource tracker)."""
    def command(child: int) -> str:
        try:
            return Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            return ""
    return [c for c in descendants(pid) if "nothanks run" in command(c)]


#: Upper bounds (seconds) of the waits below: they are never reached unless the test
#: fails (each wait ends as soon as what it waits for happened), so they are set far
#: beyond any machine's load (a cold start compiles the kernels first: minutes).
STARTED_WITHIN = 900
EXITED_WITHIN = 300


def test_workers_exit_when_the_parent_is_killed(tmp_path):
    """No timing assumption: wait (without a tight bound) until both workers run, kill
    the parent, wait until they are gone (each checks its parent every
    PARENT_CHECK_SECONDS)."""
    design = tmp_path / "slow.toml"
    design.write_text('name = "slow"\nseed = 4\ngames = 400\n[[tables]]\nlabel = "ToM1"\n'
                      'players = ["tom1", "tom1", "tom1", "tom1"]\n')
    proc = subprocess.Popen([sys.executable, "-m", "nothanks", "run", str(design), "--out",
                             str(tmp_path / "out"), "--jobs", "2", "--no-progress"], cwd=ROOT)
    deadline = time.time() + STARTED_WITHIN
    children: list[int] = []
    while time.time() < deadline and len(children) < 2 and proc.poll() is None:
        time.sleep(0.2)
        children = _workers(proc.pid)
    assert len(children) >= 2, "the run should have started its workers"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.time() + EXITED_WITHIN
    while time.time() < deadline and any(alive(c) for c in children):
        time.sleep(0.2)
    assert not [c for c in children if alive(c)], "workers outlived their parent"



MINI_SESSION = Design(name="mini-session", seed=2, games=1, tables=(
    Table("ToM0", ("human", "tom0", "tom0", "tom0"), 0),))


def test_a_participant_folder_with_a_missing_game_file_replays_only_that_game(tmp_path):
    schedule = MINI_SESSION.with_options(games=3)
    play_session("P01", tmp_path, "human-standin", schedule)
    folder = tmp_path / "P01"
    # undo the merge so the folder is mid-session: remove one game's decisions part
    session_dir = ExperimentDir(folder, __import__("json").loads(
        (folder / "manifest.json").read_text()))
    assert session_dir.manifest["compacted"]
    # a finished session whose merged table lost a file refuses to guess
    (folder / "decisions.parquet").unlink()
    with pytest.raises(LogError, match="restore the file from a backup"):
        ParticipantSession("P01", tmp_path, schedule, human="human-standin")
    [report] = verify(folder)
    assert not report.ok and "backup" in report.repair


def test_a_session_part_lost_mid_session_is_set_aside_and_that_game_played_again(tmp_path):
    schedule = MINI_SESSION.with_options(games=4)
    session = ParticipantSession("P02", tmp_path, schedule, human="human-standin")
    standin = session.standin
    for _ in range(2):  # two finished games
        while not session.game_over:
            if session.human_to_move:
                session.human_acts(standin.decide(session.view()))
            else:
                session.step()
        session.next_game()
    folder = tmp_path / "P02"
    (folder / PARTS / "predictions" / "part-000000000-000000001.parquet").unlink()
    [report] = verify(folder)
    assert not report.ok and "missing" in report.render()
    resumed = ParticipantSession("P02", tmp_path, schedule, human="human-standin")
    assert [str(d.path.name) for d in resumed.repaired] == ["part-000000000-000000001.parquet"]
    assert resumed.game_number == 1  # game 1 is played again; game 2 stays done
    assert resumed.games_done == 1
    assert (folder / DAMAGED).exists()
    log = load(folder, allow_incomplete=True)
    assert sorted(set(log.games.game_id)) == [1]


def test_receipts_record_rows_and_checksums(tmp_path):
    out = tmp_path / "run"
    run_design(SMALL, out, jobs=1, chunk_size=2, progress=False)
    import json
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["merged"]) == {"games", "decisions", "predictions", "recalls"}
    assert manifest["merged"]["games"]["rows"] == SMALL.total_games * 4
    assert not (out / PARTS / RECEIPTS).exists()  # parts and receipts go once merged


def test_verify_cli_reports_and_exits_nonzero(tmp_path, capsys):
    out = tmp_path / "run"
    run_design(SMALL, out, jobs=1, chunk_size=2, progress=False)
    assert main(["verify", str(out)]) == 0
    assert "OK" in capsys.readouterr().out
    (out / "recalls.parquet").write_bytes(b"not parquet")
    assert main(["verify", str(out)]) == 1
    text = capsys.readouterr().out
    assert "recalls.parquet: checksum differs" in text and "repair:" in text
    assert main(["verify", str(tmp_path / "nothing")]) == 1


def test_files_are_written_with_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        run_design(SMALL, tmp_path / "run", jobs=1, progress=False)
    finally:
        os.umask(old)
    for path in (tmp_path / "run").glob("*"):
        if path.is_file():
            assert path.stat().st_mode & 0o777 == 0o644, path


def test_parquet_bytes_of_a_corrupted_part_do_not_load(tmp_path):
    """(Sanity of the fault injection above: a corrupted part really is unreadable.)"""
    out = tmp_path / "run"
    run_design(SMALL, out, jobs=1, chunk_size=2, progress=False)
    data = (out / "games.parquet").read_bytes()
    with pytest.raises(Exception):  # noqa: B017 - any reader error
        pd.read_parquet(io.BytesIO(data[:-40] + b"\0" * 40))


# ------------------------------------------------------------------ two writers
def test_a_run_directory_being_written_by_a_live_process_is_refused(tmp_path):
    out = tmp_path / "run"
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / ".run.lock").write_text(str(other.pid))
        with pytest.raises(RunError, match=f"being written by process {other.pid}"):
            run_design(SMALL, out, jobs=1, progress=False)
        assert not out.exists(), "nothing was written while another process held the run"
    finally:
        other.kill()
        other.wait()
    # its process is gone now: the stale lock is taken over, the run completes, the lock
    # is released, and every game is logged once
    summary = run_design(SMALL, out, jobs=1, progress=False)
    assert summary.played == SMALL.total_games
    assert not (tmp_path / ".run.lock").exists()
    games = load(out).games
    assert len(games) == SMALL.total_games * 4  # one row per seat
    assert not games.duplicated(["game_id", "seat"]).any()


