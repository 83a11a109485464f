"""benchmarks/grader_agreement.py: rank correlations of the graders' EV losses with
game-clustered intervals, per grader, and the costs side by side."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from helpers import load_benchmark


def made_up(rng: np.random.Generator, games: int = 12, per_game: int = 20) -> pd.DataFrame:
    n = games * per_game
    loss = np.where(rng.random(n) < 0.6, 0.0, rng.exponential(0.2, n))
    noise = rng.normal(0, 0.01, n)
    table = pd.DataFrame({"game_id": np.repeat(np.arange(games), per_game),
                          "forced": rng.random(n) < 0.05,
                          "loss_rp_ismcts": loss, "gap_rp_ismcts": -loss + noise,
                          "best_ismcts": np.where(loss > 0, "take", "pass")})
    table["loss_rp_network"] = loss * 2 + 0.001  # same order, other scale
    table["gap_rp_network"] = table["gap_rp_ismcts"] * 3
    table["best_network"] = table["best_ismcts"]
    table["loss_rp_reseeded"] = loss
    table["gap_rp_reseeded"] = table["gap_rp_ismcts"]
    table["best_reseeded"] = table["best_ismcts"]
    table["loss_rp_untrained"] = rng.random(n)  # unrelated
    table["gap_rp_untrained"] = rng.normal(size=n)
    table["best_untrained"] = "pass"
    return table


def test_agreement_is_a_rank_correlation_per_grader_and_costs_are_per_decision():
    bench = load_benchmark("grader_agreement")
    table = made_up(np.random.default_rng(1))
    cpu = {"ismcts": 24.0, "network": 0.3, "ismcts_alone": 20.0, "network_alone": 0.2,
           "alone_decisions": 200}
    s = bench.summarize(table, cpu, resamples=200)
    free = table[~table["forced"]]
    assert s["free"] == len(free) and s["decisions"] == len(table) and s["games"] == 12
    network, floor = s["agreement"]["network"], s["agreement"]["untrained"]
    assert network["loss"][0] == pytest.approx(1.0) and network["gap"][0] == pytest.approx(1.0)
    assert network["same_best"] == 1.0
    assert abs(floor["loss"][0]) < 0.2 and floor["loss"][1] < 0 < floor["loss"][2]
    assert s["ms"]["ismcts"] == pytest.approx(1000 * 24.0 / len(table))
    assert s["ms_alone"]["network"] == pytest.approx(1.0)
    text = bench.markdown(s, "cmd", bench.Path("net.npz"), "ab" * 32)
    assert "**met**. Cost target" in text and "100x for the grader alone" in text
    rows = bench.agreement_table(s).set_index(["grader", "measure"])
    assert tuple(rows.loc[("untrained", "spearman_loss"), ["value", "ci_low", "ci_high"]]
                 ) == floor["loss"]
    assert rows.loc[("network", "same_best"), "value"] == 1.0


def test_the_interval_resamples_whole_games():
    bench = load_benchmark("grader_agreement")
    rng = np.random.default_rng(2)
    games = np.repeat(np.arange(10), 30)
    shift = rng.normal(size=10)[games]  # a per-game effect shared by both graders
    a = shift + rng.normal(0, 1, len(games))
    b = shift + rng.normal(0, 1, len(games))
    rho, low, high = bench.spearman_by_games(a, b, games, resamples=400)
    naive = bench.spearman_by_games(a, b, np.arange(len(games)), resamples=400)
    assert low < rho < high and naive[0] == rho
    assert high - low > naive[2] - naive[1]  # clustered: wider than by decision
