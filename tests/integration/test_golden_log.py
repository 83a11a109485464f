"""Behaviour lock: a fresh run of the golden design, a participant session, a simulate
run and the quick figure tables equal the committed golden tables frame for frame."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _golden_module():
    spec = importlib.util.spec_from_file_location("make_golden", GOLDEN / "make_golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def produced(tmp_path_factory, quick_figures) -> dict[str, pd.DataFrame]:
    return _golden_module().produce(tmp_path_factory.mktemp("golden"), quick_figures / "out")


def test_every_golden_table_is_produced(produced):
    committed = {p.stem for p in (GOLDEN / "tables").glob("*.parquet")}
    assert committed == set(produced)
    assert len(committed) >= 20


@pytest.mark.parametrize("name", sorted(p.stem for p in (GOLDEN / "tables").glob("*.parquet")))
def test_table_matches_golden(produced, name):
    expected = pd.read_parquet(GOLDEN / "tables" / f"{name}.parquet")
    assert len(expected) > 0, f"golden table {name} is empty"
    frame = produced[name]
    missing = [c for c in expected.columns if c not in frame.columns]
    assert not missing, f"{name}: golden columns no longer produced: {missing}"
    # columns added since the golden log was made are new information, not a change
    pd.testing.assert_frame_equal(frame[list(expected.columns)], expected, check_dtype=False)
