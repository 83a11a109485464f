"""Part files are written for speed (snappy, no statistics) and read with one-file
readers; these tests hold the values to what the schema built, the merged tables to the
kept format, a damaged footer to a clear error, and the parts' removal to completeness."""
from __future__ import annotations

import io

import pyarrow.parquet as pq
import pytest

from nothanks.experiments import Design, run_design
from nothanks.experiments.design import Table
from nothanks.experiments.rows import LogContext, LogRows
from nothanks.experiments.schema import KEEP, LogError, parquet_bytes, read_table, to_arrow
from nothanks.experiments.store import PARTS
from nothanks.experiments.workers import build_agents, play_chunk
from nothanks.match import Match
from nothanks.rules import Variant

SMALL = Design(name="rows-fast", seed=7, games=3, variant=Variant(removed=20), tables=(
    Table("random", ("random",) * 4, 0),
    Table("mixed", ("random", "heuristic", "random", "heuristic"), 1)))
#: Models too: every row table gets rows (predictions, recalls).
MODELS = Design(name="rows-fast-models", seed=3, games=2, variant=Variant(removed=20),
                tables=(Table("tom", ("tom2", "tom1", "tom0", "random"), 0),))


def _codecs_and_statistics(data: bytes) -> tuple[set[str], bool]:
    meta = pq.read_metadata(io.BytesIO(data))
    columns = [meta.row_group(g).column(c) for g in range(meta.num_row_groups)
               for c in range(meta.num_columns)]
    return {c.compression for c in columns}, any(c.is_stats_set for c in columns)


@pytest.mark.parametrize("design", [SMALL, MODELS], ids=["baselines", "models"])
def test_part_bytes_read_back_as_the_schema_built_them(design):
    context = LogContext(design.name, design.hash)
    parts = play_chunk(design, 0, design.total_games, context)
    rows = LogRows(context, design)  # the same games again, kept as columns
    for plan in design.plan(0, design.total_games):
        agents = build_agents(design, plan.condition)
        rows.add_game(plan, Match([agents[r] for r in plan.roles], design.variant, plan.seed,
                                  game_id=plan.position).run())
    for table, data in parts.items():
        if design is SMALL and table in ("predictions", "recalls"):
            assert pq.read_metadata(io.BytesIO(data)).num_rows == 0
            continue
        columns = {k: [v] * len(rows.columns[table]["game_id"]) for k, v in
                   zip(LogRows.CONSTANT, (design.name, design.hash, None, False), strict=True)}
        built = to_arrow(table, columns | rows.columns[table])
        back = pq.read_table(io.BytesIO(data))
        assert back.num_rows == built.num_rows > 0
        assert back.equals(built)
        assert back.schema.metadata == built.schema.metadata
        # the same content as a kept file: only the encoding differs
        kept = pq.read_table(io.BytesIO(parquet_bytes(built, KEEP)))
        assert kept.equals(back) and kept.schema.equals(back.schema, check_metadata=True)
        assert _codecs_and_statistics(data) == ({"SNAPPY"}, False)


def test_merged_tables_are_zstd_with_statistics_and_hold_every_part(tmp_path):
    out = tmp_path / "run"
    run_design(SMALL, out, jobs=1, chunk_size=2, progress=False)
    assert not (out / PARTS).exists()
    for table in ("games", "decisions"):
        codecs, statistics = _codecs_and_statistics((out / f"{table}.parquet").read_bytes())
        assert codecs == {"ZSTD"} and statistics
        merged = read_table(out / f"{table}.parquet", table)
        assert sorted(set(merged.column("game_id").to_pylist())) == list(
            range(SMALL.total_games))


def test_a_file_with_a_damaged_footer_is_a_log_error(tmp_path):
    context = LogContext(SMALL.name, SMALL.hash)
    data = bytearray(play_chunk(SMALL, 0, 1, context)["games"])
    at = data.index(b"rank_points")  # a column name in the metadata, made invalid UTF-8
    data[at:at + 2] = b"\x91\x92"
    path = tmp_path / "part.parquet"
    path.write_bytes(bytes(data))
    with pytest.raises(LogError, match="cannot be read as Parquet"):
        read_table(path, "games")
