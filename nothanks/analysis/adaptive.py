"""The adaptive opponent (``bayes-tom``) against fixed models: pure functions of the
``adaptive`` design's games table.

The order inference itself (which order of theory of mind a participant plays) re-runs
the models and is a study: :mod:`nothanks.studies.inference`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .frames import AnalysisInputError, require_columns
from .paired import bootstrap_interval, data_source, paired_difference, wilson_interval
from .stats import mean_interval


def _focal_results(games: pd.DataFrame, condition: int) -> pd.DataFrame:
    """The focal player's rank points and first place (ties included) per deal; the
    opponents may be of different types (mixed tables)."""
    part = games[(games["condition"] == condition) & games["focal"].fillna(False).astype(bool)]
    if part.empty:
        raise AnalysisInputError(f"games of condition {condition}: no focal player rows")
    if part["deal"].duplicated().any():
        raise AnalysisInputError(f"games of condition {condition}: a deal was played twice; "
                                 "select one experiment")
    return pd.DataFrame({"rank_points": part["rank_points"].to_numpy(float),
                         "win": (part["rank"] == 1).to_numpy(float)},
                        index=pd.Index(part["deal"].to_numpy(), name="deal")).sort_index()


def adaptive_table(games: pd.DataFrame, conditions: pd.DataFrame,
                   adaptive: str = "bayes-tom",
                   resamples: int = 10_000) -> pd.DataFrame:
    """The adaptive opponent against fixed models, table by table, on shared deals.

    For every table (the part of a condition label after ``|``) and focal model: first
    places (ties included) with a Wilson interval, mean rank points with a t interval,
    and for each fixed model the paired difference ``adaptive − fixed`` in rank points
    (paired t interval) and in first places (bootstrap interval) on the same deals.
    The opponents at a table may differ from each other, so the focal player is read
    from the ``focal`` column.
    """
    require_columns(conditions, ["condition", "label"], "conditions")
    require_columns(games, ["condition", "deal", "focal", "rank", "rank_points"], "games")
    labels = conditions.drop_duplicates("condition").set_index("condition")["label"]
    split = labels.str.split("|", n=1, expand=True)
    if split.shape[1] != 2 or split[1].isna().any():
        raise AnalysisInputError("conditions: labels must read 'FOCAL | TABLE' (the adaptive "
                                 f"design's form); got {labels.tolist()[:3]}")
    parts = pd.DataFrame({"focal": split[0].str.strip(), "table": split[1].str.strip()})
    rows = []
    for table, group in parts.groupby("table", sort=False):
        ours = group.index[group["focal"] == adaptive]
        if len(ours) != 1:
            raise AnalysisInputError(f"table {table!r}: no single {adaptive!r} condition")
        for condition, focal in group["focal"].items():
            deals = _focal_results(games, int(condition))
            wins = int(deals["win"].sum())
            win_low, win_high = wilson_interval(wins, len(deals))
            rp_low, rp_high = mean_interval(deals["rank_points"].to_numpy())
            row = {"table": table, "focal": focal, "games": len(deals),
                   "first_share": wins / len(deals), "first_ci_low": win_low,
                   "first_ci_high": win_high,
                   "rank_points": float(deals["rank_points"].mean()),
                   "rank_points_ci_low": rp_low, "rank_points_ci_high": rp_high}
            if condition != ours[0]:
                mine = _focal_results(games, int(ours[0]))
                common = mine.index.intersection(deals.index)
                a, b = mine.loc[common], deals.loc[common]
                paired = paired_difference(a["rank_points"], b["rank_points"], resamples)
                wins = a["win"].to_numpy() - b["win"].to_numpy()
                low, high = bootstrap_interval(wins, resamples)
                row.update({"diff_rank_points": paired["difference"],
                            "diff_ci_low": paired["ci_low"], "diff_ci_high": paired["ci_high"],
                            "diff_p": paired["p"], "diff_first": float(wins.mean()),
                            "diff_first_ci_low": low, "diff_first_ci_high": high})
            else:
                row.update(dict.fromkeys(["diff_rank_points", "diff_ci_low", "diff_ci_high",
                                          "diff_p", "diff_first", "diff_first_ci_low",
                                          "diff_first_ci_high"], np.nan))
            rows.append(row)
    return pd.DataFrame(rows).assign(source=data_source(games))


def adaptive_markdown(table: pd.DataFrame, adaptive: str = "bayes-tom") -> str:
    """The adaptive table in Markdown (shares and means with their 95% intervals)."""
    head = ("| table | focal | games | first places [95% CI] | rank points [95% CI] | "
            f"{adaptive} − focal: rank points [95% CI], p | {adaptive} − focal: first "
            "places [95% CI] |")
    lines = [head, "|" + " --- |" * 7]
    for r in table.itertuples(index=False):
        diff = ("" if np.isnan(r.diff_rank_points) else
                f"{r.diff_rank_points:+.3f} [{r.diff_ci_low:+.3f}, {r.diff_ci_high:+.3f}], "
                f"p = {r.diff_p:.2g}")
        first = ("" if np.isnan(r.diff_first) else
                 f"{r.diff_first:+.3f} [{r.diff_first_ci_low:+.3f}, "
                 f"{r.diff_first_ci_high:+.3f}]")
        lines.append(f"| {r.table} | {r.focal} | {r.games} | {r.first_share:.3f} "
                     f"[{r.first_ci_low:.3f}, {r.first_ci_high:.3f}] | {r.rank_points:.3f} "
                     f"[{r.rank_points_ci_low:.3f}, {r.rank_points_ci_high:.3f}] | {diff} | "
                     f"{first} |")
    return "\n".join(lines)


__all__ = ["adaptive_markdown", "adaptive_table"]
