"""The instance-set figure: what one more order of theory of mind gains, by instance set.

Drawn from :func:`nothanks.analysis.instance_sets.instance_sets_table`: for each
comparison (ToM2 - ToM1 against three ToM0 and against three ToM1, ToM3 - ToM2 against
three ToM2), the dose-response of the paired per-deal rank-point difference to the
share of flipped no-sequence actions in the monotone set (every seeded set a point, the
mean over seeds a line with the spread of their intervals as a band), and the thesis
reconstructions and the jittered set as separate points at the left.
"""
from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from ..analysis import require_columns, require_rows
from ..analysis.instance_sets import EQUIVALENCE_MARGIN, flip_rate
from .plots import PALETTE, parity_line, styled

#: Sets drawn apart from the flip series: (name prefix, marker).
OTHERS = (("thesis-linear", "D"), ("thesis-bands", "^"), ("monotone+jitter", "v"))


@styled
def instance_set_dose_response(table: pd.DataFrame) -> Figure:
    """One panel per comparison; x: share of flipped no-sequence actions (0 = the shipped
    monotone set); y: higher minus lower order's rank points per deal (95% paired t CIs).
    Dotted lines: the equivalence margin. Other sets at the left, labelled."""
    require_columns(table, ["instances", "comparison", "opponents", "difference", "ci_low",
                            "ci_high", "deals_differ"], "instance-sets table")
    require_rows(table, "instance-sets table")
    frame = table.assign(panel=table["comparison"] + " vs " + table["opponents"])
    flips = frame[frame["instances"].str.fullmatch(r"monotone(\+flip=[0-9.]+\+seed=\d+)?")]
    panels = list(dict.fromkeys(frame["panel"]))
    fig = Figure(figsize=(4.2 * len(panels), 4.4), layout="constrained")
    axes = fig.subplots(1, len(panels), squeeze=False, sharey=True)[0]
    rates = sorted({flip_rate(name) for name in flips["instances"]})
    left = -0.04 * (len(OTHERS) + 1) * max(rates[-1], 0.1) / 0.15
    for ax, panel in zip(axes, panels, strict=True):
        part = flips[flips["panel"] == panel]
        part = part.assign(rate=part["instances"].map(flip_rate))
        ax.errorbar(part["rate"], part["difference"],
                    yerr=[part["difference"] - part["ci_low"],
                          part["ci_high"] - part["difference"]],
                    fmt="o", color=PALETTE[1], capsize=3, markerfacecolor="white",
                    label="monotone set, flipped share (one point per seed)")
        mean = part.groupby("rate")[["difference", "ci_low", "ci_high"]].mean()
        ax.plot(mean.index, mean["difference"], color=PALETTE[1], linewidth=1.5)
        ax.fill_between(mean.index, mean["ci_low"], mean["ci_high"], color=PALETTE[1],
                        alpha=0.15, linewidth=0, label="mean over seeds (band: mean CI)")
        for i, (prefix, marker) in enumerate(OTHERS):
            other = frame[(frame["panel"] == panel) & frame["instances"].str.startswith(prefix)]
            if other.empty:
                continue
            x = left * (i + 1) / len(OTHERS)
            ax.errorbar([x] * len(other), other["difference"],
                        yerr=[other["difference"] - other["ci_low"],
                              other["ci_high"] - other["difference"]],
                        fmt=marker, color=PALETTE[2 + i], capsize=3, label=prefix)
        parity_line(ax, 0.0, "no gain")
        for y in (-EQUIVALENCE_MARGIN, EQUIVALENCE_MARGIN):
            ax.axhline(y, color="grey", linestyle=":", linewidth=1)
        others = [left * (i + 1) / len(OTHERS) for i in range(len(OTHERS))]
        ax.axvline(left / (2 * len(OTHERS)), color="grey", linewidth=0.8)
        ax.set_xticks(others + rates, [p.replace("monotone+", "") for p, _ in OTHERS]
                      + [f"{r:.0%}" for r in rates], rotation=45, ha="right")
        ax.set_xlabel("other sets | no-sequence actions flipped")
        ax.set_title(panel)
    axes[0].set_ylabel("higher − lower order\n(rank points per deal)")
    deals = int(table["deals"].min()) if "deals" in table.columns else 0
    fig.suptitle(f"One more order of theory of mind, by ToM0 instance set ({deals} paired "
                 "deals per point; dotted: equivalence margin)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=3)
    return fig


@styled
def rt_sweep_by_set_lines(table: pd.DataFrame) -> Figure:
    """Figure 14's ToM2 curves per instance set: mean rank points of ToM2 against three
    ToM0 (left) and three ToM1 (right) over the retrieval threshold, one line per set
    (95% t-intervals as bands; the same deals for every set)."""
    require_columns(table, ["higher", "lower", "rt", "mean", "ci_low", "ci_high",
                            "instances"], "rt sweep by set")
    tom2 = table[table["higher"] == "ToM2"]
    require_rows(tom2, "rt sweep by set: ToM2 rows")
    pairs = sorted(tom2["lower"].unique())
    fig = Figure(figsize=(5.2 * len(pairs), 4.2), layout="constrained")
    axes = fig.subplots(1, len(pairs), squeeze=False)[0]
    for ax, lower in zip(axes, pairs, strict=True):
        for i, name in enumerate(dict.fromkeys(tom2["instances"])):
            part = tom2[(tom2["lower"] == lower) & (tom2["instances"] == name)]
            part = part.sort_values("rt")
            color = PALETTE[i % len(PALETTE)]
            ax.plot(part["rt"], part["mean"], marker="o", color=color, label=name)
            ax.fill_between(part["rt"], part["ci_low"], part["ci_high"], color=color,
                            alpha=0.12, linewidth=0)
        parity_line(ax, 1.5, "parity")
        ax.set_xlabel("retrieval threshold RT of the token memory")
        ax.set_title(f"ToM2 vs 3 x {lower}")
    axes[0].set_ylabel("ToM2 mean rank points")
    games = int(tom2["games"].min()) if "games" in tom2.columns else 0
    fig.suptitle(f"Figure 14's ToM2 curves by instance set ({games} games per point)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=3)
    return fig


__all__ = ["instance_set_dose_response", "rt_sweep_by_set_lines"]
