"""The experiment runner: worker-count independence, Dask, agent reset, resume, refusal."""
from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import distributed
import pandas as pd
import pytest

from nothanks.cli import main
from nothanks.experiments import (
    Design,
    LogContext,
    LogError,
    load,
    load_design,
    play_chunk,
    run_design,
)
from nothanks.experiments.design import Table
from nothanks.experiments.store import PARTS, RECEIPTS, ExperimentDir

from helpers import TOM2_MINI

ROOT = Path(__file__).resolve().parents[2]
#: A small cognitive design: token memory, predictions and recalls are all exercised.
TOM = Design(name="tom-mini", seed=3, games=3, tables=(
    Table("ToM1 vs ToM0", ("tom0", "tom0", "tom0", "tom1"), 3),
    Table("ToM2 vs ToM1", ("tom1", "tom1", "tom1", "tom2"), 3),
))


def frames(directory: Path) -> dict[str, pd.DataFrame]:
    """The log's row tables, without per-run metadata (times, code version)."""
    data = load(directory)
    return {name: data.tables()[name] for name in ("games", "decisions", "predictions",
                                                   "recalls", "conditions")}


def assert_same_log(a: Path, b: Path) -> None:
    fa, fb = frames(a), frames(b)
    for name in fa:
        pd.testing.assert_frame_equal(fa[name], fb[name], obj=name)


@pytest.fixture(scope="module")
def smoke_serial(tmp_path_factory):
    out = tmp_path_factory.mktemp("serial") / "smoke"
    run_design("smoke", out, jobs=1, progress=False)
    return out


def test_smoke_log_has_every_game_and_the_simulate_columns(smoke_serial):
    from nothanks.experiments.rows import DECISION_COLUMNS, GAME_COLUMNS
    data = load(smoke_serial)
    assert set(GAME_COLUMNS) <= set(data.games.columns)
    assert set(DECISION_COLUMNS) <= set(data.decisions.columns)
    assert sorted(data.games.game_id.unique()) == list(range(12))
    assert (data.games.groupby("game_id").rank_points.sum() == 6).all()
    assert data.experiments.status.tolist() == ["complete"]
    # the focal (heuristic/always-pass) player sits at every seat over a condition's games
    focal = data.games[data.games.focal]
    assert set(focal.agent) == {"heuristic", "always-pass"} and len(focal) == 12
    assert sorted(focal[focal.condition == 0].seat) == [1, 2, 3]


def test_two_processes_give_the_same_log_as_one(tmp_path, smoke_serial):
    run_design("smoke", tmp_path / "two", jobs=2, chunk_size=2, progress=False)
    assert_same_log(smoke_serial, tmp_path / "two")


def test_dask_run_from_the_command_line_matches_local(tmp_path, smoke_serial):
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        assert main(["run", "smoke", "--out", str(tmp_path / "cli"), "--no-progress",
                     "--dask", cluster.scheduler_address]) == 0
    assert_same_log(smoke_serial, tmp_path / "cli")


def test_a_study_runs_its_designs_on_a_dask_scheduler(tmp_path):
    """``nothanks studies NAME --scheduler ADDRESS`` plays the study's designs on the
    cluster (the run's manifest records the backend) and writes only that study."""
    from nothanks.experiments.store import read_manifest
    cache = tmp_path / "cache"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        assert main(["studies", "higher-orders", "--games", "2", "--out",
                     str(tmp_path / "out"), "--cache", str(cache), "--no-progress",
                     "--scheduler", cluster.scheduler_address]) == 0
    [run] = cache.glob("higher-orders-*")
    assert [r["backend"] for r in read_manifest(run)["runs"]] == ["dask"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["README.md",
                                                                   "higher-orders"]
    assert (tmp_path / "out" / "higher-orders" / "tables" / "higher_orders.csv").is_file()


def test_table7s_control_table_leaves_the_thesis_tables_games_unchanged(tmp_path):
    """The control ToM1 vs 3 x ToM1 comes last in table7, so its first three tables play
    the games the design played without it: game for game, decision for decision (only
    the design's hash, which names the design, differs). At 3 games per table here; at
    2,000 the rebuilt thesis tables equal the committed ones (docs/benchmarks.md)."""
    table7 = load_design("table7").with_options(games=3)
    before = table7.with_options(tables=table7.tables[:3])
    assert table7.tables[3].players == ("tom1",) * 4
    run_design(table7, tmp_path / "now", jobs=1, progress=False)
    run_design(before, tmp_path / "before", jobs=1, progress=False)
    now, old = frames(tmp_path / "now"), frames(tmp_path / "before")
    for name in ("games", "decisions", "predictions", "recalls"):
        kept = now[name][now[name]["condition"] < 3] if "condition" in now[name] else \
            now[name][now[name]["game_id"] < before.total_games]
        assert len(kept) == len(old[name]) > 0, name
        pd.testing.assert_frame_equal(
            kept.drop(columns=["design_hash"], errors="ignore").reset_index(drop=True),
            old[name].drop(columns=["design_hash"], errors="ignore"), obj=name)


def test_dask_local_cluster_gives_the_same_log(tmp_path):
    run_design(TOM, tmp_path / "local", jobs=1, chunk_size=6, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        run_design(TOM, tmp_path / "dask", client=client, chunk_size=2, progress=False)
    assert_same_log(tmp_path / "local", tmp_path / "dask")
    data = load(tmp_path / "dask")
    assert len(data.predictions) > 0 and len(data.recalls) > 0
    assert data.predictions.correct.notna().any()


def test_a_game_depends_only_on_its_position_agents_are_fully_reset():
    """Games 4-5 played by agents that just played games 0-5 (reused, as workers do)
    equal games 4-5 played by freshly built agents."""
    import io

    import nothanks.experiments.workers as run_module
    context = LogContext("tom-mini", TOM.hash)
    run_module._worker.__dict__.clear()
    fresh = play_chunk(TOM, 4, 6, context)
    whole = play_chunk(TOM, 0, 6, context)
    reused = play_chunk(TOM, 4, 6, context)  # the cached agents have played games 0-5

    def read(b: bytes) -> pd.DataFrame:
        return pd.read_parquet(io.BytesIO(b))

    for table in ("games", "decisions", "predictions", "recalls"):
        a = read(whole[table])
        a = a[a.game_id >= 4].reset_index(drop=True)
        pd.testing.assert_frame_equal(a, read(fresh[table]), obj=table)
        pd.testing.assert_frame_equal(read(reused[table]), read(fresh[table]), obj=table)


def test_resume_after_deleting_parts_plays_exactly_the_missing_games(tmp_path, smoke_serial):
    out = tmp_path / "resume"
    design = load_design("smoke")
    directory = ExperimentDir.open(out, design, 2)
    directory.begin_run()
    context = LogContext(design.name, design.hash)
    for start, stop in directory.chunks()[:4]:  # an interrupted run: 4 of 6 chunks
        directory.write_chunk(start, stop, play_chunk(design, start, stop, context))
    # and a chunk interrupted before its games part and its receipt (which marks
    # completion) were written
    directory.write_chunk(8, 10, play_chunk(design, 8, 10, context))
    (out / PARTS / "games" / "part-000000008-000000010.parquet").unlink()
    (out / PARTS / RECEIPTS / "part-000000008-000000010.json").unlink()
    with pytest.raises(LogError, match="4 of 12 games are missing"):
        load(out)
    assert len(load(out, allow_incomplete=True).games) == 8 * 4
    summary = run_design("smoke", out, jobs=1, progress=False)
    assert (summary.played, summary.skipped) == (4, 8)
    assert_same_log(smoke_serial, out)
    again = run_design("smoke", out, jobs=1, progress=False)
    assert again.played == 0
    assert load(out).experiments.runs.tolist() == [3]


def test_killed_run_resumes_to_the_same_log(tmp_path):
    """Kill a real `nothanks run` mid-run (SIGKILL: no cleanup), then re-run it."""
    design = tmp_path / "slow.toml"
    design.write_text('name = "slow"\nseed = 4\ngames = 12\n[[tables]]\nlabel = "ToM1"\n'
                      'players = ["tom1", "tom1", "tom1", "tom1"]\n')
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "nothanks", "run", str(design), "--out", str(out),
               "--jobs", "1", "--chunk-size", "1", "--no-progress"]
    proc = subprocess.Popen(command, cwd=ROOT)
    parts = out / PARTS / "games"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(parts.glob("*.parquet"))) < 2:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = len(list(parts.glob("*.parquet")))
    assert 2 <= done < 12, "the run should have been killed part-way"
    assert main(["run", str(design), "--out", str(out), "--jobs", "2", "--no-progress"]) == 0
    reference = tmp_path / "reference"
    summary = run_design(design, reference, jobs=1, chunk_size=12, progress=False)
    assert summary.played == 12
    assert_same_log(reference, out)
    assert not (out / PARTS).exists()  # merged into one file per table


def test_a_different_design_is_refused_in_a_used_directory(tmp_path, smoke_serial, capsys):
    with pytest.raises(LogError, match="holds experiment 'smoke' .* not 'tom-mini'"):
        run_design(TOM, smoke_serial, progress=False)
    assert main(["run", "smoke", "--out", str(smoke_serial), "--seed", "9"]) == 2
    assert "write it to another directory" in capsys.readouterr().err
    (tmp_path / "junk.txt").write_text("x")
    with pytest.raises(LogError, match="is not empty and has no manifest.json"):
        run_design("smoke", tmp_path, progress=False)


def test_in_flight_chunks_are_bounded(monkeypatch):
    """The pool never holds more than `in_flight` chunks: memory is flat in the design's
    size (a fake executor records submissions; results are consumed one by one)."""
    import concurrent.futures as cf

    from nothanks.experiments import backends
    from nothanks.experiments.backends import execute
    submitted: list[tuple[int, int]] = []

    class Recording:
        def __enter__(self):
            return self

        def __exit__(self, *error):
            return False

        def submit(self, fn, design, start, stop, *args):
            submitted.append((start, stop))
            future = cf.Future()
            future.set_result({"games": b""})
            return future

    monkeypatch.setattr(backends, "worker_pool", lambda workers, **options: Recording())
    design = load_design("smoke")
    chunks = [(g, g + 1) for g in range(12)]
    consumed = 0
    for _ in execute(chunks, design, None, False, jobs=2, client=None, in_flight=3):
        consumed += 1
        assert len(submitted) - consumed <= 3
    assert consumed == 12 and sorted(submitted) == chunks


def test_human_designs_need_a_stand_in_to_run(tmp_path, capsys):
    assert main(["run", "human-schedule", "--out", str(tmp_path / "h")]) == 2
    assert "seats a human; play it with a ParticipantSession" in capsys.readouterr().err


def test_cli_list_and_export(tmp_path, smoke_serial, capsys):
    assert main(["run", "--list"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in ("table7", "figure14", "human-schedule", "smoke"))
    assert main(["export", str(smoke_serial), "--csv", str(tmp_path / "csv")]) == 0
    decisions = pd.read_csv(tmp_path / "csv" / "decisions.csv")
    assert len(decisions) == len(load(smoke_serial).decisions)
    assert decisions.cards_before.iloc[-1].startswith("[")


def test_shipped_cognitive_designs_run_for_real(tmp_path):
    """table7 and figure14, cut to a game or two per condition, through the CLI."""
    assert main(["run", "table7", "--games", "2", "--out", str(tmp_path / "t7"), "--jobs",
                 "2", "--no-progress"]) == 0
    t7 = load(tmp_path / "t7")
    focal = t7.games[t7.games.focal]
    assert focal.agent.tolist() == ["tom1", "tom1", "tom2", "tom2", "tom2", "tom2", "tom1",
                                    "tom1"]  # the last two: the control ToM1 vs 3 x ToM1
    assert t7.predictions.source.isin(["leaf", "root", "default"]).all()
    models = t7.decisions[t7.decisions.agent != "tom0"]
    assert models.tom_order.isin([1, 2]).all() and models.reason.notna().all()
    assert main(["run", "figure14", "--games", "1", "--out", str(tmp_path / "f14"),
                 "--jobs", "2", "--no-progress"]) == 0
    f14 = load(tmp_path / "f14")
    games = f14.games.merge(f14.sweep()[["condition", "rt"]], on="condition")
    for row in games.itertuples():
        assert row.agent == "tom0" or row.agent.endswith(f":rt={row.rt}"), row
    assert games.rt.nunique() == 10 and len(games) == 30 * 4


def test_traces_are_logged_only_when_asked(tmp_path, smoke_serial):
    import json
    design = Design(name="traced", seed=1, games=1,
                    tables=(Table("t", ("tom0", "tom0", "tom0", "tom1"), 3),))
    run_design(design, tmp_path / "t", traces=True, jobs=1, progress=False)
    data = load(tmp_path / "t")
    assert len(data.traces) == len(data.decisions) > 0
    trace = json.loads(data.traces.trace.iloc[-1])
    assert {"nodes", "recalls", "model_time"} <= set(trace) and trace["nodes"]
    assert set(data.decisions.agent) == {"tom0", "tom1"}  # the spec is the design's
    assert len(load(smoke_serial).traces) == 0
    with pytest.raises(LogError, match="was started with --traces; resume it the same way"):
        run_design(design, tmp_path / "t", jobs=1, progress=False)


# ------------------------------------------------------------------ half-written parts
def test_a_half_written_part_left_by_a_kill_is_not_counted_and_resume_completes(tmp_path,
                                                                               tom2_log):
    out = tmp_path / "killed"
    directory = ExperimentDir.open(out, TOM2_MINI, 1)
    directory.begin_run()
    context = LogContext(TOM2_MINI.name, TOM2_MINI.hash)
    directory.write_chunk(0, 1, play_chunk(TOM2_MINI, 0, 1, context))
    # a kill during the atomic write of chunk 1's games part leaves only its temporary
    stray = out / PARTS / "games" / ".part-000000001-000000002.parquet.abc.tmp"
    stray.write_bytes(b"PAR1 half")
    assert directory.missing_chunks() == [(1, 2)]
    with pytest.raises(LogError, match="1 of 2 games are missing"):
        load(out)
    summary = run_design(TOM2_MINI, out, jobs=1, progress=False)
    assert (summary.played, summary.skipped) == (1, 1)
    for name in ("games", "decisions", "predictions", "recalls"):
        pd.testing.assert_frame_equal(getattr(load(out), name), getattr(load(tom2_log), name),
                                      obj=name)


# --- parameters logged for preset specs ------------------------------------------------
def test_a_preset_spec_logs_the_presets_values_not_only_its_name(tmp_path):
    import json

    from nothanks.agents.spec import load_preset
    from nothanks.experiments.design import Design, Table
    design = Design(name="preset-log", games=1, tables=(
        Table("fit", ("tom1:preset=thesis-fit", "random", "random", "random"), 0),))
    run_design(design, tmp_path / "run", jobs=1, progress=False)
    logged = json.loads(load(tmp_path / "run").experiments.parameters.iloc[0])
    values = logged["tom1:preset=thesis-fit"]
    assert values["preset"] == "thesis-fit"
    assert float(values["s"]) == float(load_preset("thesis-fit").params["s"])
