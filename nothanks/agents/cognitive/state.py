"""The ToM0 state chunk: how the face-up card fits a player's cards (thesis §3.1).

The sequence category measures how valuable the card is to a player from its cards
alone, ignoring the tokens on it; together with the card, the tokens on it and the
player's own tokens it forms the state chunk that ToM0 matches against its instances.
"""
from __future__ import annotations

from collections.abc import Collection
from enum import StrEnum


class Category(StrEnum):
    """Sequence category of the face-up card for one player (thesis §3.1)."""

    #: neither card - 1 nor card + 1 is owned: the card would count its face value
    NO_SEQUENCE = "none"
    #: exactly one of card - 1 and card + 1 is owned: the card extends a run
    EXTENSION = "extension"
    #: both card - 1 and card + 1 are owned: the card joins two runs
    COMPLETION = "completion"


def sequence_category(cards: Collection[int], card: int) -> Category:
    """The category of ``card`` for a player who owns ``cards``."""
    neighbours = (card - 1 in cards) + (card + 1 in cards)
    return (Category.NO_SEQUENCE, Category.EXTENSION, Category.COMPLETION)[neighbours]


def state_chunk(category: Category, card: int, tokens_on_card: int,
                tokens_owned: int) -> dict[str, object]:
    """The retrieval request of a ToM0 decision: an instance without its action slot."""
    return {"category": str(category), "card": card, "tokens_on_card": tokens_on_card,
            "tokens_owned": tokens_owned}
