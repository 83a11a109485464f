"""A player's information set, from what it may see: the view and the public events.

With perfect recall of public actions every player knows every token count exactly:
each seat starts with the variant's tokens, loses one per pass and gains the tokens of
each card it takes, and all of that is announced. The only hidden information left is
which unseen cards were removed, and that is hidden from every player alike; so one
search tree over public states serves every seat, and a determinisation only has to
choose the order of the unseen cards. Nothing here reads the hidden game state.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..rules import Event, Passed, Took, Variant, View


class TokenTally:
    """Token counts of every seat, tallied from the public events seen so far."""

    def __init__(self, variant: Variant) -> None:
        self.counts = [variant.tokens] * variant.players

    def observe(self, event: Event) -> None:
        if isinstance(event, Passed):
            self.counts[event.seat] -= 1
        elif isinstance(event, Took):
            self.counts[event.seat] += event.tokens

    @classmethod
    def from_events(cls, variant: Variant, events: Iterable[Event]) -> TokenTally:
        tally = cls(variant)
        for event in events:
            tally.observe(event)
        return tally


def root_state(view: View, tokens: Sequence[int] | None = None) -> np.ndarray:
    """The search state of ``view``'s moment: public cards, the face-up card and its
    tokens, whose turn, token counts (``tokens``, else tallied from ``view.history``),
    and the unseen cards (every card of the deck not held and not face up).

    Raises ValueError for a view without a face-up card (the game is over) or a tally
    that disagrees with the player's own count (events were missed).
    """
    if view.card is None:
        raise ValueError("the game is over: there is no decision to search")
    variant = view.variant
    if tokens is None:
        tokens = TokenTally.from_events(variant, view.history).counts
    if len(tokens) != variant.players or tokens[view.seat] != view.own_tokens:
        raise ValueError(
            f"token tally {list(tokens)} does not fit the view (seat {view.seat} holds "
            f"{view.own_tokens}; {variant.players} seats): the tally missed events")
    from . import kernel as k  # numba is loaded with the first search, not on import

    s = k.new_state(variant.players, variant.high_card, variant.deck_size)
    s[k.CARD] = view.card
    s[k.ON_CARD] = view.tokens_on_card
    s[k.TO_MOVE] = view.to_move
    s[k.LEFT] = view.cards_left
    n, width = variant.players, variant.high_card + 2
    s[k.HEADER:k.HEADER + n] = tokens
    seen = {view.card}
    for seat, cards in enumerate(view.cards):
        for card in cards:
            s[k.HEADER + n + seat * width + card] = 1
            seen.add(card)
    unseen = [c for c in range(variant.low_card, variant.high_card + 1) if c not in seen]
    start = k.HEADER + n + n * width
    s[start:start + len(unseen)] = unseen
    s[k.POOL] = len(unseen)
    return s
