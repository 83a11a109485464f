"""Move quality tables summarised: pure functions of the table that
:func:`nothanks.studies.move_quality.move_quality` grades (one row per logged decision
with the search's estimates of take and pass and the move's EV loss).

EV loss per agent type or participant, how often the ToM models' skip-to-collect passes
pay off, and whether the opponent moves participants marked as bad lose more than the
unmarked ones.
"""
from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .frames import (
    AnalysisInputError,
    require_columns,
    require_rows,
)
from .paired import SYNTHETIC_LABEL, cluster_share, data_source
from .stats import cohens_d

#: Default search budget per decision (split evenly between take and pass).
DEFAULT_ITERATIONS = 1000
#: Decision columns carried into the move-quality table when the log has them.
CARRIED = ("experiment", "design_hash", "participant", "synthetic", "practice", "game_id",
           "condition", "seed", "turn", "seat", "agent", "agent_label", "tom_order",
           "player_kind", "card", "tokens_on_card", "tokens_before", "cards_left",
           "action", "forced", "own_tom0_action", "marked_bad")
#: The estimate columns (per decision).
ESTIMATES = ("take_rp", "take_rp_se", "pass_rp", "pass_rp_se", "take_score",
             "take_score_se", "pass_score", "pass_score_se", "iterations")


# ------------------------------------------------------------------- summaries
def graded_free(quality: pd.DataFrame) -> pd.DataFrame:
    """Free (unforced) decisions that were graded: the ones where a move could be lost
    (a sampled grading keeps the others with ``graded`` False, for who took which card)."""
    require_columns(quality, ["loss_rp", "loss_score", "forced"], "move quality")
    free = ~quality["forced"].fillna(False).astype(bool)
    if "graded" in quality:
        free &= quality["graded"].fillna(False).astype(bool)
    return quality[free]



#: Columns that together name one game of any log (the cluster of its decisions).
GAME_COLUMNS = ("experiment", "design_hash", "participant", "game_id")


def _games(part: pd.DataFrame) -> pd.Series:
    """One label per game: decisions of one game share it (their interval's cluster)."""
    columns = [c for c in GAME_COLUMNS if c in part.columns]
    return part.groupby(columns, dropna=False, sort=False).ngroup()


def _mean_row(values: pd.Series, games: pd.Series | None = None
              ) -> tuple[float, float, float]:
    """A mean over decisions with its 95% interval clustered by game (cluster bootstrap:
    decisions of one game are not independent)."""
    values = values.astype(float)
    if values.isna().all():  # not estimated (the network grader predicts no score)
        return math.nan, math.nan, math.nan
    if len(values) < 2:
        return float(values.mean()) if len(values) else math.nan, math.nan, math.nan
    clusters = games if games is not None else pd.Series(np.arange(len(values)),
                                                         index=values.index)
    per = values.groupby(clusters.to_numpy()).agg(["sum", "size"])
    mean = float(values.mean())
    if np.allclose(per["sum"], mean * per["size"]):  # no variation between games
        return mean, mean, mean
    return cluster_share(per["sum"].to_numpy(), per["size"].to_numpy())


def _share_row(hits: pd.Series, games: pd.Series) -> tuple[float, float, float]:
    """A share of decisions with its 95% interval clustered by game
    (:func:`~.paired.cluster_share`)."""
    per = hits.astype(float).groupby(games.to_numpy()).agg(["sum", "size"])
    return cluster_share(per["sum"].to_numpy(), per["size"].to_numpy())


def ev_loss_table(quality: pd.DataFrame, by: str | Sequence[str] = "agent_label",
                  threshold: float = 0.1) -> pd.DataFrame:
    """EV loss per group (``agent_label``, ``participant``...): free decisions, mean loss
    in rank points and in score with t 95% intervals, the median, and the share of moves
    losing more than ``threshold`` rank points; every interval is 95% and clustered by
    game (the decisions of one game are not independent)."""
    by = [by] if isinstance(by, str) else list(by)
    free = graded_free(quality)
    require_columns(free, by, "move quality")
    require_rows(free, "free decisions")
    rows = []
    for group, part in free.groupby(by, dropna=False, sort=True):
        games = _games(part)
        rp, rp_low, rp_high = _mean_row(part["loss_rp"], games)
        sc, sc_low, sc_high = _mean_row(part["loss_score"], games)
        big = int((part["loss_rp"] > threshold).sum())
        _, low, high = _share_row(part["loss_rp"] > threshold, games)
        rows.append({**dict(zip(by, np.atleast_1d(group), strict=True)),
                     "decisions": len(part), "loss_rp": rp, "loss_rp_ci_low": rp_low,
                     "loss_rp_ci_high": rp_high,
                     "loss_rp_median": float(part["loss_rp"].median()),
                     "loss_score": sc, "loss_score_ci_low": sc_low,
                     "loss_score_ci_high": sc_high,
                     "costly_share": big / len(part), "costly_ci_low": low,
                     "costly_ci_high": high})
    table = pd.DataFrame(rows)
    table["costly_threshold"] = threshold
    return table.assign(source=_source(quality))


def _source(quality: pd.DataFrame) -> str:
    if "source" in quality.columns and len(quality):
        return str(quality["source"].iloc[0])
    return data_source(quality)


def skip_to_collect(quality: pd.DataFrame) -> pd.DataFrame:
    """How often each ToM level's skip-to-collect pass pays off.

    A skip-to-collect move is a free pass by a ToM-k model (k >= 1) where ToM0 on its own
    state said take (``own_tom0_action``): it passes so the card comes back with more
    tokens. Per ToM order: moves, the share where the search values the pass at least as
    highly as the take, the mean gap pass minus take in rank points, and the share where
    the same player took that card later in the game (it did come back to them); every
    interval 95% and clustered by game.
    """
    require_columns(quality, ["tom_order", "own_tom0_action", "action", "card", "seat",
                              "game_id", "turn", "gap_rp"], "move quality")
    taken_by = _takers(quality)
    free = graded_free(quality)
    orders = free["tom_order"].astype("Int64")
    moves = free[(orders >= 1).fillna(False) & (free["action"].astype(str) == "pass")
                 & (free["own_tom0_action"].astype(str) == "take")]
    rows = []
    for order, part in moves.groupby(moves["tom_order"].astype(int), sort=True):
        n = len(part)
        games = _games(part)
        pays = int((part["gap_rp"] >= 0).sum())
        came = pd.Series([taken_by.get(_card_key(r)) == int(r.seat)
                          for r in part.itertuples(index=False)], index=part.index)
        back = int(came.sum())
        gap, gap_low, gap_high = _mean_row(part["gap_rp"], games)
        _, pay_low, pay_high = _share_row(part["gap_rp"] >= 0, games)
        _, back_low, back_high = _share_row(came, games)
        rows.append({"tom_order": order, "label": f"ToM{order}", "moves": n,
                     "pays_share": pays / n, "pays_ci_low": pay_low, "pays_ci_high": pay_high,
                     "gap_rp": gap, "gap_rp_ci_low": gap_low, "gap_rp_ci_high": gap_high,
                     "came_back_share": back / n, "came_back_ci_low": back_low,
                     "came_back_ci_high": back_high})
    columns = ["tom_order", "label", "moves", "pays_share", "pays_ci_low", "pays_ci_high",
               "gap_rp", "gap_rp_ci_low", "gap_rp_ci_high", "came_back_share",
               "came_back_ci_low", "came_back_ci_high"]
    return pd.DataFrame(rows, columns=columns).assign(source=_source(quality))


def _card_key(row: Any) -> tuple:
    return (getattr(row, "design_hash", None), getattr(row, "participant", None),
            int(row.game_id), int(row.card))


def _takers(quality: pd.DataFrame) -> dict[tuple, int]:
    """Who took each card of each game (from the take decisions)."""
    takes = quality[quality["action"].astype(str) == "take"]
    return {_card_key(r): int(r.seat) for r in takes.itertuples(index=False)}


def marked_bad_test(quality: pd.DataFrame) -> pd.DataFrame:
    """Do opponent moves participants marked as bad lose more EV than unmarked ones?

    Uses the model moves of participant sessions (``marked_bad`` not null), free moves
    only. Difference in mean EV loss (rank points), marked minus unmarked, with a 95%
    interval and p from an OLS with standard errors clustered by participant (moves of
    one participant are not independent; HC1 with a single participant) and a t
    reference on participants - 1 degrees of freedom (29 for 30 participants: with so
    few clusters a normal reference is too liberal); Cohen's d;
    and a Mann-Whitney U test with its rank-biserial correlation as a distribution-free
    check.
    """
    import statsmodels.formula.api as smf
    from scipy import stats

    require_columns(quality, ["marked_bad", "loss_rp", "participant"], "move quality")
    free = graded_free(quality)
    judged = free[free["marked_bad"].notna()].copy()
    judged["marked"] = judged["marked_bad"].astype(bool).astype(float)
    marked = judged.loc[judged["marked"] == 1, "loss_rp"].astype(float).to_numpy()
    unmarked = judged.loc[judged["marked"] == 0, "loss_rp"].astype(float).to_numpy()
    if len(marked) < 2 or len(unmarked) < 2:
        raise AnalysisInputError(
            f"marked-bad test: {len(marked)} marked and {len(unmarked)} unmarked graded "
            "opponent moves; need at least 2 of each (participant logs with marks)")
    judged["loss"] = judged["loss_rp"].astype(float)
    groups = judged["participant"].astype(str)
    model = smf.ols("loss ~ marked", data=judged)
    clustered = groups.nunique() >= 2
    fit = (model.fit(cov_type="cluster", cov_kwds={"groups": pd.factorize(groups)[0]},
                     use_t=True)
           if clustered else model.fit(cov_type="HC1"))
    low, high = fit.conf_int().loc["marked"]
    u = stats.mannwhitneyu(marked, unmarked, alternative="two-sided")
    row = {"marked": len(marked), "unmarked": len(unmarked),
           "participants": int(groups.nunique()),
           "standard_errors": "clustered by participant" if clustered else "HC1 (one "
                              "participant: no clustering possible)",
           "marked_loss": float(marked.mean()), "unmarked_loss": float(unmarked.mean()),
           "difference": float(fit.params["marked"]), "ci_low": float(low),
           "ci_high": float(high), "p": float(fit.pvalues["marked"]),
           "t": float(fit.tvalues["marked"]),
           "df": float(groups.nunique() - 1) if clustered else float(fit.df_resid),
           "cohens_d": cohens_d(marked, unmarked), "mannwhitney_u": float(u.statistic),
           "mannwhitney_p": float(u.pvalue),
           "rank_biserial": float(2 * u.statistic / (len(marked) * len(unmarked)) - 1)}
    return pd.DataFrame([row]).assign(source=_source(quality))


def quality_tables(quality: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The tables of :func:`quality_section`, by name: ``quality`` (EV loss per agent
    type, :func:`ev_loss_table`), ``skip_to_collect`` (when the table knows the ToM
    models' own ToM0 actions and has such passes, :func:`skip_to_collect`) and
    ``marked_bad`` (participant logs with marks on at least 2 marked and 2 unmarked
    graded moves, :func:`marked_bad_test`): the numbers the section prints, for the
    study to write beside it."""
    tables = {"quality": ev_loss_table(quality, "agent_label")}
    if "own_tom0_action" in quality:
        skips = skip_to_collect(quality)
        if len(skips):
            tables["skip_to_collect"] = skips
    if "marked_bad" in quality and quality["marked_bad"].notna().any():
        with contextlib.suppress(AnalysisInputError):  # the section says why not
            tables["marked_bad"] = marked_bad_test(quality)
    return tables


# ------------------------------------------------------------------- report text
def _fmt(value: float, digits: int = 3) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.{digits}f}"


def quality_section(quality: pd.DataFrame, title: str = "Move quality",
                    level: int = 2) -> str:
    """A markdown section for results.md: settings, EV loss per agent type (and per
    participant for participant logs), skip-to-collect payoffs, the marked-bad test."""
    source = _source(quality)
    head = "#" * level
    lines = [f"{head} {title}", ""]
    if source == "synthetic":
        lines += [f"**{SYNTHETIC_LABEL}**: the human seats were played by stand-in "
                  "agents; these numbers test the pipeline, they are not findings.", ""]
    free = int((~quality["forced"].fillna(False).astype(bool)).sum())
    graded = int(graded_free(quality).shape[0])
    sample = quality["sample_per_label"].iloc[0] if "sample_per_label" in quality else None
    counts = (f"({len(quality)} decisions, {free} free)" if sample is None or pd.isna(sample)
              else f"(a seeded random sample of at most {int(sample):,} free decisions per "
                   f"player type: {graded:,} of {free:,} free decisions graded; the "
                   "intervals below include this sampling)")
    if "grader" in quality and str(quality["grader"].iloc[0]) == "network":
        digest = str(quality["search_checkpoint"].iloc[0])[:12] \
            if "search_checkpoint" in quality else "?"
        how = (f"Each decision graded by a self-play value network (checkpoint sha256 "
               f"{digest}) from the decision-maker's information set: the value after the "
               f"pass, and the mean value over every possible next card after the take "
               f"{counts}; the network predicts no score, so the score column is empty.")
    else:
        budget = int(quality["search_iterations"].iloc[0]) \
            if "search_iterations" in quality else DEFAULT_ITERATIONS
        rollout = quality["search_rollout"].iloc[0] if "search_rollout" in quality else "?"
        how = (f"Each decision graded by information-set MCTS from the decision-maker's "
               f"information set: {budget} iterations split evenly between take and pass, "
               f"{rollout} rollouts {counts}.")
    lines += [how + " EV loss = expected rank points given up against the better move by "
              "the estimate (0 when the chosen move is the better one); in score points "
              "likewise. Intervals are 95%.", ""]
    tables = quality_tables(quality)
    table = tables["quality"]
    lines += ["Intervals are clustered by game (cluster bootstrap over games: decisions of "
              "one game are not independent).", "",
              "| player | free moves | EV loss (rank points) | 95% CI | median | "
              "EV loss (score) | moves losing > 0.1 [95% CI] |",
              "|---|---:|---:|---|---:|---:|---:|"]
    for r in table.itertuples(index=False):
        lines.append(f"| {r.agent_label} | {r.decisions} | {_fmt(r.loss_rp)} | "
                     f"[{_fmt(r.loss_rp_ci_low)}, {_fmt(r.loss_rp_ci_high)}] | "
                     f"{_fmt(r.loss_rp_median)} | {_fmt(r.loss_score, 2)} | "
                     f"{100 * r.costly_share:.1f}% [{100 * r.costly_ci_low:.1f}, "
                     f"{100 * r.costly_ci_high:.1f}] |")
    lines.append("")
    humans = quality[quality.get("player_kind", pd.Series(dtype=str)).astype(str) == "human"] \
        if "player_kind" in quality else quality.iloc[:0]
    if len(humans) and "participant" in humans:
        per = ev_loss_table(humans, "participant")
        lines += [f"Per participant ({len(per)}): mean EV loss from "
                  f"{_fmt(per['loss_rp'].min())} to {_fmt(per['loss_rp'].max())} rank "
                  f"points per free move (median participant {_fmt(per['loss_rp'].median())}).",
                  ""]
    skips = tables.get("skip_to_collect")
    if skips is not None:
        lines += ["Skip-to-collect passes (ToM-k passes where its own ToM0 said take):", "",
                  "| model | moves | pass valued ≥ take | mean gain of the pass (rank "
                  "points) | card came back to it [95% CI] |", "|---|---:|---:|---:|---:|"]
        for r in skips.itertuples(index=False):
            lines.append(
                f"| {r.label} | {r.moves} | {100 * r.pays_share:.1f}% "
                f"[{100 * r.pays_ci_low:.1f}, {100 * r.pays_ci_high:.1f}] | "
                f"{_fmt(r.gap_rp)} [{_fmt(r.gap_rp_ci_low)}, {_fmt(r.gap_rp_ci_high)}] | "
                f"{100 * r.came_back_share:.1f}% [{100 * r.came_back_ci_low:.1f}, "
                f"{100 * r.came_back_ci_high:.1f}] |")
        lines.append("")
    if "marked_bad" in quality and quality["marked_bad"].notna().any():
        if "marked_bad" not in tables:
            try:
                marked_bad_test(quality)
            except AnalysisInputError as exc:
                lines += [f"Marked-bad test not possible: {exc}", ""]
        else:
            test = tables["marked_bad"].iloc[0]
            lines += [
                f"Opponent moves marked bad ({test.marked}) vs unmarked ({test.unmarked}), "
                f"{test.participants} participants: mean EV loss {_fmt(test.marked_loss)} "
                f"vs {_fmt(test.unmarked_loss)} rank points; difference "
                f"{_fmt(test.difference)} [{_fmt(test.ci_low)}, {_fmt(test.ci_high)}] "
                f"(OLS, SEs {test.standard_errors}, t({test.df:.0f}) = {test.t:.2f}, "
                f"p = {test.p:.3g}); Cohen's d = "
                f"{_fmt(test.cohens_d, 2)}; Mann-Whitney p = {test.mannwhitney_p:.3g}, "
                f"rank-biserial r = {_fmt(test.rank_biserial, 2)}."
                + _marked_bad_comment(test, data_source(quality)), ""]
    return "\n".join(lines)


#: How the stand-ins (``human-standin``) mark an opponent's move as bad.
STANDIN_MARKS = ("a take that costs 10 or more card points, marked with probability "
                 "`critic` (other moves with `critic`/20)")


def _marked_bad_comment(test, source: str) -> str:
    """What the marked-bad difference says, and, for synthetic marks, why it says nothing
    about people."""
    text = ""
    if test.ci_high < 0:
        text += (" The marked moves lost *less* EV than the unmarked ones: the marks did "
                 "not find the worse moves.")
    if source == "synthetic":
        text += (f" **Synthetic**: the stand-ins mark by a rule on card points ({STANDIN_MARKS}),"
                 " not on EV; a costly take often pays in tokens, so this row tests the rule,"
                 " not people.")
    return text
