"""The higher-order figure: what each order of theory of mind gains (thesis §6.1-6.2).

Drawn from :func:`nothanks.analysis.orders_table`: the focal ToM-k's rank-point
advantage over its opponents by k, for both series of the ``higher-orders`` design
(against three of the order below, against three ToM0), and how often ToM-k's move
differs from ToM-(k-1)'s.
"""
from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from ..analysis import require_columns, require_rows
from .plots import PALETTE, parity_line, styled

#: The two series: (column marking the rows, legend label, colour, marker).
SERIES = (("lower_series", "ToM-k vs 3 x ToM(k-1)", PALETTE[1], "o"),
          ("tom0_series", "ToM-k vs 3 x ToM0", PALETTE[0], "s"))


def _errorbars(ax, part: pd.DataFrame, value: str, low: str, high: str, label: str,
               color, marker: str, shift: float, scale: float = 1.0) -> None:
    part = part.dropna(subset=[value]).sort_values("focal_order")
    y = part[value] * scale
    ax.errorbar(part["focal_order"] + shift, y,
                yerr=[(y - part[low] * scale).clip(lower=0),  # rounding: never below 0
                      (part[high] * scale - y).clip(lower=0)], marker=marker,
                color=color, capsize=3, linewidth=1.5, markerfacecolor="white", label=label)


@styled
def advantage_by_order(table: pd.DataFrame) -> Figure:
    """Left: the focal ToM-k's mean rank points minus its opponents' mean, per deal (95%
    paired t CIs; 0 = no advantage), by k, one line per series. Right (when the table has
    it): the share of decisions in which ToM-k's move differs from ToM-(k-1)'s (95%
    Wilson CIs), from the shared deals against three ToM0."""
    require_columns(table, ["focal_order", "advantage", "advantage_ci_low",
                            "advantage_ci_high", "lower_series", "tom0_series", "games"],
                    "orders table")
    require_rows(table, "orders table")
    differs = ("differs_from_lower" in table.columns
               and table["differs_from_lower"].notna().any())
    fig = Figure(figsize=(10.0 if differs else 6.0, 4.2), layout="constrained")
    axes = fig.subplots(1, 2 if differs else 1, squeeze=False)[0]
    ax = axes[0]
    for i, (column, label, color, marker) in enumerate(SERIES):
        part = table[table[column].astype(bool)]
        _errorbars(ax, part, "advantage", "advantage_ci_low", "advantage_ci_high", label,
                   color, marker, (i - 0.5) * 0.12)
    parity_line(ax, 0.0, "no advantage")
    orders = sorted(table["focal_order"].unique())
    ax.set_xticks(orders, [f"ToM{k}" for k in orders])
    ax.set_xlabel("order k of the focal model")
    ax.set_ylabel("rank points: focal − opponents' mean")
    games = int(table["games"].min())
    ax.set_title(f"Advantage of ToM-k ({games} paired deals per point)")
    if differs:
        right = axes[1]
        for i, (column, label, color, marker) in enumerate(SERIES):
            part = table[table[column].astype(bool)]
            if part["differs_from_lower"].notna().any():
                _errorbars(right, part, "differs_from_lower", "differs_ci_low",
                           "differs_ci_high", label, color, marker, (i - 0.5) * 0.12, 100)
        right.set_xticks(orders, [f"ToM{k}" for k in orders])
        right.set_xlabel("order k of the focal model")
        right.set_ylabel("decisions where the move differs\nfrom ToM(k-1)'s (%)")
        right.set_ylim(bottom=0)
        right.set_title("How often one more order changes the move")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2)
    return fig


__all__ = ["SERIES", "advantage_by_order"]
