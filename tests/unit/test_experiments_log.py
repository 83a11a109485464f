"""The decision log: strict validation on read, derived columns, documentation."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nothanks.experiments import TABLES, LogError, load, run_design, schema_markdown
from nothanks.experiments.design import Design, Table
from nothanks.experiments.schema import SCHEMA_VERSION, check_table, read_table
from nothanks.files import atomic_write_bytes

from helpers import copy_log

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def smoke(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("log") / "smoke"
    run_design("smoke", out, jobs=1, progress=False)
    return out


@pytest.fixture
def copy(smoke, tmp_path) -> Path:
    return copy_log(smoke, tmp_path)


def rewrite(path: Path, change) -> None:
    table = pq.read_table(path)
    pq.write_table(change(table), path)


def test_truncated_file_is_rejected_with_its_name(copy):
    data = (copy / "decisions.parquet").read_bytes()
    (copy / "decisions.parquet").write_bytes(data[: len(data) // 2])
    with pytest.raises(LogError, match=r"decisions.parquet: cannot be read as Parquet "
                                       r"\(truncated or corrupted\?\)"):
        load(copy)


def test_missing_column_is_named_with_the_expected_type(copy):
    rewrite(copy / "games.parquet", lambda t: t.drop_columns(["score"]))
    with pytest.raises(LogError, match="games.parquet: missing column 'score' "
                                       r"\(expected type int16"):
        load(copy)


def test_wrong_type_is_named(copy):
    def to_float(t: pa.Table) -> pa.Table:
        i = t.schema.get_field_index("card")
        return t.set_column(i, pa.field("card", pa.float64()), t.column(i).cast(pa.float64()))
    rewrite(copy / "decisions.parquet", to_float)
    with pytest.raises(LogError, match="column 'card' has type double, expected int8"):
        load(copy)


def test_unknown_schema_version_is_refused(copy):
    def bump(t: pa.Table) -> pa.Table:
        meta = dict(t.schema.metadata)
        meta[b"nothanks.schema_version"] = b"99"
        return t.replace_schema_metadata(meta)
    rewrite(copy / "games.parquet", bump)
    with pytest.raises(LogError, match=f"schema version '99' is unknown; this nothanks reads "
                                       f"version {SCHEMA_VERSION}"):
        load(copy)


def test_null_in_a_required_column_names_the_row(copy):
    def null_action(t: pa.Table) -> pa.Table:
        i = t.schema.get_field_index("action")
        values = t.column(i).to_pylist()
        values[5] = None
        return t.set_column(i, t.schema.field(i).with_nullable(True), pa.array(values))
    rewrite(copy / "decisions.parquet", null_action)
    with pytest.raises(LogError, match="column 'action' row 5 is null"):
        load(copy)


def test_invalid_category_value_is_named(copy):
    def bad(t: pa.Table) -> pa.Table:
        i = t.schema.get_field_index("action")
        values = t.column(i).to_pylist()
        values[0] = "fold"
        return t.set_column(i, t.schema.field(i), pa.array(values))
    rewrite(copy / "decisions.parquet", bad)
    with pytest.raises(LogError, match=r"column 'action' has value\(s\) \['fold'\]; valid: "
                                       "take, pass"):
        load(copy)


def test_a_file_of_another_experiment_is_rejected(copy, tmp_path):
    other = tmp_path / "other"
    design = Design(name="other", games=2, tables=(Table("x", ("random",) * 4),))
    run_design(design, other, jobs=1, progress=False)
    shutil.copy(other / "games.parquet", copy / "games.parquet")
    with pytest.raises(LogError, match="table 'games' has rows from another experiment"):
        load(copy)


def test_a_table_in_the_wrong_file_is_rejected(copy):
    shutil.copy(copy / "recalls.parquet", copy / "predictions.parquet")
    with pytest.raises(LogError, match="holds the 'recalls' table, expected 'predictions'"):
        load(copy)


def test_duplicated_games_are_rejected(copy):
    rewrite(copy / "games.parquet", lambda t: pa.concat_tables([t, t.slice(0, 4)]))
    with pytest.raises(LogError, match="duplicates game 0 seat 0"):
        load(copy)


def test_a_foreign_parquet_file_without_schema_version_is_rejected(tmp_path):
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"a": [1]}), path)
    with pytest.raises(LogError, match="no schema version in the file metadata"):
        read_table(path, "games")


def test_extra_columns_are_not_silently_accepted(smoke):
    table = read_table(smoke / "games.parquet", "games").append_column("x", pa.array(
        [0] * 48))
    with pytest.raises(LogError, match=r"unexpected column\(s\) \['x'\]"):
        check_table(table, "games", "games.parquet")


def test_loading_a_folder_of_experiments_concatenates_them(smoke, tmp_path):
    folder = tmp_path / "many"
    shutil.copytree(smoke, folder / "a")
    run_design(Design(name="other", games=2, tables=(Table("x", ("random",) * 4),)),
               folder / "b", jobs=1, progress=False)
    data = load(folder)
    assert set(data.experiments.experiment) == {"smoke", "other"}
    assert len(data.games) == 48 + 8


def test_sweep_values_become_columns(smoke):
    sweep = load(smoke).sweep()
    assert sweep["p"].tolist() == [0.3, 0.7, 0.3, 0.7]


def test_readme_documents_every_column_of_every_table():
    readme = (ROOT / "data" / "README.md").read_text()
    assert schema_markdown() in readme, "run python -c 'from nothanks.experiments import " \
                                        "schema_markdown; print(schema_markdown())' and paste"
    for table, columns in TABLES.items():
        for column in columns:
            assert f"| `{column.name}` |" in readme, (table, column.name)


# ------------------------------------------------------------------ missing or extra rows
@pytest.fixture
def tom2_copy(tom2_log, tmp_path) -> Path:
    return copy_log(tom2_log, tmp_path)


def without_row(row: int):
    return lambda t: pa.concat_tables([t.slice(0, row), t.slice(row + 1)])


def test_the_untouched_log_loads_with_predictions(tom2_log):
    data = load(tom2_log)
    assert len(data.games) == 8 and len(data.predictions) > 0
    assert len(data.decisions) == data.games.groupby("game_id").turns.first().sum()


def test_a_dropped_decision_row_is_rejected(tom2_copy):
    rewrite(tom2_copy / "decisions.parquet", without_row(10))
    with pytest.raises(LogError, match=r"decisions.*rows for game 0, whose games row says "
                                       r"turns=\d+; decision rows are missing"):
        load(tom2_copy)


def test_a_dropped_player_row_of_a_game_is_rejected(tom2_copy):
    rewrite(tom2_copy / "games.parquet", lambda t: t.slice(0, t.num_rows - 1))
    with pytest.raises(LogError, match="games table has 3 of 4 seat rows for game 1"):
        load(tom2_copy)


@pytest.mark.parametrize("change", [
    without_row(0), lambda t: pa.concat_tables([t, t.slice(0, 1)])], ids=["dropped", "twice"])
def test_a_dropped_or_duplicated_prediction_row_is_rejected(tom2_copy, change):
    rewrite(tom2_copy / "predictions.parquet", change)
    with pytest.raises(LogError, match=r"predictions table has \d+ rows for game \d+ turn "
                                       r"\d+, whose decision says predictions=\d+"):
        load(tom2_copy)


# ------------------------------------------------------------------ atomic writes
def test_a_failed_atomic_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path,
                                                                         monkeypatch):
    target = tmp_path / "games.parquet"
    atomic_write_bytes(b"old", target)

    def crash(*args):
        raise KeyboardInterrupt  # Ctrl-C between writing and renaming

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(b"new and longer", target)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["games.parquet"]
