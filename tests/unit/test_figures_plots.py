"""Figure functions run on simulated and hand-made tables and return the expected axes."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from nothanks.analysis import (
    AnalysisInputError,
    focal_rows,
    participant_means,
    prediction_accuracy,
    predictions_from_decisions,
    rank_shares,
    rt_sweep,
    with_agent_labels,
)
from nothanks.experiments import compact_frames, instance_table, token_memory_history
from nothanks.figures import (
    instance_map,
    participant_boxplots,
    prediction_accuracy_bars,
    proportional_ranking,
    rt_sweep_lines,
    token_memory_trace,
)
from nothanks.play.runner import play_games


@pytest.fixture(scope="module")
def simulation() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A few games of each Table 7 pairing, at two retrieval thresholds; the games carry
    each player's logged label and order and their game's ``rt``, as the log does."""
    results, thresholds = [], {}
    start = 0
    for rt in (-3.0, -1.0):
        for lower, higher in (("tom0", "tom1"), ("tom0", "tom2"), ("tom1", "tom2")):
            specs = [f"{lower}:rt={rt}"] * 3 + [f"{higher}:rt={rt}"]
            results += list(play_games(specs, 4, seed=start, start=start))
            thresholds.update(dict.fromkeys(range(start, start + 4), rt))
            start += 4
    games, decisions = compact_frames(results)
    players = pd.DataFrame([(r.game_id, s, r.labels[s], r.tom_orders[s])
                            for r in results for s in range(r.players)],
                           columns=["game_id", "seat", "agent_label", "tom_order"])
    games = games.merge(players).assign(rt=lambda g: g["game_id"].map(thresholds))
    return games, decisions


def test_proportional_ranking_has_bars_per_place_and_a_parity_line(simulation):
    games, _ = simulation
    focal = focal_rows(games)
    fig = proportional_ranking(rank_shares(focal[focal["focal_label"] == "ToM2"]),
                               "ToM2 vs lower orders", focal="ToM2")
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert len(ax.patches) == 2 * 4  # two opponent types x four places
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1st", "2nd", "3rd", "4th"]
    assert any(line.get_ydata()[0] == 25 for line in ax.get_lines())
    assert ax.get_ylabel() == "games of ToM2 (%)"


def test_rt_sweep_figure_has_one_series_per_pairing(simulation):
    games, _ = simulation
    fig = rt_sweep_lines(rt_sweep(games))
    (ax,) = fig.axes
    assert len(ax.containers) == 3  # ToM1 vs ToM0, ToM2 vs ToM0, ToM2 vs ToM1
    assert "retrieval threshold" in ax.get_xlabel()


def test_prediction_accuracy_figure(simulation):
    games, decisions = simulation
    predictions = with_agent_labels(predictions_from_decisions(decisions), games)
    fig = prediction_accuracy_bars(prediction_accuracy(predictions))
    (ax,) = fig.axes
    assert len(ax.patches) == 2 * 3  # ToM1, ToM2 x all/take/pass
    assert ax.get_ylim() == (0, 100)


def test_participant_boxplots_on_hand_made_means():
    rng = np.random.default_rng(0)
    means = pd.DataFrame([
        {"participant": f"p{p}", "opponent_label": label, "rank_points": rng.uniform(0, 3)}
        for p in range(6) for label in ("ToM0", "ToM1", "ToM2")])
    fig = participant_boxplots(means)
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["ToM0", "ToM1", "ToM2"]
    assert "6 participants" in ax.get_title()


def test_figures_refuse_empty_tables():
    empty = pd.DataFrame(columns=["participant", "opponent_label", "rank_points"])
    with pytest.raises(AnalysisInputError, match="empty selection"):
        participant_boxplots(empty)
    with pytest.raises(AnalysisInputError, match="missing column"):
        rt_sweep_lines(pd.DataFrame({"rt": [1.0]}))


def test_instance_map_and_token_memory_trace():
    instances = instance_table()
    fig = instance_map(instances)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == instances.loc[instances["category"] == "none",
                                         "tokens_owned"].nunique()
    fig = token_memory_trace(token_memory_history(seed=3))
    assert len(fig.axes) == 3  # one panel per opponent
    assert fig.axes[-1].get_xlabel() == "model time (s)"


def test_participant_figure_from_a_synthetic_session_frame():
    games = []
    rng = np.random.default_rng(1)
    for participant in ("a", "b", "c"):
        for game_id, opponent in enumerate(["tom0", "tom1", "tom2"] * 2):
            places = rng.permutation(4) + 1
            for seat in range(4):
                order = None if seat == 0 else int(opponent[-1])
                games.append({"participant": participant, "game_id": game_id, "seat": seat,
                              "block": 1 + game_id // 3, "agent": "human" if seat == 0
                              else opponent, "agent_label": "human" if seat == 0
                              else f"ToM{order}", "tom_order": order, "rank": places[seat],
                              "rank_points": 4.0 - places[seat]})
    focal = focal_rows(pd.DataFrame(games))
    fig = participant_boxplots(participant_means(focal))
    assert "3 participants" in fig.axes[0].get_title()


SYNTHETIC = Path(__file__).resolve().parents[2] / "data" / "synthetic"


@pytest.mark.skipif(not (SYNTHETIC / "synthetic-01").exists(), reason="no synthetic set")
def test_participant_figures_on_the_synthetic_participant_set():
    from nothanks.analysis import participant_games, predictions_about
    from nothanks.experiments import load
    logs = [load(SYNTHETIC / f"synthetic-0{i}") for i in (1, 2)]
    games = pd.concat([log.games for log in logs], ignore_index=True)
    predictions = pd.concat([log.predictions for log in logs], ignore_index=True)
    focal = focal_rows(games)
    fig8 = proportional_ranking(rank_shares(participant_games(focal)), "Participants")
    assert len(fig8.axes[0].patches) == 3 * 4  # three opponent orders x four places
    fig9 = participant_boxplots(participant_means(focal))
    assert "2 participants" in fig9.axes[0].get_title()
    fig10 = prediction_accuracy_bars(prediction_accuracy(predictions_about(predictions, games)))
    assert len(fig10.axes[0].patches) == 2 * 3


def test_proportional_ranking_on_a_smoke_simulation(tmp_path):
    from nothanks.experiments import load, run_design
    run_design("smoke", tmp_path / "smoke", jobs=1, progress=False)
    games = load(tmp_path / "smoke").games
    focal = focal_rows(games)
    assert set(focal["focal_label"]) == {"heuristic", "always-pass"}
    fig = proportional_ranking(rank_shares(focal, by="focal_label"), "Smoke", focal="focal",
                               by="focal_label")
    assert len(fig.axes[0].patches) == 2 * 4
