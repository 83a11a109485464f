"""Figures of the order inference: posterior trajectories and the validation matrix.

Drawn from the tables of :mod:`nothanks.studies.inference` (``OrderInference.decisions`` and
``confusion_matrix``); a table from synthetic or simulated players carries the
synthetic label, as every figure here does (:func:`.plots.styled`).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..analysis import AnalysisInputError, require_columns, require_rows
from .plots import COLORS, PALETTE, styled

#: Colours of the baselines beside the ToM orders' shared colours.
MODEL_COLORS = {**COLORS, "random": PALETTE[7], "heuristic": PALETTE[5]}


@styled
def posterior_trajectories(decisions: pd.DataFrame, participants: Sequence[str] | None = None,
                           column: str = "posterior", columns: int = 3) -> Figure:
    """Posterior of each candidate model after every decision, one panel per participant
    (``column="block_posterior"``: restarting at each block); dotted lines mark blocks."""
    require_columns(decisions, ["participant", "decision", "model", "block", column],
                    "inference decisions")
    require_rows(decisions, "inference decisions")
    chosen = list(participants) if participants is not None else \
        list(dict.fromkeys(decisions["participant"]))
    missing = sorted(set(chosen) - set(decisions["participant"]))
    if missing:
        raise AnalysisInputError(f"participants {missing} are not in the inference table")
    n = len(chosen)
    cols = min(columns, n)
    rows = int(np.ceil(n / cols))
    fig = Figure(figsize=(4.2 * cols, 2.8 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, cols, sharey=True, squeeze=False)).ravel()
    models = list(dict.fromkeys(decisions["model"]))
    for ax, participant in zip(axes, chosen, strict=False):
        part = decisions[decisions["participant"] == participant]
        for model in models:
            line = part[part["model"] == model].sort_values("decision")
            ax.plot(line["decision"], line[column], label=model, linewidth=1.4,
                    color=MODEL_COLORS.get(model, PALETTE[8]))
        first = part.groupby("block", dropna=True)["decision"].min().sort_index()
        for start in first.iloc[1:]:
            ax.axvline(start, color="0.6", linestyle=":", linewidth=0.8)
        label = part["player_label"].iloc[0] if "player_label" in part else ""
        ax.set_title(f"{participant} ({label})", fontsize="small")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("decision")
    for ax in axes[n:]:
        ax.set_visible(False)
    axes[0].set_ylabel("posterior" if column == "posterior" else "posterior within block")
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside right center", fontsize="small")
    fig.suptitle("Which order of theory of mind? Posterior over models, decision by decision")
    return fig


@styled
def confusion_heatmap(table: pd.DataFrame, models: Sequence[str], title: str = "") -> Figure:
    """Rows: true player type; cells: share of its players recovered as each model (count
    in brackets); the right column: share correct with its 95% Wilson interval, and how
    many players' MAP was tied with another model (a tie goes to the first-listed)."""
    require_columns(table, ["true", "players", "share", "ci_low", "ci_high", *models],
                    "confusion matrix")
    require_rows(table, "confusion matrix")
    counts = table[list(models)].to_numpy(float)
    shares = counts / table["players"].to_numpy(float)[:, None]
    fig = Figure(figsize=(1.3 * len(models) + 3.2, 0.7 * len(table) + 1.6),
                 layout="constrained")
    ax = fig.subplots()
    ax.imshow(shares, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    for i in range(shares.shape[0]):
        for j in range(shares.shape[1]):
            ax.text(j, i, f"{shares[i, j]:.2f}\n({int(counts[i, j])})", ha="center",
                    va="center", fontsize="small",
                    color="white" if shares[i, j] > 0.6 else "black")
        row = table.iloc[i]
        tied = int(row.get("map_tied", 0))
        ax.text(len(models) - 0.35, i, f"{row['share']:.2f} [{row['ci_low']:.2f}, "
                f"{row['ci_high']:.2f}]" + (f"\n{tied} MAPs tied" if tied else ""),
                ha="left", va="center", fontsize="small")
    ax.text(len(models) - 0.35, -0.75, "correct [95% CI]", ha="left", va="center",
            fontsize="small", weight="bold")
    ax.set_xticks(range(len(models)), models)
    ax.set_yticks(range(len(table)), table["true"])
    ax.set_xlabel("recovered (MAP)")
    ax.set_ylabel("true player")
    ax.grid(False)
    ax.set_xlim(-0.5, len(models) + 1.6)
    ax.set_ylim(len(table) - 0.5, -1.0)
    ax.set_title(title or "Order recovery on simulated players", fontsize="medium")
    return fig

__all__ = ["MODEL_COLORS", "confusion_heatmap", "posterior_trajectories"]
