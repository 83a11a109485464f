"""Comparisons on shared deals, intervals for shares, direction-aware flags, data sources.

Every design plays game *i* of every condition on the same deal (same seed, same
seating; the log's ``deal`` column), so two conditions can be compared deal by deal:
the luck of the deal cancels in the per-deal difference, which is why a paired test
detects a smaller difference than the thesis's unpaired Welch test on the same games.
Shares get Wilson intervals, sweeps of tests a Holm correction and flags that say in
which direction a difference is significant, and every table says where its numbers
come from (:func:`data_source`).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from .frames import AnalysisInputError, focal_rows, require_columns, require_rows

#: Bootstrap resamples of a mean difference, and the seed that makes them reproducible.
BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 20180601
#: Significance level of the flags (after the Holm correction).
ALPHA = 0.05
#: What a table's numbers are computed from (the ``source`` column).
SOURCES = ("simulation", "synthetic", "participants")
#: The label every output drawn from synthetic participants carries.
SYNTHETIC_LABEL = "SYNTHETIC — not data"


# ------------------------------------------------------------------- sources
def data_source(frame: pd.DataFrame) -> str:
    """Where a log's rows come from, read from the log itself.

    ``synthetic`` if any row's human seat was played by a stand-in (the ``synthetic``
    column), else ``participants`` if rows belong to participant sessions (non-null
    ``participant``), else ``simulation`` (models only).
    """
    if "synthetic" in frame.columns and frame["synthetic"].fillna(False).astype(bool).any():
        return "synthetic"
    if "participant" in frame.columns and frame["participant"].notna().any():
        return "participants"
    return "simulation"


def with_source(table: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """``table`` with a ``source`` column naming where ``games`` came from."""
    return table.assign(source=data_source(games))


# ------------------------------------------------------------------ intervals
def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a share: sound near 0 and 1, where the normal one is not."""
    from statsmodels.stats.proportion import proportion_confint
    if n <= 0:
        raise AnalysisInputError("share interval: no trials")
    low, high = proportion_confint(int(successes), int(n), alpha=1 - confidence,
                                   method="wilson")
    return float(low), float(high)


def wilson_columns(successes: pd.Series, n: pd.Series) -> pd.DataFrame:
    """``ci_low``/``ci_high`` columns of the Wilson intervals of ``successes`` of ``n``."""
    bounds = [wilson_interval(s, t) for s, t in zip(successes, n, strict=True)]
    return pd.DataFrame(bounds, columns=["ci_low", "ci_high"], index=successes.index)


def bootstrap_interval(values: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES,
                       seed: int = BOOTSTRAP_SEED, confidence: float = 0.95
                       ) -> tuple[float, float]:
    """Percentile bootstrap interval of a mean (seeded: the same interval on every run)."""
    values = np.asarray(values, float)
    if len(values) == 0:
        raise AnalysisInputError("bootstrap interval: no values")
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    step = max(1, 2_000_000 // len(values))  # bounded memory for long samples
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        picks = rng.integers(0, len(values), size=(stop - start, len(values)))
        means[start:stop] = values[picks].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(low), float(high)


def cluster_share(successes: np.ndarray, trials: np.ndarray,
                  resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                  confidence: float = 0.95) -> tuple[float, float, float]:
    """A share pooled over clusters (games, deals, participants) with a cluster-bootstrap
    interval: ``successes[i]`` of ``trials[i]`` in cluster *i*.

    Decisions of one game (or one participant) are not independent trials, so a Wilson
    interval over decisions is too narrow; resampling whole clusters keeps their
    correlation (percentile interval of the ratio of summed successes to summed trials,
    seeded). When no cluster's share differs from the pooled one there is nothing to
    resample: the interval is then the Wilson interval over the clusters (as if each
    cluster were one trial), the conservative bound. Returns (share, low, high).
    """
    s = np.asarray(successes, float)
    n = np.asarray(trials, float)
    if len(s) != len(n) or len(s) == 0 or n.sum() <= 0:
        raise AnalysisInputError("cluster share: needs clusters with trials")
    share = float(s.sum() / n.sum())
    keep = n > 0
    s, n = s[keep], n[keep]
    clusters = len(s)
    if np.allclose(s, share * n):
        low, high = wilson_interval(round(share * clusters), clusters, confidence)
        return share, min(low, share), max(high, share)
    rng = np.random.default_rng(seed)
    values = np.empty(resamples)
    step = max(1, 2_000_000 // clusters)
    for start in range(0, resamples, step):
        stop = min(resamples, start + step)
        picks = rng.integers(0, clusters, size=(stop - start, clusters))
        values[start:stop] = s[picks].sum(axis=1) / n[picks].sum(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return share, float(low), float(high)


def cluster_share_columns(frame: pd.DataFrame, success: str, cluster: str | Sequence[str],
                          by: Sequence[str] = (), **kwargs) -> pd.DataFrame:
    """Per ``by`` group: trials, successes, the share of ``success`` (a 0/1 column) and
    its cluster-bootstrap interval over ``cluster`` (:func:`cluster_share`)."""
    cluster = [cluster] if isinstance(cluster, str) else list(cluster)
    require_columns(frame, [success, *cluster, *by], "cluster share")
    rows = []
    groups = frame.groupby(list(by), sort=True) if by else [((), frame)]
    for labels, part in groups:
        per = part.groupby(cluster, sort=False)[success].agg(["sum", "size"])
        share, low, high = cluster_share(per["sum"].to_numpy(), per["size"].to_numpy(),
                                         **kwargs)
        labels = labels if isinstance(labels, tuple) else (labels,)
        rows.append({**dict(zip(by, labels, strict=True)), "n": int(per["size"].sum()),
                     "successes": int(per["sum"].sum()), "clusters": len(per),
                     "share": share, "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


# -------------------------------------------------------------- paired tests
def paired_difference(a: np.ndarray, b: np.ndarray, resamples: int = BOOTSTRAP_RESAMPLES,
                      seed: int = BOOTSTRAP_SEED) -> dict:
    """Paired t-test, Wilcoxon signed-rank test and bootstrap CI of the mean of a - b.

    Rank points are discrete, so many differences are 0 or tied: the Wilcoxon test
    (zeros dropped, normal approximation) checks the t-test without assuming normal
    differences, and the bootstrap interval does not lean on the t distribution. When
    every difference is equal the tests are undefined: t and p are NaN (the flag says
    n.s.) and the intervals collapse to the one value.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if len(a) != len(b):
        raise AnalysisInputError(f"paired samples differ in length: {len(a)} vs {len(b)}")
    if len(a) < 2:
        raise AnalysisInputError(f"a paired test needs at least 2 pairs, got {len(a)}")
    diff = a - b
    mean = float(diff.mean())
    row = {"n_a": len(a), "n_b": len(b), "mean_a": float(a.mean()), "mean_b": float(b.mean()),
           "difference": mean}
    if np.ptp(diff) == 0:
        return {**row, "t": np.nan, "df": float(len(a) - 1), "p": np.nan, "ci_low": mean,
                "ci_high": mean, "effect": "d_z", "effect_size": np.nan,
                "wilcoxon_w": np.nan, "wilcoxon_p": np.nan,
                "boot_ci_low": mean, "boot_ci_high": mean, "boot_resamples": resamples}
    result = stats.ttest_rel(a, b)
    interval = result.confidence_interval(0.95)
    wilcoxon = stats.wilcoxon(diff, zero_method="wilcox", method="approx")
    w, w_p = float(wilcoxon.statistic), float(wilcoxon.pvalue)
    boot_low, boot_high = bootstrap_interval(diff, resamples, seed)
    return {**row, "t": float(result.statistic), "df": float(result.df),
            "p": float(result.pvalue), "ci_low": float(interval.low),
            "ci_high": float(interval.high), "effect": "d_z",
            "effect_size": mean / float(diff.std(ddof=1)), "wilcoxon_w": w, "wilcoxon_p": w_p,
            "boot_ci_low": boot_low, "boot_ci_high": boot_high, "boot_resamples": resamples}


def focal_by_deal(games: pd.DataFrame, condition: int) -> pd.DataFrame:
    """The focal player's result per deal in one condition (indexed by ``deal``).

    Columns: ``rank_points``, ``win`` (1 for first place, ties included),
    ``opponent_rank_points`` (the opponents' mean) and ``focal_label``.
    """
    require_columns(games, ["condition", "deal"], "games")
    part = games[games["condition"] == condition]
    require_rows(part, f"games of condition {condition}")
    focal = focal_rows(part)
    if focal["deal"].duplicated().any():
        raise AnalysisInputError(f"games of condition {condition}: a deal was played twice; "
                                 "select one experiment")
    return pd.DataFrame({
        "rank_points": focal["rank_points"].to_numpy(float),
        "win": (focal["rank"] == 1).to_numpy(float),
        "opponent_rank_points": focal["opponent_rank_points"].to_numpy(float),
        "focal_label": focal["focal_label"].astype(str).to_numpy(),
    }, index=pd.Index(focal["deal"].to_numpy(), name="deal")).sort_index()


def shared_deals(games: pd.DataFrame, a: int, b: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Focal results per deal of conditions ``a`` and ``b``, on the deals both played."""
    left, right = focal_by_deal(games, a), focal_by_deal(games, b)
    common = left.index.intersection(right.index)
    if len(common) < 2:
        raise AnalysisInputError(f"conditions {a} and {b} share {len(common)} deal(s); a "
                                 "paired comparison needs at least 2")
    return left.loc[common], right.loc[common]


def paired_conditions(games: pd.DataFrame, a: int, b: int,
                      resamples: int = BOOTSTRAP_RESAMPLES) -> dict:
    """Focal rank points of condition ``a`` minus condition ``b``, deal by deal.

    The paired statistics of :func:`paired_difference` plus the win shares of both focal
    players and the bootstrap interval of their per-deal difference (``win_*``).
    """
    left, right = shared_deals(games, a, b)
    row = {"deals": len(left), **paired_difference(left["rank_points"], right["rank_points"],
                                                   resamples)}
    wins = left["win"].to_numpy() - right["win"].to_numpy()
    win_low, win_high = bootstrap_interval(wins, resamples)
    return {**row, "win_a": float(left["win"].mean()), "win_b": float(right["win"].mean()),
            "win_difference": float(wins.mean()), "win_ci_low": win_low,
            "win_ci_high": win_high}


# ------------------------------------------------------------ flags with direction
def direction_flags(p: Sequence[float], higher_is_better: Sequence[bool],
                    alpha: float = ALPHA) -> tuple[np.ndarray, list[str]]:
    """Holm-adjusted p-values of one family of tests, and a flag per test.

    The flag says how the higher-order model's rank points stand against the comparison:
    ``higher`` or ``lower`` when the Holm-adjusted p is below ``alpha``, else ``n.s.``.
    A test without a p-value (NaN: no variation) is n.s. and left out of the family.
    """
    from statsmodels.stats.multitest import multipletests
    p = np.asarray(p, float)
    adjusted = np.full(len(p), np.nan)
    known = ~np.isnan(p)
    if known.any():
        adjusted[known] = multipletests(p[known], alpha=alpha, method="holm")[1]
    flags = ["n.s." if not (q < alpha) else ("higher" if better else "lower")
             for q, better in zip(adjusted, higher_is_better, strict=True)]
    return adjusted, flags


# ------------------------------------------------------------ focal decisions
def focal_sequences(decisions: pd.DataFrame, condition: int) -> pd.Series:
    """The focal player's actions in turn order, per deal, in one condition."""
    require_columns(decisions, ["condition", "deal", "turn", "focal", "action"], "decisions")
    part = decisions[(decisions["condition"] == condition) & decisions["focal"].astype(bool)]
    require_rows(part, f"focal decisions of condition {condition}")
    ordered = part.sort_values(["deal", "turn"])
    return ordered.groupby("deal")["action"].agg(lambda s: tuple(s.astype(str)))


def divergence_by_deal(decisions: pd.DataFrame, a: int, b: int) -> pd.DataFrame:
    """Per shared deal of conditions ``a`` and ``b``: the focal decisions compared (up to
    and including the first difference) and whether the focal players' moves diverged.

    On a shared deal both focal players see the same states until their first differing
    decision (the other seats play the same agents on the same seeds), so every decision
    up to and including the first difference is a fair comparison and none after it is.
    """
    left, right = focal_sequences(decisions, a), focal_sequences(decisions, b)
    common = left.index.intersection(right.index)
    if len(common) == 0:
        raise AnalysisInputError(f"conditions {a} and {b} share no deal")
    rows = []
    for deal in common:
        x, y = left[deal], right[deal]
        first = next((i for i, (u, v) in enumerate(zip(x, y, strict=False)) if u != v), None)
        if first is None and len(x) != len(y):  # one game ended early: states differed
            first = min(len(x), len(y)) - 1
        rows.append((deal, len(x) if first is None else first + 1, first is not None))
    return pd.DataFrame(rows, columns=["deal", "compared", "diverged"])


def focal_divergence(decisions: pd.DataFrame, a: int, b: int) -> dict:
    """How often the focal players of conditions ``a`` and ``b`` moved differently
    (:func:`divergence_by_deal`).

    Per-decision rate of difference = deals whose sequences diverge / decisions compared
    up to and including the first divergence (all of a deal's decisions when none
    differs), with a Wilson interval over the decisions compared, and
    ``difference_cluster_ci_*``: the cluster-bootstrap interval over deals
    (:func:`cluster_share`; a deal's decisions are not independent trials).
    """
    by_deal = divergence_by_deal(decisions, a, b)
    diverged = int(by_deal["diverged"].sum())
    compared = int(by_deal["compared"].sum())
    low, high = wilson_interval(diverged, compared) if compared else (np.nan, np.nan)
    _, c_low, c_high = (cluster_share(by_deal["diverged"].to_numpy(float),
                                      by_deal["compared"].to_numpy(float))
                        if compared else (np.nan, np.nan, np.nan))
    return {"deals": len(by_deal), "identical_deals": len(by_deal) - diverged,
            "diverged_deals": diverged, "decisions_compared": compared,
            "difference_rate": diverged / compared if compared else np.nan,
            "difference_ci_low": low, "difference_ci_high": high,
            "difference_cluster_ci_low": c_low, "difference_cluster_ci_high": c_high}
