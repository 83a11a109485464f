"""Shared test settings and fixtures."""
from pathlib import Path

import pytest
from hypothesis import settings

from nothanks.experiments import run_design

from helpers import TOM2_MINI

settings.register_profile("ci", max_examples=60, deadline=None)
settings.load_profile("ci")


@pytest.fixture(scope="session")
def tom2_log(tmp_path_factory) -> Path:
    """The log of :data:`helpers.TOM2_MINI` (never modify it: copy it with ``copy_log``)."""
    out = tmp_path_factory.mktemp("tom2") / "mini"
    run_design(TOM2_MINI, out, jobs=1, progress=False)
    return out
