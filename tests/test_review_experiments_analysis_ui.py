"""Review of issues 5-7: nothing in a log is silently lost (dropped decision, game or
prediction rows are rejected on load with the file, game and what was expected)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nothanks.experiments import LogError, load, run_design
from nothanks.experiments.design import Design, Table

#: Two games with a ToM2 focal: decisions, predictions and recalls all have rows.
MINI = Design(name="review-mini", seed=3, games=2,
              tables=(Table("ToM2 vs ToM0", ("tom0", "tom0", "tom0", "tom2"), 3),))


@pytest.fixture(scope="module")
def logged(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("review") / "mini"
    run_design(MINI, out, jobs=1, progress=False)
    return out


@pytest.fixture
def copy(logged, tmp_path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(logged, target)
    return target


def rewrite(path: Path, change) -> None:
    pq.write_table(change(pq.read_table(path)), path)


def without_row(row: int):
    return lambda t: pa.concat_tables([t.slice(0, row), t.slice(row + 1)])


def test_the_untouched_log_loads_with_predictions(logged):
    data = load(logged)
    assert len(data.games) == 8 and len(data.predictions) > 0
    assert len(data.decisions) == data.games.groupby("game_id").turns.first().sum()


def test_a_dropped_decision_row_is_rejected(copy):
    rewrite(copy / "decisions.parquet", without_row(10))
    with pytest.raises(LogError, match=r"decisions.*rows for game 0, whose games row says "
                                       r"turns=\d+; decision rows are missing"):
        load(copy)


def test_a_dropped_player_row_of_a_game_is_rejected(copy):
    rewrite(copy / "games.parquet", lambda t: t.slice(0, t.num_rows - 1))
    with pytest.raises(LogError, match="games table has 3 of 4 seat rows for game 1"):
        load(copy)


@pytest.mark.parametrize("change", [
    without_row(0), lambda t: pa.concat_tables([t, t.slice(0, 1)])], ids=["dropped", "twice"])
def test_a_dropped_or_duplicated_prediction_row_is_rejected(copy, change):
    rewrite(copy / "predictions.parquet", change)
    with pytest.raises(LogError, match=r"predictions table has \d+ rows for game \d+ turn "
                                       r"\d+, whose decision says predictions=\d+"):
        load(copy)


def test_a_failed_atomic_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path,
                                                                         monkeypatch):
    import os

    from nothanks.io import atomic_write_bytes
    target = tmp_path / "games.parquet"
    atomic_write_bytes(b"old", target)

    def crash(*args):
        raise KeyboardInterrupt  # Ctrl-C between writing and renaming
    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(b"new and longer", target)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["games.parquet"]


def test_a_half_written_part_left_by_a_kill_is_not_counted_and_resume_completes(tmp_path,
                                                                               logged):
    from nothanks.experiments.store import PARTS, ExperimentDir
    from nothanks.experiments import LogContext, play_chunk
    out = tmp_path / "killed"
    directory = ExperimentDir.open(out, MINI, 1)
    directory.begin_run()
    context = LogContext(MINI.name, MINI.hash)
    directory.write_chunk(0, 1, play_chunk(MINI, 0, 1, context))
    # a kill during the atomic write of chunk 1's games part leaves only its temporary
    stray = out / PARTS / "games" / ".part-000000001-000000002.parquet.abc.tmp"
    stray.write_bytes(b"PAR1 half")
    assert directory.missing_chunks() == [(1, 2)]
    with pytest.raises(LogError, match="1 of 2 games are missing"):
        load(out)
    summary = run_design(MINI, out, jobs=1, progress=False)
    assert (summary.played, summary.skipped) == (1, 1)
    for name in ("games", "decisions", "predictions", "recalls"):
        pd.testing.assert_frame_equal(getattr(load(out), name), getattr(load(logged), name),
                                      obj=name)
