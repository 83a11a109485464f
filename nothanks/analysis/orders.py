"""Higher orders of theory of mind: what one more order buys (thesis §6.1-6.2).

The ``higher-orders`` design plays one focal ToM-k (k = 1 ... 5) against three of the
order below and against three ToM0, every table on the same deals.
:func:`orders_table` gives one row per table: the focal model's share of first places,
its rank points against its opponents' (paired per deal), the gain over the order below
on the same deals where the design has it, and how often its move differs from the
order below: whether the returns of theory of mind diminish with its order, as De Weerd
et al. (2013) found beyond the second order and the thesis (§6.1) beyond the first.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .frames import AnalysisInputError, focal_rows, require_columns, require_rows
from .paired import (
    cluster_share,
    data_source,
    focal_by_deal,
    focal_divergence,
    paired_conditions,
    paired_difference,
    wilson_interval,
)

#: How ``differs_from_lower`` was measured (the ``differs_basis`` column).
DIFFERS_OWN_TOM0 = "own ToM0 retrieval, every decision"
DIFFERS_SHARED_DEALS = "shared deals vs the same opponents, up to the first divergence"


def order_conditions(games: pd.DataFrame) -> pd.DataFrame:
    """One row per condition whose focal model and opponents are ToM models of one order
    each: ``focal_order`` (k), ``opponent_order``, labels and the focal spec, read from the
    logged labels and orders (never from table labels)."""
    focal = focal_rows(games)
    focal = focal[focal["tom_order"].notna() & focal["opponent_order"].notna()]
    require_rows(focal, "games of ToM-k against ToM models")
    table = focal.groupby("condition").agg(
        focal_label=("focal_label", "first"), opponent_label=("opponent_label", "first"),
        focal_order=("tom_order", "first"), opponent_order=("opponent_order", "first"),
        focal_spec=("agent", "first"), opponent_spec=("opponent", "first"),
        kinds=("agent", "nunique"))
    mixed = table[table["kinds"] > 1]
    if len(mixed):
        raise AnalysisInputError(f"conditions {list(mixed.index)} seat different focal "
                                 "specs; one focal model per condition is expected")
    table = table.drop(columns="kinds").astype({"focal_order": int, "opponent_order": int})
    return table.reset_index().sort_values(["opponent_order", "focal_order"],
                                           ignore_index=True)


def _lookup(index: pd.DataFrame, focal: int, opponent: int) -> int | None:
    """The condition of ToM-``focal`` vs 3 x ToM-``opponent``, if the log has one."""
    chosen = index[(index["focal_order"] == focal) & (index["opponent_order"] == opponent)]
    if len(chosen) > 1:
        raise AnalysisInputError(f"{len(chosen)} conditions seat ToM{focal} against three "
                                 f"ToM{opponent}; select one experiment first")
    return None if chosen.empty else int(chosen["condition"].iloc[0])


def _overrides_tom0(decisions: pd.DataFrame, condition: int) -> dict:
    """Focal decisions in which the move differs from the model's own ToM0 retrieval
    (forced takes, where ToM0 is not consulted, left out), with a cluster-bootstrap
    interval over deals (a game's decisions are not independent trials)."""
    part = decisions[(decisions["condition"] == condition)
                     & decisions["focal"].astype(bool)]
    tom0 = part["own_tom0_action"].astype("string")
    asked = part[tom0.isin(["take", "pass"]).fillna(False).to_numpy()]
    n = len(asked)
    differs = (asked["action"].astype(str) != asked["own_tom0_action"].astype(str))
    if not n:
        low = high = np.nan
    else:
        per_deal = differs.groupby(asked["deal"].to_numpy()).agg(["sum", "size"])
        _, low, high = cluster_share(per_deal["sum"].to_numpy(float),
                                     per_deal["size"].to_numpy(float))
    count = int(differs.sum())
    return {"overrides_tom0": count / n if n else np.nan, "overrides_tom0_ci_low": low,
            "overrides_tom0_ci_high": high, "overrides_tom0_decisions": n}


def orders_table(games: pd.DataFrame, decisions: pd.DataFrame | None = None
                 ) -> pd.DataFrame:
    """One row per ToM-k vs 3 x ToM-j table of a log (the ``higher-orders`` design).

    * ``lower_series`` / ``tom0_series``: the row belongs to ToM-k vs 3 x ToM(k-1) and/or
      to ToM-k vs 3 x ToM0 (ToM1 vs 3 x ToM0 to both).
    * ``first_share``: the focal model's share of first places (ties count as first;
      95% Wilson CI); parity is 1/4.
    * ``focal_points`` / ``opponent_points``: mean rank points of the focal model and of
      its opponents (their mean per deal); ``advantage`` = their per-deal difference with
      a paired t 95% CI and p (> 0 favours the focal model; the rank points of one game
      sum to 6, so this is 4/3 x (focal points - 1.5)).
    * ``gain``: the focal ToM-k's rank points minus ToM-(k-1)'s against the same
      opponents on the same deals (paired t CI), when the log has both tables (in the
      design: against three ToM0, k >= 2). The marginal value of one more order.
    * ``overrides_tom0``: focal decisions in which the move differs from the model's
      own ToM0 retrieval (cluster-bootstrap CI over deals): how often theory of mind
      changes the move at all.
    * ``differs_from_lower``: how often ToM-k's move differs from ToM-(k-1)'s, with
      ``differs_basis`` saying how it was measured. k = 1: ToM-(k-1) is ToM0, so it is
      ``overrides_tom0`` (the same state, the same memory). k >= 2: ToM-k and ToM-(k-1)
      against the same opponents on the same deals (in the design: three ToM0; the
      focal seat's model gets the same seed), the per-decision rate of
      :func:`~.paired.focal_divergence` (diverging deals / decisions compared up to and
      including the first divergence; cluster-bootstrap CI over deals). Tables without
      a ToM-(k-1) twin
      against the same opponents leave it empty. Needs ``decisions``.
    """
    require_columns(games, ["condition", "deal", "tom_order"], "games")
    require_rows(games, "higher-orders games")
    index = order_conditions(games)
    if decisions is not None:
        require_columns(decisions, ["condition", "deal", "turn", "focal", "action",
                                    "own_tom0_action"], "decisions")
    rows = []
    for cond in index.itertuples(index=False):
        k, j = cond.focal_order, cond.opponent_order
        deals = focal_by_deal(games, cond.condition)
        wins = int(deals["win"].sum())
        win_low, win_high = wilson_interval(wins, len(deals))
        margin = paired_difference(deals["rank_points"].to_numpy(),
                                   deals["opponent_rank_points"].to_numpy())
        row = {"condition": cond.condition, "focal_label": cond.focal_label,
               "opponent_label": cond.opponent_label, "focal_order": k, "opponent_order": j,
               "focal_spec": cond.focal_spec, "lower_series": j == k - 1,
               "tom0_series": j == 0, "games": len(deals),
               "first_share": wins / len(deals), "first_ci_low": win_low,
               "first_ci_high": win_high,
               "focal_points": margin["mean_a"], "opponent_points": margin["mean_b"],
               "advantage": margin["difference"], "advantage_ci_low": margin["ci_low"],
               "advantage_ci_high": margin["ci_high"], "advantage_p": margin["p"]}
        twin = _lookup(index, k - 1, j) if k >= 1 else None
        if twin is not None:
            gain = paired_conditions(games, cond.condition, twin)
            row.update({"gain": gain["difference"], "gain_ci_low": gain["ci_low"],
                        "gain_ci_high": gain["ci_high"], "gain_p": gain["p"]})
        else:
            row.update(dict.fromkeys(("gain", "gain_ci_low", "gain_ci_high", "gain_p"),
                                     np.nan))
        if decisions is not None:
            own = _overrides_tom0(decisions, cond.condition)
            row.update(own)
            if k == 1:
                row.update({"differs_from_lower": own["overrides_tom0"],
                            "differs_ci_low": own["overrides_tom0_ci_low"],
                            "differs_ci_high": own["overrides_tom0_ci_high"],
                            "differs_decisions": own["overrides_tom0_decisions"],
                            "differs_basis": DIFFERS_OWN_TOM0})
            elif twin is not None:
                split = focal_divergence(decisions, cond.condition, twin)
                row.update({"differs_from_lower": split["difference_rate"],
                            "differs_ci_low": split["difference_cluster_ci_low"],
                            "differs_ci_high": split["difference_cluster_ci_high"],
                            "differs_decisions": split["decisions_compared"],
                            "differs_basis": DIFFERS_SHARED_DEALS})
            else:
                row.update({"differs_from_lower": np.nan, "differs_ci_low": np.nan,
                            "differs_ci_high": np.nan, "differs_decisions": 0,
                            "differs_basis": ""})
        rows.append(row)
    return pd.DataFrame(rows).assign(source=data_source(games))


def orders_rows(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`orders_table` as printed in ``results.md`` and docs/higher-orders.md: one line per
    table with its numbers and CIs rounded."""
    require_columns(table, ["focal_label", "opponent_label", "games", "first_share",
                            "advantage", "gain"], "orders table")

    def interval(value: float, low: float, high: float, digits: int = 3,
                 percent: bool = False) -> str:
        if pd.isna(value):
            return "—"
        if percent:
            return f"{100 * value:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
        return f"{value:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"

    lines = []
    for r in table.itertuples(index=False):
        line = {"table": f"{r.focal_label} vs 3 x {r.opponent_label}", "games": r.games,
                "first place": interval(r.first_share, r.first_ci_low, r.first_ci_high,
                                        percent=True),
                "rank points (focal / opponents)": f"{r.focal_points:.3f} / "
                                                   f"{r.opponent_points:.3f}",
                "advantage": interval(r.advantage, r.advantage_ci_low, r.advantage_ci_high),
                "gain over ToM(k-1)": interval(r.gain, r.gain_ci_low, r.gain_ci_high)}
        if "differs_from_lower" in table.columns:
            line["move differs from ToM(k-1)"] = interval(
                r.differs_from_lower, r.differs_ci_low, r.differs_ci_high, percent=True)
            line["move differs from own ToM0"] = interval(
                r.overrides_tom0, r.overrides_tom0_ci_low, r.overrides_tom0_ci_high,
                percent=True)
        lines.append(line)
    return pd.DataFrame(lines)




def orders_conclusion(table: pd.DataFrame) -> str:
    """What one more order buys, in plain words, from :func:`orders_table`: the advantage
    of ToM-k in each series and the gain of ToM-k over ToM-(k-1) on the same deals (a
    difference counts when its 95% CI excludes 0)."""
    require_columns(table, ["focal_order", "opponent_order", "advantage", "advantage_ci_low",
                            "advantage_ci_high", "gain", "gain_ci_low", "gain_ci_high",
                            "lower_series", "tom0_series", "games"], "orders table")

    def verdict(low: float, high: float) -> str:
        return "above 0" if low > 0 else "below 0" if high < 0 else "includes 0"

    def listed(rows: pd.DataFrame, value: str) -> str:
        return "; ".join(
            f"ToM{r.focal_order} {getattr(r, value):+.3f} [{getattr(r, value + '_ci_low'):+.3f}"
            f", {getattr(r, value + '_ci_high'):+.3f}]"
            for r in rows.sort_values("focal_order").itertuples())

    games = int(table["games"].min())
    text = [f"Rank-point advantage of the focal model over its opponents' mean (95% paired "
            f"t CI, {games} deals each)."]
    for column, name in (("tom0_series", "three ToM0"), ("lower_series",
                                                         "three of the order below")):
        rows = table[table[column].astype(bool)]
        if len(rows):
            above = rows[rows["advantage_ci_low"] > 0]["focal_order"].tolist()
            text.append(f"Against {name}: {listed(rows, 'advantage')}; CI above 0 for "
                        + (", ".join(f"ToM{k}" for k in above) if above else "none") + ".")
    gains = table[table["gain"].notna()]
    if len(gains):
        words = {v: [f"ToM{r.focal_order}" for r in gains.itertuples()
                     if verdict(r.gain_ci_low, r.gain_ci_high) == v]
                 for v in ("above 0", "below 0", "includes 0")}
        text.append("Gain of ToM-k over ToM-(k-1) against the same opponents on the same "
                    f"deals: {listed(gains, 'gain')}; CI above 0 for "
                    f"{', '.join(words['above 0']) or 'none'}, below 0 for "
                    f"{', '.join(words['below 0']) or 'none'}.")
    if "differs_from_lower" in table.columns:
        differs = table[table["differs_from_lower"].notna()].sort_values(
            ["opponent_order", "focal_order"]).drop_duplicates("focal_order")
        if len(differs):
            text.append("ToM-k's move differs from ToM-(k-1)'s in " + "; ".join(
                f"{100 * r.differs_from_lower:.2f}% [{100 * r.differs_ci_low:.2f}, "
                f"{100 * r.differs_ci_high:.2f}] of decisions (ToM{r.focal_order}, "
                f"n = {r.differs_decisions})" for r in differs.itertuples()) + ".")
    return " ".join(text)


__all__ = ["DIFFERS_OWN_TOM0", "DIFFERS_SHARED_DEALS", "order_conditions",
           "orders_conclusion", "orders_rows", "orders_table"]
