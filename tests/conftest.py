"""Shared test settings and fixtures."""
from pathlib import Path

import pytest
from hypothesis import settings

from nothanks.experiments import run_design

from helpers import TOM2_MINI

settings.register_profile("ci", max_examples=60, deadline=None)
settings.load_profile("ci")


@pytest.fixture(scope="session")
def quick_figures(tmp_path_factory) -> Path:
    """One ``nothanks figures --quick`` build (``out/``, ``cache/``) shared by the tests
    that read it (never modify it; build again into another folder instead)."""
    from nothanks.cli import main
    root = tmp_path_factory.mktemp("quick-figures")
    assert main(["figures", "--quick", "--out", str(root / "out"), "--cache",
                 str(root / "cache"), "--jobs", "1", "--no-progress"]) == 0
    return root


@pytest.fixture(scope="session")
def tom2_log(tmp_path_factory) -> Path:
    """The log of :data:`helpers.TOM2_MINI` (never modify it: copy it with ``copy_log``)."""
    out = tmp_path_factory.mktemp("tom2") / "mini"
    run_design(TOM2_MINI, out, jobs=1, progress=False)
    return out


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
