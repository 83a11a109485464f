"""One function per thesis figure (8-14) plus the instance map and a token-memory trace.

Each takes the table a statistic in :mod:`nothanks.analysis` returns and gives back a
:class:`matplotlib.figure.Figure` built without pyplot (no global figure registry, any
backend), drawn in one seaborn style that reads well in print; :mod:`.gallery` says which
table feeds which figure and :mod:`nothanks.report` saves them. A figure drawn from a
table whose ``source`` is ``synthetic`` carries "SYNTHETIC — not data" in the image.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps

import matplotlib as mpl
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from ..analysis import SYNTHETIC_LABEL, AnalysisInputError, require_columns, require_rows

#: The colour-blind-safe palette every figure module draws from.
PALETTE = sns.color_palette("colorblind")
#: One colour per player type, the same in every figure (colour-blind safe).
COLORS = {"ToM0": PALETTE[0], "ToM1": PALETTE[1], "ToM2": PALETTE[2],
          "ToM3": PALETTE[4], "human": PALETTE[7]}
ACTION_COLORS = {"take": PALETTE[3], "pass": PALETTE[9]}
PLACE_NAMES = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th", 6: "6th", 7: "7th"}
#: Seaborn's whitegrid at paper scale, enlarged for print, for every figure.
STYLE = {**sns.axes_style("whitegrid"), **sns.plotting_context("paper", font_scale=1.25),
         "figure.dpi": 100, "savefig.dpi": 200, "savefig.bbox": "tight",
         "legend.frameon": False}


def styled(draw: Callable[..., Figure]) -> Callable[..., Figure]:
    """Draw inside the shared style, without changing the caller's rcParams, and label the
    figure when its table (the first argument) is synthetic."""
    @wraps(draw)
    def wrapper(*args, **kwargs) -> Figure:
        with mpl.rc_context(STYLE):
            fig = draw(*args, **kwargs)
            if args and is_synthetic(args[0]):
                mark_synthetic(fig)
            return fig
    return wrapper


def is_synthetic(table: object) -> bool:
    """Whether a statistics table says its numbers come from synthetic participants."""
    return (isinstance(table, pd.DataFrame) and "source" in table.columns
            and bool((table["source"].astype(str) == "synthetic").any()))


def mark_synthetic(fig: Figure) -> None:
    """Write the synthetic label across the figure and above it, so no crop loses it."""
    fig.text(0.5, 0.5, SYNTHETIC_LABEL, ha="center", va="center", rotation=25,
             fontsize=30, color="tab:red", alpha=0.22, weight="bold", zorder=10)
    title = fig.get_suptitle()
    fig.suptitle(f"{SYNTHETIC_LABEL}\n{title}" if title else SYNTHETIC_LABEL,
                 color="tab:red", weight="bold", fontsize="medium")


def label_color(label: str) -> tuple:
    """The colour of a player type (:data:`COLORS`), or the palette's neutral one."""
    return COLORS.get(label, PALETTE[5])


def parity_line(ax, value: float, text: str, in_legend: bool = False) -> None:
    """The equal-skill reference: in the legend, or labelled at the axes' right end."""
    ax.axhline(value, color="0.25", linestyle="--", linewidth=1.2, zorder=3,
               label=text if in_legend else None)
    if not in_legend:
        ax.annotate(text, xy=(1.0, value), xycoords=("axes fraction", "data"),
                    xytext=(-4, 4), textcoords="offset points", ha="right", va="bottom",
                    fontsize="small", color="0.25")


@styled
def proportional_ranking(shares: pd.DataFrame, title: str, focal: str = "participants",
                         by: str = "opponent_label") -> Figure:
    """Figures 8, 11, 12, 13: share of games the focal player finished at each place.

    ``shares`` is :func:`nothanks.analysis.rank_shares`; one bar colour per opponent type,
    whiskers are the 95% Wilson intervals when the table has them, the dashed line is
    parity (1/players: a share above it beats the opponents' own).
    """
    require_columns(shares, [by, "rank", "share", "parity", "games"], "rank shares")
    require_rows(shares, "rank shares")
    groups = list(dict.fromkeys(shares[by]))
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.add_subplot()
    places = sorted(shares["rank"].unique())
    width = 0.8 / len(groups)
    for i, group in enumerate(groups):
        part = shares[shares[by] == group].set_index("rank").reindex(places)
        x = np.arange(len(places)) + (i - (len(groups) - 1) / 2) * width
        games = int(part["games"].iloc[0])
        errors = (100 * np.clip(np.vstack([part["share"] - part["ci_low"],
                                           part["ci_high"] - part["share"]]), 0, None)
                  if {"ci_low", "ci_high"} <= set(part.columns) else None)
        bars = ax.bar(x, 100 * part["share"], width * 0.92, color=label_color(group), yerr=errors,
                      capsize=2, error_kw={"elinewidth": 0.9, "ecolor": "0.25"},
                      label=f"vs {group} ({games} games)", zorder=2)
        ax.bar_label(bars, fmt="%.1f", fontsize="x-small", padding=1,
                     label_type="edge" if errors is None else "center")
    parity = 100 * float(shares["parity"].iloc[0])
    parity_line(ax, parity, f"parity ({parity:g}%)", in_legend=True)
    ax.set_xticks(range(len(places)), [PLACE_NAMES.get(p, str(p)) for p in places])
    ax.set_xlabel("final place")
    ax.set_ylabel(f"games of {focal} (%)")
    top = shares["ci_high"].max() if "ci_high" in shares.columns else shares["share"].max()
    ax.set_ylim(0, min(100, max(100 * top * 1.12, 30)))
    ax.set_title(title)
    ax.legend(loc="upper left" if shares.loc[shares["rank"] == 1, "share"].max() < 0.35
              else "upper right")
    return fig


@styled
def participant_boxplots(means: pd.DataFrame) -> Figure:
    """Figure 9: per-participant mean rank points against each model order.

    ``means`` is :func:`nothanks.analysis.participant_means`; each dot is one participant.
    """
    require_columns(means, ["participant", "opponent_label", "rank_points"], "participant means")
    require_rows(means, "participant means")
    order = sorted(means["opponent_label"].unique())
    fig = Figure(figsize=(5.6, 4.2), layout="constrained")
    ax = fig.add_subplot()
    sns.boxplot(data=means, x="opponent_label", y="rank_points", order=order, hue="opponent_label",
                palette={o: label_color(o) for o in order}, width=0.55, fliersize=0, ax=ax,
                legend=False)
    jitter = np.random.default_rng(0)  # seeded: the same file on every build
    for i, label in enumerate(order):
        points = means.loc[means["opponent_label"] == label, "rank_points"].to_numpy(float)
        ax.scatter(i + jitter.uniform(-0.12, 0.12, len(points)), points, s=12, color="0.2",
                   alpha=0.7, zorder=3, linewidths=0)
    parity_line(ax, 1.5, "parity (1.5)")
    ax.set_ylim(-0.1, 3.1)
    ax.set_xlabel("opponents (three models of one order)")
    ax.set_ylabel("participant's mean rank points\n(3 = 1st ... 0 = 4th)")
    n = means["participant"].nunique()
    ax.set_title(f"Participants' mean rank points ({n} participants)")
    return fig


@styled
def prediction_accuracy_bars(accuracy: pd.DataFrame) -> Figure:
    """Figure 10: how often ToM1/ToM2 predicted the participant's action correctly,
    overall and split by the participant's actual action, with 95% Wilson intervals."""
    require_columns(accuracy, ["model", "actual", "n", "accuracy", "ci_low", "ci_high"],
                    "prediction accuracy")
    require_rows(accuracy, "prediction accuracy")
    models = sorted(accuracy["model"].unique())
    kinds = [k for k in ("all", "take", "pass") if k in set(accuracy["actual"])]
    names = {"all": "all actions", "take": "participant took", "pass": "participant passed"}
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.add_subplot()
    width = 0.8 / len(models)
    for i, model in enumerate(models):
        part = accuracy[accuracy["model"] == model].set_index("actual").reindex(kinds)
        x = np.arange(len(kinds)) + (i - (len(models) - 1) / 2) * width
        errors = np.clip(np.vstack([part["accuracy"] - part["ci_low"],
                                    part["ci_high"] - part["accuracy"]]), 0, None)
        bars = ax.bar(x, 100 * part["accuracy"], width * 0.92, yerr=100 * errors, capsize=3,
                      color=label_color(model), label=model, zorder=2,
                      error_kw={"elinewidth": 1, "ecolor": "0.2"})
        ax.bar_label(bars, labels=[f"{v:.1f}" for v in 100 * part["accuracy"]],
                     fontsize="x-small", padding=2, label_type="center", color="white")
    ax.set_xticks(range(len(kinds)),
                  [f"{names[k]}\n(n = {int(accuracy.loc[accuracy['actual'] == k, 'n'].sum())})"
                   for k in kinds])
    ax.set_ylim(0, 100)
    ax.set_ylabel("correct predictions (%)")
    ax.set_title("Prediction accuracy of the participant's actions")
    ax.legend(title="predicting model", loc="upper left", ncols=2)
    return fig


@styled
def rt_sweep_lines(sweep: pd.DataFrame) -> Figure:
    """Figure 14: mean rank points of the higher order against the lower, over the
    retrieval threshold, with 95% confidence intervals (t) and the 1.5 parity line.

    With a ``flag`` column (:func:`nothanks.analysis.rt_sweep`), a filled marker is a
    significant difference from the lower order after the Holm correction, an open one
    n.s., and "lower" is written next to points where the higher order scored lower."""
    require_columns(sweep, ["higher", "lower", "rt", "mean", "ci_low", "ci_high"], "rt sweep")
    require_rows(sweep, "rt sweep")
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    ax = fig.add_subplot()
    pairs = sweep[["higher", "lower"]].drop_duplicates().sort_values(["higher", "lower"])
    markers = iter("osD^v")
    steps = np.diff(np.sort(sweep["rt"].unique()))
    dodge = 0.08 * (steps.min() if len(steps) else 1.0)  # keep the error bars apart
    for i, (higher, lower) in enumerate(pairs.itertuples(index=False)):
        part = sweep[(sweep["higher"] == higher) & (sweep["lower"] == lower)].sort_values("rt")
        color = label_color(higher) if lower == "ToM0" else PALETTE[4]
        shift = (i - (len(pairs) - 1) / 2) * dodge
        marker = next(markers)
        ax.errorbar(part["rt"] + shift, part["mean"],
                    yerr=[part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]],
                    marker=marker, color=color, capsize=3, linewidth=1.5,
                    markerfacecolor="white", label=f"{higher} vs {lower}")
        if "flag" in part.columns:
            shown = part[part["flag"].isin(["higher", "lower"])]
            ax.scatter(shown["rt"] + shift, shown["mean"], marker=marker, color=color,
                       zorder=4, s=30)
            for r in part[part["flag"] == "lower"].itertuples():
                ax.annotate("lower", xy=(r.rt + shift, r.mean), xytext=(4, -10),
                            textcoords="offset points", fontsize="x-small", color=color)
    parity_line(ax, 1.5, "parity (1.5)", in_legend=True)
    low, high = sweep["ci_low"].min(), sweep["ci_high"].max()
    ax.set_ylim(max(-0.05, low - 0.1), min(3.05, high + 0.1))  # rank points lie in 0..3
    ax.set_xlabel("retrieval threshold RT of the token memory")
    ax.set_ylabel("mean rank points\nof the higher order")
    ax.set_title("Higher-order model against lower order, over RT")
    if "flag" in sweep.columns:
        ax.set_xlabel("retrieval threshold RT of the token memory\n(filled: differs from "
                      "the lower order, Holm p < 0.05; open: n.s.)")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2)
    return fig


@styled
def instance_map(instances: pd.DataFrame, category: str = "none") -> Figure:
    """The ToM0 instance set: take/pass over card value x tokens on card, one panel per
    tokens-owned level (extension and completion instances always say take)."""
    require_columns(instances, ["category", "card", "tokens_on_card", "tokens_owned", "action"],
                    "instances")
    chosen = instances[instances["category"].astype(str) == category]
    if len(chosen) == 0:
        raise AnalysisInputError(f"instances: no instance of category {category!r}; present: "
                                 f"{sorted(set(instances['category'].astype(str)))}")
    levels = sorted(chosen["tokens_owned"].unique())
    columns = min(4, len(levels))
    rows = -(-len(levels) // columns)
    fig = Figure(figsize=(2.6 * columns + 0.6, 2.4 * rows + 0.6), layout="constrained")
    axes = fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False)
    for ax, level in zip(axes.flat, levels, strict=False):
        part = chosen[chosen["tokens_owned"] == level]
        for action, color in ACTION_COLORS.items():
            points = part[part["action"].astype(str) == action]
            ax.scatter(points["card"], points["tokens_on_card"], s=12, marker="s", color=color,
                       label=action, linewidths=0)
        ax.set_title(f"tokens owned = {level}", fontsize="medium")
    for ax in axes.flat[len(levels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("card value")
    for ax in axes[:, 0]:
        ax.set_ylabel("tokens on card")
    axes.flat[0].legend(loc="upper left", markerscale=2, handletextpad=0.2)
    fig.suptitle(f"ToM0 instances, category '{category}': take/pass regions")
    return fig


@styled
def token_memory_trace(history: pd.DataFrame, title: str = "Token memory during one game"
                       ) -> Figure:
    """A model's token-memory recalls over one game, one panel per opponent.

    ``history`` is ``TokenMemory.history_frame()``: the line is the leaf's activation at
    each recall, squares the root's (tried only when the leaf failed), the dashed line the
    retrieval threshold; a recall is circled red when the count it used was wrong, and a
    cross marks recalls where nothing was retrieved (defaults used).
    """
    require_columns(history, ["time", "seat", "source", "leaf_activation", "root_activation",
                              "threshold", "value", "true_tokens"], "token-memory history")
    require_rows(history, "token-memory history")
    seats = sorted(history["seat"].unique())
    fig = Figure(figsize=(7.2, 1.9 * len(seats) + 0.9), layout="constrained")
    axes = fig.subplots(len(seats), 1, sharex=True, squeeze=False)[:, 0]
    wrong_color = PALETTE[3]
    for ax, seat in zip(axes, seats, strict=True):
        part = history[history["seat"] == seat].sort_values("time")
        leaf = part["leaf_activation"].astype(float)
        root = part["root_activation"].astype(float)
        wrong = part["value"].to_numpy() != part["true_tokens"].to_numpy()
        ax.plot(part["time"], leaf, color=PALETTE[0], linewidth=1.1, label="leaf activation")
        ax.scatter(part["time"], leaf, c=np.where(wrong, "none", "0.15"), s=10, zorder=3)
        ax.scatter(part["time"], root, marker="s", color=PALETTE[1], s=18, zorder=3,
                   label="root activation")
        none = part["source"].isin(["none", "default"]).to_numpy()
        ax.scatter(part["time"][none], part["threshold"][none], marker="x", color="0.1", s=30,
                   zorder=4, label="nothing recalled")
        ax.scatter(part["time"][wrong], np.where(part["source"][wrong] == "root",
                                                 root[wrong], leaf[wrong]),
                   facecolors="none", edgecolors=wrong_color, s=30, zorder=4,
                   label="recalled count wrong")
        ax.step(part["time"], part["threshold"].astype(float), where="post", color="0.3",
                linestyle="--", linewidth=1, label="retrieval threshold")
        ax.set_ylabel(f"seat {seat}\nactivation")
    axes[-1].set_xlabel("model time (s)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=3,
               fontsize="small")
    fig.suptitle(title)
    return fig
