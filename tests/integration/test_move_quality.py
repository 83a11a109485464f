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
from nothanks.studies.move_quality import move_quality, sample_decisions

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


def _untrained(path: Path, players: int = 4, seed: int = 0) -> Path:
    from nothanks.search.network import NetworkConfig, init_weights, save_checkpoint
    config = NetworkConfig(players=players, hidden=16, layers=1)
    save_checkpoint(path, init_weights(config, seed), config, {"untrained": True})
    return path


def test_the_network_grader_fills_the_columns_and_reads_its_cache(two_games, tmp_path,
                                                                  monkeypatch):
    from nothanks.search.grading import ValueGrader
    checkpoint = _untrained(tmp_path / "net.npz")
    quality = move_quality(two_games, grader="network", checkpoint=checkpoint,
                           cache=tmp_path / "cache")
    assert len(quality) == len(two_games.decisions) and set(quality["grader"]) == {"network"}
    free = quality[~quality["forced"].astype(bool)]
    n = 4
    for column in ("take_rp", "pass_rp"):  # rank points n-1 .. 0
        assert ((free[column] >= 0) & (free[column] <= n - 1)).all()
    assert (quality["loss_rp"] >= 0).all() and quality["take_score"].isna().all()
    # EV(take) averages every unseen card (face down or removed: 9) as the next one, then
    # the pass position; on the last card the take's outcome is exact (the pass alone)
    last = free["cards_left"] == 0
    assert (free.loc[~last, "iterations"] == free.loc[~last, "cards_left"] + 9 + 1).all()
    assert (free.loc[last, "iterations"] == 1).all() and last.any()
    assert quality["search_checkpoint"].str.len().eq(64).all()
    assert "self-play value network" in quality_section(quality)
    assert ev_loss_table(quality)["loss_score"].isna().all()

    def no_network(*args, **kwargs):
        raise AssertionError("a cached decision was graded again")

    monkeypatch.setattr(ValueGrader, "values", no_network)
    again = move_quality(two_games, grader="network", checkpoint=checkpoint,
                         cache=tmp_path / "cache")
    pd.testing.assert_frame_equal(quality, again)


def test_the_cache_key_holds_the_grader_and_the_checkpoint(two_games, tmp_path):
    cache = tmp_path / "cache"
    one, two = _untrained(tmp_path / "a.npz", seed=1), _untrained(tmp_path / "b.npz", seed=2)
    first = move_quality(two_games, grader="network", checkpoint=one, cache=cache, games=1)
    second = move_quality(two_games, grader="network", checkpoint=two, cache=cache, games=1)
    move_quality(two_games, iterations=BUDGET, cache=cache, games=1)
    assert len(list(cache.glob("move-quality-*.parquet"))) == 3  # one file per grader/net
    assert not np.allclose(first["pass_rp"], second["pass_rp"], equal_nan=True)


def test_a_bad_grader_or_checkpoint_is_named(two_games, tmp_path):
    with pytest.raises(AnalysisInputError, match=r"grader='nn' is unknown; valid: 'ismcts', "
                                                  r"'network'"):
        move_quality(two_games, grader="nn")
    with pytest.raises(AnalysisInputError, match="missing.npz is not a file"):
        move_quality(two_games, grader="network", checkpoint=tmp_path / "missing.npz")
    three = _untrained(tmp_path / "three.npz", players=3)
    with pytest.raises(AnalysisInputError, match="is for 3 players .* this game has 4"):
        move_quality(two_games, grader="network", checkpoint=three)


def test_the_network_grader_averages_the_reveals_and_scores_the_last_card(tmp_path):
    from nothanks.search import kernel as k
    from nothanks.search.encoding import encode
    from nothanks.search.network import Network, load_checkpoint
    from nothanks.studies.move_quality import NetworkGrader
    path = _untrained(tmp_path / "net.npz", players=3, seed=4)
    grader = NetworkGrader(path)
    s = k.new_state(3, 35, 24)
    s[k.CARD], s[k.ON_CARD], s[k.TO_MOVE], s[k.LEFT] = 20, 2, 1, 1
    s[k.HEADER:k.HEADER + 3] = [3, 0, 5]  # seat 1 to move, no tokens: a forced take
    start = k.HEADER + 3 + 3 * 37
    s[start:start + 2], s[k.POOL] = [7, 30], 2
    net = Network(*load_checkpoint(path)[:2])
    values = []
    for index in (0, 1):
        after = s.copy()
        k.apply_take(after)
        k.reveal(after, index)
        values.append(net.evaluate(encode(after))[1][0, 0])  # seat 1 still to move
    got = grader.estimates(s)
    assert got["take_rp"] == pytest.approx((np.mean(values) + 1) / 2 * 2, abs=1e-5)
    assert math.isnan(got["pass_rp"]) and got["iterations"] == 2
    s[k.LEFT], s[k.HEADER + 1] = 0, 4  # the last card, with tokens: the take is exact
    got = grader.estimates(s)
    assert got["take_rp"] == 0.0  # 20 - 6 tokens = 14 against -3 and -5: last place
    passed = s.copy()
    k.apply_pass(passed)  # seat 2 to move: seat 1 is the last column of the rotation
    value = net.evaluate(encode(passed))[1][0, 2]
    assert got["pass_rp"] == pytest.approx(value + 1, abs=1e-5) and got["iterations"] == 1


def test_studies_refuses_a_bad_grader_before_any_work(tmp_path, capsys):
    from nothanks.cli import main
    out = tmp_path / "studies"
    assert main(["studies", "move-quality", "--out", str(out), "--grader", "network",
                 "--checkpoint", str(tmp_path / "none.npz")]) == 2
    assert "none.npz is not a file" in capsys.readouterr().err
    assert main(["studies", "--out", str(out), "--checkpoint", "x.npz"]) == 2
    assert "--checkpoint is for --grader network" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["studies", "--out", str(out), "--grader", "nn"])
    assert "invalid choice: 'nn'" in capsys.readouterr().err
    assert main(["studies", "readings", "move-qualty", "--out", str(out)]) == 2
    assert "unknown study 'move-qualty'; valid: extras, " in capsys.readouterr().err
    assert not out.exists()


def test_the_studies_grade_with_the_report_switch(two_games, tmp_path, monkeypatch):
    import nothanks.studies.move_quality as studies
    assert studies.QUALITY_GRADER == "ismcts"  # until the agreement bar is met
    graded = studies.grade_moves(two_games, None, tmp_path, quick=True)["table7"]
    assert set(graded["grader"]) == {"ismcts"}
    checkpoint = _untrained(tmp_path / "net.npz")
    monkeypatch.setattr(studies, "QUALITY_GRADER", "network")
    graded = studies.grade_moves(two_games, None, tmp_path, quick=True,
                                 checkpoint=checkpoint)["table7"]
    assert set(graded["grader"]) == {"network"} and graded["take_score"].isna().all()
    with pytest.raises(AnalysisInputError, match="grade='most' is unknown; valid: 'sample'"):
        studies.grade_moves(two_games, None, tmp_path, grade="most")


def test_a_sample_grades_that_many_free_decisions_per_label(two_games, tmp_path):
    full = move_quality(two_games, iterations=BUDGET, cache=tmp_path)
    chosen = sample_decisions(two_games.decisions, 5, seed=0)
    assert chosen.sum() == 10 and not two_games.decisions.loc[chosen, "forced"].any()
    assert (two_games.decisions.loc[chosen, "agent_label"].value_counts() == 5).all()
    assert chosen.equals(sample_decisions(two_games.decisions, 5, seed=0))  # seeded
    assert not chosen.equals(sample_decisions(two_games.decisions, 5, seed=1))
    # one label's draw does not depend on the others'
    tom1 = two_games.decisions[two_games.decisions["agent_label"] == "ToM1"]
    assert chosen[tom1.index].equals(sample_decisions(tom1, 5, seed=0))
    sampled = move_quality(two_games, iterations=BUDGET, cache=tmp_path, sample=5)
    assert len(sampled) == len(full) and sampled["graded"].sum() == 10
    graded = sampled[sampled["graded"]]
    assert (graded[["game_id", "turn"]].to_numpy()
            == two_games.decisions.loc[chosen].sort_values(["game_id", "turn"])
            [["game_id", "turn"]].to_numpy()).all()
    # the same decisions, the same estimates: a decision's search depends only on it
    pd.testing.assert_frame_equal(graded[["take_rp", "pass_rp", "loss_rp"]],
                                  full.loc[sampled["graded"], ["take_rp", "pass_rp",
                                                                "loss_rp"]])
    assert sampled.loc[~sampled["graded"], "take_rp"].isna().all()
    assert (ev_loss_table(sampled)["decisions"] == 5).all()
    assert "5 free decisions per player type: 10 of" in quality_section(sampled)
    with pytest.raises(AnalysisInputError, match="sample of 0 decisions per label"):
        move_quality(two_games, iterations=BUDGET, sample=0)


def test_two_processes_grade_as_one_and_a_stopped_grading_resumes(two_games, tmp_path,
                                                                  monkeypatch):
    import nothanks.studies.move_quality as grading
    one = move_quality(two_games, iterations=BUDGET, cache=tmp_path / "one")
    monkeypatch.setattr(grading, "GAMES_PER_BATCH", 1)
    two = move_quality(two_games, iterations=BUDGET, cache=tmp_path / "two", jobs=2)
    pd.testing.assert_frame_equal(one, two)
    # stopped after the first game: what was graded is saved, a re-run grades the rest
    monkeypatch.setattr(grading, "SAVE_EVERY_SECONDS", 0.0)
    first_game = int((two_games.decisions["game_id"] == one["game_id"].iloc[0]).sum())
    searched = []
    real = nothanks.search.search

    def stops(*args, **kwargs):
        if len(searched) == first_game:
            raise KeyboardInterrupt
        searched.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(nothanks.search, "search", stops)
    with pytest.raises(KeyboardInterrupt):
        move_quality(two_games, iterations=BUDGET, cache=tmp_path / "stopped")
    searched.clear()
    monkeypatch.setattr(nothanks.search, "search",
                        lambda *a, **k: searched.append(1) or real(*a, **k))
    again = move_quality(two_games, iterations=BUDGET, cache=tmp_path / "stopped")
    assert len(searched) == len(two_games.decisions) - first_game
    pd.testing.assert_frame_equal(one, again)


def test_the_sample_holds_the_full_gradings_values_in_its_intervals():
    """data/move-quality/sample-check.csv (``benchmarks/quality_sample.py --write``): for
    every label of the full grading kept in data/move-quality (every free decision the
    single build graded), the sample the study grades has the size fixed in the code, and
    its 95% CI (clustered by game) holds the full grading's mean EV loss and share of
    costly moves."""
    from nothanks.studies.move_quality import QUALITY_SAMPLE
    folder = Path(__file__).resolve().parents[2] / "data" / "move-quality"
    check = pd.read_csv(folder / "sample-check.csv")
    assert set(check["source"]) == {"table7", "participants"}
    for source, part in check.groupby("source"):
        full = pd.read_csv(folder / f"full-grading-{source}.csv").set_index("agent_label")
        for measure in ("loss_rp", "costly_share"):
            rows = part[part["measure"] == measure].set_index("label")
            assert set(rows.index) == set(full.index), (source, measure)
            reference = full.loc[rows.index]
            assert np.allclose(rows["full_value"], reference[measure])
            assert (rows["full_decisions"] == reference["decisions"]).all()
            assert (rows["sample_decisions"]
                    == np.minimum(QUALITY_SAMPLE, reference["decisions"])).all()
            assert ((rows["ci_low"] <= rows["full_value"])
                    & (rows["full_value"] <= rows["ci_high"])).all(), (source, measure)
            # the sample's interval is wider than the full grading's, not a copy of it
            assert ((rows["ci_high"] - rows["ci_low"])
                    > (rows["full_ci_high"] - rows["full_ci_low"])).all(), (source, measure)
