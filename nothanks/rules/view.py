"""One player's view of the game: exactly what that player may see.

The information contract: a view holds the player's own token count, every player's
taken cards, the face-up card and the tokens on it, how many cards are still face down,
and the public history of events. Other players' token counts are present only in the
open-tokens variant. Removed cards are never part of a view.
"""
from __future__ import annotations

from collections.abc import Sequence

from .events import Event
from .variant import Variant


class HiddenInformationError(LookupError):
    """Asked a view for something its player may not see."""


class View:
    """A snapshot of what ``seat`` may see at one moment of the game."""

    __slots__ = (
        "seat", "variant", "to_move", "card", "tokens_on_card", "own_tokens", "cards",
        "cards_left", "_history", "_history_len", "_tokens",
    )

    def __init__(
        self,
        seat: int,
        variant: Variant,
        to_move: int,
        card: int | None,
        tokens_on_card: int,
        own_tokens: int,
        cards: tuple[tuple[int, ...], ...],
        cards_left: int,
        history: Sequence[Event],
        history_len: int,
        tokens: tuple[int, ...] | None,
    ) -> None:
        self.seat = seat
        self.variant = variant
        self.to_move = to_move
        self.card = card
        self.tokens_on_card = tokens_on_card
        self.own_tokens = own_tokens
        self.cards = cards
        self.cards_left = cards_left
        self._history = history
        self._history_len = history_len
        self._tokens = tokens

    @property
    def players(self) -> int:
        return self.variant.players

    @property
    def own_cards(self) -> tuple[int, ...]:
        return self.cards[self.seat]

    @property
    def history(self) -> tuple[Event, ...]:
        """Public events up to the moment of this view."""
        return tuple(self._history[: self._history_len])

    @property
    def my_turn(self) -> bool:
        return self.to_move == self.seat

    def tokens_of(self, seat: int) -> int:
        """Token count of ``seat``: always for oneself, for others only with open tokens."""
        if seat == self.seat:
            return self.own_tokens
        if self._tokens is None:
            raise HiddenInformationError(
                f"player {self.seat} cannot see player {seat}'s tokens: token counts are "
                "hidden in this variant (use Variant(open_tokens=True) to show them)"
            )
        return self._tokens[seat]

    def __repr__(self) -> str:
        return (
            f"View(seat={self.seat}, card={self.card}, tokens_on_card={self.tokens_on_card}, "
            f"own_tokens={self.own_tokens}, cards={self.cards}, cards_left={self.cards_left})"
        )
