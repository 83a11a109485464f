"""Learning analysis on constructed logs whose answers are known."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from nothanks.analysis.frames import AnalysisInputError
from nothanks.analysis.learning import (
    final_states,
    improved_trials,
    learning_curve,
    learning_slope,
    paired_by_trial,
    states_over_games,
    trial_divergence,
    trial_length,
)

TRIAL = 5


def games_log(points_of, conditions=(0,), trials: int = 30, seed: int = 1) -> pd.DataFrame:
    """Games of a focal learner (seat 0) and three opponents; the focal player's rank
    points in game ``g`` of trial ``t`` of condition ``c`` are ``points_of(c, t, g, rng)``."""
    rng = np.random.default_rng(seed)
    rows, game_id = [], 0
    for c in conditions:
        for deal in range(trials * TRIAL):
            focal_points = points_of(c, deal // TRIAL, deal % TRIAL, rng)
            for seat in range(4):
                points = focal_points if seat == 0 else (6 - focal_points) / 3
                rows.append({"game_id": game_id, "condition": c, "deal": deal, "seat": seat,
                             "focal": seat == 0, "agent": "learner" if seat == 0 else "tom0",
                             "agent_label": "learner" if seat == 0 else "ToM0",
                             "tom_order": pd.NA if seat == 0 else 0,
                             "rank": 1 if (seat == 0 and focal_points == 3) else 2,
                             "rank_points": points})
            game_id += 1
    return pd.DataFrame(rows)


def improving(c, t, g, rng):
    return float(rng.random() < 0.2 + 0.15 * g) * 3.0  # first place more often later


def flat(c, t, g, rng):
    return float(rng.random() < 0.4) * 3.0


def test_curve_slope_and_improved_share_find_a_learner():
    games = games_log(improving, trials=120)
    curve = learning_curve(games, 0, TRIAL)
    assert list(curve["game"]) == list(range(TRIAL)) and (curve["trials"] == 120).all()
    focal = games[games["focal"]]
    expected = focal.groupby(focal["deal"] % TRIAL)["rank_points"].mean().to_numpy()
    np.testing.assert_allclose(curve["rank_points"], expected)
    assert (curve["ci_low"] <= curve["rank_points"]).all()
    assert (curve["rank_points"] <= curve["ci_high"]).all()
    slope = learning_slope(games, 0, TRIAL)
    assert slope["ci_low"] > 0 and slope["p"] < 0.001
    assert slope["slope"] == pytest.approx(0.45, abs=0.15)  # 3 points x 0.15 per game
    share = improved_trials(games, 0, TRIAL)
    assert share["better"] > 0.5 and share["better"] + share["tied"] + share["worse"] == 1


def test_no_learning_gives_no_significant_slope():
    flags = [learning_slope(games_log(flat, seed=s), 0, TRIAL)["p"] < 0.05 for s in range(40)]
    assert sum(flags) <= 6  # about 5% of 40 expected; the test's false-positive rate


def test_paired_by_trial_compares_the_same_deals_trial_by_trial():
    games = games_log(lambda c, t, g, rng: 3.0 if c == 0 and g >= 3 else float(t % 2),
                      conditions=(0, 1), trials=20)
    all_games = paired_by_trial(games, 0, 1, TRIAL)
    late = paired_by_trial(games, 0, 1, TRIAL, games_in_trial=[3, 4])
    assert all_games["trials"] == 20
    # condition 0 equals condition 1 in games 0-2 and gets 3 in games 3-4
    odd = np.array([t % 2 for t in range(20)], float)
    assert late["difference"] == pytest.approx(float((3 - odd).mean()))
    assert all_games["difference"] == pytest.approx(float((2 * (3 - odd) / 5).mean()))
    with pytest.raises(AnalysisInputError, match=r"games_in_trial \[7\] outside 0..4"):
        paired_by_trial(games, 0, 1, TRIAL, games_in_trial=[7])


def test_states_over_games_and_final_states():
    games = games_log(flat, trials=4)
    rows = []
    for game_id in games["game_id"].unique():
        deal = int(games.loc[games["game_id"] == game_id, "deal"].iloc[0])
        trial, game = divmod(deal, TRIAL)
        for turn in range(3):  # the last decision of a game holds its end-of-game state
            utilities = {"take-all": float(game + turn / 10), "pass-all": float(trial)}
            rows.append({"game_id": game_id, "turn": turn, "role": 0, "agent": "learner",
                         "trial": trial, "trial_game": game,
                         "state": json.dumps({"utilities": utilities})})
    learning = pd.DataFrame(rows)
    over = states_over_games(learning, games)
    take = over[over["name"] == "take-all"].set_index("game")["mean"]
    np.testing.assert_allclose(take.to_numpy(), np.arange(TRIAL) + 0.2)
    final = final_states(learning, games).set_index("name")
    assert final.loc["take-all", "mean"] == pytest.approx(4.2)
    assert final.loc["pass-all", "mean"] == pytest.approx(1.5)  # trials 0..3
    # take-all (4.2) is highest in trials 0-3 except none: pass-all reaches 3 < 4.2
    assert final.loc["take-all", "top_share"] == 1.0
    with pytest.raises(AnalysisInputError, match="has no mapping 'blended'"):
        final_states(learning, games, key="blended")


def test_trial_length_reads_the_design():
    assert trial_length(pd.DataFrame({"design": [json.dumps({"trial": 10})]})) == 10
    with pytest.raises(AnalysisInputError, match="a design without trials"):
        trial_length(pd.DataFrame({"design": [json.dumps({"name": "x"})]}))


def test_trial_divergence_counts_only_what_both_learners_saw_alike():
    rows = []
    for condition in (0, 1):
        for deal in range(6):  # two trials of three games, three focal decisions a game
            for turn in range(3):
                action = "take" if turn == 0 else "pass"
                if condition == 1 and deal == 2 and turn == 1:
                    action = "take"  # trial 0 diverges in its last game, 2nd decision
                if condition == 1 and deal == 4 and turn == 0:
                    action = "pass"  # trial 1 diverges in its 2nd game, 1st decision
                rows.append({"condition": condition, "deal": deal, "turn": turn,
                             "focal": True, "action": action})
    result = trial_divergence(pd.DataFrame(rows), 0, 1, trial=3)
    # trial 0: games 0 and 1 (3 + 3) and 2 decisions of game 2; trial 1: game 3 (3) and 1
    assert result["decisions_compared"] == 8 + 4
    assert result["diverged_trials"] == 2 and result["trials"] == 2
    assert result["difference_rate"] == pytest.approx(2 / 12)
    assert result["first_game"] == pytest.approx((2 + 1) / 2)


def test_a_first_game_effect_is_told_apart_from_learning():
    # issue 43: a learner weak in game 0 and flat after it has a slope over all games
    # but none from game 1 on
    import numpy as np
    import pandas as pd

    from nothanks.analysis.learning import first_game_effect
    rng = np.random.default_rng(2)
    rows = [{"trial": t, "game": g, "rank_points": (0.2 if g == 0 else 0.8)
             + rng.normal(0, 0.3)} for t in range(200) for g in range(10)]
    table = first_game_effect(pd.DataFrame(rows)).set_index("row")
    assert table.loc["game 0", "value"] < table.loc["game 1", "ci_low"]
    every, later = table.loc["slope from game 0"], table.loc["slope from game 1"]
    assert every["ci_low"] > 0 and every["p"] < 1e-6
    assert later["ci_low"] < 0 < later["ci_high"]
