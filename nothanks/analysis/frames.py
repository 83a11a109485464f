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


#: Columns that together identify one game across experiments and sessions, when present
#: (``game_id`` is the game's position in its design, so sessions of one design share ids).
GAME_KEY_CANDIDATES = ("experiment", "design_hash", "participant", "game_id")

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
    """Columns identifying a game: ``game_id`` plus experiment/participant when present."""
    require_columns(frame, ["game_id"], "games")
    return [c for c in GAME_KEY_CANDIDATES if c in frame.columns]


def game_index(frame: pd.DataFrame) -> pd.Series:
    """An integer per distinct game (null participants in simulations form one group)."""
    return frame.groupby(game_key(frame), dropna=False, sort=False).ngroup()


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
    """One row per game for its focal player, with its opponents' spec and mean points.

    The thesis's designs seat one focal player (a participant, or the model "taking the
    role of the human subject", Table 7) against three copies of one opponent type. The
    focal player is the row with ``focal`` true when the log has that column, else the one
    player whose agent differs from the others'. Returns the focal rows (``agent`` is the
    focal spec) with ``opponent`` (the opponents' spec), ``focal_label``/``opponent_label``
    (``ToM1``, ``human``...) and ``opponent_rank_points`` (the opponents' mean that game).
    """
    require_columns(games, ["game_id", "seat", "agent", "rank", "rank_points"], "games")
    require_rows(games, "games")
    frame = games.copy()
    frame["agent"] = frame["agent"].astype(str)
    require_unique(frame, game_key(frame) + ["seat"], "games")
    frame["_game"] = game_index(frame)
    per_game = frame.groupby("_game", sort=False)
    if "focal" in frame.columns and pd.api.types.is_bool_dtype(frame["focal"]):
        is_focal = frame["focal"].fillna(False).astype(bool)
        is_focal &= per_game["focal"].transform("sum") == 1
    else:
        players = per_game["seat"].transform("size")
        kinds = per_game["agent"].transform("nunique")
        same = frame.groupby(["_game", "agent"], sort=False)["seat"].transform("size")
        is_focal = (kinds == 2) & (same == 1) & (players > 2)
    without = frame.loc[~frame["_game"].isin(frame.loc[is_focal, "_game"])]
    if len(without):
        key = game_key(frame)
        example = without[key].drop_duplicates().head(3).to_dict(orient="records")
        raise AnalysisInputError(
            f"games: {without['_game'].nunique()} game(s) have no focal player "
            f"(one agent against copies of one other agent), e.g. {example}; select the "
            "focal-design games before calling this function"
        )
    opponents = frame[~is_focal].groupby("_game", sort=False).agg(
        opponent=("agent", "first"), _opponent_kinds=("agent", "nunique"),
        opponent_rank_points=("rank_points", "mean"))
    mixed = opponents.index[opponents["_opponent_kinds"] > 1]
    if len(mixed):
        raise AnalysisInputError(
            f"games: {len(mixed)} game(s) seat opponents of different types around the focal "
            "player; the focal statistics compare one focal player with one opponent type"
        )
    result = frame[is_focal].join(opponents.drop(columns="_opponent_kinds"), on="_game")
    result["focal_label"] = result["agent"].map(agent_label)
    result["opponent_label"] = result["opponent"].map(agent_label)
    return result.drop(columns="_game").reset_index(drop=True)


def opponent_rows(games: pd.DataFrame) -> pd.DataFrame:
    """The non-focal players' rows of focal-design games, with their game's ``focal_agent``.

    (Null key values, e.g. the participant of a simulation, match each other in the merge.)
    """
    focal = focal_rows(games)
    key = game_key(games)
    merged = games.merge(
        focal[key + ["seat", "agent"]].rename(columns={"seat": "_focal_seat",
                                                       "agent": "focal_agent"}),
        on=key, how="inner")
    return merged[merged["seat"] != merged["_focal_seat"]].drop(
        columns="_focal_seat").reset_index(drop=True)
