"""numba's cache follows the compiled code's sources (nothanks.compiled_cache): a change to
any file of the compiled packages starts a new cache folder, so no compiled function
keeps another file's old machine code."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import nothanks
from nothanks import compiled_cache


def _package(root: Path) -> Path:
    """A stand-in package: two compiled packages and one other."""
    for name, text in (("actr/kernel.py", "A = 1\n"), ("search/tom_core.py", "B = 2\n"),
                       ("search/sub/deep.py", "C = 3\n"), ("figures/plot.py", "D = 4\n")):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_digest_follows_every_compiled_source_and_nothing_else(tmp_path):
    root = _package(tmp_path / "pkg")
    first = compiled_cache.sources_digest(root)
    assert first == compiled_cache.sources_digest(root)  # the same sources, the same folder
    assert len(first) == 16
    (root / "figures/plot.py").write_text("D = 5\n")  # not compiled code: the same cache
    assert compiled_cache.sources_digest(root) == first
    seen = {first}
    for name in ("actr/kernel.py", "search/tom_core.py", "search/sub/deep.py"):
        path = root / name
        path.write_text(path.read_text() + "# edited\n")
        seen.add(compiled_cache.sources_digest(root))
    assert len(seen) == 4  # every edit of a compiled package: a new folder
    (root / "search/new_kernel.py").write_text("E = 6\n")  # a new file counts too
    assert compiled_cache.sources_digest(root) not in seen


def test_the_folder_is_set_once_per_version_and_old_versions_go(tmp_path, monkeypatch):
    root = _package(tmp_path / "pkg")
    monkeypatch.delitem(sys.modules, "numba", raising=False)  # (restored afterwards)
    monkeypatch.delenv(compiled_cache.SETTING, raising=False)
    monkeypatch.delenv(compiled_cache.CHOSEN_HERE, raising=False)
    home = root / "__pycache__"
    home.mkdir()
    old, recent = home / "numba-0000000000000000", home / "numba-1111111111111111"
    for folder in (old, recent):
        (folder / "sub").mkdir(parents=True)
    week_ago = time.time() - compiled_cache.STALE_AFTER_SECONDS - 60
    os.utime(old, (week_ago, week_ago))
    folder = compiled_cache.use_versioned_cache(root)
    assert folder == home / f"numba-{compiled_cache.sources_digest(root)}"
    assert folder.is_dir()
    assert os.environ[compiled_cache.SETTING] == str(folder)
    assert not old.exists() and recent.exists()  # unused for a week: removed
    # a child holding other sources chooses its own folder
    (root / "actr/kernel.py").write_text("A = 7\n")
    assert compiled_cache.use_versioned_cache(root) != folder


def test_a_version_that_compiled_before_removes_nothing(tmp_path, monkeypatch):
    """Cleaning belongs to a version's first compile: a folder that exists already is
    only marked as in use."""
    root = _package(tmp_path / "pkg")
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    monkeypatch.delenv(compiled_cache.SETTING, raising=False)
    monkeypatch.delenv(compiled_cache.CHOSEN_HERE, raising=False)
    home = root / "__pycache__"
    mine = home / f"numba-{compiled_cache.sources_digest(root)}"
    old = home / "numba-0000000000000000"
    for folder in (mine, old):
        folder.mkdir(parents=True)
        week_ago = time.time() - compiled_cache.STALE_AFTER_SECONDS - 60
        os.utime(folder, (week_ago, week_ago))
    assert compiled_cache.use_versioned_cache(root) == mine
    assert old.exists()  # not this version's first compile: nothing removed
    assert time.time() - mine.stat().st_mtime < 60  # marked as in use
    assert compiled_cache.remove_stale(home, keep=mine) == [old] and not old.exists()


def test_a_folder_the_user_chose_is_left_alone(tmp_path, monkeypatch):
    root = _package(tmp_path / "pkg")
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    monkeypatch.delenv(compiled_cache.CHOSEN_HERE, raising=False)
    monkeypatch.setenv(compiled_cache.SETTING, str(tmp_path / "mine"))
    assert compiled_cache.use_versioned_cache(root) is None
    assert os.environ[compiled_cache.SETTING] == str(tmp_path / "mine")


@pytest.mark.parametrize("user", [False, True])
def test_numba_caches_where_the_compiled_code_points_it(tmp_path, user):
    """In a fresh process: numba's cache folder is this version's (or the user's) once
    compiled code is loaded, even when numba was imported first."""
    env = {k: v for k, v in os.environ.items()
           if k not in (compiled_cache.SETTING, compiled_cache.CHOSEN_HERE)}
    if user:
        env[compiled_cache.SETTING] = str(tmp_path / "mine")
    out = subprocess.run(
        [sys.executable, "-c", "import numba, nothanks.kernels.compiling; "
         "print(numba.config.CACHE_DIR)"],
        env=env, capture_output=True, text=True, check=True).stdout.strip()
    root = Path(nothanks.__file__).parent
    expected = (tmp_path / "mine" if user else
                compiled_cache.cache_home(root) / f"numba-{compiled_cache.sources_digest(root)}")
    assert out == str(expected)


def test_importing_nothanks_has_no_side_effects():
    """``import nothanks`` reads no source, sets no setting, imports no numba and removes
    nothing (issue 45): a fresh process in which removing or hashing would fail."""
    env = {k: v for k, v in os.environ.items()
           if k not in (compiled_cache.SETTING, compiled_cache.CHOSEN_HERE)}
    code = ("import hashlib, os, shutil, sys\n"
            "def refuse(*a, **k): raise SystemExit('side effect')\n"
            "shutil.rmtree = hashlib.sha256 = refuse\n"
            "import nothanks\n"
            "print('numba' in sys.modules, os.environ.get('NUMBA_CACHE_DIR'))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "False None"


def test_without_a_writable_package_the_users_cache_folder_holds_it(tmp_path, monkeypatch):
    root = _package(tmp_path / "pkg")
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    monkeypatch.delenv(compiled_cache.SETTING, raising=False)
    monkeypatch.delenv(compiled_cache.CHOSEN_HERE, raising=False)
    monkeypatch.setattr(compiled_cache.os, "access", lambda path, mode: False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    folder = compiled_cache.use_versioned_cache(root)
    assert folder.parent == tmp_path / "xdg" / "nothanks" and folder.is_dir()
    # and without a home folder either, numba keeps its own choice: nothing is set
    monkeypatch.delenv(compiled_cache.SETTING)
    monkeypatch.delenv("XDG_CACHE_HOME")

    def no_home():
        raise RuntimeError("Could not determine home directory.")
    monkeypatch.setattr(compiled_cache.Path, "home", staticmethod(no_home))
    assert compiled_cache.use_versioned_cache(root) is None
    assert compiled_cache.SETTING not in os.environ


@pytest.mark.parametrize("after, said", [(0.0, compiled_cache.COMPILING + "\n"),
                                         (3600.0, "")])
def test_compiling_longer_than_the_limit_is_said_once(monkeypatch, after, said):
    """Two fresh compilations (numba's events), a limit below their time: one line; a
    limit above it: none."""
    import io

    numba = pytest.importorskip("numba")
    stream = io.StringIO()
    monkeypatch.setattr(compiled_cache, "_announcer", None)
    monkeypatch.setattr(compiled_cache, "ANNOUNCE_AFTER_SECONDS", after)
    compiled_cache.announce_compiling(stream)

    @numba.njit
    def plus_one(x):
        return x + 1

    @numba.njit
    def twice(x):
        return 2 * plus_one(x)

    assert twice(3) == 8 and plus_one(1.5) == 2.5  # three compilations, two nested
    assert stream.getvalue() == said


def test_the_command_line_says_when_it_compiles(monkeypatch):
    from nothanks.cli import main
    monkeypatch.setattr(compiled_cache, "_announcer", None)
    assert main(["agents"]) == 0
    assert compiled_cache._announcer is not None  # the next compilation is timed
