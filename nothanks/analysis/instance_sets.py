"""The instance set as a factor: what ToM2 (and ToM3) gains over the order below, per set.

The ``instance-sets`` design plays the same tables under several ToM0 instance sets
(docs/models.md, "Instance sets"): ToM1 and ToM2 vs 3 x ToM0, ToM2 vs 3 x ToM1 with its
control ToM1 vs 3 x ToM1, ToM3 vs 3 x ToM2 with its control ToM2 vs 3 x ToM2, all on the
same deals. :func:`instance_sets_table` gives one row per (set, comparison):

* ``deals_differ``: deals on which the higher order made a move the lower order did not
  (Wilson CI over deals, which are independent);
* ``decisions_differ``: per-decision rate of :func:`~.paired.focal_divergence` (decisions
  up to and including the first difference), with a cluster-bootstrap interval over
  deals;
* ``difference``: higher minus lower order's focal rank points per deal, against the
  same opponents on the same deals, with its paired t CI and p (a test whose
  false-positive rate on identical players is about 5%: docs/statistics in results.md,
  "Placebo");
* ``tost_p``: the equivalence test (two one-sided paired t-tests) against the margin
  :data:`EQUIVALENCE_MARGIN`, fixed before the study was run;
* ``verdict``: ``identical play`` when no deal differs (no test, no flag), else the
  Holm-adjusted direction flag of the paired test over the family of every set and
  comparison; ``equivalent (TOST)`` when the flag is n.s. and TOST rejects at 5%, and
  ``higher, within ±margin (TOST)`` when the difference is significant but smaller than
  the margin.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
from scipy import stats

from .frames import (
    AnalysisInputError,
    focal_rows,
    markdown_table,
    require_columns,
    require_rows,
)
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
#: The verdict of a comparison when the paired-deals test's placebo false-positive
#: interval lies above 5% (:func:`~.placebo.may_flag`).
NO_FLAG = "no flag (the paired test is not cleared by its placebo)"
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
                        margin: float = EQUIVALENCE_MARGIN, *,
                        may_flag: bool = True) -> pd.DataFrame:
    """One row per (instance set, comparison) of an ``instance-sets`` log (module doc).

    ``may_flag``: whether the paired-deals test may give flags
    (:func:`~.placebo.may_flag` of its placebo in the case it is used in); when not,
    every verdict but identical play is :data:`NO_FLAG`."""
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
                "decisions_differ_ci_low": split["difference_cluster_ci_low"],
                "decisions_differ_ci_high": split["difference_cluster_ci_high"],
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
    table["verdict"] = verdicts(identical, flags, table["tost_p"], margin, may_flag)
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
    return pd.concat(parts, ignore_index=True).assign(source=data_source(log.games))


def verdict(identical: bool, flag: str, tost_p: float,
            margin: float = EQUIVALENCE_MARGIN) -> str:
    """One comparison's verdict (module doc): identical play, the paired test's flag, and
    what the equivalence test adds."""
    if identical:
        return "identical play"
    equivalent = bool(tost_p < ALPHA)  # NaN (no variation) is not equivalence
    if flag == "n.s.":
        return "equivalent (TOST)" if equivalent else "n.s."
    return f"{flag}, within ±{margin:g} (TOST)" if equivalent else flag


def verdicts(identical, flags, tost_p, margin: float = EQUIVALENCE_MARGIN,
             may_flag: bool = True) -> list[str]:
    """:func:`verdict` of every comparison; :data:`NO_FLAG` for every comparison but
    identical play when the paired test may not flag (``may_flag`` false)."""
    return [verdict(same, flag, tost, margin) if same or may_flag else NO_FLAG
            for same, flag, tost in zip(identical, flags, tost_p, strict=True)]


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
        "decisions where moves differ": [share(*r) for r in zip(
            table["decisions_differ"], table["decisions_differ_ci_low"],
            table["decisions_differ_ci_high"], strict=True)],
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


def dose_response(flips: pd.DataFrame) -> pd.DataFrame:
    """Per (opponents, flipped share): the mean of the seeded sets' differences with a
    conservative 95% interval (mean ± 1.96 × the mean of their standard errors, read
    from each set's paired t interval: the bound of the mean's SE at any correlation,
    since the sets share their deals), and the range of their deals-differ shares."""
    rows = []
    frame = flips.assign(rate=flips["instances"].map(flip_rate))
    for (opponents, rate), part in frame.groupby(["opponents", "rate"], sort=True):
        half = (part["ci_high"] - part["ci_low"]) / 2
        z = stats.t.ppf(0.975, part["df"])
        se = float((half / z).mean())
        mean = float(part["difference"].mean())
        rows.append({"opponents": opponents, "rate": rate, "sets": len(part),
                     "difference": mean, "ci_low": mean - 1.959964 * se,
                     "ci_high": mean + 1.959964 * se,
                     "deals_differ_min": float(part["deals_differ"].min()),
                     "deals_differ_max": float(part["deals_differ"].max())})
    return pd.DataFrame(rows)


def _listed(names) -> str:
    names = [f"`{n}`" for n in names]
    return ", ".join(names) if names else "none"


def instance_sets_markdown(table: pd.DataFrame | None, sweep: pd.DataFrame | None = None
                           ) -> str:
    """results.md's "Instance sets" section (empty without the study's table)."""
    if table is None or table.empty:
        return ""
    margin = float(table["margin"].iloc[0])
    text = ["", "## Instance sets", "",
            "ToM0's instance set is the thesis's unpublished free choice (§3.2), so the "
            "ToM2 question is asked once per set (design `instance-sets`; docs/models.md, "
            "\"Instance sets\"): the default `monotone` set, the reconstructions "
            "`thesis-linear` and `thesis-bands`, the monotone set with a share of its "
            "no-sequence actions flipped (two seeds per rate) and a jittered monotone set; "
            "every model at the table uses the set. Each comparison is the higher order's "
            "focal rank points minus the lower order's against the same three opponents "
            "on the same deals (paired t 95% CI; the paired-deals test's false-positive "
            "rate in this very case, arms that differ only in the focal seat's noise key, "
            "is in figures/results.md, \"Valid tests\"). \"Deals where moves "
            "differ\": the higher order made a move the lower did not (95% Wilson CI "
            "over deals); \"decisions where moves differ\": per decision compared up to "
            "and including the first difference (95% CI clustered by deal). TOST: two "
            "one-sided paired t-tests against a margin of "
            f"±{margin:g} rank points, fixed before the study ran (half the thesis's "
            "ToM2 edge of about 0.1). Verdicts: `identical play` (no deal differs: no "
            "test), `higher`/`lower` (paired test, Holm over every set and comparison; "
            "\"within\" the margin when TOST also rejects), `equivalent (TOST)`, or "
            "`n.s.`. Source: "
            f"{table['source'].iloc[0]}.", "",
            markdown_table(instance_sets_rows(table)), ""]
    same = table[table["verdict"] == "identical play"]
    tom2 = table[table["comparison"] == "ToM2 - ToM1"]
    identical_sets = [n for n, part in tom2.groupby("instances", sort=False)
                      if (part["verdict"] == "identical play").all()]
    differing = tom2[tom2["deals_differ"] > 0]
    text += [f"**What the set decides.** ToM2 made ToM1's moves on every shared deal, "
             f"against three ToM0 and three ToM1, under: {_listed(identical_sets)}. "
             f"{len(same)} of {len(table)} comparisons are identical play."]
    if not differing.empty:
        best = differing.loc[differing["difference"].idxmax()]
        text[-1] += (f" Where ToM2's moves differ, its edge over ToM1 ranges from "
                     f"{differing['difference'].min():+.3f} to {best['difference']:+.3f} "
                     f"rank points per deal (largest: `{best['instances']}` "
                     f"{best['comparison']} vs {best['opponents']}, 95% CI "
                     f"[{best['ci_low']:+.3f}, {best['ci_high']:+.3f}]); the thesis's "
                     "edge is about +0.1. A result about ToM2 therefore says which set it "
                     "was measured with.")
    flips = tom2[tom2["instances"].str.contains(r"\+flip=")]
    if not flips.empty:
        dose = dose_response(flips)
        text += ["", "Dose-response (monotone set, mean over its seeded sets, which share "
                 "their deals; the interval is conservative: the mean ± 1.96 times the "
                 "mean of the sets' standard errors, valid whatever the sets' "
                 "correlation; the deals where moves differ as the range over the sets):",
                 "",
                 markdown_table(pd.DataFrame({
                     "ToM2 - ToM1 vs": dose["opponents"],
                     "flipped share": [f"{r:g}" for r in dose["rate"]],
                     "sets": dose["sets"],
                     "deals where moves differ": [
                         f"{100 * lo:.1f}% to {100 * hi:.1f}%" for lo, hi in
                         zip(dose["deals_differ_min"], dose["deals_differ_max"],
                             strict=True)],
                     "mean difference (rank points) [95% CI]": [
                         f"{round(v, 3) + 0.0:+.3f} [{lo:+.3f}, {hi:+.3f}]" for v, lo, hi in
                         zip(dose["difference"], dose["ci_low"], dose["ci_high"],
                             strict=True)]}))]
    return "\n".join(text + rt_sweep_by_set_lines(sweep)) + "\n"


def rt_sweep_by_set_markdown(sweep: pd.DataFrame | None) -> str:
    """results.md's "Figure 14's ToM2 curves by set" section alone (empty without the
    table of :func:`rt_sweep_by_set`)."""
    lines = rt_sweep_by_set_lines(sweep)
    return "\n".join(["", "## Figure 14's ToM2 curves by instance set", *lines]) + "\n" \
        if lines else ""


def rt_sweep_by_set_lines(sweep: pd.DataFrame | None) -> list[str]:
    """The markdown lines of Figure 14's ToM2 curves by set (none without the table)."""
    if sweep is None or sweep.empty:
        return []
    tom2_sweep = sweep[sweep["higher"] == "ToM2"]
    cells = tom2_sweep.assign(
        cell=[f"{m:.2f} [{lo:.2f}, {hi:.2f}]" for m, lo, hi in
              zip(tom2_sweep["mean"], tom2_sweep["ci_low"], tom2_sweep["ci_high"],
                  strict=True)],
        row=tom2_sweep["instances"] + ": ToM2 vs " + tom2_sweep["lower"])
    pivot = cells.pivot(index="row", columns="rt", values="cell")
    pivot.columns = [f"rt {c:g}" for c in pivot.columns]
    return ["", "**Figure 14's ToM2 curves by set** (ToM2's mean rank points, 95% t "
            "CI, per retrieval threshold; every set on the same deals as design "
            "`figure14`; figure `extra_fig14_instance_sets`):", "",
            markdown_table(pivot.reset_index().rename(columns={"row": "set: pairing"}))]
