"""Placebo calibration of the tests we report, and the thesis's Welch tests corrected.

A placebo set is a table of four identical players with one seat called focal, played
for as many games as the thesis played (500 deals): every rejection is a false
positive, so over many sets a valid test at alpha = .05 rejects in about 5% of them.
:func:`placebo_tests` runs each test we report on one set; :func:`placebo_table` does
it for many sets (a pool from :mod:`nothanks.studies.placebo`, arrays of rank
points and places) and :func:`placebo_rates` counts the rejections, with a Wilson
interval. A test whose interval lies above alpha gives no flags (:func:`may_flag`),
nor does one that some pool has run on fewer than :data:`JUDGING_SETS` sets
(:func:`placebo_judgement`).
The paired-deals test is calibrated in the case it is used in: two arms on the same
deals with the same other seats, differing only in the focal seat's noise key
(:func:`paired_placebo_table`).

Why the thesis's test over-rejects. Rank points sum to 6 in every 4-player game, so the
opponents' three rows of a game and the focal row are not independent: the opponents'
mean is exactly (6 - focal)/3, and the difference the Welch test looks at is
(4/3)(1.5 - focal mean). With equal variances its true variance is (16/9) var/n, but
Welch's standard error assumes var/(3n) + var/n = (4/3) var/n: the standard error is
understated by a factor of sqrt(4/3) and |t| inflated by about 1.155, so at a nominal
5% it rejects about 8.9% of the time (P(|Z| > 1.96 / 1.155)). The valid test of the
same null is the focal model against parity 1.5 (one value per game), and
:func:`corrected_welch` turns a reported rows-Welch t into it, using the variance ratio
that its Welch df implies.

Every t here follows the thesis's sign convention: lower order (or opponents, or
parity) minus higher order (or focal), so t < 0 when the focal model scores more.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import optimize, stats

from .frames import AnalysisInputError
from .paired import ALPHA

#: Games per placebo set: the thesis's 500 per simulation (§5.2.1).
SET_GAMES = 500
#: Participants and games per opponent order in the thesis's human experiment (§5.1):
#: 30 participants, 7 scored games against each order (21 of 24, block 1 practice).
PARTICIPANTS = 30
PARTICIPANT_GAMES = 7
#: A test is fit to flag when its placebo rate is within this band.
VALID_BAND = (0.04, 0.06)
#: Rank points of a game: 3/2/1/0, summing to 6 with or without ties.
PARITY = 1.5

#: The tests of :func:`placebo_tests`: key -> (name, where results.md uses it).
TESTS: dict[str, tuple[str, str]] = {
    "rows_welch": ("Welch t, opponents' rows (3 per game) vs focal rows (the thesis's test)",
                   "thesis §5.2.2 (Figs. 11-13) and our `Welch t` rows; the RT sweep's "
                   "per-threshold Welch tests (Fig. 14) are the same test"),
    "game_mean_welch": ("Welch t, opponents' per-game mean vs focal rows",
                        "our `Welch t ... (per-game mean)` rows"),
    "parity": ("one-sample t of the focal rank points vs parity 1.5 (one value per game)",
               "our `... vs parity 1.5` rows"),
    "first_ties_first": ("first-place share vs 25%, ties counted as first (Wilson 95% CI "
                         "excludes 25%)", "the 25% line of Figs. 8, 11-13 and our "
                         "`1st vs` rows"),
    "first_ties_split": ("first-place share vs 25%, a tie for first counted as 1/k "
                         "(one-sample t)", "a tie-split reading of the 25% line (no row of "
                         "results.md uses it)"),
    "participant_paired": ("paired t(29) of 30 players' mean rank points (7 games per "
                           "condition, conditions on independent games)",
                           "thesis §5.1.2 (Fig. 9) and our `paired t ToM0 vs ToM1` rows"),
    "paired_deals": ("paired t of the focal rank points on shared deals (a replay of each "
                     "deal with other agent noise)", "our `paired t ... (shared deals)` rows"),
    "paired_deals_wilcoxon": ("Wilcoxon signed-rank test of the same per-deal differences",
                              "the Wilcoxon p beside our shared-deal rows"),
}


# ------------------------------------------------------------------ the tests
def focal_and_opponents(points: np.ndarray, focal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split (..., games, seats) rank points into the focal seat's (..., games) and the
    others' (..., games, seats - 1); ``focal`` gives the focal seat of each game."""
    points = np.asarray(points, float)
    focal = np.broadcast_to(np.asarray(focal, int), points.shape[:-1])
    chosen = np.take_along_axis(points, focal[..., None], axis=-1)[..., 0]
    mask = np.arange(points.shape[-1]) != focal[..., None]
    others = points[mask].reshape(*points.shape[:-1], points.shape[-1] - 1)
    return chosen, others


def first_place_credit(ranks: np.ndarray, focal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game: 1 if the focal seat finished first (ties count at the tied place, as the
    log's ``rank``), and the tie-split credit 1/k when k seats tied for first."""
    ranks = np.asarray(ranks, int)
    focal = np.broadcast_to(np.asarray(focal, int), ranks.shape[:-1])
    first = (np.take_along_axis(ranks, focal[..., None], axis=-1)[..., 0] == 1).astype(float)
    return first, first / (ranks == 1).sum(axis=-1)


def placebo_tests(points: np.ndarray, ranks: np.ndarray, focal: np.ndarray,
                  replay_points: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Every test's p-value (``p_<test>``) and t (``t_<test>``), per set.

    ``points``/``ranks``: (sets, games, seats) or one set's (games, seats); ``focal``:
    the focal seat of each game; ``replay_points``: the same deals replayed (same
    seating, other agent noise), for the paired-deals tests. The participant test uses
    each set's first ``2 * PARTICIPANTS * PARTICIPANT_GAMES`` games (participant j: 7
    games in one condition, the next 7 in the other). Every test runs along the games
    axis in one scipy call.
    """
    from statsmodels.stats.proportion import proportion_confint

    points = np.asarray(points, float)
    single = points.ndim == 2
    if single:
        points, ranks, focal = points[None], np.asarray(ranks)[None], np.asarray(focal)[None]
        replay_points = None if replay_points is None else np.asarray(replay_points)[None]
    f, o = focal_and_opponents(points, focal)
    sets, games = f.shape
    out: dict[str, np.ndarray] = {"games": np.full(sets, games)}

    def put(name: str, t: np.ndarray, p: np.ndarray) -> None:
        out[f"t_{name}"], out[f"p_{name}"] = np.asarray(t, float), np.asarray(p, float)

    r = stats.ttest_ind(o.reshape(sets, -1), f, axis=1, equal_var=False)
    put("rows_welch", r.statistic, r.pvalue)
    r = stats.ttest_ind(o.mean(axis=2), f, axis=1, equal_var=False)
    put("game_mean_welch", r.statistic, r.pvalue)
    r = stats.ttest_1samp(f, PARITY, axis=1)
    put("parity", -r.statistic, r.pvalue)
    first, split = first_place_credit(ranks, focal)
    wins = first.sum(axis=1)
    low, high = proportion_confint(wins, games, alpha=0.05, method="wilson")
    z = (0.25 - wins / games) / np.sqrt(0.25 * 0.75 / games)
    put("first_ties_first", z, np.where((low <= 0.25) & (high >= 0.25), 1.0, 0.0))
    r = stats.ttest_1samp(split, 0.25, axis=1)
    put("first_ties_split", -r.statistic, r.pvalue)
    needed = 2 * PARTICIPANTS * PARTICIPANT_GAMES
    if games >= needed:
        blocks = f[:, :needed].reshape(sets, PARTICIPANTS, 2, PARTICIPANT_GAMES).mean(axis=3)
        r = stats.ttest_rel(blocks[:, :, 0], blocks[:, :, 1], axis=1)
        put("participant_paired", r.statistic, r.pvalue)
    if replay_points is not None:
        g, _ = focal_and_opponents(replay_points, focal)
        diff = g - f
        constant = np.ptp(diff, axis=1) == 0
        with np.errstate(invalid="ignore", divide="ignore"):
            r = stats.ttest_rel(g, f, axis=1)
        put("paired_deals", np.where(constant, np.nan, r.statistic),
            np.where(constant, np.nan, r.pvalue))
        wilcoxon = np.full(sets, np.nan)
        if (~constant).any():
            wilcoxon[~constant] = stats.wilcoxon(diff[~constant], axis=1, zero_method="wilcox",
                                                 method="approx").pvalue
        put("paired_deals_wilcoxon", np.full(sets, np.nan), wilcoxon)
    if single:
        return {key: value[0] for key, value in out.items()}
    return out


# ------------------------------------------------------------------ many sets
def placebo_table(pool: Mapping[str, np.ndarray], set_games: int = SET_GAMES,
                  replay: Mapping[str, np.ndarray] | None = None,
                  sets: int | None = None) -> pd.DataFrame:
    """One row per disjoint set of ``set_games`` consecutive games of ``pool``
    (:func:`nothanks.studies.placebo.load_pool`): every test's t and p. Sets whose
    deals the ``replay`` pool covers also get the paired-deals tests (NaN elsewhere)."""
    total = len(pool["focal"]) // set_games
    sets = total if sets is None else min(sets, total)
    if sets < 1:
        raise AnalysisInputError(f"placebo: {len(pool['focal'])} games make no set of "
                                 f"{set_games}")
    n = sets * set_games

    def shaped(array: np.ndarray, count: int) -> np.ndarray:
        array = np.asarray(array)[:count * set_games]
        return array.reshape(count, set_games, *array.shape[1:])

    table = pd.DataFrame(placebo_tests(shaped(pool["rank_points"], sets),
                                       shaped(pool["ranks"], sets),
                                       shaped(pool["focal"], sets)))
    if replay is not None:
        m = min(len(replay["focal"]), n)
        if not (np.array_equal(replay["deal"][:m], pool["deal"][:m])
                and np.array_equal(replay["focal"][:m], pool["focal"][:m])):
            raise AnalysisInputError("placebo: the replay pool plays other deals or seats")
        covered = m // set_games
        if covered:
            paired = placebo_tests(shaped(pool["rank_points"], covered),
                                   shaped(pool["ranks"], covered),
                                   shaped(pool["focal"], covered),
                                   shaped(replay["rank_points"], covered))
            for key in ("paired_deals", "paired_deals_wilcoxon"):
                for kind in ("t", "p"):
                    column = np.full(sets, np.nan)
                    column[:covered] = paired[f"{kind}_{key}"]
                    table[f"{kind}_{key}"] = column
    table.insert(0, "set", np.arange(sets))
    return table


def clopper_pearson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact binomial interval of a rate."""
    interval = stats.binomtest(int(successes), int(n)).proportion_ci(confidence, "exact")
    return float(interval.low), float(interval.high)


#: Sets a pool needs before its rates judge whether a test may flag.
JUDGING_SETS = 1000


def placebo_rates(table: pd.DataFrame, alpha: float = ALPHA,
                  band: tuple[float, float] = VALID_BAND,
                  judging_sets: int = JUDGING_SETS) -> pd.DataFrame:
    """Per test: sets, rejections at ``alpha``, the false-positive rate with its Wilson
    95% interval, the SD of t over the sets (1 for a valid t-test; sqrt(4/3) = 1.155 for
    the thesis's), whether the rate lies in ``band`` (``fit_to_flag``; None when fewer
    than ``judging_sets`` sets ran: too few to judge, and False whatever the count when
    :func:`may_flag` says no), whether the interval holds ``alpha`` (``holds_alpha``)
    and ``may_flag`` (the interval does not lie above ``alpha``)."""
    from .paired import wilson_interval
    rows = []
    for key, (name, used) in TESTS.items():
        column = f"p_{key}"
        if column not in table.columns:
            continue
        p = table[column].dropna()
        if not len(p):
            continue
        rejected = int((p < alpha).sum())
        low, high = wilson_interval(rejected, len(p))
        t = table.get(f"t_{key}", pd.Series(dtype=float)).dropna()
        rate = rejected / len(p)
        allowed = may_flag(rejected, len(p), alpha)
        fit = (bool(band[0] <= rate <= band[1]) if len(p) >= judging_sets else None)
        rows.append({"test": key, "name": name, "used": used, "sets": len(p),
                     "rejections": rejected, "rate": rate, "ci_low": low, "ci_high": high,
                     "t_sd": float(t.std(ddof=1)) if len(t) > 1 and key != "first_ties_first"
                     else np.nan,
                     "fit_to_flag": fit if allowed else False,
                     "holds_alpha": bool(low <= alpha <= high), "may_flag": allowed})
    return pd.DataFrame(rows)


def placebo_markdown(rates: pd.DataFrame, describe: str) -> str:
    """The placebo table as Markdown, after a paragraph saying what was played."""
    lines = [describe, "",
             "| test | used for | sets | false positives at α = .05 | rate [95% CI] | SD of t "
             "| fit to flag (rate in [4%, 6%]) |", "| --- | --- | ---: | ---: | --- | ---: | --- |"]
    for r in rates.itertuples():
        sd = "—" if pd.isna(r.t_sd) else f"{r.t_sd:.3f}"
        if not getattr(r, "may_flag", True):
            fit = "no: its CI lies above 5%"
        elif r.fit_to_flag is None or pd.isna(r.fit_to_flag):
            fit = (f"not judged ({r.sets} sets < {JUDGING_SETS}): gives no flags; CI "
                   f"{'holds' if r.holds_alpha else 'excludes'} 5%")
        else:
            fit = "yes" if r.fit_to_flag else "no"
        lines.append(f"| {r.name} | {r.used} | {r.sets} | {r.rejections} | "
                     f"{100 * r.rate:.1f}% [{100 * r.ci_low:.1f}%, {100 * r.ci_high:.1f}%] | "
                     f"{sd} | {fit} |")
    return "\n".join(lines)


def paired_placebo_markdown(rates: pd.DataFrame) -> str:
    """:func:`paired_placebo_rates` of every focal model as one Markdown table."""
    lines = ["| focal model | test | deals per set | of them with another focal key | "
             "deals whose result differs (mean) | sets (with a test) | false positives at "
             "α = .05 | "
             "rate [95% Wilson CI] | may flag (CI not above 5%) |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for r in rates.itertuples():
        test = "paired t" if r.test == "paired_deals" else "Wilcoxon"
        allowed = ("yes" if r.may_flag else "no") + (
            "" if r.judged else f" (not judged: {r.sets} sets < {JUDGING_SETS}; gives no "
            "flags)")
        lines.append(f"| {r.model} | {test} | {r.deals} | {r.differing} | "
                     f"{100 * r.deals_differ:.2f}% | {r.sets} ({r.tested}) | {r.rejections} | "
                     f"{100 * r.rate:.1f}% [{100 * r.ci_low:.1f}%, {100 * r.ci_high:.1f}%] | "
                     f"{allowed} |")
    return "\n".join(lines)


# ------------------------------------------------ the paired-deals test, as used
#: The shapes of the paired-deals placebo (:func:`paired_placebo_table`): name ->
#: (deals per set, deals per set whose focal key differs). The instance-set comparisons
#: have 2,000 shared deals per table and their arms part on 0.4% to 42% of them; a set
#: here has ``differing`` deals played by two arms that differ only in the focal seat's
#: noise key, and its other deals played alike by both (a difference of exactly 0, so
#: they are not played). ``all-40``: every deal of a 40-deal set differs in its key.
#: 1,000 sets of every shape take 100,000 paired deals (``2000-100``; the others 40,000).
PAIRED_SHAPES: dict[str, tuple[int, int]] = {"all-40": (40, 40), "2000-100": (2000, 100),
                                             "2000-40": (2000, 40), "2000-10": (2000, 10)}


def paired_differences(pool: Mapping[str, np.ndarray], focal_replay: Mapping[str, np.ndarray]
                       ) -> np.ndarray:
    """Per shared deal (the games both have, from the first): the focal seat's rank
    points in ``focal_replay`` (the same deals, seating and other seats' seeds; another
    focal noise key) minus in ``pool``."""
    m = min(len(focal_replay["focal"]), len(pool["focal"]))
    if not (np.array_equal(focal_replay["deal"][:m], pool["deal"][:m])
            and np.array_equal(focal_replay["focal"][:m], pool["focal"][:m])):
        raise AnalysisInputError("placebo: the focal replay plays other deals or seats")
    a, _ = focal_and_opponents(pool["rank_points"][:m], pool["focal"][:m])
    b, _ = focal_and_opponents(focal_replay["rank_points"][:m], focal_replay["focal"][:m])
    return b - a


def paired_placebo_table(differences: np.ndarray,
                         shapes: Mapping[str, tuple[int, int]] = PAIRED_SHAPES
                         ) -> pd.DataFrame:
    """One row per (shape, set): consecutive ``differing`` per-deal differences of
    :func:`paired_differences`, padded with zeros to ``deals`` (the deals both arms
    played alike); the paired t-test's and Wilcoxon test's p (NaN when every difference
    is 0: no test) and the deals whose results differ."""
    rows = []
    differences = np.asarray(differences, float)
    for shape, (deals, differing) in shapes.items():
        sets = len(differences) // differing
        if not sets:
            continue
        part = differences[:sets * differing].reshape(sets, differing)
        full = np.zeros((sets, deals))
        full[:, :differing] = part
        constant = np.ptp(full, axis=1) == 0
        with np.errstate(invalid="ignore", divide="ignore"):
            t = stats.ttest_1samp(full, 0.0, axis=1)
        wilcoxon = np.full(sets, np.nan)
        if (~constant).any():
            wilcoxon[~constant] = stats.wilcoxon(full[~constant], axis=1,
                                                 zero_method="wilcox", method="approx").pvalue
        rows.append(pd.DataFrame({
            "shape": shape, "set": np.arange(sets), "deals": deals, "differing": differing,
            "deals_differ": (full != 0).sum(axis=1),
            "t_paired_deals": np.where(constant, np.nan, t.statistic),
            "p_paired_deals": np.where(constant, np.nan, t.pvalue),
            "p_paired_deals_wilcoxon": wilcoxon}))
    if not rows:
        raise AnalysisInputError(f"placebo: {len(differences)} paired deals make no set")
    return pd.concat(rows, ignore_index=True)


def may_flag(rejections: int, tests: int, alpha: float = ALPHA) -> bool:
    """Whether a test may give flags: False when the Wilson 95% interval of its placebo
    false-positive rate lies above ``alpha`` (the test over-rejects), else True."""
    from .paired import wilson_interval
    if tests <= 0:
        raise AnalysisInputError("may_flag: no placebo sets")
    return wilson_interval(rejections, tests)[0] <= alpha


def paired_placebo_rates(table: pd.DataFrame, alpha: float = ALPHA,
                         judging_sets: int = JUDGING_SETS) -> pd.DataFrame:
    """Per shape and test (the paired t, the Wilcoxon test): sets, sets with a test (not
    every difference 0), rejections at ``alpha`` counted over every set (a set without a
    test does not reject), the rate with its Wilson 95% interval, the mean share of
    deals whose results differ, ``may_flag`` (:func:`may_flag`) and whether enough sets
    ran to judge (``judged``: at least ``judging_sets``)."""
    from .paired import wilson_interval
    rows = []
    for shape, part in table.groupby("shape", sort=False):
        for key in ("paired_deals", "paired_deals_wilcoxon"):
            p = part[f"p_{key}"]
            n, rejected = len(p), int((p < alpha).sum())
            low, high = wilson_interval(rejected, n)
            rows.append({"shape": shape, "test": key, "name": TESTS[key][0],
                         "deals": int(part["deals"].iloc[0]),
                         "differing": int(part["differing"].iloc[0]), "sets": n,
                         "tested": int(p.notna().sum()), "rejections": rejected,
                         "rate": rejected / n, "ci_low": low, "ci_high": high,
                         "deals_differ": float((part["deals_differ"]
                                                / part["deals"]).mean()),
                         "may_flag": may_flag(rejected, n, alpha),
                         "judged": n >= judging_sets})
    return pd.DataFrame(rows)


def placebo_judgement(folder, judging_sets: int = JUDGING_SETS) -> dict[str, bool]:
    """Test key -> whether it may flag, over every placebo table in ``folder``
    (``<pool>.json`` beside ``<pool>.csv`` of :func:`placebo_table`, and
    ``paired_deals.json`` beside ``paired_deals_rates.csv``): False when any pool's
    Wilson interval lies above alpha (:func:`may_flag`) or any pool's row has fewer
    than ``judging_sets`` sets (too few to judge: a test flags only when every row that
    calibrates it is judged). A test no table calibrates is not in the result."""
    from pathlib import Path
    folder = Path(folder)
    judged: dict[str, bool] = {}
    if not folder.is_dir():
        return judged
    for meta in sorted(folder.glob("*.json")):
        if meta.stem == "paired_deals":
            rates = pd.read_csv(folder / "paired_deals_rates.csv")
        else:
            rates = placebo_rates(pd.read_csv(meta.with_suffix(".csv")))
        enough = (rates["judged"] if "judged" in rates
                  else rates["sets"] >= judging_sets)
        for key, allowed, ran in zip(rates["test"], rates["may_flag"], enough, strict=True):
            judged[key] = judged.get(key, True) and bool(allowed) and bool(ran)
    return judged


# ------------------------------------------------------------- thesis corrected
#: The thesis's rows-Welch tests (§5.2.2): key -> (t, df); 500 games each.
THESIS_WELCH: dict[str, tuple[float, float]] = {
    "Welch t ToM0 vs ToM1": (-15.8, 909.8),
    "Welch t ToM0 vs ToM2": (-14.2, 854.3),
    "Welch t ToM1 vs ToM2": (-2.0, 865.0),
}


def welch_df(ratio: float, n_a: int, n_b: int) -> float:
    """Welch-Satterthwaite df of samples of sizes n_a, n_b whose variances are in
    ``ratio`` = var_a / var_b."""
    va, vb = ratio / n_a, 1.0 / n_b
    return (va + vb) ** 2 / (va ** 2 / (n_a - 1) + vb ** 2 / (n_b - 1))


def variance_ratios(df: float, games: int = SET_GAMES) -> list[float]:
    """The opponents'/focal variance ratios r whose rows-Welch df (3 x games vs games rows)
    equals ``df`` (found on a grid from 0.001 to 1000 and refined; df runs from 499 at
    r -> 0 to 1499 as r grows)."""
    n_a, n_b = 3 * games, games
    grid = np.geomspace(1e-3, 1e3, 4001)
    values = np.array([welch_df(r, n_a, n_b) - df for r in grid])
    roots = []
    for i in np.flatnonzero(np.sign(values[:-1]) != np.sign(values[1:])):
        roots.append(float(optimize.brentq(lambda r: welch_df(r, n_a, n_b) - df,
                                           grid[i], grid[i + 1])))
    return roots


def parity_factor(ratio: float) -> float:
    """t of the focal model against parity over the rows-Welch t of the same games, when
    the opponents' rows have ``ratio`` times the focal rows' variance.

    The Welch difference is (4/3)(1.5 - focal mean) with standard error
    sqrt(r var/(3n) + var/n); the parity test's is sqrt(var/n): the ratio of the two t's
    is (3/4) sqrt(1 + r/3), 0.866 at r = 1."""
    return 0.75 * np.sqrt(1.0 + ratio / 3.0)


def corrected_welch(t: float, df: float, games: int = SET_GAMES,
                    rounding: float = 0.05) -> dict:
    """A reported rows-Welch t(df) turned into the valid test of the same null (the focal
    model against parity, df = games - 1), at the variance ratio the df implies.

    Returns the thesis's p recomputed from t and df, the implied ratio (the root nearest 1
    when there are two; NaN and r = 1 assumed when the df is above every achievable
    value), the factor, the corrected t and p, and the corrected p's range for t
    anywhere in t +- ``rounding`` (the thesis prints t to one decimal)."""
    roots = variance_ratios(df, games)
    ratio = min(roots, key=lambda r: abs(np.log(r))) if roots else np.nan
    factor = parity_factor(1.0 if np.isnan(ratio) else ratio)
    corrected = t * factor
    dof = games - 1

    def p_of(value: float) -> float:
        return float(2 * stats.t.sf(abs(value), dof))

    ends = [p_of((t + s * rounding) * factor) for s in (-1, 1)]
    return {"t": t, "df": df, "p": float(2 * stats.t.sf(abs(t), df)),
            "ratios": roots, "ratio": ratio, "factor": factor, "t_corrected": corrected,
            "df_corrected": dof, "p_corrected": p_of(corrected),
            "p_corrected_low": min(ends), "p_corrected_high": max(ends)}


def corrected_thesis_table(games: int = SET_GAMES) -> pd.DataFrame:
    """:func:`corrected_welch` for each of the thesis's rows-Welch tests."""
    return pd.DataFrame([{"statistic": key, **corrected_welch(t, df, games)}
                         for key, (t, df) in THESIS_WELCH.items()])


def corrected_markdown(table: pd.DataFrame) -> str:
    """The thesis's rows-Welch tests beside the valid test of the same null."""
    def p(value: float) -> str:
        return "p < 0.001" if value < 0.001 else f"p = {value:.3f}"

    lines = ["| thesis test | thesis | p recomputed from t, df | variance ratio the df "
             "implies (opponents / focal) | corrected: focal vs parity | corrected p for "
             "t ± 0.05 (t printed to 1 decimal) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in table.itertuples():
        roots = ", ".join(f"{x:.2f}" for x in r.ratios) or "none (df above the maximum)"
        lines.append(
            f"| {r.statistic} | t({r.df:.1f}) = {r.t:.1f} | {p(r.p)} | {roots} "
            f"(used {r.ratio:.2f}; t factor {r.factor:.3f}) | t({r.df_corrected}) = "
            f"{r.t_corrected:.2f}, {p(r.p_corrected)} | "
            f"{r.p_corrected_low:.3g} to {r.p_corrected_high:.3g} |")
    return "\n".join(lines)


# ------------------------------------------------------------- comparable statistics
#: The thesis's comparisons: its results.md key -> (opponent label, focal label).
THESIS_COMPARISONS = {"Welch t ToM0 vs ToM1": ("ToM0", "ToM1"),
                      "Welch t ToM0 vs ToM2": ("ToM0", "ToM2"),
                      "Welch t ToM1 vs ToM2": ("ToM1", "ToM2")}


def d_interval(d: float, n: int) -> tuple[float, float]:
    """Approximate 95% interval of a one-sample Cohen's d from n values
    (SE = sqrt(1/n + d^2 / (2n)))."""
    half = 1.96 * np.sqrt(1 / n + d ** 2 / (2 * n))
    return d - half, d + half


def comparable_table(tests: pd.DataFrame, blocks: pd.DataFrame | None,
                     games: int = SET_GAMES) -> pd.DataFrame:
    """The thesis's three simulation comparisons at comparable sizes.

    Per comparison: the thesis's rows-Welch t and p, the same games' valid test (focal vs
    parity, :func:`corrected_welch`), the effect size that implies (d = (1.5 - focal
    mean)/SD = t/sqrt(500), thesis sign) with its interval; ours: d of the parity test
    on all our games with its interval, and both tests' t on disjoint blocks of 500 of
    our deals (``blocks``: :func:`~.tables.thesis_size_tests`). ``tests`` is
    :func:`~.tables.simulation_tests`.
    """
    rows = []
    parity = tests[tests["test"] == "one-sample t vs parity"]
    for key, (opponent, focal) in THESIS_COMPARISONS.items():
        t, df = THESIS_WELCH[key]
        fixed = corrected_welch(t, df, games)
        d_thesis = fixed["t_corrected"] / np.sqrt(games)
        ours = parity[(parity["b"] == focal) & (parity["a_label"] == opponent)]
        row = {"statistic": key, "thesis_t": t, "thesis_df": df, "thesis_p": fixed["p"],
               "corrected_t": fixed["t_corrected"], "corrected_p": fixed["p_corrected"],
               "thesis_d": d_thesis, "thesis_d_low": d_interval(d_thesis, games)[0],
               "thesis_d_high": d_interval(d_thesis, games)[1]}
        if len(ours):
            r = ours.iloc[0]
            n = int(r["n_b"])
            row.update(ours_n=n, ours_d=float(r["effect_size"]),
                       ours_d_low=d_interval(float(r["effect_size"]), n)[0],
                       ours_d_high=d_interval(float(r["effect_size"]), n)[1],
                       ours_flag=str(r["flag"]))
            if blocks is not None and len(blocks):
                part = blocks[(blocks["a_spec"] == r["a_spec"])
                              & (blocks["b_spec"] == r["b_spec"])]
                row.update(blocks=len(part), block_welch_t=list(part["welch_t"]),
                           block_welch_df=float(part["welch_df"].mean()) if len(part)
                           else np.nan,
                           block_parity_t=list(part["parity_t"]),
                           block_parity_p=list(part["parity_p"]))
        rows.append(row)
    return pd.DataFrame(rows)


def comparable_markdown(table: pd.DataFrame) -> str:
    """:func:`comparable_table` as Markdown."""
    def p(value: float) -> str:
        return "p < 0.001" if value < 0.001 else f"p = {value:.3f}"

    lines = ["| comparison | thesis (500 games) | thesis, corrected: focal vs parity | "
             "thesis's implied d [95% CI] | ours: d [95% CI] (all games, focal vs parity) | "
             "ours at 500 games: the thesis's test, t per block | ours at 500 games: "
             "focal vs parity, t (p) per block |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in table.to_dict("records"):
        ours = "—"
        welch = parity = "—"
        if "ours_d" in r and not pd.isna(r.get("ours_d")):
            ours = (f"{r['ours_d']:.2f} [{r['ours_d_low']:.2f}, {r['ours_d_high']:.2f}] "
                    f"(n = {int(r['ours_n'])}; {r['ours_flag']})")
            if isinstance(r.get("block_welch_t"), list) and r["block_welch_t"]:
                welch = (f"t(≈{r['block_welch_df']:.0f}) = "
                         + ", ".join(f"{t:.2f}" for t in r["block_welch_t"]))
                parity = ", ".join(f"{t:.2f} ({p(q)})" for t, q in
                                   zip(r["block_parity_t"], r["block_parity_p"], strict=True))
        lines.append(
            f"| {r['statistic'].removeprefix('Welch t ')} | t({r['thesis_df']:.1f}) = "
            f"{r['thesis_t']:.1f}, {p(r['thesis_p'])} | t(499) = {r['corrected_t']:.2f}, "
            f"{p(r['corrected_p'])} | {r['thesis_d']:.2f} [{r['thesis_d_low']:.2f}, "
            f"{r['thesis_d_high']:.2f}] | {ours} | {welch} | {parity} |")
    return "\n".join(lines)


__all__ = ["THESIS_COMPARISONS", "comparable_markdown", "comparable_table", "d_interval",
           "PARTICIPANTS", "PARTICIPANT_GAMES", "SET_GAMES", "TESTS", "THESIS_WELCH",
           "VALID_BAND", "clopper_pearson", "may_flag", "PAIRED_SHAPES", "paired_differences",
           "paired_placebo_markdown", "paired_placebo_rates", "paired_placebo_table",
           "corrected_markdown", "corrected_thesis_table",
           "corrected_welch", "first_place_credit", "focal_and_opponents", "parity_factor",
           "placebo_judgement", "placebo_markdown", "placebo_rates", "placebo_table",
           "placebo_tests",
           "variance_ratios", "welch_df"]
