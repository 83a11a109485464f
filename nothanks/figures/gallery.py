"""Which statistics table feeds which figure: every figure the tables allow, by file stem.

Takes the named tables of :func:`nothanks.analysis.statistics` (and, for the two extra
figures, the instance table and one game's token-memory history) and returns
:class:`~matplotlib.figure.Figure` objects; nothing is run, computed or written here.
"""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
from matplotlib.figure import Figure

from . import orders, plots

#: The focal designs of Figures 11-13, by (focal label, opponent label) -> file stem.
SIMULATION_FIGURES = {("ToM1", "ToM0"): "fig11_tom1_vs_tom0",
                      ("ToM2", "ToM0"): "fig12_tom2_vs_tom0",
                      ("ToM2", "ToM1"): "fig13_tom2_vs_tom1"}


def simulation_figures(shares: pd.DataFrame) -> dict[str, Figure]:
    """Figures 11-13 from :func:`nothanks.analysis.simulation_rank_shares`, by file stem.

    A pairing without games in ``shares`` is left out.
    """
    figures: dict[str, Figure] = {}
    for (focal, opponent), stem in SIMULATION_FIGURES.items():
        part = shares[(shares["focal_label"] == focal) & (shares["opponent_label"] == opponent)]
        if len(part):
            games = int(part["games"].iloc[0])
            figures[stem] = plots.proportional_ranking(
                part, f"One {focal} against three {opponent} ({games} games)", focal=focal)
    return figures


def participant_figures(stats: Mapping[str, pd.DataFrame]) -> dict[str, Figure]:
    """Figures 8-10 from :func:`nothanks.analysis.participant_statistics`, by file stem."""
    return {
        "fig08_participant_places": plots.proportional_ranking(
            stats["participant_rank_shares"], "Participants' places against each model order"),
        "fig09_participant_means": plots.participant_boxplots(stats["participant_means"]),
        "fig10_prediction_accuracy": plots.prediction_accuracy_bars(
            stats["prediction_accuracy"]),
    }


def draw(stats: Mapping[str, pd.DataFrame], *, instances: pd.DataFrame | None = None,
         history: pd.DataFrame | None = None,
         history_title: str = "Token memory during one game") -> dict[str, Figure]:
    """Every figure the tables allow, by file stem.

    ``stats`` is :func:`nothanks.analysis.statistics`; the participant figures need its
    participant tables, the higher-order figure a ``higher_orders`` table
    (:func:`nothanks.analysis.orders_table`). ``instances`` (the ToM0 instance set) and
    ``history`` (one model's token-memory history) add the two extra figures when given.
    """
    figures: dict[str, Figure] = {}
    if "participant_rank_shares" in stats:
        figures.update(participant_figures(stats))
    figures.update(simulation_figures(stats["simulation_rank_shares"]))
    figures["fig14_rt_sweep"] = plots.rt_sweep_lines(stats["rt_sweep"])
    if "higher_orders" in stats:
        figures["extra_higher_orders"] = orders.advantage_by_order(stats["higher_orders"])
    if instances is not None:
        figures["extra_instance_map"] = plots.instance_map(instances)
    if history is not None:
        figures["extra_token_memory"] = plots.token_memory_trace(history, history_title)
    return figures
