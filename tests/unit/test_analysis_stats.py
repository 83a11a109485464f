"""Each statistic against a small hand-made frame with a known answer."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nothanks.analysis import (
    AnalysisInputError,
    bad_move_shares,
    cohens_d,
    feedback_concentration,
    focal_rows,
    logged_thresholds,
    paired_tests,
    parity_test,
    participant_means,
    participant_mixed_model,
    prediction_accuracy,
    predictions_about,
    predictions_from_decisions,
    rank_shares,
    recall_summary,
    rt_sweep,
    welch_rank_points,
    with_agent_labels,
)
from nothanks.rules import ranks_and_points


def logged(spec: str) -> dict:
    """The ``agent_label`` and ``tom_order`` the agent of ``spec`` writes into the log."""
    name = spec.split(":")[0]
    order = {"tom0": 0, "tom1": 1, "tom2": 2}.get(name)
    return {"agent_label": name if order is None else f"ToM{order}", "tom_order": order}


def game_rows(game_id: int, agents: list[str], scores: list[int], **extra) -> list[dict]:
    """Rows of one game, ranked by the rules' own scoring (ties included)."""
    ranks, points = ranks_and_points(scores)
    return [dict(game_id=game_id, seat=s, agent=a, **logged(a), score=sc, rank=r,
                 rank_points=p, **extra)
            for s, (a, sc, r, p) in enumerate(zip(agents, scores, ranks, points, strict=True))]


def focal_design(focal: str, opponent: str, focal_ranks: list[int], start: int = 0,
                 **extra) -> pd.DataFrame:
    """Games where ``focal`` (seat 0) finishes at the given places, no ties."""
    rows = []
    for i, place in enumerate(focal_ranks):
        scores = [10, 20, 30]
        scores.insert(place - 1, 5 + 10 * (place - 1))  # distinct, focal at `place`
        scores = [scores[place - 1]] + scores[:place - 1] + scores[place:]
        rows += game_rows(start + i, [focal] + [opponent] * 3, scores, **extra)
    return pd.DataFrame(rows)


def test_tie_counts_at_tied_place_and_shares_points():
    games = pd.DataFrame(
        game_rows(0, ["tom1", "tom0", "tom0", "tom0"], [4, 4, 9, 12])  # focal tied 1st
        + game_rows(1, ["tom1", "tom0", "tom0", "tom0"], [8, 4, 9, 12])  # 2nd
        + game_rows(2, ["tom1", "tom0", "tom0", "tom0"], [20, 4, 9, 12])  # 4th
        + game_rows(3, ["tom1", "tom0", "tom0", "tom0"], [1, 4, 9, 12])  # 1st
    )
    focal = focal_rows(games)
    assert focal["rank"].tolist() == [1, 2, 4, 1]
    assert focal["rank_points"].tolist() == [2.5, 2.0, 0.0, 3.0]
    # the opponents' mean is (6 - focal)/3: rank points always sum to 6
    assert np.allclose(focal["opponent_rank_points"], (6 - focal["rank_points"]) / 3)
    shares = rank_shares(focal).set_index("rank")
    assert shares["share"].tolist() == [0.5, 0.25, 0.0, 0.25]
    assert shares["games"].unique().tolist() == [4]
    assert shares["parity"].unique().tolist() == [0.25]


def test_focal_rows_rejects_games_without_a_focal_player():
    games = pd.DataFrame(game_rows(0, ["tom0"] * 4, [1, 2, 3, 4]))
    with pytest.raises(AnalysisInputError, match="no focal player"):
        focal_rows(games)


def test_missing_columns_are_named():
    games = pd.DataFrame(game_rows(0, ["tom1", "tom0", "tom0", "tom0"], [1, 2, 3, 4]))
    with pytest.raises(AnalysisInputError, match="missing column.*rank_points"):
        focal_rows(games.drop(columns="rank_points"))
    with pytest.raises(AnalysisInputError, match="one row per game_id, seat"):
        focal_rows(pd.concat([games, games]))


def test_labels_and_orders_are_the_logged_columns():
    games = pd.DataFrame(game_rows(0, ["tom:k=4", "heuristic", "heuristic", "heuristic"],
                                   [1, 2, 3, 4]))
    games.loc[games["seat"] == 0, ["agent_label", "tom_order"]] = ["ToM4", 4]
    focal = focal_rows(games).iloc[0]
    assert (focal["focal_label"], focal["opponent_label"]) == ("ToM4", "heuristic")
    assert pd.isna(focal["opponent_order"])
    with pytest.raises(AnalysisInputError, match=r"\['heuristic'\] are not cognitive models"):
        participant_means(focal_rows(games.assign(participant="p", block=2)))
    with pytest.raises(AnalysisInputError, match="missing column.*agent_label"):
        focal_rows(games.drop(columns="agent_label"))


def test_importing_analysis_does_not_import_the_models():
    code = ("import sys, nothanks.analysis; "
            "print(sorted(m for m in sys.modules if m.startswith('nothanks.agents')))")
    root = Path(__file__).resolve().parents[2]  # `python -c` imports from its cwd first
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=root)
    assert result.stdout.strip() == "[]"


def test_thresholds_come_from_the_logged_parameters():
    experiments = pd.DataFrame({"parameters": [
        json.dumps({"tom1": {"rt": -2.0, "d": 0.5}, "heuristic": {}}),
        json.dumps({"tom2:rt=-4": {"rt": "-4"}})]})
    assert logged_thresholds(experiments) == {"tom1": -2.0, "tom2:rt=-4": -4.0}


def participant_frame() -> pd.DataFrame:
    """Three participants, blocks 1 (practice) and 2, against tom0/tom1/tom2."""
    places = {  # participant -> opponent -> places in block 2 games
        "p1": {"tom0": [1, 1], "tom1": [2, 3], "tom2": [4, 3]},
        "p2": {"tom0": [1, 2], "tom1": [3, 3], "tom2": [2, 4]},
        "p3": {"tom0": [2, 1], "tom1": [1, 4], "tom2": [4, 4]},
    }
    frames, game = [], 0
    for participant, by_opponent in places.items():
        # a practice game the participant wins against tom2: must not count
        frames.append(focal_design("human", "tom2", [1], game, participant=participant,
                                   block=1))
        game += 1
        for opponent, ranks in by_opponent.items():
            frames.append(focal_design("human", opponent, ranks, game, participant=participant,
                                       block=2))
            game += len(ranks)
    return pd.concat(frames, ignore_index=True)


def test_participant_means_exclude_practice_and_paired_test_matches_scipy():
    focal = focal_rows(participant_frame())
    means = participant_means(focal)
    wide = means.pivot(index="participant", columns="opponent_label", values="rank_points")
    assert wide.loc["p1"].tolist() == [3.0, 1.5, 0.5]  # tom2 practice win excluded
    assert means["games"].unique().tolist() == [2]
    tests = paired_tests(means).set_index(["a", "b"])
    direct = stats.ttest_rel(wide["ToM0"], wide["ToM1"])
    row = tests.loc[("ToM0", "ToM1")]
    assert row["t"] == pytest.approx(direct.statistic)
    assert row["p"] == pytest.approx(direct.pvalue)
    assert row["df"] == 2
    diff = wide["ToM0"] - wide["ToM1"]
    assert row["effect_size"] == pytest.approx(diff.mean() / diff.std(ddof=1))
    assert row["ci_low"] < diff.mean() < row["ci_high"]


def test_paired_test_requires_every_participant_in_both_orders():
    means = participant_means(focal_rows(participant_frame()))
    means = means[~((means["participant"] == "p2") & (means["opponent_label"] == "ToM1"))]
    with pytest.raises(AnalysisInputError, match=r"\['p2'\] lack games against ToM0 or ToM1"):
        paired_tests(means)


def test_empty_selection_is_an_error():
    focal = focal_rows(participant_frame())
    with pytest.raises(AnalysisInputError, match="empty selection"):
        participant_means(focal, practice_blocks=(1, 2))
    means = participant_means(focal)
    with pytest.raises(AnalysisInputError, match="no games against ToM2"):
        paired_tests(means[means["opponent_label"] != "ToM2"])


@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.ConvergenceWarning")
def test_mixed_model_recovers_order_effects_of_a_balanced_design():
    focal = focal_rows(participant_frame())
    table = participant_mixed_model(focal).set_index("term")
    means = participant_means(focal).groupby("opponent_label")["rank_points"].mean()
    # balanced design: fixed effects equal differences of the marginal means
    assert table.loc["intercept (ToM0)", "coef"] == pytest.approx(means["ToM0"], abs=1e-6)
    assert table.loc["ToM1 - ToM0", "coef"] == pytest.approx(means["ToM1"] - means["ToM0"],
                                                            abs=1e-6)
    assert table.loc["ToM2 - ToM0", "coef"] == pytest.approx(means["ToM2"] - means["ToM0"],
                                                            abs=1e-6)
    assert "participant variance" in table.index
    assert table.attrs["participants"] == 3


def test_welch_rows_and_game_mean_samples():
    games = focal_design("tom1", "tom0", [1, 1, 2, 1, 3, 4, 1, 2])
    focal = focal_rows(games)
    opponents = games[games["agent"] == "tom0"]["rank_points"]
    rows = welch_rank_points(games, "rows").iloc[0]
    direct = stats.ttest_ind(opponents, focal["rank_points"], equal_var=False)
    assert (rows["a"], rows["b"], rows["n_a"], rows["n_b"]) == ("ToM0", "ToM1", 24, 8)
    assert rows["t"] == pytest.approx(direct.statistic)
    assert rows["df"] == pytest.approx(direct.df)
    assert rows["t"] < 0  # thesis orientation: lower order first
    assert rows["effect_size"] == pytest.approx(cohens_d(opponents, focal["rank_points"]))
    means = welch_rank_points(games, "game_mean").iloc[0]
    assert (means["n_a"], means["n_b"]) == (8, 8)
    # opponents' mean = (6 - focal)/3, so df = (n-1)(1+1/9)^2/(1+1/81) whatever the data
    assert means["df"] == pytest.approx(7 * (10 / 9) ** 2 / (82 / 81))
    with pytest.raises(AnalysisInputError, match="sample 'pairs' is not one of rows"):
        welch_rank_points(games, "pairs")


def test_parity_test_against_one_sample_scipy():
    focal = focal_rows(focal_design("tom2", "tom1", [1, 2, 1, 4, 1, 2]))
    row = parity_test(focal).iloc[0]
    direct = stats.ttest_1samp(focal["rank_points"], 1.5)
    assert row["t"] == pytest.approx(-direct.statistic)
    assert row["p"] == pytest.approx(direct.pvalue)
    assert row["df"] == 5


def test_rt_sweep_means_and_intervals():
    frames = []
    for rt, ranks in ((-2.0, [1, 1, 2, 3]), (-1.0, [2, 3, 4, 4])):
        frames.append(focal_design(f"tom1:rt={rt}", f"tom0:rt={rt}", ranks,
                                   start=len(frames) * 10, rt=rt))
    sweep = rt_sweep(pd.concat(frames, ignore_index=True)).set_index("rt")
    assert sweep.loc[-2.0, "mean"] == pytest.approx((3 + 3 + 2 + 1) / 4)
    assert sweep.loc[-1.0, "mean"] == pytest.approx((2 + 1 + 0 + 0) / 4)
    values = np.array([3, 3, 2, 1.0])
    interval = stats.t.interval(0.95, 3, values.mean(), stats.sem(values))
    assert (sweep.loc[-2.0, "ci_low"], sweep.loc[-2.0, "ci_high"]) == pytest.approx(interval)
    assert sweep["higher"].unique().tolist() == ["ToM1"]
    assert sweep.loc[-2.0, "n"] == 4 and sweep.loc[-2.0, "games"] == 4


def test_rt_sweep_rejects_specs_without_threshold():
    games = focal_design("tom1", "tom0", [1, 2, 3])
    with pytest.raises(AnalysisInputError, match="no retrieval threshold"):
        rt_sweep(games)
    sweep = rt_sweep(games, {"tom1": -2.0, "tom0": -6.0})  # ToM0 has no token memory
    assert sweep["rt"].tolist() == [-2.0]


def test_prediction_accuracy_overall_and_by_actual_action():
    predictions = pd.DataFrame({
        "agent_label": ["ToM1"] * 6 + ["ToM2"] * 3, "tom_order": [1] * 6 + [2] * 3,
        "predicted_action": ["pass", "pass", "take", "pass", "take", "pass",
                             "pass", "pass", "take"],
        "actual_action": ["pass", "pass", "take", "take", "pass", None,
                          "pass", "take", "take"],
    })
    table = prediction_accuracy(predictions).set_index(["model", "actual"])
    assert table.loc[("ToM1", "all"), "n"] == 5  # the unresolved prediction is left out
    assert table.loc[("ToM1", "all"), "accuracy"] == pytest.approx(3 / 5)
    assert table.loc[("ToM1", "pass"), "accuracy"] == pytest.approx(2 / 3)
    assert table.loc[("ToM1", "take"), "accuracy"] == pytest.approx(1 / 2)
    assert table.loc[("ToM2", "all"), "n"] == 3
    assert table.loc[("ToM2", "take"), "accuracy"] == pytest.approx(1 / 2)
    low, high = table.loc[("ToM1", "all"), ["ci_low", "ci_high"]]
    assert low < 3 / 5 < high
    with pytest.raises(AnalysisInputError, match="valid: take, pass"):
        prediction_accuracy(predictions.assign(actual_action="fold"))


def test_predictions_about_selects_the_target_kind():
    games = pd.DataFrame({"game_id": [0] * 4, "seat": range(4),
                          "player_kind": ["human", "model", "model", "model"],
                          "agent_label": ["human", "ToM0", "ToM1", "ToM2"],
                          "tom_order": [None, 0, 1, 2]})
    predictions = pd.DataFrame({"game_id": [0, 0, 0], "seat": [2, 3, 3],
                                "target_seat": [0, 2, 0]})
    about = predictions_about(predictions, games)
    assert about["agent_label"].tolist() == ["ToM1", "ToM2"]  # the predicting model's
    assert about["tom_order"].tolist() == [1, 2]
    with pytest.raises(AnalysisInputError, match="some seats have no row in games"):
        with_agent_labels(predictions.assign(seat=7), games)
    with pytest.raises(AnalysisInputError, match="empty selection"):
        predictions_about(predictions[predictions["target_seat"] == 2], games)


def test_predictions_resolved_against_the_next_action_on_the_same_card():
    # seat 0 (tom1) predicts seats 1 and 2 on card 20; seat 1 passes, seat 2 takes.
    # On card 30 seat 3 predicts seat 1 but takes the card itself: the prediction is moot.
    decisions = pd.DataFrame([
        {"game_id": 0, "turn": 0, "seat": 0, "agent": "tom1", "card": 20, "action": "pass",
             "predictions": [(1, "pass", 8, "leaf"), (2, "pass", 8, "root")]},
        {"game_id": 0, "turn": 1, "seat": 1, "agent": "human", "card": 20, "action": "pass",
         "predictions": []},
        {"game_id": 0, "turn": 2, "seat": 2, "agent": "human", "card": 20, "action": "take",
         "predictions": []},
        {"game_id": 0, "turn": 3, "seat": 2, "agent": "human", "card": 30, "action": "pass",
         "predictions": []},
        {"game_id": 0, "turn": 4, "seat": 3, "agent": "tom1", "card": 30, "action": "take",
             "predictions": [(1, "pass", 8, "none")]},
        {"game_id": 0, "turn": 5, "seat": 3, "agent": "tom1", "card": 31, "action": "pass",
             "predictions": [(0, "take", 8, "leaf")]},
        {"game_id": 0, "turn": 6, "seat": 0, "agent": "tom1", "card": 31, "action": "pass",
         "predictions": []},
    ])
    resolved = predictions_from_decisions(decisions)
    as_json = decisions.assign(predictions=decisions["predictions"].map(json.dumps))
    assert predictions_from_decisions(as_json).equals(resolved)  # `nothanks simulate` form
    assert resolved[["turn", "target_seat", "predicted_action", "actual_action"]
                    ].values.tolist() == [
        [0, 1, "pass", "pass"], [0, 2, "pass", "take"], [5, 0, "take", "pass"]]
    # card 30 was taken by the predictor itself before seat 1 acted: unresolved, left out


def feedback_decisions() -> pd.DataFrame:
    rows = []
    marks = {"a": 12, "b": 3, "c": 0, "d": 5}  # model decisions marked bad, per participant
    for participant, marked in marks.items():
        for i in range(20):
            rows.append({"participant": participant, **logged("tom0" if i < 10 else "tom1"),
                         "marked_bad": i < marked})
        rows.append({"participant": participant, **logged("human"), "marked_bad": False})
    return pd.DataFrame(rows)


def test_bad_move_shares_and_concentration():
    decisions = feedback_decisions()
    shares = bad_move_shares(decisions).set_index("model")
    assert shares.loc["ToM0", "marked"] == 10 + 3 + 0 + 5
    assert shares.loc["ToM1", "marked"] == 2
    assert shares.loc["ToM0", "share"] == pytest.approx(18 / 40)
    concentration = feedback_concentration(decisions).iloc[0]
    assert concentration["marks"] == 20
    assert concentration["top_participants"] == 1  # ceil(10% of 4)
    assert concentration["top_share"] == pytest.approx(12 / 20)
    assert concentration["few_share"] == pytest.approx(3 / 4)


def test_recall_summary_shares_and_errors():
    recalls = pd.DataFrame({
        "model": ["ToM1"] * 5 + ["ToM2"] * 2,
        "rt": [-2.0] * 7,
        "source": ["leaf", "leaf", "root", "default", "oracle", "default", "root"],
        "recalled": [[5], [7], [6, 10], [3, 8, 11], [4], [3, 8, 11], [11, 16]],
        "true_tokens": [5, 9, 6, 11, 4, 8, 14],
    })
    table = recall_summary(recalls).set_index(["model", "source"])
    assert table.loc[("ToM1", "leaf"), "share"] == pytest.approx(0.5)  # oracle left out
    assert table.loc[("ToM1", "leaf"), "mean_abs_error"] == pytest.approx(1.0)
    assert table.loc[("ToM1", "root"), "mean_abs_error"] == pytest.approx(2.0)
    assert table.loc[("ToM1", "root"), "best_abs_error"] == pytest.approx(0.0)
    assert table.loc[("ToM1", "none"), "mean_abs_error"] == pytest.approx((8 + 3 + 0) / 3)
    assert table.loc[("ToM1", "all"), "mean_abs_error"] == pytest.approx((0 + 2 + 2 + 11 / 3) / 4)
    assert table.loc[("ToM2", "root"), "mean_abs_error"] == pytest.approx(2.5)
    assert table.loc[("ToM1", "all"), "share"] == 1.0
    with pytest.raises(AnalysisInputError, match="sources \\['guess'\\] unknown"):
        recall_summary(recalls.assign(source="guess"))


def test_focal_column_of_the_log_and_practice_flag_are_used():
    games = focal_design("tom1", "tom1", [1, 2, 3, 4])  # same agent everywhere:
    games["focal"] = games["seat"] == 0  # only the log's focal flag can tell
    games["participant"] = None
    focal = focal_rows(games)
    assert focal["rank"].tolist() == [1, 2, 3, 4]
    assert (focal["opponent"] == "tom1").all()
    sessions = participant_frame()
    sessions["practice"] = sessions["block"] == 2  # flag overrides the default block 1
    means = participant_means(focal_rows(sessions))
    assert means["opponent_label"].unique().tolist() == ["ToM2"]
    assert means["games"].unique().tolist() == [1]


def test_null_participant_in_simulation_logs_keeps_every_game():
    games = pd.concat([focal_design("tom1:rt=-2", "tom0", [1, 2, 1]),
                       focal_design("tom2:rt=-2", "tom1:rt=-2", [3, 1, 2], start=3)])
    games["participant"] = pd.Series([None] * len(games), dtype="string")
    games["experiment"] = "figure14"
    sweep = rt_sweep(games, {"tom1:rt=-2": -2.0, "tom2:rt=-2": -2.0})
    assert sweep["games"].tolist() == [3, 3]
    assert len(focal_rows(games)) == 6
    assert welch_rank_points(games)["n_a"].tolist() == [9, 9]


def test_feedback_refuses_duplicated_decisions():
    decisions = feedback_decisions()
    decisions["game_id"] = 0
    decisions["turn"] = range(len(decisions))
    assert bad_move_shares(decisions)["marked"].sum() == 20
    with pytest.raises(AnalysisInputError, match="one row per participant, game_id, turn"):
        bad_move_shares(pd.concat([decisions, decisions.head(1)]))


def test_intervals_that_round_to_zero_print_without_a_sign_of_direction():
    from nothanks.analysis.results import _interval

    assert _interval(-0.001, -0.004, 0.002, signed=True) == "+0.00 [+0.00, +0.00]"
    assert _interval(-0.12, -0.16, -0.08, signed=True) == "-0.12 [-0.16, -0.08]"
    assert _interval(0.5, 0.4, 0.6) == "0.50 [0.40, 0.60]"


def test_only_valid_tests_flag_and_identical_play_is_not_tested():
    # issue 26 §4b/c: the rows-Welch is reported without a flag; a table whose focal
    # model made its opponents' moves is "identical play"
    from nothanks.analysis.tables import IDENTICAL_PLAY, THESIS_TEST_FLAG, simulation_tests
    games = pd.concat([focal_design("tom1", "tom0", [1, 1, 1, 2, 1, 1, 1, 1]),
                       focal_design("tom2", "tom1", [1, 2, 3, 4, 1, 2, 3, 4], start=100)],
                      ignore_index=True)
    table = simulation_tests(games, identical={("ToM2", "ToM1")})
    welch = table[table["test"].str.startswith("Welch")]
    assert (welch["flag"] == THESIS_TEST_FLAG).all() and welch["p_holm"].isna().all()
    parity = table[table["test"] == "one-sample t vs parity"].set_index("b")
    assert parity.loc["ToM1", "flag"] == "higher"
    assert parity.loc["ToM2", "flag"] == IDENTICAL_PLAY
    assert np.isnan(parity.loc["ToM2", "p_holm"])


def test_a_test_whose_placebo_over_rejects_gives_no_flags():
    # issue 43: a test whose false-positive CI lies above 5% gives no flags
    from nothanks.analysis.placebo import may_flag
    from nothanks.analysis.tables import (
        NO_PLACEBO_FLAG,
        PLACEBO_OF,
        flagging_tests,
        simulation_tests,
    )
    assert may_flag(50, 1000) and may_flag(60, 1000)      # 5.0%, 6.0% [4.7%, 7.7%]
    assert not may_flag(75, 1000)                          # 7.5% [6.0%, 9.3%]: above 5%
    judged = {PLACEBO_OF["one-sample t vs parity"]: False}
    allowed = flagging_tests(judged)
    assert "one-sample t vs parity" not in allowed and flagging_tests({}) == tuple(PLACEBO_OF)
    games = focal_design("tom1", "tom0", [1, 1, 1, 2, 1, 1, 1, 1])
    parity = simulation_tests(games, flagging=allowed)
    parity = parity[parity["test"] == "one-sample t vs parity"]
    assert (parity["flag"] == NO_PLACEBO_FLAG).all() and parity["p_holm"].isna().all()
    assert simulation_tests(games).set_index("test").loc["one-sample t vs parity",
                                                          "flag"] == "higher"


def test_rt_trend_is_a_slope_per_game_with_an_interval():
    from nothanks.analysis import rt_trend
    frames = [focal_design(f"tom1:rt={rt}", f"tom0:rt={rt}", ranks, start=10 * i, rt=rt)
              for i, (rt, ranks) in enumerate(((-2.0, [1, 1, 2, 1]), (-1.0, [2, 1, 3, 2]),
                                               (0.0, [3, 4, 2, 4])))]
    trend = rt_trend(pd.concat(frames, ignore_index=True)).iloc[0]
    assert trend["games"] == 12 and trend["rt_low"] == -2.0 and trend["rt_high"] == 0.0
    assert trend["ci_low"] < trend["slope"] < trend["ci_high"] < 0  # falls with RT
