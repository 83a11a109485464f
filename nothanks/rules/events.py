"""Public events a game emits. Everything in an event is visible to every player.

Agents, loggers and user interfaces subscribe to these; they never see hidden state.

Events are immutable named tuples (cheaper to build than frozen dataclasses:
docs/benchmarks.md). Unlike plain named tuples, an event equals only an
event of the same type with the same fields (``Passed(0, 1, 20, 1)`` is neither
``Took(0, 1, 20, 1)`` nor the tuple ``(0, 1, 20, 1)``), and events do not order.
"""
from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple, TypeVar


class Action(StrEnum):
    """The two moves of No Thanks!: take the face-up card or place a token on it."""

    TAKE = "take"
    PASS = "pass"


_E = TypeVar("_E", bound=tuple)


def _typed_equality(cls: type[_E]) -> type[_E]:
    """Make a named tuple class compare like a frozen dataclass: equal only to an
    instance of the same class with equal fields, hashable, and without ordering."""
    def __eq__(self, other: object) -> bool:  # noqa: N807
        if other.__class__ is self.__class__:
            return tuple.__eq__(self, other)
        return False if isinstance(other, tuple) else NotImplemented

    def __ne__(self, other: object) -> bool:  # noqa: N807
        equal = __eq__(self, other)
        return equal if equal is NotImplemented else not equal

    def unordered(self, other: object) -> bool:
        return NotImplemented

    cls.__eq__ = __eq__  # type: ignore[assignment]
    cls.__ne__ = __ne__  # type: ignore[assignment]
    cls.__hash__ = tuple.__hash__  # type: ignore[assignment]
    cls.__lt__ = cls.__le__ = cls.__gt__ = cls.__ge__ = unordered  # type: ignore[assignment]
    return cls


@_typed_equality
class CardRevealed(NamedTuple):
    """A new card is turned face up; ``cards_left`` are still face down."""

    turn: int
    card: int
    cards_left: int


@_typed_equality
class Passed(NamedTuple):
    """``seat`` placed a token; ``tokens_on_card`` counts it."""

    turn: int
    seat: int
    card: int
    tokens_on_card: int


@_typed_equality
class Took(NamedTuple):
    """``seat`` took ``card`` with ``tokens`` tokens on it, and acts again next."""

    turn: int
    seat: int
    card: int
    tokens: int


@_typed_equality
class GameOver(NamedTuple):
    """The last card was taken; final scores, places (1 = best) and rank points per seat."""

    turn: int
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    rank_points: tuple[float, ...]


Event = CardRevealed | Passed | Took | GameOver
