"""Public events a game emits. Everything in an event is visible to every player.

Agents, loggers and user interfaces subscribe to these; they never see hidden state.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Action(StrEnum):
    """The two moves of No Thanks!: take the face-up card or place a token on it."""

    TAKE = "take"
    PASS = "pass"


@dataclass(frozen=True, slots=True)
class CardRevealed:
    """A new card is turned face up; ``cards_left`` are still face down."""

    turn: int
    card: int
    cards_left: int


@dataclass(frozen=True, slots=True)
class Passed:
    """``seat`` placed a token; ``tokens_on_card`` counts it."""

    turn: int
    seat: int
    card: int
    tokens_on_card: int


@dataclass(frozen=True, slots=True)
class Took:
    """``seat`` took ``card`` with ``tokens`` tokens on it, and acts again next."""

    turn: int
    seat: int
    card: int
    tokens: int


@dataclass(frozen=True, slots=True)
class GameOver:
    """The last card was taken; final scores, places (1 = best) and rank points per seat."""

    turn: int
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    rank_points: tuple[float, ...]


Event = CardRevealed | Passed | Took | GameOver
