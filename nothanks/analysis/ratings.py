"""Ratings of a tournament's agents on one scale: Weng-Lin (openskill) and plain means.

Input is a tournament's log (:mod:`nothanks.studies.tournament`): the ``games``
table (one row per player per game) and the ``conditions`` table, whose ``players``
list says which pool member sat in which role. A pool member is named by its spec as
the tournament lists it (``heuristic:T=-3``).

Two views, which should agree on the order:

* **Weng-Lin ratings** (openskill): each game is one free-for-all match of single-player
  teams ranked by the logged place (``rank``: 1 = lowest score; tied players share the
  best place and are passed to openskill as a tie). The updates are online, so the game
  order is fixed and documented: by deal, then condition (table, then seat rotation),
  i.e. round by round over the tables. ``tau`` (the per-game skill drift) defaults to
  0: an agent does not learn between games, so its skill is one constant. The default
  model is openskill's Bradley-Terry full-pairing model; Plackett-Luce is a documented
  switch, not the default, because openskill 6.x's Plackett-Luce gives a tied pair's
  update to the next-placed player too (``ranks=[1, 1, 3, 4]`` rates third place as
  high as the tied winners), and ties are common in No Thanks!. The reported
  ``ordinal`` is the conservative ``mu - 3 sigma``.
* **Plain means**: mean rank points (3/2/1/0, ties share the mean) with a Student-t
  95% CI over *matches* (one table on one deal, its seat rotations averaged: the unit
  at which seats are balanced), first-place share (ties included) with a Wilson CI over
  games, and mean score.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .frames import AnalysisInputError, require_columns, require_rows
from .paired import wilson_interval
from .stats import mean_interval

#: openskill model names accepted by :func:`weng_lin_ratings`.
MODELS = {"bradley-terry-full": "BradleyTerryFull", "plackett-luce": "PlackettLuce",
          "thurstone-mosteller-full": "ThurstoneMostellerFull",
          "bradley-terry-part": "BradleyTerryPart",
          "thurstone-mosteller-part": "ThurstoneMostellerPart"}
DEFAULT_MODEL = "bradley-terry-full"
#: Order in which games update the ratings (documented in the module docstring).
GAME_ORDER = ("deal", "condition", "game_id")
_GAME_COLUMNS = ("game_id", "condition", "deal", "seat", "role", "rank", "rank_points",
                 "score", "agent_label")


def tournament_results(games: pd.DataFrame, conditions: pd.DataFrame) -> pd.DataFrame:
    """One row per player per game with the pool member (``player``) and its table.

    Columns: game_id, deal, condition, seat, player (the spec as the tournament's pool
    gives it), label (ToM2, heuristic...), lineup (the table's members, sorted, joined
    by a plus sign), rank, rank_points, score, first (placed first, ties included). Rows are
    in the rating order (:data:`GAME_ORDER`, then seat).
    """
    require_columns(games, _GAME_COLUMNS, "tournament games")
    require_columns(conditions, ["condition", "players"], "tournament conditions")
    require_rows(games, "tournament games")
    players = {int(c): list(p) for c, p in zip(conditions["condition"], conditions["players"],
                                               strict=True)}
    missing = sorted(set(games["condition"].astype(int)) - set(players))
    if missing:
        raise AnalysisInputError(f"tournament games: condition(s) {missing} are not in the "
                                 "conditions table; give the conditions of the same log")
    out = games[list(_GAME_COLUMNS)].copy()
    out["player"] = [players[int(c)][int(r)] for c, r in zip(out["condition"], out["role"],
                                                              strict=True)]
    out["lineup"] = [" + ".join(sorted(players[int(c)])) for c in out["condition"]]
    out["first"] = out["rank"] == 1
    out = out.rename(columns={"agent_label": "label"})
    out = out.sort_values([*GAME_ORDER, "seat"], kind="stable").reset_index(drop=True)
    return out[["game_id", "deal", "condition", "seat", "player", "label", "lineup", "rank",
                "rank_points", "score", "first"]]


def _model(model: str, tau: float):
    if model not in MODELS:
        raise AnalysisInputError(f"rating model {model!r} is unknown; valid: "
                                 f"{', '.join(MODELS)}")
    try:
        from openskill import models
    except ImportError:  # an optional dependency: pip install nothanks[tournament]
        raise AnalysisInputError("Weng-Lin ratings need the openskill package: pip install "
                                 "'nothanks[tournament]' (or pip install openskill)") from None
    return getattr(models, MODELS[model])(tau=tau)


def weng_lin_ratings(results: pd.DataFrame, model: str = DEFAULT_MODEL,
                     tau: float = 0.0) -> pd.DataFrame:
    """openskill ratings of every player after all games, processed in :data:`GAME_ORDER`.

    ``results`` is :func:`tournament_results`. Returns one row per player: games, mu,
    sigma, ordinal (mu - 3 sigma), sorted by ordinal (best first).
    """
    require_columns(results, ["player", "rank", *GAME_ORDER], "tournament results")
    require_rows(results, "tournament results")
    rater = _model(model, tau)
    ratings = {p: rater.rating(name=p) for p in sorted(results["player"].unique())}
    ordered = results.sort_values([*GAME_ORDER, "seat"] if "seat" in results else
                                  list(GAME_ORDER), kind="stable")
    for _, game in ordered.groupby(list(GAME_ORDER), sort=False):
        names = list(game["player"])
        if len(set(names)) != len(names):
            raise AnalysisInputError(f"tournament results: game {game['game_id'].iloc[0]} "
                                     f"seats one player twice ({names}); a tournament table "
                                     "has each pool member once")
        teams = rater.rate([[ratings[p]] for p in names], ranks=list(game["rank"]))
        for name, team in zip(names, teams, strict=True):
            ratings[name] = team[0]
    counts = results.groupby("player").size()
    rows = [{"player": p, "games": int(counts[p]), "mu": r.mu, "sigma": r.sigma,
             "ordinal": r.ordinal()} for p, r in ratings.items()]
    return (pd.DataFrame(rows).sort_values(["ordinal", "player"], ascending=[False, True])
            .reset_index(drop=True))


def _mean_ci(values: np.ndarray) -> tuple[float, float]:
    """Student-t CI; a sample without variation (e.g. always last) has a zero-width one."""
    if len(values) < 2 or np.ptp(values) == 0:
        return float(values.mean()), float(values.mean())
    return mean_interval(values)


def plain_scores(results: pd.DataFrame) -> pd.DataFrame:
    """Per player: games, matches, mean rank points with a t CI over matches (table x
    deal, rotations averaged), first-place share with a Wilson CI, mean score."""
    require_columns(results, ["player", "label", "lineup", "deal", "rank_points", "first",
                              "score"], "tournament results")
    require_rows(results, "tournament results")
    rows = []
    for player, own in results.groupby("player", sort=True):
        matches = own.groupby(["lineup", "deal"])["rank_points"].mean().to_numpy()
        low, high = _mean_ci(matches)
        firsts, n = int(own["first"].sum()), len(own)
        f_low, f_high = wilson_interval(firsts, n)
        rows.append({"player": player, "label": own["label"].iloc[0], "games": n,
                     "matches": len(matches), "rank_points": float(own["rank_points"].mean()),
                     "rank_points_low": low, "rank_points_high": high,
                     "first_share": firsts / n, "first_low": f_low, "first_high": f_high,
                     "mean_score": float(own["score"].mean())})
    return pd.DataFrame(rows)


def leaderboard(games: pd.DataFrame, conditions: pd.DataFrame, model: str = DEFAULT_MODEL,
                tau: float = 0.0) -> pd.DataFrame:
    """The tournament's table: Weng-Lin rating and plain means per player, best first.

    Columns: place (by ordinal), player, label, games, matches, mu, sigma, ordinal,
    rank_points (+ _low/_high), first_share (+ first_low/first_high), mean_score.
    """
    results = tournament_results(games, conditions)
    rated = weng_lin_ratings(results, model, tau)
    board = rated.merge(plain_scores(results).drop(columns="games"), on="player")
    board.insert(0, "place", np.arange(1, len(board) + 1))
    return board[["place", "player", "label", "games", "matches", "mu", "sigma", "ordinal",
                  "rank_points", "rank_points_low", "rank_points_high", "first_share",
                  "first_low", "first_high", "mean_score"]]


def leaderboard_markdown(board: pd.DataFrame) -> str:
    """The leaderboard as a Markdown table (intervals in brackets)."""
    require_columns(board, ["place", "player", "games", "mu", "sigma", "ordinal",
                            "rank_points", "rank_points_low", "rank_points_high",
                            "first_share", "first_low", "first_high", "mean_score"],
                    "leaderboard")
    lines = ["| # | agent | games | μ | σ | ordinal (μ−3σ) | mean rank points [95% CI] "
             "| first place [95% CI] | mean score |",
             "|---:|---|---:|---:|---:|---:|---|---|---:|"]
    for r in board.itertuples():
        lines.append(
            f"| {r.place} | `{r.player}` | {r.games} | {r.mu:.2f} | {r.sigma:.2f} | "
            f"{r.ordinal:.2f} | {r.rank_points:.2f} [{r.rank_points_low:.2f}, "
            f"{r.rank_points_high:.2f}] | {100 * r.first_share:.1f}% "
            f"[{100 * r.first_low:.1f}, {100 * r.first_high:.1f}] | {r.mean_score:.1f} |")
    return "\n".join(lines) + "\n"
