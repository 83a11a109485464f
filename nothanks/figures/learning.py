"""The learning figures: curves of learners over the games of a trial, and their learning
state (utilities, blended values) over the same games.

Drawn from :mod:`nothanks.analysis.learning` tables with one extra column, ``panel``
(the opponents) and, for curves, ``arm`` (the learner, its no-learning control, a fixed
model in its seat): every arm of a panel plays the same deals.
"""
from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from ..analysis import require_columns, require_rows
from .plots import PALETTE, parity_line, styled


def _panels(frame: pd.DataFrame, columns: int = 4) -> tuple[Figure, list, list[str]]:
    panels = list(dict.fromkeys(frame["panel"]))
    cols = min(columns, len(panels))
    rows = -(-len(panels) // cols)
    fig = Figure(figsize=(3.8 * cols, 3.4 * rows + 0.8), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False, sharey=True).ravel()
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    return fig, list(axes[:len(panels)]), panels


def _band_line(ax, part: pd.DataFrame, value: str, color, label: str, **style) -> None:
    """``part[value]`` over the games of a trial (1-based) with its ``ci_low``/``ci_high``
    band."""
    x = part["game"] + 1
    ax.plot(x, part[value], color=color, label=label, **style)
    ax.fill_between(x, part["ci_low"], part["ci_high"], color=color, alpha=0.15, linewidth=0)


def _lines_by_panel(frame: pd.DataFrame, series: str, value: str, **style
                    ) -> tuple[Figure, list, list[str]]:
    """One panel per ``panel`` value, one banded line per ``series`` value (colours by
    first appearance); the figure, its axes and the series names."""
    fig, axes, panels = _panels(frame)
    names = list(dict.fromkeys(frame[series]))
    for ax, panel in zip(axes, panels, strict=True):
        for i, name in enumerate(names):
            part = frame[(frame["panel"] == panel) & (frame[series] == name)]
            if not part.empty:
                _band_line(ax, part, value, PALETTE[i % len(PALETTE)], name, **style)
        ax.set_title(panel)
        ax.set_xlabel("game of the trial")
    return fig, axes, names


@styled
def learning_curves(curves: pd.DataFrame, players: int = 4) -> Figure:
    """One panel per opponent table: the focal player's mean rank points at each game of
    a trial, one line per arm with its 95% interval over trials as a band; dashed: the
    mean rank points of a player no better than the others, (n - 1) / 2."""
    require_columns(curves, ["panel", "arm", "game", "rank_points", "ci_low", "ci_high",
                             "trials"], "learning curves")
    require_rows(curves, "learning curves")
    fig, axes, arms = _lines_by_panel(curves, "arm", "rank_points", marker="o",
                                      markersize=3)
    for ax in axes:
        parity_line(ax, (players - 1) / 2, "parity")
    axes[0].set_ylabel("mean rank points")
    fig.suptitle(f"Learning over a trial ({int(curves['trials'].min())} trials per point; "
                 "bands: 95% CIs over trials; every arm on the same deals)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center",
               ncols=len(arms))
    return fig


@styled
def states_over_games_lines(states: pd.DataFrame, ylabel: str = "utility") -> Figure:
    """One panel per opponent table: the learner's state value (e.g. each strategy's
    utility) at the end of each game of a trial, mean over trials with 95% bands."""
    require_columns(states, ["panel", "name", "game", "mean", "ci_low", "ci_high", "trials"],
                    "learning states")
    require_rows(states, "learning states")
    fig, axes, names = _lines_by_panel(states, "name", "mean")
    axes[0].set_ylabel(ylabel)
    fig.suptitle(f"Learned {ylabel} over a trial ({int(states['trials'].min())} trials; "
                 "bands: 95% CIs over trials)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center",
               ncols=min(4, len(names)))
    return fig
