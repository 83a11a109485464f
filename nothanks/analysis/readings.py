"""The readings ablation: each open reading of the thesis alone, on shared deals.

The ``readings`` design plays, per reading, ToM1 vs 3 x ToM0, ToM2 vs 3 x ToM1 and the
control ToM1 vs 3 x ToM1, every table on the same deals (docs/models.md, "Readings").
:func:`readings_table` gives one row per reading: how the focal model does against its
opponents and against the default reading (paired on deals), how often ToM2's move
differs from ToM1's, and how accurate the token memory's recalls are.
:func:`readings_conclusion` says in words which readings, if any, let ToM2 beat ToM1.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np
import pandas as pd

from .frames import AnalysisInputError, focal_rows, require_columns, require_rows
from .paired import (
    data_source,
    focal_by_deal,
    focal_divergence,
    paired_difference,
    wilson_interval,
)

#: The reading every other one is compared with.
DEFAULT_READING = "default"
#: The three comparisons the design plays per reading: (focal label, opponent label).
READING_COMPARISONS = {"tom1": ("ToM1", "ToM0"), "tom2": ("ToM2", "ToM1"),
                       "control": ("ToM1", "ToM1")}
#: Recall sources that are memory recalls (not exact counts given to the model).
_RECALLED = ("leaf", "root", "default")


#: The columns of the readings log's decisions and recalls that :func:`readings_table`
#: reads (a loader may keep only these: the full tables take gigabytes).
DECISION_COLUMNS = ("condition", "deal", "turn", "focal", "action")
RECALL_COLUMNS = ("game_id", "source", "exact", "leaf_is_newest")


class ReadingsLog(Protocol):
    """The tables of the readings log that the ablation reads."""

    conditions: pd.DataFrame
    games: pd.DataFrame
    decisions: pd.DataFrame
    recalls: pd.DataFrame


def reading_conditions(games: pd.DataFrame, conditions: pd.DataFrame) -> pd.DataFrame:
    """One row per condition: its ``reading`` (the table label after ``|``) and comparison.

    The comparison (``tom1``, ``tom2``, ``control``) is read from the logged labels of the
    focal player and its opponents, not from the table label.
    """
    require_columns(conditions, ["condition", "table"], "conditions")
    focal = focal_rows(games)
    who = focal.groupby("condition").agg(focal_label=("focal_label", "first"),
                                         opponent_label=("opponent_label", "first"))
    kinds = {pair: kind for kind, pair in READING_COMPARISONS.items()}
    who["comparison"] = [kinds.get(pair) for pair in zip(who["focal_label"],
                                                         who["opponent_label"], strict=True)]
    tables = conditions.drop_duplicates("condition").set_index("condition")["table"]
    who["reading"] = tables.reindex(who.index).astype(str).map(
        lambda label: label.split("|", 1)[1].strip() if "|" in label else DEFAULT_READING)
    return who.dropna(subset=["comparison"]).reset_index()


def _condition(index: pd.DataFrame, reading: str, kind: str) -> int:
    chosen = index[(index["reading"] == reading) & (index["comparison"] == kind)]
    if len(chosen) != 1:
        focal, opponent = READING_COMPARISONS[kind]
        raise AnalysisInputError(f"readings log: reading {reading!r} has {len(chosen)} "
                                 f"tables of {focal} vs 3 x {opponent}; expected 1")
    return int(chosen["condition"].iloc[0])


def _margin(games: pd.DataFrame, condition: int) -> pd.Series:
    """Per deal: the focal player's rank points minus its opponents' mean."""
    deals = focal_by_deal(games, condition)
    return deals["rank_points"] - deals["opponent_rank_points"]


def _focal_columns(games: pd.DataFrame, condition: int, default: int, prefix: str) -> dict:
    deals = focal_by_deal(games, condition)
    wins = int(deals["win"].sum())
    win_low, win_high = wilson_interval(wins, len(deals))
    margin = _margin(games, condition)
    against = paired_difference(margin.to_numpy(), np.zeros(len(margin)))
    row = {f"{prefix}_games": len(deals), f"{prefix}_win_share": wins / len(deals),
           f"{prefix}_win_ci_low": win_low, f"{prefix}_win_ci_high": win_high,
           f"{prefix}_margin": against["difference"],
           f"{prefix}_margin_ci_low": against["ci_low"],
           f"{prefix}_margin_ci_high": against["ci_high"], f"{prefix}_margin_p": against["p"]}
    if condition == default:
        return {**row, f"{prefix}_vs_default": np.nan, f"{prefix}_vs_default_ci_low": np.nan,
                f"{prefix}_vs_default_ci_high": np.nan, f"{prefix}_vs_default_p": np.nan}
    base = _margin(games, default)
    common = margin.index.intersection(base.index)
    versus = paired_difference(margin.loc[common].to_numpy(), base.loc[common].to_numpy())
    return {**row, f"{prefix}_vs_default": versus["difference"],
            f"{prefix}_vs_default_ci_low": versus["ci_low"],
            f"{prefix}_vs_default_ci_high": versus["ci_high"],
            f"{prefix}_vs_default_p": versus["p"]}


def _share(successes: int, n: int, name: str) -> dict:
    low, high = wilson_interval(successes, n) if n else (np.nan, np.nan)
    return {name: successes / n if n else np.nan, f"{name}_ci_low": low,
            f"{name}_ci_high": high}


def _recall_columns(recalls: pd.DataFrame) -> dict:
    recalled = recalls[recalls["source"].astype("string").isin(_RECALLED)]
    leaves = recalled[recalled["leaf_is_newest"].notna()]
    older = int((~leaves["leaf_is_newest"].astype(bool)).sum())
    return {"recalls": len(recalled),
            **_share(int(recalled["exact"].astype(bool).sum()), len(recalled), "exact_share"),
            "leaf_recalls": len(leaves), **_share(older, len(leaves), "older_leaf_rate")}


def readings_table(log: ReadingsLog) -> pd.DataFrame:
    """The ablation table: one row per reading of the ``readings`` design's log.

    * ``tom1_*`` / ``tom2_*``: ToM1 vs 3 x ToM0 and ToM2 vs 3 x ToM1. ``win_share``: the
      focal model's share of first places (ties included; Wilson 95% CI). ``margin``:
      its rank points minus its opponents' mean, per deal (paired t 95% CI and p; > 0
      favours the focal model). ``vs_default``: the margin minus the default reading's
      on the same deals (paired).
    * ``tom2_differs``: the per-decision rate at which ToM2's move differs from ToM1's,
      from ToM2 vs 3 x ToM1 against the control ToM1 vs 3 x ToM1 on the same deals
      (:func:`~.paired.focal_divergence`: diverging deals / decisions compared up to and
      including the first divergence; cluster-bootstrap CI over deals).
    * ``exact_share``: recalls (leaf, root or nothing) that gave exactly the true count;
      ``older_leaf_rate``: leaf recalls in which an older leaf beat the newest. Both over
      every model's recalls in the reading's three tables, with Wilson CIs.
    """
    require_rows(log.games, "readings games")
    index = reading_conditions(log.games, log.conditions)
    readings = list(dict.fromkeys(index["reading"]))
    if DEFAULT_READING not in readings:
        raise AnalysisInputError(f"readings log: no {DEFAULT_READING!r} reading to compare "
                                 f"with; readings: {readings}")
    readings.remove(DEFAULT_READING)
    game_condition = log.games.drop_duplicates("game_id").set_index("game_id")["condition"]
    recall_condition = log.recalls["game_id"].map(game_condition)
    rows = []
    for reading in [DEFAULT_READING, *readings]:
        row: dict = {"reading": reading}
        for kind in ("tom1", "tom2"):
            row.update(_focal_columns(log.games, _condition(index, reading, kind),
                                      _condition(index, DEFAULT_READING, kind), kind))
        divergence = focal_divergence(log.decisions, _condition(index, reading, "tom2"),
                                      _condition(index, reading, "control"))
        row.update({"tom2_differs": divergence["difference_rate"],
                    "tom2_differs_ci_low": divergence["difference_cluster_ci_low"],
                    "tom2_differs_ci_high": divergence["difference_cluster_ci_high"],
                    "tom2_diverged_deals": divergence["diverged_deals"],
                    "tom2_decisions_compared": divergence["decisions_compared"]})
        mine = index.loc[index["reading"] == reading, "condition"]
        row.update(_recall_columns(log.recalls[recall_condition.isin(mine).to_numpy()]))
        rows.append(row)
    return pd.DataFrame(rows).assign(source=data_source(log.games))


def readings_conclusion(table: pd.DataFrame) -> str:
    """Which readings let ToM2 beat ToM1, in plain words, from :func:`readings_table`.

    ToM2 beats ToM1 under a reading when its paired margin over its ToM1 opponents has a
    95% CI above 0.
    """
    require_columns(table, ["reading", "tom2_margin", "tom2_margin_ci_low",
                            "tom2_margin_ci_high", "tom2_differs", "tom2_games"],
                    "readings table")
    wins = table[table["tom2_margin_ci_low"] > 0]
    losses = table[table["tom2_margin_ci_high"] < 0]

    def listed(rows: pd.DataFrame) -> str:
        return "; ".join(f"{r.reading} ({r.tom2_margin:+.3f} [{r.tom2_margin_ci_low:+.3f}, "
                         f"{r.tom2_margin_ci_high:+.3f}], ToM2's move differs from ToM1's "
                         f"in {100 * r.tom2_differs:.1f}% of decisions)"
                         for r in rows.itertuples())
    games = int(table["tom2_games"].min())
    if len(wins):
        text = (f"ToM2 beat three ToM1 under {len(wins)} of {len(table)} readings (paired "
                f"rank-point margin over the opponents' mean, 95% CI above 0, {games} deals "
                f"each): {listed(wins)}.")
    else:
        text = (f"Under none of the {len(table)} readings did ToM2 beat three ToM1: no "
                f"paired rank-point margin over the opponents' mean has a 95% CI above 0 "
                f"({games} deals each).")
    if len(losses):
        text += f" ToM2 scored below its ToM1 opponents under: {listed(losses)}."
    return text
