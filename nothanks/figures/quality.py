"""Move-quality figures: EV loss per player type and per participant, skip-to-collect
payoffs, and EV loss of the opponent moves participants marked as bad.

Each takes a table from :mod:`nothanks.analysis.move_quality` (or the per-decision
move-quality table itself) and returns a figure in the shared style; a table from
synthetic participants carries the synthetic label (see :mod:`.plots`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..analysis import require_columns, require_rows
from ..analysis.move_quality import graded_free
from .plots import PALETTE, label_color, styled


@styled
def ev_loss_by_player(quality: pd.DataFrame, by: str = "agent_label") -> Figure:
    """Distribution of the EV loss of free moves (rank points) per ``by`` group: a box per
    group over a strip of the moves, with the mean and its 95% interval marked."""
    require_columns(quality, [by, "loss_rp", "forced"], "move quality")
    free = graded_free(quality)
    require_rows(free, "free decisions")
    groups = sorted(free[by].astype(str).unique())
    fig = Figure(figsize=(max(5.0, 1.1 * len(groups) + 2), 4.0), layout="constrained")
    ax = fig.add_subplot()
    data = [free.loc[free[by].astype(str) == g, "loss_rp"].astype(float).to_numpy()
            for g in groups]
    ax.boxplot(data, positions=range(len(groups)), widths=0.5, showfliers=False,
               medianprops={"color": "0.2"})
    rng = np.random.default_rng(0)
    for i, (group, values) in enumerate(zip(groups, data, strict=True)):
        jitter = rng.uniform(-0.18, 0.18, len(values))
        ax.scatter(i + jitter, values, s=5, alpha=0.25, color=label_color(group), zorder=2)
        mean = values.mean()
        half = 1.96 * values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0
        ax.errorbar(i + 0.32, mean, yerr=half, fmt="D", color="0.1", capsize=3, zorder=4,
                    label="mean, 95% CI" if i == 0 else None)
    ax.set_xticks(range(len(groups)), [f"{g}\n({len(d)})" for g, d in
                                       zip(groups, data, strict=True)])
    ax.set_ylabel("EV loss per free move (rank points)")
    ax.set_title("How much each move gave up, by the search's estimate")
    ax.legend(loc="upper right")
    return fig


@styled
def ev_loss_by_participant(table: pd.DataFrame) -> Figure:
    """Mean EV loss per participant with 95% intervals, sorted (from
    :func:`~nothanks.analysis.move_quality.ev_loss_table` by ``participant``)."""
    require_columns(table, ["participant", "loss_rp", "loss_rp_ci_low", "loss_rp_ci_high"],
                    "EV loss per participant")
    require_rows(table, "EV loss per participant")
    part = table.sort_values("loss_rp").reset_index(drop=True)
    fig = Figure(figsize=(6.4, max(3.0, 0.22 * len(part) + 1.2)), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(part))
    errors = np.clip(np.vstack([part["loss_rp"] - part["loss_rp_ci_low"],
                                part["loss_rp_ci_high"] - part["loss_rp"]]), 0, None)
    ax.errorbar(part["loss_rp"], y, xerr=np.nan_to_num(errors), fmt="o",
                color=label_color("human"), ecolor="0.4", capsize=2)
    ax.set_yticks(y, part["participant"].astype(str), fontsize="x-small")
    ax.set_xlabel("mean EV loss per free move (rank points), 95% CI")
    ax.set_title("Move quality per participant")
    return fig


@styled
def skip_to_collect_bars(table: pd.DataFrame) -> Figure:
    """Per ToM order: share of skip-to-collect passes the search values at least as
    highly as the take, and share where the card came back to the model (Wilson 95%)."""
    require_columns(table, ["label", "moves", "pays_share", "pays_ci_low", "pays_ci_high",
                            "came_back_share", "came_back_ci_low", "came_back_ci_high"],
                    "skip-to-collect table")
    require_rows(table, "skip-to-collect table")
    fig = Figure(figsize=(5.6, 4.0), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(table))
    for offset, (column, text, color) in enumerate(
            (("pays", "pass valued ≥ take", PALETTE[2]),
             ("came_back", "card came back to it", PALETTE[0]))):
        share = 100 * table[f"{column}_share"].to_numpy(float)
        errors = 100 * np.clip(np.vstack([table[f"{column}_share"] - table[f"{column}_ci_low"],
                                          table[f"{column}_ci_high"]
                                          - table[f"{column}_share"]]), 0, None)
        ax.bar(x + (offset - 0.5) * 0.38, share, 0.36, yerr=errors, capsize=3, color=color,
               label=text, zorder=2)
    ax.set_xticks(x, [f"{r.label}\n({r.moves} moves)" for r in table.itertuples()])
    ax.set_ylim(0, 105)
    ax.set_ylabel("skip-to-collect passes (%)")
    ax.set_title("Does skipping to collect pay off?")
    ax.legend(loc="lower right")
    return fig


@styled
def marked_bad_loss(quality: pd.DataFrame) -> Figure:
    """EV loss of opponent moves participants marked as bad vs unmarked ones (free model
    moves of participant sessions): boxes over strips, means with 95% intervals."""
    require_columns(quality, ["marked_bad", "loss_rp", "forced"], "move quality")
    free = graded_free(quality)
    judged = free[free["marked_bad"].notna()]
    require_rows(judged, "opponent moves with marks")
    fig = Figure(figsize=(4.6, 4.0), layout="constrained")
    ax = fig.add_subplot()
    rng = np.random.default_rng(0)
    names = ("unmarked", "marked bad")
    data = [judged.loc[judged["marked_bad"].astype(bool) == flag, "loss_rp"]
            .astype(float).to_numpy() for flag in (False, True)]
    ax.boxplot(data, positions=(0, 1), widths=0.5, showfliers=False,
               medianprops={"color": "0.2"})
    for i, values in enumerate(data):
        ax.scatter(i + rng.uniform(-0.18, 0.18, len(values)), values, s=5, alpha=0.25,
                   color=(PALETTE[0], PALETTE[3])[i], zorder=2)
        if len(values) > 1:
            half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
            ax.errorbar(i + 0.32, values.mean(), yerr=half, fmt="D", color="0.1", capsize=3,
                        zorder=4)
    ax.set_xticks((0, 1), [f"{n}\n({len(d)})" for n, d in zip(names, data, strict=True)])
    ax.set_ylabel("EV loss of the opponent's move (rank points)")
    ax.set_title("Are marked moves worse?")
    return fig


def quality_figures(quality: pd.DataFrame) -> dict[str, Figure]:
    """Every move-quality figure the table allows, by file stem."""
    from ..analysis.move_quality import ev_loss_table, skip_to_collect

    figures = {"quality_ev_loss": ev_loss_by_player(quality)}
    humans = quality[quality["player_kind"].astype(str) == "human"] \
        if "player_kind" in quality else quality.iloc[:0]
    if len(humans) and "participant" in humans and humans["participant"].notna().any():
        figures["quality_participants"] = ev_loss_by_participant(
            ev_loss_table(humans, "participant"))
    if "own_tom0_action" in quality:
        skips = skip_to_collect(quality)
        if len(skips):
            figures["quality_skip_to_collect"] = skip_to_collect_bars(skips)
    if "marked_bad" in quality and quality["marked_bad"].notna().any():
        figures["quality_marked_bad"] = marked_bad_loss(quality)
    return figures
