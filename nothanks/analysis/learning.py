"""Learning from experience: curves, slopes and paired comparisons over trials of games.

A design with trials (``trial = N``) plays deals ``k*N .. (k+1)*N - 1`` of a condition as
trial ``k``: one learning agent, fresh at the trial's start, plays those games in order
(docs/learning.md). Trials are independent of each other, the games of one trial are
not, so every interval here resamples or clusters by **trial**:

- :func:`learning_curve`: the focal player's mean rank points and first-place share at
  each game of a trial, with intervals over trials;
- :func:`learning_slope`: the slope of rank points over the game index, with a
  cluster-robust (by trial) standard error, as seed 002's slope test;
- :func:`improved_trials`: the share of trials whose last game beats their first;
- :func:`paired_by_trial`: two conditions on the same deals (a learner and its
  no-learning control, or a fixed model in its seat), trial by trial;
- :func:`states_over_games` and :func:`final_states`: the learning state logged at each
  decision (the ``learning`` table), per game of a trial and at the end of each trial;
- :func:`trial_divergence`: how often two focal learners' moves differ on the same deals
  before anything they learned could differ.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .frames import AnalysisInputError, require_columns, require_rows
from .paired import (
    bootstrap_interval,
    cluster_share,
    data_source,
    divergence_by_deal,
    focal_by_deal,
    paired_difference,
    wilson_interval,
)


def trial_length(experiments: pd.DataFrame) -> int:
    """Games per trial of the logged design (its ``trial`` key); an error naming what is
    wrong when the log holds no design with trials, or several different ones."""
    require_columns(experiments, ["design"], "experiments")
    require_rows(experiments, "experiments")
    lengths = {json.loads(text).get("trial") for text in experiments["design"]}
    if None in lengths:
        raise AnalysisInputError("experiments: a design without trials ('trial = N'); learning "
                                 "curves need a design with trials")
    if len(lengths) != 1:
        raise AnalysisInputError(f"experiments: designs with different trial lengths "
                                 f"{sorted(lengths)}; analyse one at a time")
    return int(lengths.pop())


def focal_trials(games: pd.DataFrame, condition: int, trial: int) -> pd.DataFrame:
    """The focal player's result per deal of ``condition`` with its ``trial`` and
    ``game`` (index within the trial); only whole trials are kept."""
    return Trials(games, trial).focal(condition)


class Trials:
    """The focal results of a log's conditions by trial, each condition's read once (the
    functions below each build one for a single answer; :func:`learning_tables` asks one
    many questions)."""

    def __init__(self, games: pd.DataFrame, trial: int) -> None:
        if isinstance(trial, bool) or not isinstance(trial, int | np.integer) or trial < 1:
            raise AnalysisInputError(f"trial length {trial!r}; valid: a whole number >= 1")
        self.games = games
        self.trial = int(trial)
        self._focal: dict[int, pd.DataFrame] = {}

    def focal(self, condition: int) -> pd.DataFrame:
        """See :func:`focal_trials`."""
        if condition not in self._focal:
            focal = focal_by_deal(self.games, condition).reset_index()
            focal["trial"] = focal["deal"] // self.trial
            focal["game"] = focal["deal"] % self.trial
            whole = focal.groupby("trial")["game"].transform("size") == self.trial
            if not whole.any():
                raise AnalysisInputError(f"condition {condition}: no whole trial of "
                                         f"{self.trial} games logged (an interrupted run?)")
            self._focal[condition] = focal[whole].reset_index(drop=True)
        return self._focal[condition]

    def curve(self, condition: int) -> pd.DataFrame:
        """See :func:`learning_curve`."""
        rows = []
        for game, part in self.focal(condition).groupby("game", sort=True):
            points = part["rank_points"].to_numpy(float)
            wins = part["win"].to_numpy(float)
            low, high = bootstrap_interval(points)
            win_low, win_high = wilson_interval(int(wins.sum()), len(wins))
            rows.append({"condition": condition, "game": int(game), "trials": len(part),
                         "rank_points": float(points.mean()), "ci_low": low,
                         "ci_high": high, "win_share": float(wins.mean()),
                         "win_ci_low": win_low, "win_ci_high": win_high})
        return pd.DataFrame(rows)

    def slope(self, condition: int) -> dict:
        """See :func:`learning_slope`."""
        focal = self.focal(condition)
        trials = focal["trial"].nunique()
        if trials < 2 or self.trial < 2:
            raise AnalysisInputError(f"condition {condition}: a slope needs at least 2 trials "
                                     f"of at least 2 games (got {trials} of {self.trial})")
        return {"condition": condition, "trials": trials, "games_per_trial": self.trial,
                **clustered_slope(focal)}

    def improved(self, condition: int) -> dict:
        """See :func:`improved_trials`."""
        ends = self.focal(condition).pivot(index="trial", columns="game",
                                           values="rank_points")
        change = ends[self.trial - 1] - ends[0]
        n, better = len(change), int((change > 0).sum())
        low, high = wilson_interval(better, n)
        return {"condition": condition, "trials": n, "better": better / n, "ci_low": low,
                "ci_high": high, "tied": float((change == 0).mean()),
                "worse": float((change < 0).mean())}

    def paired(self, a: int, b: int, games_in_trial: Sequence[int] | None = None) -> dict:
        """See :func:`paired_by_trial`."""
        left, right = self.focal(a), self.focal(b)
        if games_in_trial is not None:
            wanted = set(games_in_trial)
            bad = sorted(wanted - set(range(self.trial)))
            if bad:
                raise AnalysisInputError(f"games_in_trial {bad} outside 0..{self.trial - 1}")
            left, right = left[left["game"].isin(wanted)], right[right["game"].isin(wanted)]
        per_a = left.groupby("trial")["rank_points"].mean()
        per_b = right.groupby("trial")["rank_points"].mean()
        common = per_a.index.intersection(per_b.index)
        if len(common) < 2:
            raise AnalysisInputError(f"conditions {a} and {b} share {len(common)} whole "
                                     "trial(s); a paired comparison needs at least 2")
        result = paired_difference(per_a.loc[common].to_numpy(),
                                   per_b.loc[common].to_numpy())
        return {"a": a, "b": b, "trials": len(common), **result}


def clustered_slope(focal: pd.DataFrame, first_game: int = 0) -> dict:
    """Least squares of ``rank_points`` on ``game`` (the game's index in its trial, from
    0) over the games from ``first_game`` on, standard errors clustered by ``trial``:
    slope, its 95% interval, p and intercept."""
    import statsmodels.formula.api as smf

    require_columns(focal, ["trial", "game", "rank_points"], "learning slope")
    part = focal[focal["game"] >= first_game]
    if part["trial"].nunique() < 2 or part["game"].nunique() < 2:
        raise AnalysisInputError(f"a slope from game {first_game} needs at least 2 trials "
                                 "of at least 2 games")
    fit = smf.ols("rank_points ~ game", data=part).fit(
        cov_type="cluster", cov_kwds={"groups": part["trial"].to_numpy()})
    low, high = fit.conf_int().loc["game"]
    return {"slope": float(fit.params["game"]), "ci_low": float(low), "ci_high": float(high),
            "p": float(fit.pvalues["game"]), "intercept": float(fit.params["Intercept"])}


def first_game_effect(focal: pd.DataFrame) -> pd.DataFrame:
    """Is a learning slope a first-game effect? One row per game index: the mean rank
    points with a bootstrap 95% interval over trials; then the slope over every game
    (``from game 0``) and over the games after the first (``from game 1``), each with its
    interval clustered by trial (:func:`clustered_slope`). ``focal``: one row per (trial,
    game) with the learner's ``rank_points``."""
    rows = []
    for game, part in focal.groupby("game", sort=True):
        points = part["rank_points"].to_numpy(float)
        low, high = bootstrap_interval(points)
        rows.append({"row": f"game {int(game)}", "trials": len(part),
                     "value": float(points.mean()), "ci_low": low, "ci_high": high,
                     "p": np.nan})
    for first in (0, 1):
        fit = clustered_slope(focal, first)
        rows.append({"row": f"slope from game {first}", "trials": focal["trial"].nunique(),
                     "value": fit["slope"], "ci_low": fit["ci_low"],
                     "ci_high": fit["ci_high"], "p": fit["p"]})
    return pd.DataFrame(rows)


def learning_curve(games: pd.DataFrame, condition: int, trial: int) -> pd.DataFrame:
    """Per game of a trial: the focal player's mean rank points and first-place share
    over the trials, with 95% bootstrap intervals over trials (one value per trial)."""
    return Trials(games, trial).curve(condition)


def learning_slope(games: pd.DataFrame, condition: int, trial: int) -> dict:
    """OLS slope of the focal player's rank points over the game index of its trial, with
    standard errors clustered by trial (statsmodels); rank points per game of the trial."""
    return Trials(games, trial).slope(condition)


def improved_trials(games: pd.DataFrame, condition: int, trial: int) -> dict:
    """The share of trials whose last game gave the focal player more rank points than
    its first (Wilson interval over trials), and the shares of ties and of worse ends."""
    return Trials(games, trial).improved(condition)


def paired_by_trial(games: pd.DataFrame, a: int, b: int, trial: int,
                    games_in_trial: Sequence[int] | None = None) -> dict:
    """Focal rank points of condition ``a`` minus condition ``b`` on the same deals, one
    pair per trial (its mean over ``games_in_trial``, default every game of the trial):
    :func:`~nothanks.analysis.paired.paired_difference` over trials."""
    return Trials(games, trial).paired(a, b, games_in_trial)


def trial_divergence(decisions: pd.DataFrame, a: int, b: int, trial: int) -> dict:
    """How often the focal players of conditions ``a`` and ``b`` move differently, trial by
    trial, counting only what both saw alike.

    Two learners on the same deals see the same states, and so learn the same things,
    until their first differing move; after it their experience (and what they learn
    from it) differs. So per trial the decisions compared run from its first game up to
    and including the first difference (every decision of the trial when none differs):
    the rate is trials that diverged / decisions compared, with a cluster-bootstrap
    interval over trials (:func:`~nothanks.analysis.paired.cluster_share`), and
    ``first_game`` is the mean game of the trial where the first difference fell.
    """
    by_deal = divergence_by_deal(decisions, a, b).sort_values("deal").reset_index(drop=True)
    by_deal["trial"] = by_deal["deal"] // trial
    compared, diverged, first_games = [], [], []
    for _, part in by_deal.groupby("trial", sort=True):
        hits = part.index[part["diverged"].to_numpy(bool)]
        if len(hits):
            upto = part.loc[:hits[0]]
            compared.append(int(upto["compared"].sum()))
            diverged.append(1.0)
            first_games.append(int(part.loc[hits[0], "deal"]) % trial)
        else:
            compared.append(int(part["compared"].sum()))
            diverged.append(0.0)
    rate, low, high = cluster_share(np.array(diverged), np.array(compared, float))
    return {"a": a, "b": b, "trials": len(compared), "diverged_trials": int(sum(diverged)),
            "decisions_compared": int(sum(compared)), "difference_rate": rate,
            "ci_low": low, "ci_high": high,
            "first_game": float(np.mean(first_games)) if first_games else np.nan}


def _states(learning: pd.DataFrame, games: pd.DataFrame, key: str,
            parsed: Sequence[dict] | None = None) -> pd.DataFrame:
    """One row per learning row with the condition and the numbers of ``state[key]``
    (a mapping of names to values) as columns; ``parsed``: the rows' states already read
    from their JSON (in row order)."""
    require_columns(learning, ["game_id", "turn", "role", "trial", "trial_game", "state"],
                    "learning")
    require_columns(games, ["game_id", "condition"], "games")
    require_rows(learning, "learning")
    if learning["trial"].isna().any():
        raise AnalysisInputError("learning: rows without a trial; states over games need a "
                                 "design with trials")
    if parsed is None:
        parsed = [json.loads(text) for text in learning["state"]]
    values = []
    for i, state in enumerate(parsed):
        if not isinstance(state.get(key), dict):
            raise AnalysisInputError(f"learning row {i}: its state has no mapping {key!r} "
                                     f"(keys: {sorted(state)})")
        values.append(state[key])
    table = pd.DataFrame(values, index=learning.index).astype(float)
    conditions = games.drop_duplicates("game_id").set_index("game_id")["condition"]
    frame = learning[["game_id", "turn", "role", "trial", "trial_game"]].copy()
    frame["condition"] = frame["game_id"].map(conditions).astype(int)
    return pd.concat([frame, table], axis=1)


def states_over_games(learning: pd.DataFrame, games: pd.DataFrame, key: str = "utilities"
                      ) -> pd.DataFrame:
    """Per condition, game of the trial and name in ``state[key]``: the mean over trials of
    the value at the learner's last decision of that game, with a bootstrap interval."""
    return _over_games(_states(learning, games, key))


def _over_games(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`states_over_games` of a frame made by :func:`_states`."""
    names = [c for c in frame.columns if c not in
             ("game_id", "turn", "role", "trial", "trial_game", "condition")]
    last = frame.sort_values(["game_id", "role", "turn"]).groupby(
        ["condition", "trial", "trial_game", "role"], sort=True).tail(1)
    rows = []
    for (condition, game), part in last.groupby(["condition", "trial_game"], sort=True):
        per_trial = part.groupby("trial")[names].mean()
        for name in names:
            values = per_trial[name].dropna().to_numpy(float)
            if not len(values):
                continue
            low, high = bootstrap_interval(values)
            rows.append({"condition": int(condition), "game": int(game), "name": name,
                         "trials": len(values), "mean": float(values.mean()),
                         "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


def final_states(learning: pd.DataFrame, games: pd.DataFrame, key: str = "utilities"
                 ) -> pd.DataFrame:
    """Per condition and name in ``state[key]``: the value at the end of each trial (the
    learner's last decision), its mean over trials with a bootstrap interval, and the
    share of trials in which it was the highest (ties shared)."""
    return _final(_states(learning, games, key))


def _final(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`final_states` of a frame made by :func:`_states`."""
    names = [c for c in frame.columns if c not in
             ("game_id", "turn", "role", "trial", "trial_game", "condition")]
    ends = frame.sort_values(["trial_game", "game_id", "turn"]).groupby(
        ["condition", "trial", "role"], sort=True).tail(1)
    rows = []
    for condition, part in ends.groupby("condition", sort=True):
        values = part[names].to_numpy(float)
        best = np.nanmax(values, axis=1, keepdims=True)
        top = (values == best) / (values == best).sum(axis=1, keepdims=True)
        for j, name in enumerate(names):
            column = values[:, j][~np.isnan(values[:, j])]
            low, high = bootstrap_interval(column)
            rows.append({"condition": int(condition), "name": name, "trials": len(column),
                         "mean": float(column.mean()), "ci_low": low, "ci_high": high,
                         "top_share": float(top[:, j].mean())})
    return pd.DataFrame(rows)


# ------------------------------------------------------------ a learning design
#: Arm of a condition whose learner does not learn (same agent, learning switched off).
CONTROL_ARM = "no learning"
#: Separator of a learning design's table labels: ``ARM vs OPPONENTS``.
ARM_SEPARATOR = " vs "


def arm_and_panel(table: str) -> tuple[str, str]:
    """The arm (who sits in the focal seat: a learner, ``no learning``, a fixed model) and
    the panel (the opponents) of a learning design's table label ``ARM vs OPPONENTS``."""
    arm, sep, panel = table.partition(ARM_SEPARATOR)
    if not sep or not arm or not panel:
        raise AnalysisInputError(f"table label {table!r} is not of the form 'ARM vs "
                                 "OPPONENTS' (e.g. 'utility vs 3 ToM0', 'no learning vs "
                                 "3 ToM0'), as a learning design's labels must be")
    return arm.strip(), panel.strip()


def learning_tables(games: pd.DataFrame, conditions: pd.DataFrame, learning: pd.DataFrame,
                    trial: int) -> dict[str, pd.DataFrame]:
    """Every table of a learning design (tables labelled ``ARM vs OPPONENTS``; every arm
    of one opponent table plays the same deals):

    - ``learning_curves``: :func:`learning_curve` per condition;
    - ``learning_slopes``: :func:`learning_slope` and :func:`improved_trials` per condition;
    - ``learning_paired``: every learning arm (not the ``no learning`` control) minus each
      other arm of its panel (each pair of learners once), over all games of a trial and
      over its last game (:func:`paired_by_trial`);
    - ``learning_states`` and ``learning_final``: each learning state mapping (e.g.
      ``utilities``, ``blended``) per game and at trial end (:func:`states_over_games`,
      :func:`final_states`), for the conditions that logged one.
    """
    require_columns(conditions, ["condition", "table"], "conditions")
    labels = {int(c): arm_and_panel(t) for c, t in zip(conditions["condition"],
                                                       conditions["table"], strict=True)}
    condition_of = games.drop_duplicates("game_id").set_index("game_id")["condition"]
    learned = set(condition_of.loc[learning["game_id"].unique()]) if len(learning) else set()

    curves, slopes, paired = [], [], []
    results = Trials(games, trial)
    for condition in sorted(labels):
        arm, panel = labels[condition]
        curves.append(results.curve(condition).assign(panel=panel, arm=arm))
        better = results.improved(condition)
        slopes.append({"panel": panel, "arm": arm, **results.slope(condition),
                       "better": better["better"], "better_ci_low": better["ci_low"],
                       "better_ci_high": better["ci_high"], "tied": better["tied"],
                       "worse": better["worse"]})
    learners = {c for c in learned if labels[c][0] != CONTROL_ARM}
    for a in sorted(learners):
        arm, panel = labels[a]
        for b in sorted(labels):
            other, other_panel = labels[b]
            if b == a or other_panel != panel or (b in learners and b < a):
                continue  # each pair of learners once
            for span, picked in (("all games", None), ("last game", [trial - 1])):
                paired.append({"panel": panel, "arm": arm, "versus": other, "games": span,
                               **results.paired(a, b, picked)})
    out = {"learning_curves": pd.concat(curves, ignore_index=True),
           "learning_slopes": pd.DataFrame(slopes),
           "learning_paired": pd.DataFrame(paired)}
    if len(learning):
        parsed = [json.loads(text) for text in learning["state"]]  # read once
        keys = sorted({k for state in parsed for k, v in state.items() if isinstance(v, dict)})
        states, finals = [], []
        for key in keys:
            has = [isinstance(state.get(key), dict) for state in parsed]
            values = _states(learning[has], games, key,
                             [state for state, kept in zip(parsed, has, strict=True) if kept])
            for frame, target in ((_over_games(values), states), (_final(values), finals)):
                panels = frame["condition"].map(lambda c: labels[int(c)][1])
                arms = frame["condition"].map(lambda c: labels[int(c)][0])
                target.append(frame.assign(key=key, panel=panels, arm=arms))
        if states:
            out["learning_states"] = pd.concat(states, ignore_index=True)
            out["learning_final"] = pd.concat(finals, ignore_index=True)
    return out


def learning_markdown(tables: dict[str, pd.DataFrame] | None, title: str = "Learning"
                      ) -> str:
    """The results.md section of a learning design's tables (:func:`learning_tables`)."""
    if not tables:
        return ""
    slopes, paired = tables["learning_slopes"], tables["learning_paired"]
    lines = [f"\n## {title}\n",
             "Per opponent table and arm: the slope of the focal player's rank points over "
             "the games of a trial (SEs clustered by trial), the share of trials whose last "
             "game beat their first (Wilson), and each learner against the other arms on "
             "the same deals, one pair per trial (paired t over trials).\n",
             "| opponents | arm | trials | slope per game [95% CI] | p | last beats first "
             "[95% CI] |", "| --- | --- | --- | --- | --- | --- |"]
    for _, r in slopes.iterrows():
        lines.append(f"| {r['panel']} | {r['arm']} | {r['trials']} | {r['slope']:+.3f} "
                     f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] | {r['p']:.3g} | "
                     f"{r['better']:.0%} [{r['better_ci_low']:.0%}, "
                     f"{r['better_ci_high']:.0%}] |")
    if len(paired):
        lines += ["", "| opponents | learner | minus | games | trials | difference [95% CI] "
                      "| p |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for _, r in paired.iterrows():
            lines.append(f"| {r['panel']} | {r['arm']} | {r['versus']} | {r['games']} | "
                         f"{r['trials']} | {r['difference']:+.3f} [{r['ci_low']:+.3f}, "
                         f"{r['ci_high']:+.3f}] | {r['p']:.3g} |")
    final = tables.get("learning_final")
    if final is not None and len(final):
        lines += ["", "Learning state at the end of a trial (mean over trials; top: share of "
                      "trials in which it was the highest):", "",
                  "| opponents | arm | state | name | mean [95% CI] | top |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for _, r in final[final["arm"] != CONTROL_ARM].iterrows():  # its state never moves
            lines.append(f"| {r['panel']} | {r['arm']} | {r['key']} | {r['name']} | "
                         f"{r['mean']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] | "
                         f"{r['top_share']:.0%} |")
    return "\n".join(lines) + "\n"


#: Arms of the learning-tom design whose moves are compared on shared deals.
DIVERGENCE_ARMS = (("learning-ToM1", "learning-ToM2"), ("ToM1", "ToM2"))


def learning_statistics(logs: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """The tables of every learning design's log (by design name; a log holds the tables
    ``experiments``, ``games``, ``conditions``, ``learning`` and ``decisions``):
    :func:`learning_tables`, named ``<design>_<table>``, and, for ``learning-tom``, how
    often ToM2's moves differ from ToM1's on shared deals (:func:`trial_divergence`)."""
    stats: dict[str, pd.DataFrame] = {}
    for name, log in logs.items():
        trial = trial_length(log.experiments)
        prefix = name.replace("-", "_")
        tables = learning_tables(log.games, log.conditions, log.learning, trial)
        for key, table in tables.items():
            stats[f"{prefix}_{key.removeprefix('learning_')}"] = table.assign(
                source=data_source(log.games))
        if name == "learning-tom":
            rows = []
            arms = {arm_and_panel(t): int(c)
                    for c, t in zip(log.conditions["condition"], log.conditions["table"],
                                    strict=True)}
            for panel in dict.fromkeys(p for _, p in arms):
                for a, b in DIVERGENCE_ARMS:
                    if (a, panel) in arms and (b, panel) in arms:
                        rows.append({"panel": panel, "lower": a, "higher": b,
                                     **trial_divergence(
                                         log.decisions, arms[(a, panel)], arms[(b, panel)],
                                         trial)})
            stats["learning_tom_divergence"] = pd.DataFrame(rows).assign(
                source=data_source(log.games))
    return stats
