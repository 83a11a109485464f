"""One player's view of the game: exactly what that player may see.

The information contract: a view holds the player's own token count, every player's
taken cards, the face-up card and the tokens on it, how many cards are still face down,
and the public history of events. Other players' token counts are present only in the
open-tokens variant. Removed cards are never part of a view.
"""
from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from .events import Event
from .variant import Variant

_new = tuple.__new__


class HiddenInformationError(LookupError):
    """Asked a view for something its player may not see."""


class View(tuple):
    """A snapshot of what ``seat`` may see at one moment of the game.

    An immutable tuple underneath (a game makes one per decision, and a tuple is built
    without running an ``__init__``), read through the named fields below; two views are
    equal only when they are the same object, as with any snapshot taken at its moment.
    """

    __slots__ = ()

    def __new__(
        cls,
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
    ) -> View:
        return _new(cls, (seat, variant, to_move, card, tokens_on_card, own_tokens, cards,
                          cards_left, history, history_len, tokens))

    seat = property(itemgetter(0), doc="The seat whose view this is.")
    variant = property(itemgetter(1), doc="The rules of the game.")
    to_move = property(itemgetter(2), doc="The seat to move.")
    card = property(itemgetter(3), doc="The face-up card (``None`` once the game is over).")
    tokens_on_card = property(itemgetter(4), doc="Tokens on the face-up card.")
    own_tokens = property(itemgetter(5), doc="This seat's token count.")
    cards = property(itemgetter(6), doc="Every seat's taken cards, ascending.")
    cards_left = property(itemgetter(7), doc="Cards still face down.")
    _history = property(itemgetter(8))  # the game's event list, read up to _history_len
    _history_len = property(itemgetter(9))
    _tokens = property(itemgetter(10))  # every seat's tokens (open tokens), else None

    def __getnewargs__(self) -> tuple:  # copy and pickle rebuild it from its fields
        return tuple(self)

    __eq__ = object.__eq__  # type: ignore[assignment]
    __ne__ = object.__ne__  # type: ignore[assignment]
    __hash__ = object.__hash__  # type: ignore[assignment]

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
