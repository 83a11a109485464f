"""The higher-orders design, its table (per condition, on shared deals) and its figure."""
from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

from nothanks.analysis import (
    DIFFERS_OWN_TOM0,
    DIFFERS_SHARED_DEALS,
    AnalysisInputError,
    orders_conclusion,
    orders_rows,
    orders_table,
    wilson_interval,
)
from nothanks.experiments import Design, Table, load, load_design, run_design
from nothanks.figures import advantage_by_order

matplotlib.use("Agg")

MINI = Design(name="orders-mini", seed=11, games=4, tables=(
    Table("ToM1 vs ToM0", ("tom0", "tom0", "tom0", "tom1"), 3),
    Table("ToM2 vs ToM0", ("tom0", "tom0", "tom0", "tom2"), 3),
    Table("ToM2 vs ToM1", ("tom1", "tom1", "tom1", "tom2"), 3)))


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    out = tmp_path_factory.mktemp("orders") / "mini"
    run_design(MINI, out, jobs=1, progress=False)
    return load(out)


def test_the_shipped_design_plays_both_series_once_each():
    design = load_design("higher-orders")
    pairs = []
    for condition in design.conditions:
        focal = condition.players[condition.focal]
        opponents = {p for i, p in enumerate(condition.players) if i != condition.focal}
        assert len(opponents) == 1 and condition.games == 2000
        pairs.append((focal, opponents.pop()))
    order = {"tom0": 0, "tom1": 1, "tom2": 2, "tom:k=3": 3, "tom:k=4": 4, "tom:k=5": 5}
    orders = [(order[f], order[o]) for f, o in pairs]
    assert len(set(orders)) == len(orders) == 9  # ToM1 vs ToM0 is in both series, once
    assert {(k, k - 1) for k in range(1, 6)} | {(k, 0) for k in range(1, 6)} == set(orders)
    assert design.rotate


def test_orders_table_per_condition(mini):
    table = orders_table(mini.games, mini.decisions)
    assert list(zip(table["focal_label"], table["opponent_label"], strict=True)) == [
        ("ToM1", "ToM0"), ("ToM2", "ToM0"), ("ToM2", "ToM1")]
    assert set(table["source"]) == {"simulation"} and set(table["games"]) == {4}
    focal = mini.games[mini.games["focal"].astype(bool)]
    for row in table.itertuples():
        mine = focal[focal["condition"] == row.condition].sort_values("deal")
        wins = int((mine["rank"] == 1).sum())
        assert row.first_share == wins / 4
        assert (row.first_ci_low, row.first_ci_high) == pytest.approx(wilson_interval(wins, 4))
        others = mini.games[(mini.games["condition"] == row.condition)
                            & ~mini.games["focal"].astype(bool)]
        opponent_mean = others.groupby("deal")["rank_points"].mean().sort_index()
        margin = mine["rank_points"].to_numpy() - opponent_mean.to_numpy()
        assert row.advantage == pytest.approx(margin.mean())
        assert row.advantage_ci_low <= row.advantage <= row.advantage_ci_high
    tom1, tom2, tom2_vs_tom1 = (table.iloc[i] for i in range(3))
    # the gain of ToM2 over ToM1 against three ToM0, deal by deal
    points = focal.set_index(["condition", "deal"])["rank_points"]
    gain = (points.loc[int(tom2.condition)] - points.loc[int(tom1.condition)]).mean()
    assert tom2.gain == pytest.approx(gain)
    assert np.isnan(tom1.gain) and np.isnan(tom2_vs_tom1.gain)
    # ToM1's move against its own ToM0 retrieval, counted from the decisions
    moves = mini.decisions[(mini.decisions["condition"] == tom1.condition)
                           & mini.decisions["focal"].astype(bool)
                           & mini.decisions["own_tom0_action"].isin(["take", "pass"])]
    differs = (moves["action"] != moves["own_tom0_action"]).mean()
    assert tom1.differs_from_lower == pytest.approx(differs) == tom1.overrides_tom0
    assert tom1.differs_basis == DIFFERS_OWN_TOM0
    assert tom2.differs_basis == DIFFERS_SHARED_DEALS and 0 <= tom2.differs_from_lower <= 1
    assert np.isnan(tom2_vs_tom1.differs_from_lower)
    printed = orders_rows(table)
    assert list(printed["table"]) == ["ToM1 vs 3 x ToM0", "ToM2 vs 3 x ToM0",
                                      "ToM2 vs 3 x ToM1"]
    assert "Gain of ToM-k over ToM-(k-1)" in orders_conclusion(table)
    # without decisions the table still gives the results, not the move differences
    assert "differs_from_lower" not in orders_table(mini.games).columns


def test_orders_table_needs_tom_models(mini):
    games = mini.games.copy()
    games["tom_order"] = pd.array([pd.NA] * len(games), dtype="Int8")
    with pytest.raises(AnalysisInputError, match="ToM-k against ToM models"):
        orders_table(games)


def test_the_figure_draws_both_series(mini):
    fig = advantage_by_order(orders_table(mini.games, mini.decisions))
    left, right = fig.axes[:2]
    assert len(left.containers) == 2  # an error-bar series each: vs ToM(k-1), vs ToM0
    assert [t.get_text() for t in left.get_xticklabels()] == ["ToM1", "ToM2"]
    assert "differs" in right.get_ylabel()


def test_make_figures_writes_the_higher_orders_table_and_figure(quick_figures):
    out = quick_figures / "out" / "studies" / "higher-orders"
    table = pd.read_csv(out / "tables" / "higher_orders.csv")
    assert len(table) == 9 and set(table["focal_order"]) == {1, 2, 3, 4, 5}
    assert (out / "extra_higher_orders.png").exists()
    assert "## Higher orders" in (out / "results.md").read_text()
    assert "extra_higher_orders.png" in (out / "README.md").read_text()
