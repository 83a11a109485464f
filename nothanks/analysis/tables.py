"""The named statistics tables behind the figures and the results table, from loaded logs.

The functions here take experiment logs (:class:`nothanks.experiments.Log`, or anything
with the same DataFrame attributes) and return named DataFrames, so the figures and the
``nothanks figures`` command share one definition of every number. Labels, orders and
parameters come from the logged columns, never from agent specs: this package does not
import the models.
"""
from __future__ import annotations

import itertools
import json
from typing import Any, Protocol

import pandas as pd

from .frames import AnalysisInputError, focal_rows, with_agent_labels
from .paired import (
    data_source,
    direction_flags,
    focal_divergence,
    paired_conditions,
    wilson_interval,
    with_source,
)
from .readings import ReadingsLog, readings_table
from .stats import (
    WELCH_SAMPLES,
    bad_move_shares,
    feedback_concentration,
    paired_tests,
    parity_test,
    participant_games,
    participant_means,
    participant_mixed_model,
    prediction_accuracy,
    predictions_about,
    rank_shares,
    recall_summary,
    rt_sweep,
    welch_rank_points,
)


class LogTables(Protocol):
    """The tables of an experiment log that the statistics read."""

    experiments: pd.DataFrame
    conditions: pd.DataFrame
    games: pd.DataFrame
    decisions: pd.DataFrame
    predictions: pd.DataFrame
    recalls: pd.DataFrame

    def sweep(self) -> pd.DataFrame: ...


# --------------------------------------------------------------- logged parameters
def logged_parameters(experiments: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Every agent spec the experiments used -> all its parameters (defaults filled in).

    Read from the ``parameters`` JSON the runner logs, so a spec's defaults are the ones
    the run actually used, without importing the models.
    """
    merged: dict[str, dict[str, Any]] = {}
    for text in experiments["parameters"].dropna():
        merged.update(json.loads(text))
    return merged


def logged_thresholds(experiments: pd.DataFrame) -> dict[str, float]:
    """The token memory's retrieval threshold ``rt`` of every logged spec that has one."""
    return {spec: float(params["rt"])
            for spec, params in logged_parameters(experiments).items() if "rt" in params}


def with_rt(log: LogTables) -> pd.DataFrame:
    """The log's games with the swept ``rt`` of their condition."""
    sweep = log.sweep()
    if "rt" not in sweep.columns:
        raise AnalysisInputError("figure14 log: its conditions sweep no 'rt'")
    key = ["experiment", "design_hash", "condition"]
    return log.games.merge(sweep[key + ["rt"]], on=key, how="left")


# ----------------------------------------------------------------- simulations
def simulation_rank_shares(games: pd.DataFrame) -> pd.DataFrame:
    """Figures 11-13: places of each focal model order against each opponent order."""
    focal = focal_rows(games)
    return with_source(pd.concat([rank_shares(part).assign(focal_label=label)
                                  for label, part in focal.groupby("focal_label")],
                                 ignore_index=True), games)


#: The ``test`` of the comparisons of two focal models on shared deals.
SHARED_DEALS_TEST = "paired t (shared deals)"


def focal_pairs(games: pd.DataFrame) -> list[tuple[int, int, pd.Series, pd.Series]]:
    """Pairs of conditions (lower order first) whose focal models of different orders
    face the same opponents: those a paired comparison on shared deals can tell apart."""
    per_condition = focal_rows(games).groupby("condition").agg(
        agent=("agent", "first"), focal_label=("focal_label", "first"),
        order=("tom_order", "first"), opponent=("opponent", "first"),
        opponent_label=("opponent_label", "first"))
    pairs = []
    for _, group in per_condition.groupby("opponent", sort=True):
        ranked = group.dropna(subset=["order"]).sort_values("order")
        for (a, low), (b, high) in itertools.combinations(ranked.iterrows(), 2):
            if low["order"] != high["order"]:
                pairs.append((int(a), int(b), low, high))
    return pairs


def shared_deal_tests(games: pd.DataFrame) -> pd.DataFrame:
    """Two focal models against the same opponents, deal by deal (e.g. ToM1 and ToM2
    against three ToM0): ``a`` is the lower order, ``b`` the higher, as in the thesis."""
    rows = [{"a": low["focal_label"], "b": high["focal_label"], "a_spec": low["agent"],
             "b_spec": high["agent"], "opponent": high["opponent_label"],
             "test": SHARED_DEALS_TEST, **paired_conditions(games, a, b)}
            for a, b, low, high in focal_pairs(games)]
    return pd.DataFrame(rows)


def shared_deal_moves(games: pd.DataFrame, decisions: pd.DataFrame) -> pd.DataFrame:
    """Whether two focal models against the same opponents made the same moves, per deal.

    For every pair of :func:`focal_pairs`: deals compared, deals on which the two focal
    decision sequences are identical, and the per-decision rate of difference
    (:func:`~.paired.focal_divergence`).
    """
    rows = [{"a": low["focal_label"], "b": high["focal_label"],
             "opponent": high["opponent_label"], **focal_divergence(decisions, a, b)}
            for a, b, low, high in focal_pairs(games)]
    return with_source(pd.DataFrame(rows), games)


def simulation_tests(games: pd.DataFrame) -> pd.DataFrame:
    """Welch tests in both readings, the one-sample test against parity and the paired
    comparison on shared deals, per design.

    Each kind of test is one family: ``p_holm`` is Holm-adjusted within it, and ``flag``
    says whether ``b`` (the higher-order model) scored ``higher`` or ``lower`` than ``a``,
    or ``n.s.``.
    """
    focal = focal_rows(games)
    welch = [welch_rank_points(games, sample) for sample in WELCH_SAMPLES]
    parity = parity_test(focal).rename(columns={"agent": "b_spec", "opponent": "a_spec"})
    labels = dict(zip(focal["agent"], focal["focal_label"], strict=True))
    parity["a"], parity["b"] = "parity", parity["b_spec"].map(labels)
    paired = shared_deal_tests(games) if "deal" in games.columns else pd.DataFrame()
    table = pd.concat([*welch, parity, paired], ignore_index=True)
    table["p_holm"], table["flag"] = float("nan"), "n.s."
    for _, family in table.groupby("test", sort=False):
        adjusted, flags = direction_flags(family["p"], family["mean_b"] > family["mean_a"])
        table.loc[family.index, "p_holm"] = adjusted
        table.loc[family.index, "flag"] = flags
    return with_source(table, games)


def token_recalls(recalls: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Recall sources and errors per model order and threshold (``games`` carries ``rt``);
    where the games came from is ``data_source`` here."""
    rt_of = games.drop_duplicates(["game_id"]).set_index("game_id")["rt"]
    labelled = with_agent_labels(recalls, games)
    labelled = labelled.assign(model=labelled["agent_label"].astype(str),
                               rt=labelled["game_id"].map(rt_of))
    # ``source`` already names where a recall came from (leaf, root, none)
    return recall_summary(labelled, by=("model", "rt")).assign(data_source=data_source(games))


def statistics(table7: LogTables, figure14: LogTables,
               participants: LogTables | None = None,
               readings: ReadingsLog | None = None) -> dict[str, pd.DataFrame]:
    """Every statistic the figures and the results table use, as named tables.

    ``table7`` and ``figure14`` are the logs of those designs; ``participants`` the
    participant sessions and ``readings`` the readings ablation (their statistics are
    left out when ``None``). Every table has a ``source`` column read from its log.
    """
    out: dict[str, pd.DataFrame] = {
        "simulation_rank_shares": simulation_rank_shares(table7.games),
        "simulation_tests": simulation_tests(table7.games),
    }
    if "deal" in table7.games.columns and len(table7.decisions):
        out["shared_deal_moves"] = shared_deal_moves(table7.games, table7.decisions)
    games14 = with_rt(figure14)
    out["rt_sweep"] = with_source(rt_sweep(games14, logged_thresholds(figure14.experiments)),
                                  figure14.games)
    if len(figure14.recalls):
        out["token_recalls"] = token_recalls(figure14.recalls, games14)
    if participants is not None:
        out.update(participant_statistics(participants))
    if readings is not None:
        out["readings"] = readings_table(readings)
    return out


# ---------------------------------------------------------------- participants
def participant_statistics(log: LogTables) -> dict[str, pd.DataFrame]:
    """Figures 8-10, the paired tests, the mixed model and the feedback statistics, each
    with the ``source`` of the sessions (``synthetic`` when stand-ins played)."""
    out: dict[str, pd.DataFrame] = {}
    focal = focal_rows(log.games)
    out["participant_rank_shares"] = rank_shares(participant_games(focal))
    means = participant_means(focal)
    out["participant_means"] = means
    out["participant_tests"] = paired_tests(means)
    out["participant_mixed_model"] = participant_mixed_model(focal)
    decisions = _without_practice(log.decisions)
    predictions = log.predictions.merge(
        decisions[["participant", "game_id"]].drop_duplicates(), on=["participant", "game_id"])
    out["prediction_accuracy"] = prediction_accuracy(
        predictions_about(predictions, log.games, "human"))
    human = decisions[decisions["player_kind"] == "human"]
    passes = int((human["action"] == "pass").sum())
    low, high = wilson_interval(passes, len(human)) if len(human) else (float("nan"),) * 2
    out["participant_actions"] = pd.DataFrame([{
        "decisions": len(human), "pass_share": passes / len(human) if len(human) else
        float("nan"), "ci_low": low, "ci_high": high}])
    marked = decisions[decisions["marked_bad"].notna()]
    if len(marked):
        out["bad_moves"] = bad_move_shares(marked)
        out["feedback_concentration"] = feedback_concentration(
            decisions.assign(marked_bad=decisions["marked_bad"].fillna(False)))
    source = data_source(log.games)
    return {name: table.assign(source=source) for name, table in out.items()}


def _without_practice(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[~frame["practice"].fillna(False).astype(bool)]
