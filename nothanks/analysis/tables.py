"""The named statistics tables behind the figures and the results table, from loaded logs.

The functions here take experiment logs (:class:`nothanks.experiments.Log`, or anything
with the same DataFrame attributes) and return named DataFrames, so the figures and the
``nothanks figures`` command share one definition of every number. Labels, orders and
parameters come from the logged columns, never from agent specs: this package does not
import the models.
"""
from __future__ import annotations

import json
from typing import Any, Protocol

import pandas as pd

from .frames import AnalysisInputError, focal_rows, with_agent_labels
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
    return pd.concat([rank_shares(part).assign(focal_label=label)
                      for label, part in focal.groupby("focal_label")], ignore_index=True)


def simulation_tests(games: pd.DataFrame) -> pd.DataFrame:
    """Welch tests in both readings and the one-sample test against parity, per design."""
    focal = focal_rows(games)
    welch = [welch_rank_points(games, sample) for sample in WELCH_SAMPLES]
    parity = parity_test(focal).rename(columns={"agent": "b_spec", "opponent": "a_spec"})
    labels = dict(zip(focal["agent"], focal["focal_label"], strict=True))
    parity["a"], parity["b"] = "parity", parity["b_spec"].map(labels)
    return pd.concat([*welch, parity], ignore_index=True)


def token_recalls(recalls: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """Recall sources and errors per model order and threshold (``games`` carries ``rt``)."""
    rt_of = games.drop_duplicates(["game_id"]).set_index("game_id")["rt"]
    labelled = with_agent_labels(recalls, games)
    labelled = labelled.assign(model=labelled["agent_label"].astype(str),
                               rt=labelled["game_id"].map(rt_of))
    return recall_summary(labelled, by=("model", "rt"))


def statistics(table7: LogTables, figure14: LogTables,
               participants: LogTables | None = None) -> dict[str, pd.DataFrame]:
    """Every statistic the figures and the results table use, as named tables.

    ``table7`` and ``figure14`` are the logs of those designs; ``participants`` the
    participant sessions (their statistics are left out when ``None``).
    """
    out: dict[str, pd.DataFrame] = {
        "simulation_rank_shares": simulation_rank_shares(table7.games),
        "simulation_tests": simulation_tests(table7.games),
    }
    games14 = with_rt(figure14)
    out["rt_sweep"] = rt_sweep(games14, logged_thresholds(figure14.experiments))
    if len(figure14.recalls):
        out["token_recalls"] = token_recalls(figure14.recalls, games14)
    if participants is not None:
        out.update(participant_statistics(participants))
    return out


# ---------------------------------------------------------------- participants
def participant_statistics(log: LogTables) -> dict[str, pd.DataFrame]:
    """Figures 8-10, the paired tests, the mixed model and the feedback statistics."""
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
    out["participant_actions"] = pd.DataFrame([{
        "decisions": len(human), "pass_share": float((human["action"] == "pass").mean())}])
    marked = decisions[decisions["marked_bad"].notna()]
    if len(marked):
        out["bad_moves"] = bad_move_shares(marked)
        out["feedback_concentration"] = feedback_concentration(
            decisions.assign(marked_bad=decisions["marked_bad"].fillna(False)))
    return out


def _without_practice(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[~frame["practice"].fillna(False).astype(bool)]
