"""The tournament figure: every agent's Weng-Lin rating and its plain mean rank points.

Drawn from :func:`nothanks.analysis.ratings.leaderboard`; agents in leaderboard order
(best ordinal on top) in both panels, so the two views can be read against each other.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..analysis import require_columns, require_rows
from .plots import COLORS, PALETTE, styled


def _colors(labels: pd.Series) -> list:
    """ToM levels in their usual colours, every other agent in one grey-blue."""
    return [COLORS.get(label, PALETTE[7] if label in ("random", "always-pass")
                       else PALETTE[5 if not str(label).startswith("ismcts") else 3])
            for label in labels]


@styled
def tournament_ratings(board: pd.DataFrame, title: str = "Rated tournament",
                       players: int = 4) -> Figure:
    """Left: openskill mu with +-2 sigma bars and the ordinal (mu - 3 sigma) as a
    diamond. Right: mean rank points with 95% CIs, parity (equal skill) dashed."""
    require_columns(board, ["player", "label", "mu", "sigma", "ordinal", "rank_points",
                            "rank_points_low", "rank_points_high"], "leaderboard")
    require_rows(board, "leaderboard")
    board = board.reset_index(drop=True)
    y = np.arange(len(board))[::-1]
    colors = _colors(board["label"])
    fig = Figure(figsize=(10, 0.42 * len(board) + 1.6))
    left, right = fig.subplots(1, 2, sharey=True)
    left.errorbar(board["mu"], y, xerr=2 * board["sigma"], fmt="none", ecolor="0.45",
                  elinewidth=1.5, capsize=3, zorder=2)
    left.scatter(board["mu"], y, c=colors, s=45, zorder=3)
    left.errorbar([], [], xerr=[], fmt="o", color="0.45", capsize=3, label="μ ± 2σ")
    left.scatter(board["ordinal"], y, marker="D", facecolors="none", edgecolors="0.15",
                 s=30, zorder=3, label="ordinal μ − 3σ")
    left.set_xlabel("openskill rating")
    left.set_yticks(y, board["player"])
    left.legend(loc="best", fontsize="small")
    err = np.vstack([board["rank_points"] - board["rank_points_low"],
                     board["rank_points_high"] - board["rank_points"]])
    right.errorbar(board["rank_points"], y, xerr=err, fmt="none", ecolor="0.45",
                   elinewidth=1.5, capsize=3, zorder=2)
    right.scatter(board["rank_points"], y, c=colors, s=45, zorder=3)
    parity = (players - 1) / 2
    right.axvline(parity, color="0.25", linestyle="--", linewidth=1.2)
    right.annotate("parity", xy=(parity, 1.0), xycoords=("data", "axes fraction"),
                   xytext=(3, -12), textcoords="offset points", fontsize="small",
                   color="0.25")
    right.set_xlim(-0.1, players - 0.9)
    right.set_xlabel("mean rank points (95% CI)")
    fig.suptitle(title)
    fig.tight_layout()
    return fig
