"""Commands write only where they are told (issue 33).

Every subcommand runs as a new user would run it: in a fresh copy of the repository (the
working tree's files committed into a new git repository, the copy's own package
imported), with minimal arguments and ``--out`` in a temporary folder outside the copy.
Afterwards ``git status`` in the copy, ignored files included, must show nothing new,
changed or deleted (bytecode and numba's cache aside). The defaults, the refusals and
``--update-shipped`` (which replaces a whole set) are checked beside them.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nothanks import compiled_cache
from nothanks.cli import build_parser, main
from nothanks.outputs import (
    STAGING,
    OutputError,
    check_shipped,
    committed_files,
    fresh_folder,
    replacing,
)

from helpers import ROOT

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(
    GIT is None or not (ROOT / ".git").exists(), reason="needs git and a git work tree")
#: A 4-agent pool of cheap baselines: one table, 4 games per deal.
POOL = "random;heuristic;always-pass;random:p=0.2"
#: The smallest calibration study: two parameters, one target, one 2-game trial.
TINY_STUDY = ["--params", "fraction,s", "--targets", "tom1_share", "--heldout", "",
              "--trials", "1", "--games", "2", "--stages", "1", "--no-progress"]

#: Every subcommand with the arguments that make it cheap (case -> command, arguments);
#: {out} is a new folder outside the copy. Commands that write nothing (agents, verify)
#: are run too: reading shipped data must not change it either.
CASES = {
    "simulate": ("simulate", ["--players", "random,random,random", "--games", "2",
                              "--out", "{out}"]),
    "agents": ("agents", []),
    "run": ("run", ["smoke", "--games", "1", "--jobs", "1", "--no-progress", "--out", "{out}"]),
    "export": ("export", ["data/synthetic/synthetic-01", "--out", "{out}"]),
    "verify": ("verify", ["data/synthetic/synthetic-01"]),
    "synthetic": ("synthetic", ["--participants", "1", "--out", "{out}"]),
    "figures": ("figures", ["--quick", "--jobs", "1", "--no-progress", "--out",
                            "{out}/figures", "--cache", "{out}/cache"]),
    "studies": ("studies", ["extras", "--jobs", "1", "--no-progress", "--out",
                            "{out}/studies", "--cache", "{out}/cache"]),
    "calibrate": ("calibrate", [*TINY_STUDY, "--check-seed", "7", "--check-games", "2",
                                "--out", "{out}"]),
    "infer": ("infer", ["data/synthetic", "--participant", "synthetic-01", "--models",
                        "ToM0,random,heuristic", "--samples", "2", "--processes", "1",
                        "--out", "{out}"]),
    "infer --validate": ("infer", ["{out}/players", "--validate", "--per-type", "1",
                                   "--types", "ToM0", "--models", "ToM0,random", "--samples",
                                   "2", "--processes", "1", "--out", "{out}/results"]),
    "fit": ("fit", ["data/synthetic", "--participant", "synthetic-01", "--model", "ToM0",
                    "--params", "s", "--trials", "2", "--samples", "2", "--bootstrap", "10",
                    "--processes", "1", "--no-progress", "--out", "{out}"]),
    "tournament": ("tournament", ["--pool", POOL, "--deals", "1", "--jobs", "1",
                                  "--no-progress", "--out", "{out}"]),
    "train": ("train", ["--iterations", "1", "--games-per-iteration", "1", "--sims", "2",
                        "--steps-per-iteration", "1", "--hidden", "4", "--layers", "1",
                        "--eval-every", "1", "--eval-deals", "1", "--jobs", "1",
                        "--no-progress", "--out", "{out}"]),
}
#: The cases the driver runs; figures runs on its own (slow).
FAST = [case for case in CASES if case != "figures"]
#: ``git status`` with ignored and untracked files listed one by one.
STATUS = ["status", "--porcelain", "-z", "--ignored", "--untracked-files=all"]
#: Runs the cases it is given one after another in one interpreter (one start of the
#: package, about 4 s, instead of one per command), reporting per case the exit code, the
#: end of stderr and ``git status`` before and after, as JSON on the last line.
DRIVER = """
import contextlib, io, json, subprocess, sys
from nothanks.cli import main
given = json.loads(sys.argv[1])
status = lambda: subprocess.run(["git", *given["status"]], capture_output=True,
                                text=True, check=True).stdout
report = {}
for case, argv in given["cases"].items():
    before, err = status(), io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        except Exception as exc:
            code = repr(exc)
    report[case] = {"code": code, "stderr": err.getvalue()[-3000:], "before": before,
                    "after": status()}
print(json.dumps(report))
"""


def _git(repo: Path, *args: str) -> str:
    env = os.environ | {"GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.org",
                        "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.org"}
    return subprocess.run([GIT, "-C", str(repo), *args], check=True, capture_output=True,
                          text=True, env=env).stdout


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A fresh copy of the repository: the working tree's files (tracked and new, not
    ignored ones) committed into a new git repository, plus numba's cache of the
    compiled kernels (ignored files; saves compiling them in the copy)."""
    copy = tmp_path_factory.mktemp("clone") / "nothanks"
    names = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, names.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)  # keeps mtimes: numba's cache stays valid
    _copy_numba_cache(copy / "nothanks")
    _git(copy, "init", "-q")
    _git(copy, "add", "-A")
    _git(copy, "commit", "-q", "-m", "the working tree")
    return copy


def _copy_numba_cache(package: Path) -> None:
    """numba's cache of this version's compiled code (nothanks.compiled_cache), filed for
    the copy ``package``: numba files a source folder's entries under a name made of the
    folder's absolute path, so each is copied under the name of the copy's folder."""
    from numba.core.caching import _CacheLocator

    import nothanks.kernels.compiling  # noqa: F401 - chooses this version's folder
    if not os.environ.get(compiled_cache.CHOSEN_HERE):
        return  # a folder the user chose: the copy compiles for itself
    folder = Path(os.environ[compiled_cache.SETTING])
    target = compiled_cache.cache_home(package) / folder.name
    source_root = ROOT / "nothanks"
    for directory in {path.parent for path in source_root.rglob("*.py")}:
        entries_of = folder / _CacheLocator.get_suitable_cache_subpath(str(directory / "_.py"))
        if entries_of.is_dir():
            copied = package / directory.relative_to(source_root) / "_.py"
            shutil.copytree(entries_of, target / _CacheLocator.get_suitable_cache_subpath(
                str(copied)), dirs_exist_ok=True)


def entries(status: str) -> set[str]:
    """The entries of a ``git status`` (:data:`STATUS`), bytecode and numba's cache aside."""
    return {entry for entry in status.split("\0")
            if entry and "__pycache__/" not in entry and not entry.endswith(".pyc")}


def python(repo: Path, argv: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
    """``python ARGV`` in the copy, importing the copy's package."""
    env = os.environ | {"PYTHONPATH": str(repo), "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, *argv], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=timeout)


def argv(case: str, out: Path) -> list[str]:
    """The command line of ``case`` with its own folder under ``out``."""
    command, args = CASES[case]
    folder = out / case.replace(" --", "-")
    return [command, *(a.replace("{out}", str(folder)) for a in args)]


@pytest.fixture(scope="module")
def outs(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("outs")


@pytest.fixture(scope="module")
def ran(repo, outs) -> dict[str, dict]:
    """Every fast case, run in the copy by :data:`DRIVER`."""
    cases = {case: argv(case, outs) for case in FAST}
    if importlib.util.find_spec("optuna") is None:  # the [calibrate] extra
        del cases["calibrate"], cases["fit"]
    if importlib.util.find_spec("jax") is None:  # the [learn] extra
        del cases["train"]
    done = python(repo, ["-c", DRIVER, json.dumps({"cases": cases, "status": STATUS})])
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_every_subcommand_is_covered():
    _, runners = build_parser()
    assert set(runners) == {command for command, _ in CASES.values()}, \
        "add the new subcommand to CASES"


def _check(case: str, code, stderr: str, before: str, after: str, outs: Path) -> None:
    assert code == 0, stderr
    changed = entries(before) ^ entries(after)
    assert not changed, f"nothanks {case} changed the repository: {sorted(changed)}"
    folder = outs / case.replace(" --", "-")
    if "{out}" in " ".join(CASES[case][1]):
        assert any(folder.rglob("*")), "wrote nothing where it was told"
    if case == "tournament":  # the leaderboard goes with the games
        assert {"leaderboard.csv", "leaderboard.md", "tournament.png"} <= {
            p.name for p in folder.iterdir()}


@pytest.mark.parametrize("case", FAST)
def test_a_command_writes_only_into_its_out_folder(ran, outs, case):
    if case not in ran:
        pytest.skip(f"{case} needs an optional extra (optuna, jax)")
    _check(case, ran[case]["code"], ran[case]["stderr"], ran[case]["before"],
           ran[case]["after"], outs)


@pytest.mark.slow
def test_figures_writes_only_into_its_out_folder(repo, outs, quick_figures):
    """Its own process, on a copy of the cache of the suite's shared quick build (the
    simulations are made once: about 30 s instead of 50 s on 2 cores). The cache is warm,
    so the same run shows that a second build reuses the simulations: no cached table is
    rewritten or added (one figures build for both claims, about 30 s less)."""
    cache = outs / "figures" / "cache"
    shutil.copytree(quick_figures / "cache", cache)  # copies keep their mtimes
    cached = {p: p.stat().st_mtime_ns for p in cache.rglob("*.parquet")}
    assert cached, "the shared quick build cached no simulation"
    before = _git(repo, *STATUS)
    done = python(repo, ["-m", "nothanks", *argv("figures", outs)])
    _check("figures", done.returncode, done.stderr[-3000:], before, _git(repo, *STATUS),
           outs)
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*.parquet")} == cached, \
        "a build on a warm cache simulated again or rewrote the cache"
    assert (outs / "figures" / "figures" / "fig14_rt_sweep.pdf").is_file()


# ------------------------------------------------------------------ defaults
@pytest.mark.parametrize(("command", "args"), [
    ("synthetic", ["--participants", "1"]),
    ("tournament", ["--pool", POOL, "--deals", "1", "--jobs", "1", "--no-progress"]),
    ("calibrate", TINY_STUDY),
])
def test_without_out_a_command_makes_a_new_runs_folder(tmp_path, monkeypatch, command, args):
    if command == "calibrate":
        pytest.importorskip("optuna")
    monkeypatch.chdir(tmp_path)
    assert main([command, *args]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["runs"]
    made, = (tmp_path / "runs").iterdir()
    assert made.name.startswith(f"{command}-") and any(made.iterdir())
    if command == "tournament":
        assert (made / "leaderboard.md").is_file()


def test_fresh_folders_do_not_collide(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = fresh_folder("figures")
    first.mkdir(parents=True)
    second = fresh_folder("figures")
    assert first.parent == second.parent == Path("runs") and second != first


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize(("line", "expected"), [
    (["synthetic", "--participants", "1", "--out", "data/synthetic"], "--update-shipped"),
    (["synthetic", "--participants", "1", "--out", "data/synthetic", "--force"],
     "--update-shipped"),
    (["figures", "--quick", "--out", "figures"], "--update-shipped"),
    (["studies", "extras", "--quick", "--out", "figures"], "--update-shipped"),
    (["tournament", "--pool", POOL, "--deals", "1", "--leaderboard", "figures/tournament",
      "--out", "{tmp}/games"], "--leaderboard figures/tournament holds committed results"),
    (["calibrate", *TINY_STUDY, "--out", "data/calibration/thesis-fit"], "--update-shipped"),
    (["infer", "data/synthetic", "--out", "figures/inference/default"], "--update-shipped"),
    (["infer", "data/synthetic", "--validate", "--out", "{tmp}/r"],
     "PATH data/synthetic (--validate writes the simulated players there)"),
    (["run", "smoke", "--out", "data/synthetic/synthetic-01"], "give a new folder"),
    (["simulate", "--players", "random,random,random", "--out", "figures/tables"],
     "give a new folder"),
    (["export", "data/synthetic/synthetic-01", "--out", "data/synthetic"],
     "give a new folder"),
])
def test_a_folder_of_committed_results_is_refused(repo, tmp_path, monkeypatch, capsys, line,
                                                  expected):
    monkeypatch.chdir(repo)  # this process's package, the copy's folders
    before = _git(repo, *STATUS)
    assert main([a.replace("{tmp}", str(tmp_path)) for a in line]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "holds committed results" in err and expected in err, err
    assert "give a new folder, e.g." in err  # what would be valid
    assert entries(_git(repo, *STATUS)) == entries(before)
    assert not (tmp_path / "games").exists() and not (tmp_path / "r").exists()


def test_synthetic_refuses_a_non_empty_out_unless_forced(tmp_path, capsys):
    out = tmp_path / "set"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert main(["synthetic", "--participants", "1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "is not empty" in err and "--force" in err
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


# ------------------------------------------------------------------ whole sets
@pytest.fixture
def shipped(tmp_path) -> Path:
    """A git repository whose ``set/`` holds a committed set of three sessions and a
    file of another kind."""
    folder = tmp_path / "repo" / "set"
    for name in ("synthetic-01", "synthetic-02", "synthetic-03"):
        (folder / name).mkdir(parents=True)
        (folder / name / "manifest.json").write_text("{}")
    (folder / "README.md").write_text("about the set")
    _git(tmp_path / "repo", "init", "-q")
    _git(tmp_path / "repo", "add", "-A")
    _git(tmp_path / "repo", "commit", "-q", "-m", "a shipped set")
    return folder


def test_update_shipped_replaces_the_whole_set(shipped, capsys):
    assert len(committed_files(shipped)) == 4
    assert main(["synthetic", "--participants", "1", "--out", str(shipped)]) == 2
    assert "4 files tracked by git" in capsys.readouterr().err
    assert main(["synthetic", "--participants", "1", "--out", str(shipped),
                 "--update-shipped"]) == 0
    # synthetic-02 and -03 are gone with the old set; what is not a session stays
    assert sorted(p.name for p in shipped.iterdir()) == ["README.md", "synthetic-01"]
    assert (shipped / "synthetic-01" / "games.parquet").is_file()


def test_a_failed_replacement_leaves_the_old_set_whole(shipped):
    with pytest.raises(RuntimeError), replacing(shipped, ("synthetic-*",)) as staging:
        (staging / "synthetic-01").mkdir()
        raise RuntimeError("interrupted")
    assert sorted(p.name for p in shipped.iterdir()) == [
        "README.md", "synthetic-01", "synthetic-02", "synthetic-03"]
    with pytest.raises(RuntimeError), replacing(shipped, ("x",), keep_staging=True) as staging:
        (staging / "study.db").write_text("half a study")
        raise RuntimeError("interrupted")
    with replacing(shipped, ("synthetic-*",), keep_staging=True) as staging:
        assert (staging / "study.db").read_text() == "half a study"  # resumed
    assert sorted(p.name for p in shipped.iterdir()) == ["README.md", "study.db"]
    assert not (shipped / STAGING).exists()


def test_committed_files_outside_git_and_in_new_folders(shipped, tmp_path):
    assert committed_files(tmp_path / "elsewhere") == []
    assert committed_files(shipped / "new" / "deeper") == []
    assert committed_files(shipped.parent) == committed_files(shipped)
    assert check_shipped(shipped / "new", "run") is False
    assert check_shipped(tmp_path / "anything", "run", update_shipped=True) is True
    assert check_shipped(shipped / "synthetic-0", "run") is False  # a prefix is not it
    with pytest.raises(OutputError, match=r"^--out .*/set/synthetic-01 holds committed "
                                          r"results \(1 file tracked by git: "
                                          r"set/synthetic-01/manifest\.json\); give a new "
                                          r"folder, e\.g\. --out runs/run-\d{8}-\d{6}$"):
        check_shipped(shipped / "synthetic-01", "run")


def test_the_readme_says_where_commands_write_besides_out(tmp_path, monkeypatch):
    """Issue 44: the README said every command writes only where --out says, but
    ``figures`` caches its simulations in --cache (default data/cache) and ``run`` puts a
    lock file beside --out. It says both, with the names the code uses."""
    import nothanks.experiments.run as run_module
    from nothanks.files import claim_lock
    locks = []

    def spying(lock, *args, **kwargs):
        locks.append(lock)
        return claim_lock(lock, *args, **kwargs)
    monkeypatch.setattr(run_module, "claim_lock", spying)
    out = tmp_path / "NAME"
    assert main(["run", "smoke", "--games", "1", "--out", str(out), "--jobs", "1",
                 "--no-progress"]) == 0
    [lock] = locks
    assert lock.parent == out.parent and lock.name == ".NAME.lock"  # beside --out
    parser, _ = build_parser()
    cache = parser.parse_args(["figures"]).cache  # its default
    readme = " ".join((ROOT / "README.md").read_text().split())
    start = readme.index("Every command writes")
    claim = readme[start:start + 600]
    assert f"`--cache` (default `{cache}`" in claim
    assert f"lock file `{lock.name}` beside the folder `{out.name}`" in claim
    for command in ("`figures`", "`run`", "`tournament`"):
        assert command in claim
