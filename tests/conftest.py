"""Shared test settings and fixtures."""
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import settings

from nothanks.experiments import run_design

from helpers import LONGEST_FIRST, TOM2_MINI

settings.register_profile("ci", max_examples=60, deadline=None)
settings.load_profile("ci")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the files in ``helpers.LONGEST_FIRST`` order (``make test``'s balance of its two
    processes), then the others as collected; a file's own tests keep their order."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
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
    """One ``nothanks figures --quick`` build (``out/``) and one ``nothanks studies
    --quick`` build (``out/studies/``, as ``make studies`` writes figures/studies), on one
    cache (``cache/``), shared by the tests that read them (never modify them; build again
    into another folder instead)."""
    from nothanks.cli import main

    def build(root: Path) -> None:
        for command, out in (("figures", root / "out"), ("studies", root / "out" / "studies")):
            assert main([command, "--quick", "--out", str(out), "--cache",
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
