"""No advice that loses data, every write atomic at the level the user sees (issue 44).

* A bad input (a damaged or empty participant folder, a design or instance file that
  cannot be read) is refused in one line before any work, the disk left as it was, and
  no message suggests deleting a folder the user gave.
* ``simulate`` and ``export`` publish their set whole: a full disk (an injected
  ``ENOSPC``, or a small tmpfs when the tests run as root) leaves the previous set or
  nothing, and the re-run the message advises works; ``--force`` never mixes sets.
"""
from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from nothanks.cli import main
from nothanks.compiled_cache import COMPILING

from helpers import ROOT

#: Three quick players: a game takes about a millisecond.
PLAYERS = "heuristic;random;random"


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for a folder): what a test
    compares to say the disk is unchanged."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def disk_full_on(call: int, real):
    """A stand-in for the writer ``real`` whose ``call``-th call writes half its data and
    raises ENOSPC, as a full disk does."""
    calls = [0]

    def write(*args, **kwargs):
        calls[0] += 1
        if calls[0] == call:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(*args, **kwargs)
    return write


def said(error: str) -> list[str]:
    """The lines of an error stream, without the note a first run prints when numba
    compiles (a cold cache, as on a fresh clone)."""
    return [line for line in error.splitlines() if line != COMPILING]


def simulate(out: Path, games: int = 20, *extra: str) -> list[str]:
    """The arguments of a small ``nothanks simulate`` (no progress bar: the tests read the
    error stream line by line)."""
    return ["simulate", "--players", PLAYERS, "--games", str(games), "--seed", "3",
            "--no-progress", "--out", str(out), *extra]


# ------------------------------------------------------------------- simulate
def test_simulate_on_a_full_disk_leaves_nothing_and_the_advised_rerun_works(
        tmp_path, monkeypatch, capsys):
    import nothanks.files as files
    out = tmp_path / "sim"
    # the second table cannot be written (before: games.parquet was left alone)
    monkeypatch.setattr(files, "atomic_write_bytes",
                        disk_full_on(2, files.atomic_write_bytes))
    assert main(simulate(out)) == 2
    error = capsys.readouterr().err
    assert len(said(error)) == 1 and "No space left on device" in error
    assert "re-run the same command" in error
    assert not out.exists()  # nothing left behind, not even an empty folder
    monkeypatch.undo()
    assert main(simulate(out)) == 0  # the advised re-run is not refused
    assert sorted(p.name for p in out.iterdir()) == [
        "decisions.parquet", "games.parquet", "receipt.json"]
    assert main(["verify", str(out)]) == 0


def test_simulate_force_on_a_full_disk_keeps_the_old_set_whole(tmp_path, monkeypatch,
                                                               capsys):
    import nothanks.experiments.store as store
    import nothanks.files as files
    out = tmp_path / "sim"
    assert main(simulate(out, 20)) == 0
    (out / "mine.txt").write_text("the user's own file")
    before = snapshot(out)
    # games, decisions (write_frame's writes) or the receipt (the store's) cannot be written
    for module, call in ((files, 1), (files, 2), (store, 1)):
        monkeypatch.setattr(module, "atomic_write_bytes",
                            disk_full_on(call, module.atomic_write_bytes))
        assert main(simulate(out, 30, "--force")) == 2
        monkeypatch.undo()
        assert snapshot(out) == before, f"{module.__name__} write {call} changed the old set"
    assert main(simulate(out, 30, "--force")) == 0  # replaces the whole set
    capsys.readouterr()
    assert len(pd.read_parquet(out / "games.parquet").game_id.unique()) == 30
    assert (out / "mine.txt").read_text() == "the user's own file"
    assert main(["verify", str(out)]) == 0  # the receipt is the new set's


@pytest.fixture
def small_disk(tmp_path):
    """A 600 KB tmpfs (the tests run as root, e.g. in CI); skipped where it cannot be
    mounted."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(disk)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_simulate_on_a_real_full_disk_leaves_nothing(small_disk, capsys):
    out = small_disk / "sim"
    assert main(simulate(out, 3000)) == 2  # about 1 MB of tables: more than fits
    assert "No space left on device" in capsys.readouterr().err
    assert list(small_disk.iterdir()) == []
    assert main(simulate(out, 20)) == 0
    assert main(["verify", str(out)]) == 0


# --------------------------------------------------------------------- export
@pytest.fixture(scope="module")
def run_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export") / "run"
    assert main(["run", "smoke", "--games", "2", "--out", str(out), "--jobs", "1",
                 "--no-progress"]) == 0
    return out


def half_then_full(call: int):
    """DataFrame.to_csv whose ``call``-th call writes half a file, then fails: disk full."""
    real, calls = pd.DataFrame.to_csv, [0]

    def to_csv(frame, path, *args, **kwargs):
        calls[0] += 1
        if calls[0] == call:
            text = frame.to_csv(None, *args, **kwargs)
            Path(path).write_text(text[: len(text) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(frame, path, *args, **kwargs)
    return to_csv


def test_export_on_a_full_disk_leaves_no_csv_cut_mid_line(run_folder, tmp_path,
                                                          monkeypatch, capsys):
    out = tmp_path / "csv"
    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full(3))  # games.csv
    assert main(["export", str(run_folder), "--out", str(out)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert not out.exists()
    monkeypatch.undo()
    assert main(["export", str(run_folder), "--out", str(out)]) == 0
    before = snapshot(out)
    monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full(4))  # over an old export
    assert main(["export", str(run_folder), "--out", str(out)]) == 2
    assert snapshot(out) == before  # the old export, whole
    monkeypatch.undo()
    games = pd.read_csv(out / "games.csv")
    assert len(games) == len(pd.read_parquet(run_folder / "games.parquet"))


# ------------------------------------------------------------------ bad input
def _session_folder(world: Path, damage: str) -> Path:
    """A folder of two shipped sessions, one of them damaged as ``damage`` says."""
    import shutil
    people = world / "people"
    people.mkdir()
    if damage == "empty":
        return people
    for name in ("synthetic-01", "synthetic-02"):
        shutil.copytree(ROOT / "data" / "synthetic" / name, people / name)
    games = people / "synthetic-02" / "games.parquet"
    if damage == "truncated":
        games.write_bytes(games.read_bytes()[: games.stat().st_size // 2])
    elif damage == "missing":
        games.unlink()
    return people


#: Each bad input: what to plant in the test's folder, the command (``{w}``: that
#: folder) and what its one-line error must say.
BAD_INPUTS = {
    "figures, empty participant folder": (
        "empty", ["figures", "--participants", "{w}/people", "--out", "{w}/figs",
                  "--cache", "{w}/cache", "--quick", "--jobs", "1", "--no-progress"],
        "participant folder {w}/people holds no session"),
    "figures, truncated participant table": (
        "truncated", ["figures", "--participants", "{w}/people", "--out", "{w}/figs",
                      "--cache", "{w}/cache", "--quick", "--jobs", "1", "--no-progress"],
        "{w}/people/synthetic-02/games.parquet: cannot be read as Parquet"),
    "figures, missing participant table": (
        "missing", ["figures", "--participants", "{w}/people", "--out", "{w}/figs",
                    "--cache", "{w}/cache", "--quick", "--jobs", "1", "--no-progress"],
        "nothanks verify {w}/people says what is wrong"),
    "infer, empty participant folder": (
        "empty", ["infer", "{w}/people", "--out", "{w}/orders", "--processes", "1"],
        "{w}/people"),
    "run, design that is not TOML": (
        "design:garbage", ["run", "{w}/design.toml", "--out", "{w}/run", "--jobs", "1",
                           "--no-progress"], "{w}/design.toml"),
    "run, design naming a missing instance set": (
        "design:instances", ["run", "{w}/design.toml", "--out", "{w}/run", "--jobs", "1",
                             "--no-progress"], "{w}/nowhere.csv"),
    "simulate, instance set that is not a CSV of instances": (
        "instances:garbage", ["simulate", "--players",
                              "tom1:instances={w}/bad.csv;tom0;tom0;tom0", "--games", "2",
                              "--out", "{w}/sim"], "{w}/bad.csv"),
    "tournament, instance set that is not a CSV of instances": (
        "instances:garbage", ["tournament", "--pool",
                              "tom1:instances={w}/bad.csv;random;heuristic;always-pass",
                              "--deals", "1", "--out", "{w}/tour", "--jobs", "1",
                              "--no-progress"], "{w}/bad.csv"),
}

DESIGN_WITH_INSTANCES = """name = "bad-instances"
seed = 1
games = 1
[[tables]]
label = "t"
players = ["tom1:instances={w}/nowhere.csv", "tom0", "tom0", "tom0"]
focal = 0
"""


def plant(world: Path, what: str) -> None:
    kind, _, how = what.partition(":")
    if kind in ("empty", "truncated", "missing"):
        _session_folder(world, kind)
    elif kind == "design":
        text = ("name = [unclosed" if how == "garbage"
                else DESIGN_WITH_INSTANCES.replace("{w}", str(world)))
        (world / "design.toml").write_text(text)
    elif kind == "instances":
        (world / "bad.csv").write_bytes(b"\x00\x01 not, a csv\nof instances\x02\n")


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_every_bad_input_is_one_line_before_any_work_and_leaves_the_disk_as_it_was(
        tmp_path, case, capsys, monkeypatch):
    what, argv, expected = BAD_INPUTS[case]
    world = tmp_path / "w"
    world.mkdir()
    plant(world, what)
    monkeypatch.chdir(world)  # a default folder (e.g. data/cache, runs/) would show too
    before = snapshot(tmp_path)
    assert main([a.replace("{w}", str(world)) for a in argv]) == 2
    error = capsys.readouterr().err
    assert len(said(error)) == 1, error
    assert expected.replace("{w}", str(world)) in error, error
    assert "delete" not in error.lower(), error
    assert snapshot(tmp_path) == before, f"{case} changed the disk"
