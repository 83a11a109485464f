"""Input checks and derived tables shared by every statistic.

Analysis functions take the logged tables (games: one row per player per game;
decisions: one row per decision) and fail early with a message naming what is missing,
so a wrong frame never turns into a NaN figure.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from ..agents.spec import AgentSpecError, parse_spec


class AnalysisInputError(ValueError):
    """A frame given to an analysis function lacks columns or rows it needs."""


#: Columns that together identify one game across experiments and sessions, when present.
GAME_KEY_CANDIDATES = ("experiment", "session", "game_id")

#: Spec names of the cognitive models and their theory-of-mind order (``tom:k=N`` is order N).
_FIXED_ORDERS = {"tom0": 0, "tom1": 1, "tom2": 2}


def require_columns(frame: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    """Raise if ``frame`` lacks any of ``columns``; ``what`` names the frame in the message."""
    if not isinstance(frame, pd.DataFrame):
        raise AnalysisInputError(f"{what}: expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise AnalysisInputError(
            f"{what}: missing column(s) {', '.join(missing)}; "
            f"present: {', '.join(map(str, frame.columns)) or '(none)'}"
        )


def require_rows(frame: pd.DataFrame, what: str) -> None:
    """Raise if a selection is empty: an empty sample is an error, never a NaN statistic."""
    if len(frame) == 0:
        raise AnalysisInputError(f"{what}: no rows to analyse (empty selection)")


def require_unique(frame: pd.DataFrame, key: Sequence[str], what: str) -> None:
    """Raise if ``key`` does not identify rows uniquely (e.g. one row per decision)."""
    duplicated = frame.duplicated(list(key), keep=False)
    if duplicated.any():
        example = frame.loc[duplicated, list(key)].head(3).to_dict(orient="records")
        raise AnalysisInputError(
            f"{what}: expected one row per {', '.join(key)}, but {int(duplicated.sum())} rows "
            f"share a key, e.g. {example}"
        )


def game_key(frame: pd.DataFrame) -> list[str]:
    """Columns identifying a game: ``game_id`` plus ``experiment``/``session`` when present."""
    require_columns(frame, ["game_id"], "games")
    return [c for c in GAME_KEY_CANDIDATES if c in frame.columns]


def tom_order(spec: str) -> int:
    """Theory-of-mind order of an agent spec: ``tom1:rt=-2`` -> 1, ``tom:k=3`` -> 3."""
    try:
        parsed = parse_spec(str(spec))
    except AgentSpecError as exc:
        raise AnalysisInputError(f"agent spec {spec!r} cannot be parsed: {exc}") from exc
    if parsed.name in _FIXED_ORDERS:
        return _FIXED_ORDERS[parsed.name]
    if parsed.name == "tom" and parsed.params.get("k", "").isdigit():
        return int(parsed.params["k"])
    raise AnalysisInputError(
        f"agent spec {spec!r} is not a cognitive model; known specs: tom0, tom1, tom2, "
        "tom:k=N (each with optional parameters, e.g. tom1:rt=-2)"
    )


def is_tom(spec: str) -> bool:
    """Whether ``spec`` names a cognitive ToM-k model."""
    try:
        tom_order(spec)
    except AnalysisInputError:
        return False
    return True


def agent_label(spec: str) -> str:
    """Short label for plots and tables: ``ToM1`` for any tom1 spec, else the agent name."""
    if is_tom(spec):
        return f"ToM{tom_order(spec)}"
    return parse_spec(str(spec)).name


def spec_parameter(spec: str, name: str) -> str | None:
    """The value given for parameter ``name`` in ``spec`` (``None`` if the spec omits it)."""
    return parse_spec(str(spec)).params.get(name)


def focal_rows(games: pd.DataFrame) -> pd.DataFrame:
    """One row per game for its focal player: the one whose agent differs from the others.

    The thesis's designs seat one focal player (a participant, or the model in "taking the
    role of the human subject", Table 7) against three copies of one opponent type. Returns
    the focal player's row with ``focal`` (its agent spec), ``opponent`` (the opponents'
    spec), ``focal_label``/``opponent_label`` (``ToM1``...), and
    ``opponent_rank_points`` (the opponents' mean rank points in that game).
    """
    require_columns(games, ["game_id", "seat", "agent", "rank", "rank_points"], "games")
    require_rows(games, "games")
    key = game_key(games)
    require_unique(games, key + ["seat"], "games")
    frame = games.copy()
    frame["agent"] = frame["agent"].astype(str)
    per_game = frame.groupby(key, sort=False)
    frame["_players"] = per_game["seat"].transform("size")
    frame["_kinds"] = per_game["agent"].transform("nunique")
    frame["_same"] = frame.groupby(key + ["agent"], sort=False)["seat"].transform("size")
    is_focal = (frame["_kinds"] == 2) & (frame["_same"] == 1) & (frame["_players"] > 2)
    focal = frame[is_focal]
    games_without = frame.loc[~frame.set_index(key).index.isin(focal.set_index(key).index), key]
    if len(games_without):
        example = games_without.drop_duplicates().head(3).to_dict(orient="records")
        raise AnalysisInputError(
            f"games: {games_without.drop_duplicates().shape[0]} game(s) have no focal player "
            f"(one agent against copies of one other agent), e.g. {example}; select the "
            "focal-design games before calling this function"
        )
    others = frame[~is_focal]
    opponent = others.groupby(key, sort=False).agg(
        opponent=("agent", "first"), opponent_rank_points=("rank_points", "mean")
    )
    result = focal.drop(columns=["_players", "_kinds", "_same"]).rename(columns={"agent": "focal"})
    result = result.join(opponent, on=key)
    result["focal_label"] = result["focal"].map(agent_label)
    result["opponent_label"] = result["opponent"].map(agent_label)
    return result.reset_index(drop=True)


def opponent_rows(games: pd.DataFrame) -> pd.DataFrame:
    """The non-focal players' rows of focal-design games (three per game in the thesis)."""
    focal = focal_rows(games)
    key = game_key(games)
    marked = games.merge(focal[key + ["seat"]].assign(_focal=True), on=key + ["seat"], how="left")
    others = marked[marked["_focal"].isna()].drop(columns="_focal")
    return others.join(
        focal.set_index(key)[["focal", "focal_label"]], on=key
    ).reset_index(drop=True)
