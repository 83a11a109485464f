"""Move quality: one graded row per logged decision, cached, and its summaries."""
from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import nothanks.analysis
import nothanks.search
from nothanks.analysis import AnalysisInputError
from nothanks.analysis.move_quality import (
    ev_loss_table,
    marked_bad_test,
    quality_section,
    skip_to_collect,
)
from nothanks.experiments import Design, load, run_design
from nothanks.play import ReplayError
from nothanks.studies.move_quality import move_quality

BUDGET = 24


@pytest.fixture(scope="module")
def two_games(tmp_path_factory):
    design = Design.from_dict({
        "name": "quality-mini", "seed": 5, "games": 2, "rotate": True,
        "tables": [{"label": "ToM1 vs ToM0", "players": ["tom0", "tom0", "tom0", "tom1"],
                    "focal": 3}]})
    out = tmp_path_factory.mktemp("logs") / "mini"
    run_design(design, out, jobs=1, progress=False)
    return load(out)


def test_one_row_per_decision_with_finite_estimates(two_games, tmp_path):
    quality = move_quality(two_games, iterations=BUDGET, cache=tmp_path)
    decisions = two_games.decisions
    assert len(quality) == len(decisions) and quality["game_id"].nunique() == 2
    assert (quality[["game_id", "turn"]].to_numpy()
            == decisions.sort_values(["game_id", "turn"])[["game_id", "turn"]]
            .to_numpy()).all()
    assert np.isfinite(quality[["take_rp", "take_rp_se", "take_score", "take_score_se"]]
                       .to_numpy(float)).all()
    free = quality[~quality["forced"].astype(bool)]
    assert np.isfinite(free[["pass_rp", "pass_rp_se", "gap_rp_se"]].to_numpy(float)).all()
    assert (quality["loss_rp"] >= 0).all() and (quality["loss_score"] >= 0).all()
    chosen_worse = free["gap_rp"] < 0
    assert (free.loc[chosen_worse, "best"] != free.loc[chosen_worse, "action"]).all()
    assert (quality["search_iterations"] == BUDGET).all()
    assert set(quality["source"]) == {"simulation"}


def test_rerun_reads_the_cache(two_games, tmp_path, monkeypatch):
    first = move_quality(two_games, iterations=BUDGET, cache=tmp_path)
    assert len(list(tmp_path.glob("move-quality-*.parquet"))) == 1

    def no_search(*args, **kwargs):
        raise AssertionError("a cached decision was searched again")

    monkeypatch.setattr(nothanks.search, "search", no_search)
    again = move_quality(two_games, iterations=BUDGET, cache=tmp_path)
    pd.testing.assert_frame_equal(first, again)
    with pytest.raises(AssertionError, match="searched again"):  # other settings: new file
        move_quality(two_games, iterations=BUDGET, seed=1, cache=tmp_path)


def test_a_broken_game_is_named(two_games):
    decisions = two_games.decisions
    broken = decisions.drop(decisions.index[5])
    with pytest.raises(ReplayError, match=r"turn 6: turn: logged 6, replayed 5"):
        move_quality(two_games, decisions=broken, iterations=BUDGET)


def test_summaries_and_section(two_games, tmp_path):
    quality = move_quality(two_games, iterations=BUDGET, cache=tmp_path)
    table = ev_loss_table(quality)
    assert set(table["agent_label"]) == {"ToM0", "ToM1"}
    assert (table["loss_rp_ci_low"] <= table["loss_rp"]).all()
    assert ((table["costly_ci_low"] <= table["costly_share"])
            & (table["costly_share"] <= table["costly_ci_high"])).all()
    skips = skip_to_collect(quality)
    assert set(skips["label"]) <= {"ToM1"}
    assert "| ToM1 |" in quality_section(quality)


def test_marked_bad_test_finds_a_planted_difference():
    rng = np.random.default_rng(0)
    n = 400
    marked = rng.random(n) < 0.2
    frame = pd.DataFrame({
        "participant": rng.choice(["P1", "P2", "P3", "P4"], n),
        "marked_bad": pd.array(marked, dtype="boolean"),
        "loss_rp": np.where(marked, 0.3, 0.05) + rng.exponential(0.05, n),
        "loss_score": 0.0, "forced": False, "source": "participants"})
    row = marked_bad_test(frame).iloc[0]
    assert row["marked"] == marked.sum() and row["participants"] == 4
    assert row["ci_low"] > 0.15 and row["ci_high"] < 0.35 and row["cohens_d"] > 1
    assert row["mannwhitney_p"] < 1e-6 and math.isclose(row["difference"],
                                                        row["marked_loss"] - row["unmarked_loss"])
    # cluster-robust SEs with a t reference on participants - 1 df (issue 26 §4e)
    from scipy import stats
    assert row["df"] == 3
    assert row["p"] == pytest.approx(2 * stats.t.sf(abs(row["t"]), 3), rel=1e-6)
    with pytest.raises(AnalysisInputError, match="need at least 2 of each"):
        marked_bad_test(frame.assign(marked_bad=pd.array([False] * n, dtype="boolean")))


def test_the_analysis_imports_the_search_only_inside_functions():
    """``import nothanks.analysis`` stays light: no module-level import of the search
    (or numba) in any analysis module."""
    folder = Path(nothanks.analysis.__file__).parent
    for path in folder.glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                    [a.name for a in node.names]
                names += [a.name for a in node.names]
                assert not any("search" in n or "numba" in n for n in names), (path, names)
