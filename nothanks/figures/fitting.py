"""Figures of the per-participant fits and their recovery (docs/fitting.md).

Drawn from the tables of :mod:`nothanks.studies.fitting` and
:mod:`nothanks.studies.recovery`; a synthetic table labels its figure
(:func:`.plots.styled`).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..analysis import require_columns, require_rows
from .plots import PALETTE, styled

#: Bins of the card's net cost (card value − tokens on it) in the fit-vs-data panels.
COST_BINS = (-np.inf, 0, 5, 10, 15, 20, 25, np.inf)
COST_LABELS = ("≤0", "1-5", "6-10", "11-15", "16-20", "21-25", ">25")


def _grid(n: int, columns: int, width: float, height: float, sharey: bool = True):
    cols = max(1, min(columns, n))
    rows = int(np.ceil(n / cols))
    fig = Figure(figsize=(width * cols, height * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, cols, sharey=sharey, squeeze=False)).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes


@styled
def fit_estimates(fits: pd.DataFrame, columns: int = 3) -> Figure:
    """Each participant's estimate of each parameter with its interval, one panel per
    model and parameter (the search range shaded at its ends)."""
    require_columns(fits, ["participant", "model", "parameter", "estimate", "ci_low",
                           "ci_high", "range_low", "range_high"], "fit table")
    require_rows(fits, "fit table")
    panels = list(fits.groupby(["model", "parameter"], sort=False))
    fig, axes = _grid(len(panels), columns, 4.0, max(2.5, 0.16 * fits["participant"].nunique()
                                                     + 1.0), sharey=False)
    for ax, ((model, parameter), part) in zip(axes, panels, strict=False):
        y = np.arange(len(part))
        ax.errorbar(part["estimate"], y, xerr=[part["estimate"] - part["ci_low"],
                                               part["ci_high"] - part["estimate"]],
                    fmt="o", markersize=3, color=PALETTE[0], ecolor="0.5", linewidth=0.8)
        ax.axvspan(part["range_low"].iloc[0], part["range_low"].iloc[0], color="0.8")
        ax.set_xlim(part["range_low"].iloc[0], part["range_high"].iloc[0])
        ax.set_yticks(y, part["participant"], fontsize="x-small")
        ax.invert_yaxis()
        ax.set_xlabel(f"{parameter} ({model})")
    fig.suptitle("Maximum-likelihood estimates, 95% bootstrap intervals over games")
    return fig


def _binned(part: pd.DataFrame) -> pd.DataFrame:
    free = part[~part["forced"].astype(bool)]
    cost = free["card"].astype(float) - free["tokens_on_card"].astype(float)
    bins = pd.cut(cost, COST_BINS, labels=COST_LABELS)
    took = (free["action"] == "take").astype(float)
    return pd.DataFrame({"bin": bins, "took": took, "p": free["p_take_mixed"]}).groupby(
        "bin", observed=False).agg(observed=("took", "mean"), predicted=("p", "mean"),
                                   n=("took", "size"))


@styled
def fit_vs_data(predictions: pd.DataFrame, participants: Sequence[str] | None = None,
                columns: int = 5) -> Figure:
    """Per participant: the share of free decisions that took the card (dots, size by
    count) and the fitted model's mean P(take) (lapse-mixed, line), by the card's net
    cost (card value − tokens on it)."""
    require_columns(predictions, ["participant", "card", "tokens_on_card", "action",
                                  "forced", "p_take_mixed"], "fit predictions")
    require_rows(predictions, "fit predictions")
    chosen = list(participants) if participants is not None else \
        list(dict.fromkeys(predictions["participant"]))
    fig, axes = _grid(len(chosen), columns, 2.6, 2.2)
    for ax, participant in zip(axes, chosen, strict=False):
        table = _binned(predictions[predictions["participant"] == participant])
        x = np.arange(len(table))
        ax.scatter(x, table["observed"], s=4 + 2 * table["n"].to_numpy(), color=PALETTE[0],
                   label="participant", zorder=3)
        ax.plot(x, table["predicted"], color=PALETTE[3], label="fit", linewidth=1.4)
        ax.set_xticks(x, COST_LABELS, fontsize="xx-small", rotation=45)
        ax.set_ylim(-0.03, 1.03)
        ax.set_title(participant, fontsize="x-small")
    axes[0].set_ylabel("P(take)")
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside right center", fontsize="small")
    fig.suptitle("Take share by net cost (card − tokens on it): data and the fitted model")
    return fig


@styled
def recovery_scatter(merged: pd.DataFrame, columns: int = 3) -> Figure:
    """Planted against fitted value per model and parameter (players of that model), with
    each fit's interval, the identity line and Pearson r."""
    require_columns(merged, ["model", "parameter", "true_model", "estimate", "ci_low",
                             "ci_high"], "recovery table")
    rows = merged[merged["true_model"] == merged["model"]]
    require_rows(rows, "recovery table (players fitted with their own model)")
    panels = list(rows.groupby(["model", "parameter"], sort=False))
    fig, axes = _grid(len(panels), columns, 3.4, 3.2, sharey=False)
    for ax, ((model, parameter), part) in zip(axes, panels, strict=False):
        x = part[f"planted_{parameter}"].to_numpy(float)
        y = part["estimate"].to_numpy(float)
        ax.errorbar(x, y, yerr=[y - part["ci_low"], part["ci_high"] - y], fmt="o",
                    markersize=3, color=PALETTE[0], ecolor="0.6", linewidth=0.7)
        low, high = min(x.min(), y.min()), max(x.max(), y.max())
        ax.plot([low, high], [low, high], color="0.4", linestyle="--", linewidth=0.8)
        r = np.corrcoef(x, y)[0, 1] if len(x) > 2 else np.nan
        ax.set_title(f"{model}: {parameter} (r = {r:.2f}, n = {len(x)})", fontsize="small")
        ax.set_xlabel("planted")
        ax.set_ylabel("fitted")
    fig.suptitle("Parameter recovery")
    return fig


@styled
def confusion_plot(matrix: pd.DataFrame, models: Sequence[str]) -> Figure:
    """Model recovery: share of each true model's players whose best BIC model is each
    model (counts in the cells)."""
    require_columns(matrix, ["true", "players", *models], "confusion table")
    counts = matrix[list(models)].to_numpy(float)
    shares = counts / matrix["players"].to_numpy(float)[:, None]
    fig = Figure(figsize=(1.4 * len(models) + 2.2, 1.0 * len(matrix) + 1.6),
                 layout="constrained")
    ax = fig.subplots()
    ax.imshow(shares, vmin=0, vmax=1, cmap="Blues")
    for i in range(counts.shape[0]):
        for j in range(counts.shape[1]):
            ax.text(j, i, f"{int(counts[i, j])}\n{shares[i, j]:.2f}", ha="center",
                    va="center", color="white" if shares[i, j] > 0.6 else "black")
    ax.set_xticks(range(len(models)), models)
    ax.set_yticks(range(len(matrix)), matrix["true"])
    ax.set_xlabel("chosen (best BIC, fitted parameters)")
    ax.set_ylabel("true model")
    fig.suptitle("Model recovery")
    return fig


__all__ = ["COST_BINS", "COST_LABELS", "confusion_plot", "fit_estimates", "fit_vs_data",
           "recovery_scatter"]
