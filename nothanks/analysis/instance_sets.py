"""The instance set as a factor: what ToM2 (and ToM3) gains over the order below, per set.

The ``instance-sets`` design plays the same tables under several ToM0 instance sets
(docs/models.md, "Instance sets"): ToM1 and ToM2 vs 3 x ToM0, ToM2 vs 3 x ToM1 with its
control ToM1 vs 3 x ToM1, ToM3 vs 3 x ToM2 with its control ToM2 vs 3 x ToM2, all on the
same deals. :func:`instance_sets_table` gives one row per (set, comparison):

* ``deals_differ``: deals on which the higher order made a move the lower order did not
  (Wilson CI over deals, which are independent);
* ``decisions_differ``: per-decision rate of :func:`~.paired.focal_divergence` (decisions
  up to and including the first difference; at most one difference per deal, so deals
  are the clusters and the Wilson interval over decisions is not needed: the deal share
  above is the clustered statement);
* ``difference``: higher minus lower order's focal rank points per deal, against the
  same opponents on the same deals, with its paired t CI and p (a test whose
  false-positive rate on identical players is about 5%: docs/statistics in results.md,
  "Placebo");
* ``tost_p``: the equivalence test (two one-sided paired t-tests) against the margin
  :data:`EQUIVALENCE_MARGIN`, fixed before the study was run;
* ``verdict``: ``identical play`` when no deal differs (no test, no flag), else the
  Holm-adjusted direction flag of the paired test over the family of every set and
  comparison, and ``equivalent`` when TOST rejects at 5% and the flag is n.s.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from .frames import AnalysisInputError, focal_rows, require_columns, require_rows
from .paired import (
    ALPHA,
    data_source,
    direction_flags,
    focal_divergence,
    paired_conditions,
    shared_deals,
    wilson_interval,
)
from .stats import rt_sweep
from .tables import with_rt

#: Equivalence margin of the TOST, in rank points per deal, stated before the study ran:
#: half the thesis's ToM2 - ToM1 edge of about 0.1 rank points (§5.2, Table 7).
EQUIVALENCE_MARGIN = 0.05
#: (higher order, lower order, opponents' order) of each comparison of the design.
COMPARISONS = ((2, 1, 0), (2, 1, 1), (3, 2, 2))
#: The set a model uses when its spec names none.
DEFAULT_SET = "monotone"


def condition_sets(games: pd.DataFrame, conditions: pd.DataFrame) -> pd.DataFrame:
    """One row per condition: ``instances`` (the swept set), focal and opponents' order."""
    require_columns(conditions, ["condition", "sweep"], "conditions")
    sweep = {int(c): json.loads(s).get("instances", DEFAULT_SET)
             for c, s in zip(conditions["condition"], conditions["sweep"], strict=True)}
    focal = focal_rows(games)
    focal = focal[focal["tom_order"].notna() & focal["opponent_order"].notna()]
    require_rows(focal, "games of ToM-k against ToM models")
    table = focal.groupby("condition").agg(focal_order=("tom_order", "first"),
                                           opponent_order=("opponent_order", "first"))
    table = table.astype(int).reset_index()
    table["instances"] = table["condition"].map(sweep)
    if table["instances"].isna().any():
        raise AnalysisInputError("games of a condition the conditions table lacks")
    return table


def _condition(index: pd.DataFrame, instances: str, focal: int, opponents: int) -> int | None:
    chosen = index[(index["instances"] == instances) & (index["focal_order"] == focal)
                   & (index["opponent_order"] == opponents)]
    if len(chosen) > 1:
        raise AnalysisInputError(f"{len(chosen)} conditions seat ToM{focal} vs 3 x "
                                 f"ToM{opponents} with instances={instances}; one is expected")
    return None if chosen.empty else int(chosen["condition"].iloc[0])


def tost_paired(a: np.ndarray, b: np.ndarray, margin: float = EQUIVALENCE_MARGIN) -> float:
    """p of the two one-sided paired t-tests that the mean of a - b lies in (-margin,
    +margin); NaN when every difference is equal (nothing to test)."""
    from statsmodels.stats.weightstats import ttost_paired
    diff = np.asarray(a, float) - np.asarray(b, float)
    if np.ptp(diff) == 0:
        return np.nan
    return float(ttost_paired(np.asarray(a, float), np.asarray(b, float), -margin, margin)[0])


def _first_share(games: pd.DataFrame, condition: int | None) -> dict:
    if condition is None:
        return {"first_share": np.nan, "first_ci_low": np.nan, "first_ci_high": np.nan}
    focal = focal_rows(games[games["condition"] == condition])
    wins, n = int((focal["rank"] == 1).sum()), len(focal)
    low, high = wilson_interval(wins, n)
    return {"first_share": wins / n, "first_ci_low": low, "first_ci_high": high}


def instance_sets_table(games: pd.DataFrame, decisions: pd.DataFrame,
                        conditions: pd.DataFrame,
                        margin: float = EQUIVALENCE_MARGIN) -> pd.DataFrame:
    """One row per (instance set, comparison) of an ``instance-sets`` log (module doc)."""
    require_columns(decisions, ["condition", "deal", "turn", "focal", "action"], "decisions")
    index = condition_sets(games, conditions)
    rows = []
    for instances in dict.fromkeys(index["instances"]):
        for high, low, opponents in COMPARISONS:
            a = _condition(index, instances, high, opponents)
            b = _condition(index, instances, low, opponents)
            if a is None or b is None:
                continue
            pair = paired_conditions(games, a, b)
            left, right = shared_deals(games, a, b)
            split = focal_divergence(decisions, a, b)
            deal_low, deal_high = wilson_interval(split["diverged_deals"], split["deals"])
            share = split["diverged_deals"] / split["deals"]  # the bound's round-off clipped
            rows.append({
                "instances": instances, "comparison": f"ToM{high} - ToM{low}",
                "opponents": f"3 x ToM{opponents}", "deals": pair["deals"],
                **{f"higher_{k}": v for k, v in _first_share(games, a).items()},
                **{f"lower_{k}": v for k, v in _first_share(games, b).items()},
                "deals_differ": share,
                "deals_differ_ci_low": min(deal_low, share), "deals_differ_ci_high": deal_high,
                "decisions_differ": split["difference_rate"],
                "decisions_compared": split["decisions_compared"],
                "difference": pair["difference"], "ci_low": pair["ci_low"],
                "ci_high": pair["ci_high"], "t": pair["t"], "df": pair["df"], "p": pair["p"],
                "tost_p": tost_paired(left["rank_points"], right["rank_points"], margin),
                "margin": margin})
    if not rows:
        raise AnalysisInputError("no (set, comparison) of the instance-sets design in this "
                                 "log: it needs ToM-k and ToM-(k-1) against the same "
                                 "opponents under one set")
    table = pd.DataFrame(rows)
    identical = table["deals_differ"] == 0
    p = table["p"].where(~identical)
    table["p_holm"], flags = direction_flags(p.to_numpy(), [True] * len(table))
    verdict = []
    for same, flag, tost in zip(identical, flags, table["tost_p"], strict=True):
        if same:
            verdict.append("identical play")
        elif flag == "n.s." and tost < ALPHA:
            verdict.append("equivalent (TOST)")
        else:
            verdict.append(flag)
    table["verdict"] = verdict
    return table.assign(source=data_source(games))


def rt_sweep_by_set(log, default=None) -> pd.DataFrame:
    """Figure 14's sweep (:func:`~.stats.rt_sweep`) once per instance set of a log whose
    conditions sweep ``rt`` and ``instances`` (design ``figure14-instance-sets``), with an
    ``instances`` column; ``default`` (the ``figure14`` design's log: the default set on
    the same deals) adds the default set's rows. Logs as :class:`~.tables.LogTables`."""
    parts = []
    if default is not None:
        parts.append(rt_sweep(with_rt(default)).assign(instances=DEFAULT_SET))
    sweep = log.sweep()
    if "instances" not in sweep.columns:
        raise AnalysisInputError("figure14-instance-sets log: its conditions sweep no "
                                 "'instances'")
    key = ["experiment", "design_hash", "condition"]
    games = with_rt(log).merge(sweep[key + ["instances"]], on=key, how="left")
    for name in dict.fromkeys(sweep["instances"]):
        parts.append(rt_sweep(games[games["instances"] == name]).assign(instances=name))
    return pd.concat(parts, ignore_index=True)


def flip_rate(instances: str) -> float:
    """The ``flip=R`` of a set name (0 for a set without one)."""
    for part in instances.split("+")[1:]:
        key, _, value = part.partition("=")
        if key == "flip":
            return float(value)
    return 0.0


def instance_sets_rows(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`instance_sets_table` as printed in ``results.md``."""
    require_columns(table, ["instances", "comparison", "opponents", "deals", "deals_differ",
                            "difference", "ci_low", "ci_high", "tost_p", "verdict"],
                    "instance-sets table")

    def share(v: float, lo: float, hi: float) -> str:
        return f"{100 * v:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"

    def signed(v: float) -> str:
        return f"{round(v, 3) + 0.0:+.3f}"

    return pd.DataFrame({
        "instance set": table["instances"],
        "comparison": table["comparison"] + " vs " + table["opponents"],
        "higher order 1st": [share(*r) for r in zip(table["higher_first_share"],
                                                    table["higher_first_ci_low"],
                                                    table["higher_first_ci_high"],
                                                    strict=True)],
        "deals where moves differ": [share(*r) for r in zip(table["deals_differ"],
                                                           table["deals_differ_ci_low"],
                                                           table["deals_differ_ci_high"],
                                                           strict=True)],
        "rank points per deal, difference [95% CI]": [
            f"{signed(d)} [{signed(lo)}, {signed(hi)}]" for d, lo, hi in
            zip(table["difference"], table["ci_low"], table["ci_high"], strict=True)],
        "paired p (Holm)": [("—" if np.isnan(p) else f"{p:.3g} ({h:.3g})") for p, h in
                            zip(table["p"], table["p_holm"], strict=True)],
        f"TOST p (±{table['margin'].iloc[0]:g})": [("—" if np.isnan(p) else f"{p:.3g}")
                                                  for p in table["tost_p"]],
        "verdict": table["verdict"],
        "deals": table["deals"],
    })
