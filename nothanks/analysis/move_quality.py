"""Move quality: what each logged decision was worth, graded by a search player.

For every logged decision :func:`move_quality` rebuilds the decision-maker's
information set from the log (the cards dealt so far, every seat's cards, the face-up
card and its tokens, and every token count tallied from the public moves before it:
perfect recall of public actions; the removed cards stay unknown) and lets the
search (:mod:`nothanks.search`) estimate the expected value of take and of pass from
there, with the same budget for both moves (``root="even"``), in expected rank points
(n-1 for first place down to 0) and in expected final score (lower is better), each
with its Monte Carlo standard error. The move's *EV loss* is how much the chosen move
gives up against the better one by the estimate. These are values under the
search's own play after the move (all seats), so they grade a move against strong play,
not against what the actual opponents went on to do.

Estimates are cached per decision in a Parquet file keyed by the decision (design hash,
participant, game, seed, turn) and the search settings, so a re-run only searches
decisions it has not seen. The search package is imported inside the functions that
need it; importing :mod:`nothanks.analysis` stays light.

The other functions summarise a move-quality table: EV loss per agent type or
participant, how often the ToM models' skip-to-collect passes pay off, and whether the
opponent moves participants marked as bad lose more than the unmarked ones.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..rules.seeding import key_seed
from .frames import (
    AnalysisInputError,
    condition_variants,
    game_key,
    require_columns,
    require_rows,
)
from .paired import SYNTHETIC_LABEL, cluster_share, data_source
from .stats import cohens_d

#: Bumped when the estimates would change for the same settings (invalidates caches).
QUALITY_VERSION = 1
#: Default search budget per decision (split evenly between take and pass).
DEFAULT_ITERATIONS = 1000
#: Decision columns carried into the move-quality table when the log has them.
CARRIED = ("experiment", "design_hash", "participant", "synthetic", "practice", "game_id",
           "condition", "seed", "turn", "seat", "agent", "agent_label", "tom_order",
           "player_kind", "card", "tokens_on_card", "tokens_before", "cards_left",
           "action", "forced", "own_tom0_action", "marked_bad")
#: The estimate columns (per decision).
ESTIMATES = ("take_rp", "take_rp_se", "pass_rp", "pass_rp_se", "take_score",
             "take_score_se", "pass_score", "pass_score_se", "iterations")


def _settings(iterations: int, c: float, rollout: str, seed: int) -> dict[str, Any]:
    return {"version": QUALITY_VERSION, "iterations": int(iterations), "c": float(c),
            "rollout": str(rollout), "seed": int(seed)}


def _key(row: Any, turn: int) -> str:
    parts = [getattr(row, "design_hash", ""), getattr(row, "participant", None),
             row.game_id, getattr(row, "seed", ""), turn]
    return "|".join("" if p is None or p is pd.NA else str(p) for p in parts)


def _seed(seed: int, key: str) -> int:
    return key_seed(f"{seed}|{key}")


def _game_states(rows: pd.DataFrame, variant, where: str):
    """Replay one game's logged moves from its seed (:func:`nothanks.play.replay`);
    yield (row, view) at each decision. A log that does not replay raises
    :class:`~nothanks.play.ReplayError` naming the game, turn and field."""
    from ..play.replay import LoggedMove, replay

    records = rows.to_dict("records")
    moves = [LoggedMove.from_row(row) for row in records]
    seed = int(records[0]["seed"])
    steps = replay(moves, variant, seed, where=where)
    for row, step in zip(rows.itertuples(index=False), steps, strict=False):
        yield row, step.view
    for _ in steps:  # the rest of the game: checks that the log has every move
        pass


def move_quality(log: Any, *, iterations: int = DEFAULT_ITERATIONS, c: float = 0.7,
                 rollout: str = "heuristic", seed: int = 0,
                 cache: str | Path | None = None, games: int | None = None,
                 decisions: pd.DataFrame | None = None) -> pd.DataFrame:
    """Expected value of take and pass and the EV loss of the chosen move, per decision.

    Args:
        log: a loaded log (:func:`nothanks.experiments.load`): its ``decisions`` and
            ``conditions`` (for each game's rules variant) are used.
        iterations: search iterations per decision, split evenly between the two moves
            (a forced take gets them all); with ``c`` and ``rollout`` the search settings
            (see :func:`nothanks.search.search`).
        seed: root seed; each decision's search is seeded from it and the decision key,
            so an estimate does not depend on which other decisions are graded.
        cache: folder for the Parquet cache (None: no cache).
        games: grade only this many games, drawn reproducibly (from ``seed``) from the
            log's games; None grades all. For quick looks at big logs.
        decisions: use this decisions frame instead of ``log.decisions``.

    Returns one row per decision: the logged columns in :data:`CARRIED` the log has,
    ``take_rp``/``pass_rp`` (expected rank points) and ``take_score``/``pass_score``
    (expected final score) with ``*_se`` standard errors, ``iterations``; ``best`` (the
    move with the higher expected rank points), ``gap_rp`` = chosen minus other move
    (0 for a forced take) with ``gap_rp_se``, ``loss_rp`` = max(0, -gap_rp),
    ``gap_score``/``loss_score`` likewise in score points (a loss is a higher expected
    score), and ``source`` (simulation, synthetic or participants).
    """
    from ..search import root_state, search  # the search is imported only when grading

    frame = log.decisions if decisions is None else decisions
    require_columns(frame, ["game_id", "turn", "seat", "card", "tokens_on_card",
                            "tokens_before", "action", "forced", "condition"], "decisions")
    require_rows(frame, "decisions")
    settings = _settings(iterations, c, rollout, seed)
    variants = condition_variants(getattr(log, "conditions", None))
    keys = game_key(frame)
    grouped = list(frame.groupby(keys, dropna=False, sort=True))
    if games is not None:
        if games < 1:
            raise AnalysisInputError(f"games={games} is invalid; valid: None or >= 1")
        pick = np.random.default_rng(seed).permutation(len(grouped))[:games]
        grouped = [grouped[i] for i in sorted(pick)]
    store = _Cache(cache, settings)
    rows: list[dict[str, Any]] = []
    for ident, rows_of_game in grouped:
        rows_of_game = rows_of_game.sort_values("turn")
        first = rows_of_game.iloc[0]
        where = f"game {dict(zip(keys, np.atleast_1d(ident), strict=False))}"
        variant = variants.get((first.get("design_hash"), int(first["condition"])))
        if variant is None:
            raise AnalysisInputError(
                f"{where}: no rules variant for its condition {int(first['condition'])}; "
                "pass a loaded log with its conditions table")
        for row, view in _game_states(rows_of_game, variant, where):
            key = _key(row, int(row.turn))
            carried = {c: getattr(row, c) for c in CARRIED if c in frame.columns}
            cached = store.get(key)
            if cached is None:
                result = search(root_state(view), iterations=settings["iterations"],
                                c=settings["c"], rollout=settings["rollout"],
                                seed=_seed(seed, key), root="even")
                cached = _estimates(result)
                store.put(key, cached)
            rows.append({**carried, **cached})
    store.save()
    if not rows:
        raise AnalysisInputError("decisions: no decisions to grade")
    out = _with_losses(pd.DataFrame(rows))
    for column, value in settings.items():
        if column != "version":
            out[f"search_{column}"] = value
    out["source"] = data_source(frame)
    return out


def _estimates(result) -> dict[str, float]:
    out: dict[str, float] = {"iterations": float(result.iterations)}
    for action in ("take", "pass"):
        value = result.value(action)
        for name, attr in (("rp", "rank_points"), ("score", "score")):
            out[f"{action}_{name}"] = math.nan if value is None else getattr(value, attr)
            out[f"{action}_{name}_se"] = (math.nan if value is None
                                          else getattr(value, f"{attr}_se"))
    return out


def _with_losses(frame: pd.DataFrame) -> pd.DataFrame:
    """Add best move, gaps (chosen minus other) and losses in rank points and score."""
    took = frame["action"].astype(str).to_numpy() == "take"
    forced = frame["forced"].fillna(False).astype(bool).to_numpy()
    out = frame.copy()
    out["best"] = np.where(forced | (frame["take_rp"] >= frame["pass_rp"]), "take", "pass")
    for name in ("rp", "score"):
        take, passed = frame[f"take_{name}"].to_numpy(), frame[f"pass_{name}"].to_numpy()
        gap = np.where(took, take - passed, passed - take)
        se = np.hypot(frame[f"take_{name}_se"].to_numpy(), frame[f"pass_{name}_se"].to_numpy())
        out[f"gap_{name}"] = np.where(forced, 0.0, gap)
        out[f"gap_{name}_se"] = np.where(forced, 0.0, se)
    out["loss_rp"] = np.maximum(0.0, -out["gap_rp"])
    out["loss_score"] = np.maximum(0.0, out["gap_score"])  # a higher score is worse
    return out


class _Cache:
    """Per-decision estimates for one set of search settings, in one Parquet file."""

    def __init__(self, folder: str | Path | None, settings: dict[str, Any]) -> None:
        self.path = None
        self.rows: dict[str, dict[str, float]] = {}
        self.new = 0
        self.hits = 0
        if folder is None:
            return
        tag = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
        self.path = Path(folder) / f"move-quality-{tag}.parquet"
        if self.path.exists():
            table = pd.read_parquet(self.path)
            for record in table.to_dict(orient="records"):
                key = record.pop("decision_key")
                self.rows[key] = record

    def get(self, key: str) -> dict[str, float] | None:
        found = self.rows.get(key)
        if found is not None:
            self.hits += 1
        return found

    def put(self, key: str, values: dict[str, float]) -> None:
        self.rows[key] = values
        self.new += 1

    def save(self) -> None:
        if self.path is None or not self.new:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        table = pd.DataFrame([{"decision_key": k, **v} for k, v in self.rows.items()])
        partial = self.path.with_suffix(f".{os.getpid()}.tmp")
        table.to_parquet(partial, index=False)
        partial.replace(self.path)


# ------------------------------------------------------------------- summaries
def _graded(quality: pd.DataFrame) -> pd.DataFrame:
    """Free (unforced) decisions: the ones where a move could be lost."""
    require_columns(quality, ["loss_rp", "loss_score", "forced"], "move quality")
    return quality[~quality["forced"].fillna(False).astype(bool)]


#: Columns that together name one game of any log (the cluster of its decisions).
GAME_COLUMNS = ("experiment", "design_hash", "participant", "game_id")


def _games(part: pd.DataFrame) -> pd.Series:
    """One label per game: decisions of one game share it (their interval's cluster)."""
    columns = [c for c in GAME_COLUMNS if c in part.columns]
    return part.groupby(columns, dropna=False, sort=False).ngroup()


def _mean_row(values: pd.Series, games: pd.Series | None = None
              ) -> tuple[float, float, float]:
    """A mean over decisions with its 95% interval clustered by game (cluster bootstrap:
    decisions of one game are not independent)."""
    values = values.astype(float)
    if len(values) < 2:
        return float(values.mean()) if len(values) else math.nan, math.nan, math.nan
    clusters = games if games is not None else pd.Series(np.arange(len(values)),
                                                         index=values.index)
    per = values.groupby(clusters.to_numpy()).agg(["sum", "size"])
    mean = float(values.mean())
    if np.allclose(per["sum"], mean * per["size"]):  # no variation between games
        return mean, mean, mean
    return cluster_share(per["sum"].to_numpy(), per["size"].to_numpy())


def _share_row(hits: pd.Series, games: pd.Series) -> tuple[float, float, float]:
    """A share of decisions with its 95% interval clustered by game
    (:func:`~.paired.cluster_share`)."""
    per = hits.astype(float).groupby(games.to_numpy()).agg(["sum", "size"])
    return cluster_share(per["sum"].to_numpy(), per["size"].to_numpy())


def ev_loss_table(quality: pd.DataFrame, by: str | Sequence[str] = "agent_label",
                  threshold: float = 0.1) -> pd.DataFrame:
    """EV loss per group (``agent_label``, ``participant``...): free decisions, mean loss
    in rank points and in score with t 95% intervals, the median, and the share of moves
    losing more than ``threshold`` rank points; every interval is 95% and clustered by
    game (the decisions of one game are not independent)."""
    by = [by] if isinstance(by, str) else list(by)
    free = _graded(quality)
    require_columns(free, by, "move quality")
    require_rows(free, "free decisions")
    rows = []
    for group, part in free.groupby(by, dropna=False, sort=True):
        games = _games(part)
        rp, rp_low, rp_high = _mean_row(part["loss_rp"], games)
        sc, sc_low, sc_high = _mean_row(part["loss_score"], games)
        big = int((part["loss_rp"] > threshold).sum())
        _, low, high = _share_row(part["loss_rp"] > threshold, games)
        rows.append({**dict(zip(by, np.atleast_1d(group), strict=True)),
                     "decisions": len(part), "loss_rp": rp, "loss_rp_ci_low": rp_low,
                     "loss_rp_ci_high": rp_high,
                     "loss_rp_median": float(part["loss_rp"].median()),
                     "loss_score": sc, "loss_score_ci_low": sc_low,
                     "loss_score_ci_high": sc_high,
                     "costly_share": big / len(part), "costly_ci_low": low,
                     "costly_ci_high": high})
    table = pd.DataFrame(rows)
    table["costly_threshold"] = threshold
    return table.assign(source=_source(quality))


def _source(quality: pd.DataFrame) -> str:
    if "source" in quality.columns and len(quality):
        return str(quality["source"].iloc[0])
    return data_source(quality)


def skip_to_collect(quality: pd.DataFrame) -> pd.DataFrame:
    """How often each ToM level's skip-to-collect pass pays off.

    A skip-to-collect move is a free pass by a ToM-k model (k >= 1) where ToM0 on its own
    state said take (``own_tom0_action``): it passes so the card comes back with more
    tokens. Per ToM order: moves, the share where the search values the pass at least as
    highly as the take, the mean gap pass minus take in rank points, and the share where
    the same player took that card later in the game (it did come back to them); every
    interval 95% and clustered by game.
    """
    require_columns(quality, ["tom_order", "own_tom0_action", "action", "card", "seat",
                              "game_id", "turn", "gap_rp"], "move quality")
    taken_by = _takers(quality)
    free = _graded(quality)
    orders = free["tom_order"].astype("Int64")
    moves = free[(orders >= 1).fillna(False) & (free["action"].astype(str) == "pass")
                 & (free["own_tom0_action"].astype(str) == "take")]
    rows = []
    for order, part in moves.groupby(moves["tom_order"].astype(int), sort=True):
        n = len(part)
        games = _games(part)
        pays = int((part["gap_rp"] >= 0).sum())
        came = pd.Series([taken_by.get(_card_key(r)) == int(r.seat)
                          for r in part.itertuples(index=False)], index=part.index)
        back = int(came.sum())
        gap, gap_low, gap_high = _mean_row(part["gap_rp"], games)
        _, pay_low, pay_high = _share_row(part["gap_rp"] >= 0, games)
        _, back_low, back_high = _share_row(came, games)
        rows.append({"tom_order": order, "label": f"ToM{order}", "moves": n,
                     "pays_share": pays / n, "pays_ci_low": pay_low, "pays_ci_high": pay_high,
                     "gap_rp": gap, "gap_rp_ci_low": gap_low, "gap_rp_ci_high": gap_high,
                     "came_back_share": back / n, "came_back_ci_low": back_low,
                     "came_back_ci_high": back_high})
    columns = ["tom_order", "label", "moves", "pays_share", "pays_ci_low", "pays_ci_high",
               "gap_rp", "gap_rp_ci_low", "gap_rp_ci_high", "came_back_share",
               "came_back_ci_low", "came_back_ci_high"]
    return pd.DataFrame(rows, columns=columns).assign(source=_source(quality))


def _card_key(row: Any) -> tuple:
    return (getattr(row, "design_hash", None), getattr(row, "participant", None),
            int(row.game_id), int(row.card))


def _takers(quality: pd.DataFrame) -> dict[tuple, int]:
    """Who took each card of each game (from the take decisions)."""
    takes = quality[quality["action"].astype(str) == "take"]
    return {_card_key(r): int(r.seat) for r in takes.itertuples(index=False)}


def marked_bad_test(quality: pd.DataFrame) -> pd.DataFrame:
    """Do opponent moves participants marked as bad lose more EV than unmarked ones?

    Uses the model moves of participant sessions (``marked_bad`` not null), free moves
    only. Difference in mean EV loss (rank points), marked minus unmarked, with a 95%
    interval and p from an OLS with standard errors clustered by participant (moves of
    one participant are not independent; HC1 with a single participant) and a t
    reference on participants - 1 degrees of freedom (29 for 30 participants: with so
    few clusters a normal reference is too liberal); Cohen's d;
    and a Mann-Whitney U test with its rank-biserial correlation as a distribution-free
    check.
    """
    import statsmodels.formula.api as smf
    from scipy import stats

    require_columns(quality, ["marked_bad", "loss_rp", "participant"], "move quality")
    free = _graded(quality)
    judged = free[free["marked_bad"].notna()].copy()
    judged["marked"] = judged["marked_bad"].astype(bool).astype(float)
    marked = judged.loc[judged["marked"] == 1, "loss_rp"].astype(float).to_numpy()
    unmarked = judged.loc[judged["marked"] == 0, "loss_rp"].astype(float).to_numpy()
    if len(marked) < 2 or len(unmarked) < 2:
        raise AnalysisInputError(
            f"marked-bad test: {len(marked)} marked and {len(unmarked)} unmarked graded "
            "opponent moves; need at least 2 of each (participant logs with marks)")
    judged["loss"] = judged["loss_rp"].astype(float)
    groups = judged["participant"].astype(str)
    model = smf.ols("loss ~ marked", data=judged)
    clustered = groups.nunique() >= 2
    fit = (model.fit(cov_type="cluster", cov_kwds={"groups": pd.factorize(groups)[0]},
                     use_t=True)
           if clustered else model.fit(cov_type="HC1"))
    low, high = fit.conf_int().loc["marked"]
    u = stats.mannwhitneyu(marked, unmarked, alternative="two-sided")
    row = {"marked": len(marked), "unmarked": len(unmarked),
           "participants": int(groups.nunique()),
           "standard_errors": "clustered by participant" if clustered else "HC1 (one "
                              "participant: no clustering possible)",
           "marked_loss": float(marked.mean()), "unmarked_loss": float(unmarked.mean()),
           "difference": float(fit.params["marked"]), "ci_low": float(low),
           "ci_high": float(high), "p": float(fit.pvalues["marked"]),
           "t": float(fit.tvalues["marked"]),
           "df": float(groups.nunique() - 1) if clustered else float(fit.df_resid),
           "cohens_d": cohens_d(marked, unmarked), "mannwhitney_u": float(u.statistic),
           "mannwhitney_p": float(u.pvalue),
           "rank_biserial": float(2 * u.statistic / (len(marked) * len(unmarked)) - 1)}
    return pd.DataFrame([row]).assign(source=_source(quality))


# ------------------------------------------------------------------- report text
def _fmt(value: float, digits: int = 3) -> str:
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.{digits}f}"


def quality_section(quality: pd.DataFrame, title: str = "Move quality",
                    level: int = 2) -> str:
    """A markdown section for results.md: settings, EV loss per agent type (and per
    participant for participant logs), skip-to-collect payoffs, the marked-bad test."""
    source = _source(quality)
    head = "#" * level
    lines = [f"{head} {title}", ""]
    if source == "synthetic":
        lines += [f"**{SYNTHETIC_LABEL}**: the human seats were played by stand-in "
                  "agents; these numbers test the pipeline, they are not findings.", ""]
    budget = int(quality["search_iterations"].iloc[0]) if "search_iterations" in quality \
        else DEFAULT_ITERATIONS
    rollout = quality["search_rollout"].iloc[0] if "search_rollout" in quality else "?"
    lines += [f"Each decision graded by information-set MCTS from the decision-maker's "
              f"information set: {budget} iterations split evenly between take and pass, "
              f"{rollout} rollouts ({len(quality)} decisions, "
              f"{int(_graded(quality).shape[0])} free). EV loss = expected rank points "
              "given up against the better move by the estimate (0 when the chosen move "
              "is the better one); in score points likewise. Intervals are 95%.", ""]
    table = ev_loss_table(quality, "agent_label")
    lines += ["Intervals are clustered by game (cluster bootstrap over games: decisions of "
              "one game are not independent).", "",
              "| player | free moves | EV loss (rank points) | 95% CI | median | "
              "EV loss (score) | moves losing > 0.1 [95% CI] |",
              "|---|---:|---:|---|---:|---:|---:|"]
    for r in table.itertuples(index=False):
        lines.append(f"| {r.agent_label} | {r.decisions} | {_fmt(r.loss_rp)} | "
                     f"[{_fmt(r.loss_rp_ci_low)}, {_fmt(r.loss_rp_ci_high)}] | "
                     f"{_fmt(r.loss_rp_median)} | {_fmt(r.loss_score, 2)} | "
                     f"{100 * r.costly_share:.1f}% [{100 * r.costly_ci_low:.1f}, "
                     f"{100 * r.costly_ci_high:.1f}] |")
    lines.append("")
    humans = quality[quality.get("player_kind", pd.Series(dtype=str)).astype(str) == "human"] \
        if "player_kind" in quality else quality.iloc[:0]
    if len(humans) and "participant" in humans:
        per = ev_loss_table(humans, "participant")
        lines += [f"Per participant ({len(per)}): mean EV loss from "
                  f"{_fmt(per['loss_rp'].min())} to {_fmt(per['loss_rp'].max())} rank "
                  f"points per free move (median participant {_fmt(per['loss_rp'].median())}).",
                  ""]
    skips = skip_to_collect(quality) if "own_tom0_action" in quality else None
    if skips is not None and len(skips):
        lines += ["Skip-to-collect passes (ToM-k passes where its own ToM0 said take):", "",
                  "| model | moves | pass valued ≥ take | mean gain of the pass (rank "
                  "points) | card came back to it [95% CI] |", "|---|---:|---:|---:|---:|"]
        for r in skips.itertuples(index=False):
            lines.append(
                f"| {r.label} | {r.moves} | {100 * r.pays_share:.1f}% "
                f"[{100 * r.pays_ci_low:.1f}, {100 * r.pays_ci_high:.1f}] | "
                f"{_fmt(r.gap_rp)} [{_fmt(r.gap_rp_ci_low)}, {_fmt(r.gap_rp_ci_high)}] | "
                f"{100 * r.came_back_share:.1f}% [{100 * r.came_back_ci_low:.1f}, "
                f"{100 * r.came_back_ci_high:.1f}] |")
        lines.append("")
    if "marked_bad" in quality and quality["marked_bad"].notna().any():
        try:
            test = marked_bad_test(quality).iloc[0]
        except AnalysisInputError as exc:
            lines += [f"Marked-bad test not possible: {exc}", ""]
        else:
            lines += [
                f"Opponent moves marked bad ({test.marked}) vs unmarked ({test.unmarked}), "
                f"{test.participants} participants: mean EV loss {_fmt(test.marked_loss)} "
                f"vs {_fmt(test.unmarked_loss)} rank points; difference "
                f"{_fmt(test.difference)} [{_fmt(test.ci_low)}, {_fmt(test.ci_high)}] "
                f"(OLS, SEs {test.standard_errors}, t({test.df:.0f}) = {test.t:.2f}, "
                f"p = {test.p:.3g}); Cohen's d = "
                f"{_fmt(test.cohens_d, 2)}; Mann-Whitney p = {test.mannwhitney_p:.3g}, "
                f"rank-biserial r = {_fmt(test.rank_biserial, 2)}.", ""]
    return "\n".join(lines)
