"""Input checks and derived tables shared by every statistic.

Analysis functions take the logged tables (games: one row per player per game;
decisions: one row per decision) and fail early with a message naming what is missing,
so a wrong frame never turns into a NaN figure.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

import pandas as pd

from ..rules import Variant


class AnalysisInputError(ValueError):
    """A frame given to an analysis function lacks columns or rows it needs."""


#: Columns that together identify one game across experiments and sessions, when present
#: (``game_id`` is the game's position in its design, so sessions of one design share ids).
GAME_KEY_CANDIDATES = ("experiment", "design_hash", "participant", "game_id")

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


def with_agent_labels(frame: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the ``agent_label`` and ``tom_order`` of each row's seat, from ``games``.

    The predictions and recalls tables name the acting model by spec only; its label and
    order are logged once per player in the games table, so analysis never parses specs.
    """
    require_columns(frame, ["game_id", "seat"], "frame")
    require_columns(games, ["game_id", "seat", "agent_label", "tom_order"], "games")
    key = [c for c in game_key(frame) if c in games.columns]
    players = games[[*key, "seat", "agent_label", "tom_order"]].drop_duplicates([*key, "seat"])
    merged = frame.drop(columns=["agent_label", "tom_order"], errors="ignore").merge(
        players, on=[*key, "seat"], how="left")
    if merged["agent_label"].isna().any():
        raise AnalysisInputError("frame: some seats have no row in games; pass the games of "
                                 "the same experiment")
    return merged


def require_models(frame: pd.DataFrame, what: str, order: str = "tom_order",
                   agent: str = "agent") -> None:
    """Raise unless every row's ``order`` holds a theory-of-mind order (a cognitive model)."""
    require_columns(frame, [order], what)
    others = frame.loc[frame[order].isna()]
    if len(others):
        agents = others[agent] if agent in others.columns else others.index
        raise AnalysisInputError(
            f"{what}: agents {sorted(set(map(str, agents)))[:5]} are not cognitive models "
            "(their logged tom_order is null)")


def focal_rows(games: pd.DataFrame) -> pd.DataFrame:
    """One row per game for its focal player, with its opponents' spec and mean points.

    The thesis's designs seat one focal player (a participant, or the model "taking the
    role of the human subject", Table 7) against three copies of one opponent type. The
    focal player is the row with ``focal`` true when the log has that column, else the one
    player whose agent differs from the others'. Returns the focal rows (``agent`` is the
    focal spec) with ``opponent`` (the opponents' spec), ``focal_label``/``opponent_label``
    (``ToM1``, ``human``...), ``opponent_order`` and ``opponent_rank_points`` (the
    opponents' mean that game). Labels and orders are the logged ``agent_label`` and
    ``tom_order`` columns.
    """
    require_columns(games, ["game_id", "seat", "agent", "agent_label", "tom_order", "rank",
                            "rank_points"], "games")
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
        opponent=("agent", "first"), opponent_label=("agent_label", "first"),
        opponent_order=("tom_order", "first"), _opponent_kinds=("agent", "nunique"),
        opponent_rank_points=("rank_points", "mean"))
    mixed = opponents.index[opponents["_opponent_kinds"] > 1]
    if len(mixed):
        raise AnalysisInputError(
            f"games: {len(mixed)} game(s) seat opponents of different types around the focal "
            "player; the focal statistics compare one focal player with one opponent type"
        )
    result = frame[is_focal].join(opponents.drop(columns="_opponent_kinds"), on="_game")
    result["focal_label"] = result["agent_label"]
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


def condition_variants(conditions: pd.DataFrame | None) -> dict[tuple, Variant]:
    """(design hash, condition) -> the rules variant its games were played with, read
    from a log's conditions table (empty without one): what a replay of a logged game
    needs besides its seed and moves."""
    if conditions is None or "variant" not in conditions.columns:
        return {}
    hashes = (conditions["design_hash"] if "design_hash" in conditions.columns
              else [None] * len(conditions))
    return {(h, int(c)): Variant.from_options(json.loads(v))
            for h, c, v in zip(hashes, conditions["condition"], conditions["variant"],
                               strict=True)}


def markdown_table(frame: pd.DataFrame) -> str:
    """A DataFrame as a GitHub Markdown table (no tabulate dependency)."""
    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")
    lines = ["| " + " | ".join(map(cell, frame.columns)) + " |",
             "| " + " | ".join("---" for _ in frame.columns) + " |"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)
