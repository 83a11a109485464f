"""Shared test settings and fixtures."""
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import settings

from nothanks.experiments import run_design

from helpers import TOM2_MINI

settings.register_profile("ci", max_examples=60, deadline=None)
settings.load_profile("ci")

#: The longest test files, roughly longest first (seconds on 2 busy cores, fresh clone,
#: 2026-11-27: 164 + the quick_figures build, 65, 61, 122, 64, 48, 42, 41, 33, 32, 25,
#: 23). ``make test`` hands whole files to its two processes in collection order
#: (``--dist loadfile --no-loadscope-reorder``), so these go first and the short files
#: fill the gaps at the end: both processes finish within seconds of each other. (xdist's
#: own order, most tests first, left the two browser files for the end, one after the
#: other: a minute with one process idle.) The browser files need no ``quick_figures``
#: build: they run while the notebooks' process makes it, instead of waiting for it; and
#: by the time test_outputs_where_told copies numba's cache into its fresh repository, the
#: figures build and the notebooks have compiled the models' kernels into it (on a fresh
#: clone its commands would otherwise compile them again: 41 s instead of 22 s).
LONGEST_FIRST = (
    "test_notebooks.py", "test_web_session.py", "test_web_play.py",
    "test_outputs_where_told.py", "test_golden_log.py", "test_instance_sets.py",
    "test_agent_conformance.py", "test_docs.py", "test_bad_input.py",
    "test_random_kills.py", "test_calibrate.py", "test_counter_noise.py",
)
#: Files whose tests run JAX in the test process: last, so that no test forks a process
#: after JAX has started its threads in the same process (JAX warns: a fork may deadlock).
JAX_LAST = ("test_selfplay_learner.py", "test_selfplay_train.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the files in :data:`LONGEST_FIRST` order, then the others as collected, then
    :data:`JAX_LAST`; a file's own tests keep their order."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    rank |= {name: len(LONGEST_FIRST) + 1 + i for i, name in enumerate(JAX_LAST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))


def built_once(tmp_path_factory, worker_id: str, name: str,
               build: Callable[[Path], None]) -> Path:
    """A folder ``build(folder)`` fills once per test session, also when pytest-xdist
    spreads the session over processes (``make test``): the first worker to ask builds it
    under a file lock in the session's shared temporary folder, the others wait and
    reuse it. A build that failed leaves no completion mark, so the next asker retries."""
    if worker_id == "master":  # one process: a plain session fixture
        root = tmp_path_factory.mktemp(name)
        build(root)
        return root
    root = tmp_path_factory.getbasetemp().parent / name
    with FileLock(f"{root}.lock"):
        if not (root / ".built").exists():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            build(root)
            (root / ".built").touch()
    return root


@pytest.fixture(scope="session")
def quick_figures(tmp_path_factory, worker_id) -> Path:
    """One ``nothanks figures --quick`` build (``out/``, ``cache/``) shared by the tests
    that read it (never modify it; build again into another folder instead)."""
    from nothanks.cli import main

    def build(root: Path) -> None:
        assert main(["figures", "--quick", "--out", str(root / "out"), "--cache",
                     str(root / "cache"), "--jobs", "1", "--no-progress"]) == 0

    return built_once(tmp_path_factory, worker_id, "quick-figures", build)


@pytest.fixture(scope="session")
def tom2_log(tmp_path_factory, worker_id) -> Path:
    """The log of :data:`helpers.TOM2_MINI` (never modify it: copy it with ``copy_log``)."""

    def build(root: Path) -> None:
        run_design(TOM2_MINI, root / "mini", jobs=1, progress=False)

    return built_once(tmp_path_factory, worker_id, "tom2", build) / "mini"


@pytest.fixture
def counted(monkeypatch):
    """Counts the token-memory recalls answered from the kept rows (TokenMemory): the
    recalls that did not take the memory's own retrievals."""
    calls = [0]
    from nothanks.agents.cognitive import TokenMemory
    recall, retrieve = TokenMemory.recall, TokenMemory._retrieve

    def counting(self, seat, purpose="decide"):
        calls[0] += 1
        return recall(self, seat, purpose)

    def retrieving(self, seat, purpose):
        calls[0] -= 1
        return retrieve(self, seat, purpose)

    monkeypatch.setattr(TokenMemory, "recall", counting)
    monkeypatch.setattr(TokenMemory, "_retrieve", retrieving)
    return calls
