"""Paired comparisons on shared deals, Wilson intervals, Holm flags with direction, the
readings ablation, and labels: no synthetic number leaves the pipeline unlabelled."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nothanks import analysis as an
from nothanks.experiments import ensure_design, load


# ----------------------------------------------------------------- paired tests
def _games(condition: int, focal_points: list[float], focal_label: str) -> pd.DataFrame:
    """Focal-design games of one condition: the focal seat 3 scores ``focal_points``."""
    rows = []
    for deal, points in enumerate(focal_points):
        others = (6.0 - points) / 3
        for seat in range(4):
            focal = seat == 3
            rows.append({"experiment": "x", "design_hash": "h", "participant": None,
                         "synthetic": False, "game_id": condition * 100 + deal,
                         "condition": condition, "deal": deal, "seat": seat, "focal": focal,
                         "agent": focal_label.lower() if focal else "tom0",
                         "agent_label": focal_label if focal else "ToM0",
                         "tom_order": int(focal_label[-1]) if focal else 0,
                         "rank": 1 if focal and points == 3 else 2,
                         "rank_points": points if focal else others})
    return pd.DataFrame(rows)


def test_paired_difference_matches_scipy_on_a_known_example():
    a = np.array([3.0, 2.0, 1.0, 3.0, 0.0, 2.0])
    b = np.array([2.0, 2.0, 0.0, 1.0, 0.0, 1.0])
    row = an.paired_difference(a, b, resamples=2000)
    assert row["difference"] == pytest.approx(5 / 6)
    expected = stats.ttest_rel(a, b)
    assert row["t"] == pytest.approx(expected.statistic)
    assert row["p"] == pytest.approx(expected.pvalue)
    assert row["wilcoxon_p"] == pytest.approx(
        stats.wilcoxon(a - b, method="approx").pvalue)
    assert row["boot_ci_low"] <= row["difference"] <= row["boot_ci_high"]
    assert row["boot_resamples"] == 2000
    # seeded: the same interval twice
    assert an.paired_difference(a, b, resamples=2000)["boot_ci_low"] == row["boot_ci_low"]


def test_paired_difference_without_variation_is_no_test():
    row = an.paired_difference(np.ones(5), np.zeros(5))
    assert np.isnan(row["t"]) and np.isnan(row["p"])
    assert row["ci_low"] == row["ci_high"] == 1.0


def test_paired_conditions_match_on_deals_not_on_rows():
    first = _games(0, [3.0, 1.0, 2.0, 0.0], "ToM1")
    # the same deals, the second condition listed in another order: one point more each
    second = _games(1, [3.0, 2.0, 3.0, 1.0], "ToM2").iloc[::-1]
    row = an.paired_conditions(pd.concat([first, second]), 0, 1, resamples=500)
    assert row["deals"] == 4
    assert row["difference"] == pytest.approx(-0.75)
    assert row["win_a"] == 0.25 and row["win_b"] == 0.5
    assert row["win_difference"] == pytest.approx(-0.25)


def test_focal_divergence_counts_decisions_up_to_the_first_difference():
    def decisions(condition: int, sequences: list[str]) -> pd.DataFrame:
        return pd.DataFrame([{"condition": condition, "deal": deal, "turn": turn,
                              "focal": True, "action": "take" if c == "t" else "pass"}
                             for deal, seq in enumerate(sequences)
                             for turn, c in enumerate(seq)])
    frame = pd.concat([decisions(0, ["ppt", "pppp", "tp"]),
                       decisions(1, ["ppt", "ptpp", "pp"])])
    row = an.focal_divergence(frame, 0, 1)
    # deal 0 identical (3), deal 1 differs at its 2nd decision (2), deal 2 at its 1st (1)
    assert row["identical_deals"] == 1 and row["diverged_deals"] == 2
    assert row["decisions_compared"] == 6
    assert row["difference_rate"] == pytest.approx(2 / 6)
    assert (row["difference_ci_low"], row["difference_ci_high"]) == pytest.approx(
        an.wilson_interval(2, 6))


# --------------------------------------------------------------- intervals, flags
def test_wilson_interval_values():
    assert an.wilson_interval(5, 10) == pytest.approx((0.236593, 0.763407), abs=1e-6)
    assert an.wilson_interval(0, 20) == pytest.approx((0.0, 0.161125), abs=1e-6)
    low, high = an.wilson_interval(20, 20)
    assert high == pytest.approx(1.0) and low == pytest.approx(0.838875, abs=1e-6)


def test_holm_flags_say_the_direction():
    p = [0.001, 0.004, 0.03, 0.6]
    better = [True, False, True, False]
    adjusted, flags = an.direction_flags(p, better)
    assert adjusted == pytest.approx([0.004, 0.012, 0.06, 0.6])
    # the second test is significant with the lower order ahead: "lower", not hidden
    assert flags == ["higher", "lower", "n.s.", "n.s."]


def test_rt_sweep_flags_a_significantly_lower_higher_order():
    rng = np.random.default_rng(1)
    rows = []
    for rt, high in ((-2.0, 0.0), (-1.0, 3.0)):  # ToM2 last at -2, first at -1
        for game in range(60):
            for seat in range(4):
                points = high if seat == 0 else (6 - high) / 3
                rows.append({"game_id": game + (1000 if rt == -1.0 else 0), "seat": seat,
                             "agent": "tom2" if seat == 0 else "tom1",
                             "tom_order": 2 if seat == 0 else 1,
                             "rank_points": points + rng.normal(0, 0.1), "rt": rt})
    sweep = an.rt_sweep(pd.DataFrame(rows)).set_index("rt")
    assert sweep.loc[-2.0, "flag"] == "lower"
    assert sweep.loc[-1.0, "flag"] == "higher"
    assert sweep["p_holm"].ge(sweep["parity_p"]).all()  # flags from the valid test


# -------------------------------------------------------------- pipeline labels
@pytest.fixture(scope="module")
def cache(quick_figures) -> Path:
    """The shared quick build's cache (its designs at the quick sizes are already run)."""
    return quick_figures / "cache"


def test_readings_table_has_every_reading_and_column(cache):
    log = load(ensure_design("readings", cache, games=4, jobs=1, progress=False))
    table = an.readings_table(log)
    readings = [label.split("|")[1].strip()
                for label in log.conditions.drop_duplicates("table")["table"]]
    assert list(table["reading"]) == list(dict.fromkeys(readings))
    assert table["reading"].iloc[0] == "default"
    for prefix in ("tom1", "tom2"):
        for column in ("win_share", "win_ci_low", "win_ci_high", "margin", "margin_ci_low",
                       "margin_ci_high", "vs_default", "vs_default_ci_low",
                       "vs_default_ci_high"):
            assert f"{prefix}_{column}" in table.columns
    for column in ("tom2_differs", "tom2_differs_ci_low", "tom2_differs_ci_high",
                   "exact_share", "exact_share_ci_low", "exact_share_ci_high",
                   "older_leaf_rate", "older_leaf_rate_ci_low", "older_leaf_rate_ci_high"):
        assert table[column].notna().all(), column
    assert (table["tom1_games"] == 4).all() and (table["source"] == "simulation").all()
    assert table.loc[1:, "tom2_vs_default"].notna().all()
    text = an.readings_conclusion(table)
    assert "ToM2" in text and "readings" in text


def test_no_synthetic_number_is_unlabelled(quick_figures, cache):
    from nothanks.figures import draw
    out = quick_figures / "out"
    results = (out / "results.md").read_text()
    assert an.SYNTHETIC_LABEL in results.split("| statistic |")[0]  # the banner
    table = pd.read_csv(out / "tables" / "simulation_tests.csv")
    assert set(table["source"]) == {"simulation"}
    for name in ("participant_rank_shares", "participant_means", "participant_tests",
                 "participant_mixed_model", "prediction_accuracy", "participant_actions"):
        assert set(pd.read_csv(out / "tables" / f"{name}.csv")["source"]) == {"synthetic"}
    participant_rows = [line for line in results.splitlines()
                        if line.startswith(("| participants", "| paired t ToM", "| accuracy",
                                            "| mixed model", "| marked bad", "| marks from"))
                        and "shared deals" not in line]
    assert participant_rows
    assert all(line.rstrip().endswith("| synthetic |") for line in participant_rows)
    readme = (out / "README.md").read_text()
    assert f"**{an.SYNTHETIC_LABEL}**" in readme and "fig08_participant_places`" in readme
    # the images themselves carry the label
    from nothanks.experiments import ensure_participants, load_cached
    people = load_cached(ensure_participants(None, cache, quick=True))
    figures = draw(an.participant_statistics(people) | {
        "simulation_rank_shares": pd.read_csv(out / "tables" / "simulation_rank_shares.csv"),
        "rt_sweep": pd.read_csv(out / "tables" / "rt_sweep.csv")})
    for stem, fig in figures.items():
        texts = " ".join(t.get_text() for t in fig.findobj(
            lambda artist: hasattr(artist, "get_text")))
        assert ("SYNTHETIC" in texts) == stem.startswith(("fig08", "fig09", "fig10")), stem


def test_tom2_rows_say_whether_they_duplicate_tom1(cache, tmp_path):
    log = load(ensure_design("table7", cache, games=4, jobs=1, progress=False))
    moves = an.shared_deal_moves(log.games, log.decisions)
    row = moves.set_index(["a", "b", "opponent"]).loc[("ToM1", "ToM2", "ToM0")]
    control = moves.set_index(["a", "b", "opponent"]).loc[("ToM1", "ToM2", "ToM1")]
    assert row["deals"] == 4 and control["deals"] == 4
    stats = an.statistics(log, load(ensure_design("figure14", cache, jobs=1, progress=False,
                                                  quick=True, games=4)))
    values = dict((key, value) for key, value, _ in an.results_rows(stats))
    text = values["ToM2 1st vs ToM0"]
    assert f"ToM2 made ToM1's moves on {row['identical_deals']} of 4 shared deals" in text
    assert ("ToM2 made the moves of ToM1 in its seat (the control table ToM1 vs 3 x ToM1) "
            f"on {control['identical_deals']} of 4 shared deals") in values["ToM2 1st vs ToM1"]
    # the control table enters no Table 7 statistic, only the shared-deal moves
    assert set(stats["simulation_rank_shares"]["focal_label"] + " vs "
               + stats["simulation_rank_shares"]["opponent_label"]) == {
        "ToM1 vs ToM0", "ToM2 vs ToM0", "ToM2 vs ToM1"}
    parity = stats["simulation_tests"]
    parity = parity[parity["test"] == "one-sample t vs parity"]
    assert ((parity["flag"] == an.tables.IDENTICAL_PLAY)
            == ((parity["b"] == "ToM2") & (parity["a_label"] == "ToM1")
                & (control["identical_deals"] == 4))).all()
    thesis = log.games[~log.games["condition"].isin(an.control_conditions(log.games))]
    tests = an.simulation_tests(thesis)
    paired = tests[tests["test"] == an.SHARED_DEALS_TEST]
    assert len(paired) == 1 and paired["deals"].iloc[0] == 4
    flagged = tests["test"].isin(an.tables.FLAGGED_TESTS)
    assert set(tests.loc[~flagged, "flag"]) == {an.tables.THESIS_TEST_FLAG}
    assert set(tests.loc[flagged, "flag"]) <= {"higher", "lower", "n.s.",
                                               an.tables.IDENTICAL_PLAY}
    assert (paired["flag"] == an.tables.IDENTICAL_PLAY).iloc[0] == (
        row["identical_deals"] == 4)


def test_cluster_share_is_wider_than_wilson_when_clusters_differ():
    # decisions within a game share the game: the interval must count games, not decisions
    from nothanks.analysis import cluster_share, wilson_interval
    rng = np.random.default_rng(5)
    trials = rng.integers(20, 40, 300)
    successes = rng.binomial(trials, rng.beta(1, 4, 300))
    share, low, high = cluster_share(successes, trials, resamples=2000)
    w_low, w_high = wilson_interval(int(successes.sum()), int(trials.sum()))
    assert share == pytest.approx(successes.sum() / trials.sum())
    assert low < share < high
    assert high - low > 1.3 * (w_high - w_low)
    # nothing to resample: the Wilson interval over the clusters
    assert cluster_share(np.zeros(50), np.full(50, 30.0)) == (0.0, 0.0,
                                                               wilson_interval(0, 50)[1])
