"""The thesis's statistics (§5) and the ones we add, as pure functions of DataFrames.

Inputs are the logged tables or tables derived from them by :mod:`.frames`:

* *focal rows* (:func:`~.frames.focal_rows`): one row per game for the focal player —
  ``rank``, ``rank_points``, ``focal``/``opponent`` specs and labels; for participant
  sessions also ``participant`` and ``block``.
* *predictions*: one row per prediction a model made about another player, with
  ``predictor`` (spec), ``predicted`` and ``actual`` (``take``/``pass``).
* *decisions*: one row per decision; feedback needs ``marked_bad`` on the models' rows.
* *recalls*: one row per token-count recall with ``outcome`` (leaf/root/none),
  ``recalled`` and ``true_tokens``.

Every t-test row carries the effect size and the 95% confidence interval of the mean
difference next to t, df and p. Tests are oriented as in the thesis: sample ``a`` is the
lower-order (or opponent) side, so a better higher-order model gives a negative t.
"""
from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from .frames import (
    AnalysisInputError,
    focal_rows,
    game_index,
    game_key,
    opponent_rows,
    require_columns,
    require_models,
    require_rows,
    require_unique,
    with_agent_labels,
)
from .paired import direction_flags, wilson_columns, wilson_interval

#: The thesis's comparisons between opponent orders (§5.1.2, Figure 9).
ORDER_PAIRS = (("ToM0", "ToM1"), ("ToM0", "ToM2"), ("ToM1", "ToM2"))
#: Blocks excluded from participant statistics: block 1 (games 1-3) is practice (§5.1.2).
PRACTICE_BLOCKS = (1,)
#: Welch-test samples: "rows" = every opponent row (3 per game), "game_mean" = the
#: opponents' mean per game (1 per game). See :func:`welch_rank_points`.
WELCH_SAMPLES = ("rows", "game_mean")
ACTIONS = ("take", "pass")
#: Token-recall sources: exact count, class values, nothing recalled (defaults 3/8/11;
#: logged as "none", or "default" by older logs).
RECALL_SOURCES = ("leaf", "root", "none")
#: Sources that are not memory recalls: a debug oracle, a model's own (known) count.
NOT_RECALLED = ("oracle", "exact-own")


# --- helpers -------------------------------------------------------------------------

def _t_row(result, a: np.ndarray, b: np.ndarray, effect: str, effect_size: float) -> dict:
    """The common columns of every t-test row."""
    interval = result.confidence_interval(0.95)
    return {
        "n_a": len(a), "n_b": len(b), "mean_a": float(np.mean(a)), "mean_b": float(np.mean(b)),
        "difference": float(np.mean(a) - np.mean(b)), "t": float(result.statistic),
        "df": float(result.df), "p": float(result.pvalue),
        "ci_low": float(interval.low), "ci_high": float(interval.high),
        "effect": effect, "effect_size": float(effect_size),
    }


def _need_variation(values: np.ndarray, what: str) -> None:
    if len(values) < 2:
        raise AnalysisInputError(f"{what}: a t-test needs at least 2 values, got {len(values)}")


def cohens_d(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's d of two independent samples, with the pooled standard deviation (NaN
    when both samples are constant and equal, ±inf when constant and different)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    pooled = np.sqrt(((len(a) - 1) * a.var(ddof=1) + (len(b) - 1) * b.var(ddof=1))
                     / (len(a) + len(b) - 2))
    with np.errstate(divide="ignore", invalid="ignore"):  # the zero-spread cases above
        return float(np.float64(a.mean() - b.mean()) / pooled)


def cohens_dz(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's d_z of paired samples: mean difference over the SD of the differences
    (NaN when every difference is zero, ±inf when they are all equal and not zero, as in
    a quick run's few participants)."""
    diff = np.asarray(a, float) - np.asarray(b, float)
    with np.errstate(divide="ignore", invalid="ignore"):  # the zero-spread cases above
        return float(np.float64(diff.mean()) / diff.std(ddof=1))


def mean_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Student-t confidence interval of a mean."""
    values = np.asarray(values, float)
    _need_variation(values, "confidence interval")
    interval = stats.ttest_1samp(values, 0.0).confidence_interval(confidence)
    return float(interval.low), float(interval.high)


# --- proportional ranking (Figures 8, 11, 12, 13) -------------------------------------

def rank_shares(focal: pd.DataFrame, by: str = "opponent_label", players: int = 4) -> pd.DataFrame:
    """Share of games the focal player finished at each place, per ``by`` group.

    Ties count at the tied place (rank = 1 + number of players strictly better), as in
    the log's ``rank`` column: two players tied for first both count as first. Shares
    of one group sum to 1; ``parity`` is 1/players (the thesis's 25% line); ``ci_low`` and
    ``ci_high`` bound each share (Wilson 95%).
    """
    require_columns(focal, [by, "rank"], "focal rows")
    require_rows(focal, "focal rows")
    bad = focal.loc[~focal["rank"].between(1, players), "rank"]
    if len(bad):
        raise AnalysisInputError(
            f"focal rows: rank {bad.iloc[0]!r} outside 1..{players}; pass players= for "
            "other table sizes"
        )
    counts = pd.crosstab(focal[by], focal["rank"]).reindex(
        columns=range(1, players + 1), fill_value=0
    )
    long = counts.stack().rename("count").reset_index()
    long["games"] = long[by].map(counts.sum(axis=1))
    long["share"] = long["count"] / long["games"]
    long["parity"] = 1.0 / players
    long = long.join(wilson_columns(long["count"], long["games"]))
    return long[[by, "rank", "count", "games", "share", "parity", "ci_low", "ci_high"]]


# --- participants (Figure 9) -----------------------------------------------------------

def participant_games(focal: pd.DataFrame, practice_blocks: Sequence[int] | None = None
                      ) -> pd.DataFrame:
    """Participants' focal rows against cognitive models, without the practice games.

    Practice games are the rows with ``practice`` true when the log has that column, else
    the rows whose ``block`` is in ``practice_blocks`` (default: block 1, thesis §5.1.2).
    Giving ``practice_blocks`` always selects by block.
    """
    require_columns(focal, ["participant", "opponent", "opponent_label", "opponent_order",
                            "rank_points"], "participant focal rows")
    if practice_blocks is None and "practice" in focal.columns:
        practice = focal["practice"].fillna(False).astype(bool)
        excluded = "practice games"
    else:
        require_columns(focal, ["block"], "participant focal rows")
        blocks = list(PRACTICE_BLOCKS if practice_blocks is None else practice_blocks)
        practice = focal["block"].isin(blocks)
        excluded = f"practice blocks {blocks}"
    rows = focal[~practice & focal["participant"].notna()]
    require_models(rows, "participant focal rows: opponents", order="opponent_order",
                   agent="opponent")
    require_rows(rows, f"participant games outside {excluded}")
    return rows.copy()


def participant_means(focal: pd.DataFrame, practice_blocks: Sequence[int] | None = None
                      ) -> pd.DataFrame:
    """Each participant's mean rank points against each model order (Figure 9)."""
    rows = participant_games(focal, practice_blocks)
    return (rows.groupby(["participant", "opponent_label"], as_index=False)
            .agg(games=("rank_points", "size"), rank_points=("rank_points", "mean")))


def paired_tests(means: pd.DataFrame, pairs: Sequence[tuple[str, str]] = ORDER_PAIRS
                 ) -> pd.DataFrame:
    """Paired t-tests of participants' mean rank points between opponent orders.

    ``means`` is :func:`participant_means`; for pair (a, b), t > 0 means participants
    scored more against a. Participants missing either order are an error, not dropped.
    """
    require_columns(means, ["participant", "opponent_label", "rank_points"], "participant means")
    require_unique(means, ["participant", "opponent_label"], "participant means")
    wide = means.pivot(index="participant", columns="opponent_label", values="rank_points")
    rows = []
    for a, b in pairs:
        for label in (a, b):
            if label not in wide.columns:
                raise AnalysisInputError(
                    f"participant means: no games against {label}; present: {list(wide.columns)}"
                )
        pair = wide[[a, b]]
        incomplete = pair.index[pair.isna().any(axis=1)].tolist()
        if incomplete:
            raise AnalysisInputError(
                f"participant means: participants {incomplete[:5]} lack games against {a} or {b}"
            )
        _need_variation(pair[a].to_numpy(), f"paired test {a} vs {b}")
        result = stats.ttest_rel(pair[a], pair[b])
        rows.append({"a": a, "b": b, "test": "paired t",
                     **_t_row(result, pair[a].to_numpy(), pair[b].to_numpy(), "d_z",
                              cohens_dz(pair[a], pair[b]))})
    return pd.DataFrame(rows)


def participant_mixed_model(focal: pd.DataFrame, reference: str = "ToM0",
                            practice_blocks: Sequence[int] | None = None) -> pd.DataFrame:
    """Linear mixed model of participants' per-game rank points (statsmodels ``mixedlm``).

    ``rank_points ~ opponent order`` (treatment coding against ``reference``) with a random
    intercept per participant: unlike the paired t-tests it uses every game, not the
    per-participant means. Returns the fixed effects and, as the last row, the
    participant variance (``term = "participant variance"``); statsmodels' convergence
    warnings (e.g. a variance estimate of 0, on the boundary, with few participants) are
    kept in ``attrs["fit_warnings"]`` beside ``attrs["converged"]`` instead of printed.
    """
    import statsmodels.formula.api as smf
    from statsmodels.tools.sm_exceptions import ConvergenceWarning
    rows = participant_games(focal, practice_blocks)
    if reference not in set(rows["opponent_label"]):
        raise AnalysisInputError(
            f"mixed model: reference order {reference} has no games; present: "
            f"{sorted(set(rows['opponent_label']))}"
        )
    if rows["participant"].nunique() < 2:
        raise AnalysisInputError("mixed model: needs games of at least 2 participants")
    data = rows[["rank_points", "opponent_label", "participant"]].astype(
        {"participant": str, "rank_points": float})
    model = smf.mixedlm(f"rank_points ~ C(opponent_label, Treatment('{reference}'))", data,
                        groups=data["participant"])
    with warnings.catch_warnings(record=True) as caught:  # kept in the table, not printed
        warnings.simplefilter("always", ConvergenceWarning)
        fit = model.fit(reml=True)
    notes = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    for w in caught:  # any other warning is shown as usual
        if not issubclass(w.category, ConvergenceWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    interval = fit.conf_int()
    fixed = [name for name in fit.fe_params.index]
    table = pd.DataFrame({
        "term": [_term_label(n, reference) for n in fixed],
        "coef": fit.fe_params.to_numpy(),
        "se": fit.bse_fe.to_numpy(),
        "z": fit.tvalues[fixed].to_numpy(),
        "p": fit.pvalues[fixed].to_numpy(),
        "ci_low": interval.loc[fixed, 0].to_numpy(),
        "ci_high": interval.loc[fixed, 1].to_numpy(),
    })
    variance = pd.DataFrame([{"term": "participant variance", "coef": float(fit.cov_re.iloc[0, 0]),
                              "se": np.nan, "z": np.nan, "p": np.nan, "ci_low": np.nan,
                              "ci_high": np.nan}])
    table = pd.concat([table, variance], ignore_index=True)
    table.attrs.update(participants=int(data["participant"].nunique()), games=len(data),
                       converged=bool(fit.converged),
                       fit_warnings=notes)
    return table


def _term_label(name: str, reference: str) -> str:
    if name == "Intercept":
        return f"intercept ({reference})"
    return name.rsplit("[T.", 1)[-1].rstrip("]") + f" - {reference}"


# --- simulations (Figures 11-13) -------------------------------------------------------

def welch_rank_points(games: pd.DataFrame, sample: str = "rows") -> pd.DataFrame:
    """Welch t-test of opponents' vs focal player's rank points, per focal design.

    ``a`` = opponents, ``b`` = focal player (in Table 7 the focal is the higher order,
    so t < 0 when it wins more, as in the thesis). ``sample`` picks the opponents' sample:

    * ``"rows"``: every opponent row — 3 per game, 1500 vs the focal's 500 in the thesis.
      With equal variances Welch's df is then about 855 for 500 games, the size the
      thesis reports (t(909.8), t(854.3), t(865.0)); this is the reading we reproduce.
    * ``"game_mean"``: the opponents' mean per game (n vs n). Rank points sum to 6, so
      this mean is exactly (6 - focal)/3 and Welch's df is fixed at about 1.22(n - 1)
      (608.6 for 500 games) whatever the data — it cannot be the thesis's reading.

    Neither sample is independent of the focal one (the points of one game sum to a
    constant); :func:`parity_test` is the test that respects that.
    """
    if sample not in WELCH_SAMPLES:
        raise AnalysisInputError(f"sample {sample!r} is not one of {', '.join(WELCH_SAMPLES)}")
    focal = focal_rows(games)
    opponents = opponent_rows(games) if sample == "rows" else None
    rows = []
    for (focal_spec, opponent_spec), group in focal.groupby(["agent", "opponent"], sort=True):
        b = group["rank_points"].to_numpy(float)
        if opponents is not None:
            chosen = (opponents["focal_agent"] == focal_spec) & (opponents["agent"].astype(str)
                                                                 == opponent_spec)
            a = opponents.loc[chosen, "rank_points"].to_numpy(float)
        else:
            a = group["opponent_rank_points"].to_numpy(float)
        what = f"Welch test {opponent_spec} vs {focal_spec}"
        _need_variation(a, what)
        _need_variation(b, what)
        result = stats.ttest_ind(a, b, equal_var=False)
        rows.append({"a": group["opponent_label"].iloc[0], "b": group["focal_label"].iloc[0],
                     "a_spec": opponent_spec, "b_spec": focal_spec,
                     "test": f"Welch t ({sample})",
                     **_t_row(result, a, b, "d", cohens_d(a, b))})
    return pd.DataFrame(rows)


def parity_test(focal: pd.DataFrame, by: Sequence[str] = ("agent", "opponent"),
                players: int = 4) -> pd.DataFrame:
    """One-sample t-test of the focal player's rank points against parity, (players-1)/2.

    With equal skill every seat expects 1.5 rank points; unlike the Welch test this uses
    one independent value per game. ``a`` is parity, ``b`` the focal mean (thesis sign).
    """
    require_columns(focal, list(by) + ["rank_points"], "focal rows")
    require_rows(focal, "focal rows")
    parity = (players - 1) / 2
    rows = []
    for labels, group in focal.groupby(list(by), sort=True):
        b = group["rank_points"].to_numpy(float)
        _need_variation(b, f"parity test {labels}")
        result = stats.ttest_1samp(b, parity)
        interval = result.confidence_interval(0.95)
        labels = labels if isinstance(labels, tuple) else (labels,)
        rows.append({**dict(zip(by, labels, strict=True)), "test": "one-sample t vs parity",
                     "n_a": 0, "n_b": len(b), "mean_a": parity, "mean_b": float(b.mean()),
                     "difference": parity - float(b.mean()), "t": -float(result.statistic),
                     "df": float(result.df), "p": float(result.pvalue),
                     "ci_low": parity - float(interval.high),
                     "ci_high": parity - float(interval.low),
                     "effect": "d", "effect_size": (parity - float(b.mean())) / b.std(ddof=1)})
    return pd.DataFrame(rows)


def retrieval_thresholds(games: pd.DataFrame,
                         thresholds: Mapping[str, float] | None = None) -> pd.Series:
    """Retrieval threshold of each game's token memory, per row.

    From an ``rt`` column when present, else ``thresholds[spec]`` of the game's
    token-memory models (``tom_order`` >= 1; ToM0 has no token memory), e.g. the logged
    parameters (:func:`~.tables.logged_thresholds`). A game without a threshold, or with
    two, is an error.
    """
    require_columns(games, ["agent"], "games")
    if "rt" in games.columns:
        values = pd.to_numeric(games["rt"], errors="coerce").astype(float)
    else:
        require_columns(games, ["tom_order"], "games")
        known = dict(thresholds or {})
        remembers = games["tom_order"].fillna(0).astype(int) >= 1
        values = games["agent"].astype(str).map(known).where(remembers).astype(float)
    per_game = values.groupby(game_index(games).to_numpy())
    if (per_game.transform("nunique") > 1).any():
        raise AnalysisInputError(
            "games: some games mix retrieval thresholds; Figure 14 compares one threshold "
            "per game")
    values = per_game.transform("max")
    if values.isna().any():
        missing = games.loc[values.isna().to_numpy(), "agent"].astype(str).unique().tolist()
        raise AnalysisInputError(
            f"games: no retrieval threshold in the games of agents {missing[:5]}; give an "
            "'rt' column or the thresholds of their specs"
        )
    return pd.Series(values.to_numpy(), index=games.index, name="rt")


def rt_sweep(games: pd.DataFrame, thresholds: Mapping[str, float] | None = None
             ) -> pd.DataFrame:
    """Mean rank points of the higher-order model against the lower, per retrieval threshold.

    Figure 14: one row per (higher, lower, rt) with n, mean, its 95% t-interval, the lower
    order's mean, the Welch test lower-vs-higher over rows (``t``, ``df``, ``p``: the
    thesis's reading, which over-rejects, see :mod:`.placebo`) and the valid test, the
    higher order's rank points against parity (``parity_t``, ``parity_p``; one value per
    game, thesis sign). Flags come from the parity test: the whole sweep is one family,
    ``p_holm`` is Holm-adjusted over every row, and ``flag`` says ``higher``/``lower``
    (the higher order's rank points against parity, Holm p < 0.05) or ``n.s.``.
    Games must be focal designs between two different orders at one threshold per game;
    ``thresholds`` is passed to :func:`retrieval_thresholds`.
    """
    require_columns(games, ["game_id", "seat", "agent", "tom_order", "rank_points"], "games")
    require_rows(games, "games")
    require_models(games, "games")
    frame = games.copy()
    frame["rt"] = retrieval_thresholds(frame, thresholds)
    frame["order"] = frame["tom_order"].astype(int)
    frame["_game"] = game_index(frame)
    per_game = frame.groupby("_game", sort=False)
    frame["higher"] = per_game["order"].transform("max")
    frame["lower"] = per_game["order"].transform("min")
    same = frame["higher"] == frame["lower"]
    if same.all():
        raise AnalysisInputError("games: no game pits two different ToM orders against each other")
    frame = frame[~same]
    rows = []
    for (higher, lower, rt), group in frame.groupby(["higher", "lower", "rt"], sort=True):
        high = group.loc[group["order"] == higher, "rank_points"].to_numpy(float)
        low = group.loc[group["order"] == lower, "rank_points"].to_numpy(float)
        what = f"ToM{higher} vs ToM{lower} at rt={rt}"
        _need_variation(high, what)
        _need_variation(low, what)
        ci_low, ci_high = mean_interval(high)
        welch = stats.ttest_ind(low, high, equal_var=False)
        players = len(group) / group["_game"].nunique()
        parity = stats.ttest_1samp(high, (players - 1) / 2)
        rows.append({"higher": f"ToM{higher}", "lower": f"ToM{lower}", "rt": float(rt),
                     "games": int(group["_game"].nunique()), "n": len(high),
                     "mean": float(high.mean()), "ci_low": ci_low, "ci_high": ci_high,
                     "lower_mean": float(low.mean()), "t": float(welch.statistic),
                     "df": float(welch.df), "p": float(welch.pvalue),
                     "parity": (players - 1) / 2, "parity_t": -float(parity.statistic),
                     "parity_p": float(parity.pvalue)})
    table = pd.DataFrame(rows)
    table["p_holm"], table["flag"] = direction_flags(table["parity_p"],
                                                     table["mean"] > table["parity"])
    return table


def rt_trend(sweep_games: pd.DataFrame, thresholds: Mapping[str, float] | None = None
             ) -> pd.DataFrame:
    """Figure 14's trends: per (higher, lower), the least-squares slope of the higher
    order's rank points (one value per game) on the retrieval threshold, with its 95%
    t-interval (n - 2 df; games are independent), in rank points per unit of RT."""
    frame = sweep_games.copy()
    frame["rt"] = retrieval_thresholds(frame, thresholds)
    frame["order"] = frame["tom_order"].astype(int)
    frame["_game"] = game_index(frame)
    per_game = frame.groupby("_game", sort=False)["order"]
    frame["higher"], frame["lower"] = per_game.transform("max"), per_game.transform("min")
    frame = frame[(frame["higher"] != frame["lower"]) & (frame["order"] == frame["higher"])]
    rows = []
    for (higher, lower), group in frame.groupby(["higher", "lower"], sort=True):
        fit = stats.linregress(group["rt"].to_numpy(float),
                               group["rank_points"].to_numpy(float))
        half = stats.t.ppf(0.975, len(group) - 2) * fit.stderr
        rows.append({"higher": f"ToM{higher}", "lower": f"ToM{lower}", "games": len(group),
                     "rt_low": float(group["rt"].min()), "rt_high": float(group["rt"].max()),
                     "slope": float(fit.slope), "ci_low": float(fit.slope - half),
                     "ci_high": float(fit.slope + half), "p": float(fit.pvalue)})
    return pd.DataFrame(rows)


# --- predictions (Figure 10) -----------------------------------------------------------

def prediction_accuracy(predictions: pd.DataFrame) -> pd.DataFrame:
    """Share of correct predictions per predicting model order, overall and by actual action.

    ``predictions`` has one row per prediction: ``agent_label`` and ``tom_order`` of the
    predicting model (:func:`predictions_about` adds them from the games table),
    ``predicted_action`` and ``actual_action`` (null when the target never acted on that
    card; such rows are left out). Returns one row per (model, ``actual`` in all/take/pass)
    with n, correct, accuracy and its 95% Wilson interval. For Figure 10, pass only the
    predictions about participants (:func:`predictions_about`).
    """
    require_columns(predictions, ["agent_label", "tom_order", "predicted_action",
                                  "actual_action"], "predictions")
    resolved = predictions[predictions["actual_action"].notna()]
    require_rows(resolved, "predictions with a resolved actual action")
    for column in ("predicted_action", "actual_action"):
        unknown = sorted(set(resolved[column].astype(str)) - set(ACTIONS))
        if unknown:
            raise AnalysisInputError(
                f"predictions: column {column} has values {unknown}; valid: {', '.join(ACTIONS)}"
            )
    require_models(resolved, "predictions: predicting")
    frame = pd.DataFrame({
        "model": resolved["agent_label"].astype(str),
        "actual": resolved["actual_action"].astype(str),
        "correct": (resolved["predicted_action"].astype(str)
                    == resolved["actual_action"].astype(str)),
    })
    rows = []
    for label, group in frame.groupby("model", sort=True):
        for actual in ("all", *ACTIONS):
            part = group if actual == "all" else group[group["actual"] == actual]
            if len(part) == 0:
                continue
            correct = int(part["correct"].sum())
            low, high = wilson_interval(correct, len(part))
            rows.append({"model": label, "actual": actual, "n": len(part),
                         "correct": correct, "accuracy": correct / len(part),
                         "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


def predictions_about(predictions: pd.DataFrame, games: pd.DataFrame, kind: str = "human"
                      ) -> pd.DataFrame:
    """The predictions whose target seat was played by a player of ``kind`` (``player_kind``),
    with the predicting model's ``agent_label`` and ``tom_order`` from ``games``."""
    require_columns(predictions, ["game_id", "seat", "target_seat"], "predictions")
    require_columns(games, ["game_id", "seat", "player_kind"], "games")
    key = [c for c in game_key(predictions) if c in games.columns]
    targets = games[key + ["seat", "player_kind"]].rename(
        columns={"seat": "target_seat", "player_kind": "target_kind"})
    merged = predictions.merge(targets, on=key + ["target_seat"], how="left")
    if merged["target_kind"].isna().any():
        raise AnalysisInputError(
            "predictions: some target seats have no row in games; pass the games of the "
            "same experiment"
        )
    selected = merged[merged["target_kind"] == kind]
    require_rows(selected, f"predictions about {kind} players")
    return with_agent_labels(selected.reset_index(drop=True), games)


def predictions_from_decisions(decisions: pd.DataFrame) -> pd.DataFrame:
    """One row per prediction, resolved against what the predicted player actually did.

    For decision tables that carry the models' raw ``predictions`` (lists, or the JSON
    text ``nothanks simulate`` writes; the experiment log has a predictions table
    already). A prediction ``(seat, action, ...)`` concerns that seat's next decision on
    the same face-up card; if another player takes the card before, it stays unresolved
    and is left out. Add the predicting model's label and order with
    :func:`~.frames.with_agent_labels`. Columns follow the log's predictions table:
    agent, seat, turn, target_seat, predicted_action, actual_action, correct.
    """
    require_columns(decisions, ["game_id", "turn", "seat", "agent", "card", "action",
                                "predictions"], "decisions")
    key = game_key(decisions)
    require_unique(decisions, [*key, "turn"], "decisions")
    lists = decisions["predictions"].map(_prediction_list)
    made = decisions.loc[lists.map(len) > 0, [*key, "turn", "seat", "agent", "card"]].assign(
        predictions=lists[lists.map(len) > 0])
    if len(made) == 0:
        raise AnalysisInputError("decisions: no decision carries predictions")
    made = made.explode("predictions", ignore_index=True)
    made["target_seat"] = made["predictions"].map(lambda p: int(_field(p, "seat", 0)))
    made["predicted_action"] = made["predictions"].map(lambda p: str(_field(p, "action", 1)))
    acts = decisions[[*key, "turn", "seat", "card", "action"]].rename(
        columns={"turn": "actual_turn", "seat": "target_seat", "action": "actual_action"})
    joined = made.drop(columns="predictions").merge(acts, on=[*key, "card", "target_seat"])
    joined = joined[joined["actual_turn"] > joined["turn"]]
    joined = joined.sort_values("actual_turn").drop_duplicates(
        [*key, "turn", "target_seat"], keep="first")
    joined["actual_action"] = joined["actual_action"].astype(str)
    joined["correct"] = joined["predicted_action"] == joined["actual_action"]
    return joined.sort_values([*key, "turn", "target_seat"]).reset_index(drop=True)


def _prediction_list(value: object) -> list:
    """A decision's predictions: a list, or the JSON text ``nothanks simulate`` stores."""
    if isinstance(value, str):
        value = json.loads(value)
    return list(value) if isinstance(value, (list, tuple, np.ndarray)) else []


def _field(prediction: object, name: str, index: int) -> object:
    if isinstance(prediction, dict):
        return prediction[name]
    return prediction[index]  # type: ignore[index]


# --- bad-move feedback (§5.1.2) --------------------------------------------------------

def _one_row_per_decision(decisions: pd.DataFrame) -> None:
    """Duplicated decisions would count marks twice; check when the log's keys are there."""
    if {"game_id", "turn"} <= set(decisions.columns):
        require_unique(decisions, [*game_key(decisions), "turn"], "decisions")


def bad_move_shares(decisions: pd.DataFrame) -> pd.DataFrame:
    """Share of the models' actions that participants marked as bad, per model order."""
    require_columns(decisions, ["agent_label", "tom_order", "marked_bad"], "decisions")
    _one_row_per_decision(decisions)
    models = decisions[decisions["tom_order"].notna()]
    require_rows(models, "model decisions in participant sessions")
    frame = models.assign(label=models["agent_label"].astype(str),
                          marked=models["marked_bad"].astype(bool))
    table = frame.groupby("label", as_index=False).agg(actions=("marked", "size"),
                                                       marked=("marked", "sum"))
    table["share"] = table["marked"] / table["actions"]
    table = table.join(wilson_columns(table["marked"], table["actions"]))
    return table.rename(columns={"label": "model"})


def feedback_concentration(decisions: pd.DataFrame, top: float = 0.10, few: int = 10
                           ) -> pd.DataFrame:
    """How unevenly participants gave bad-move marks (thesis: top 10% gave 38%; 43% < 10).

    Returns one row: participants, marks, the share of marks given by the top ``top``
    fraction of participants (rounded up to whole participants), and the share of
    participants who gave fewer than ``few`` marks. Participants with no marks count.
    """
    require_columns(decisions, ["participant", "tom_order", "marked_bad"], "decisions")
    _one_row_per_decision(decisions)
    sessions = decisions[decisions["participant"].notna()]
    require_rows(sessions, "decisions of participant sessions")
    models = sessions[sessions["tom_order"].notna()]
    per_participant = models.groupby("participant")["marked_bad"].sum().reindex(
        sessions["participant"].unique(), fill_value=0).sort_values(ascending=False)
    total = int(per_participant.sum())
    n_top = int(np.ceil(top * len(per_participant)))
    return pd.DataFrame([{
        "participants": len(per_participant), "marks": total, "top_fraction": top,
        "top_participants": n_top,
        "top_share": float(per_participant.iloc[:n_top].sum() / total) if total else 0.0,
        "few_threshold": few,
        "few_share": float((per_participant < few).mean()),
    }])


# --- token memory (§5.3) ---------------------------------------------------------------

def recall_summary(recalls: pd.DataFrame, by: Sequence[str] = ("model", "rt")) -> pd.DataFrame:
    """Shares of recall outcomes and absolute error of the recalled counts (§5.3).

    ``recalls`` has one row per recall of an opponent's tokens: ``source`` (leaf = exact
    count, root = class prediction values, none = nothing recalled, the defaults 3/8/11;
    ``default`` is read as none), ``recalled`` (the candidate counts, a list or a number)
    and ``true_tokens``. Rows that are no recall (oracle, exact-own) are left out. Per
    group in ``by`` and source (plus ``all``): n, share of the group's recalls, the mean
    absolute error over candidates (what the model reasons with on average) and of the
    best candidate; ``ci_low``/``ci_high`` bound the share (Wilson 95%).
    """
    require_columns(recalls, [*by, "source", "recalled", "true_tokens"], "recalls")
    source = recalls["source"].astype(str).replace({"default": "none"})
    frame = recalls[~source.isin(NOT_RECALLED)].assign(source=source)
    require_rows(frame, f"recalls ({', '.join(NOT_RECALLED)} rows excluded)")
    unknown = sorted(set(frame["source"]) - set(RECALL_SOURCES))
    if unknown:
        raise AnalysisInputError(
            f"recalls: sources {unknown} unknown; valid: {', '.join(RECALL_SOURCES)} "
            f"(and {', '.join(NOT_RECALLED)}, left out)"
        )
    candidates = [r if isinstance(r, (list, tuple, np.ndarray)) else [r]
                  for r in frame["recalled"]]
    counts = np.fromiter(map(len, candidates), dtype=np.int64, count=len(candidates))
    if (counts == 0).any():
        raise AnalysisInputError("recalls: some rows recalled no candidate count")
    flat = np.fromiter(itertools.chain.from_iterable(candidates), dtype=float,
                       count=int(counts.sum()))
    truth = pd.to_numeric(frame["true_tokens"]).to_numpy(float)
    errors = np.abs(flat - np.repeat(truth, counts))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    frame = frame.assign(error=np.add.reduceat(errors, starts) / counts,
                         best_error=np.minimum.reduceat(errors, starts))
    by = list(by)
    aggregations = {"n": ("error", "size"), "mean_abs_error": ("error", "mean"),
                    "best_abs_error": ("best_error", "mean")}
    per_source = frame.groupby([*by, "source"]).agg(**aggregations).reset_index()
    overall = frame.groupby(by).agg(**aggregations).reset_index().assign(source="all")
    table = pd.concat([per_source, overall], ignore_index=True)
    table = table.join(frame.groupby(by).size().rename("group_n"), on=by)
    table["share"] = table["n"] / table["group_n"]
    table = table.join(wilson_columns(table["n"], table["group_n"]))
    rank = {o: i for i, o in enumerate((*RECALL_SOURCES, "all"))}
    table = table.assign(_rank=table["source"].map(rank)).sort_values([*by, "_rank"])
    return table[[*by, "source", "n", "share", "mean_abs_error", "best_abs_error", "ci_low",
                  "ci_high"]].reset_index(drop=True)
