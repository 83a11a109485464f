"""The ToM0 state chunk: how the face-up card fits a player's cards (thesis §3.1).

The sequence category measures how valuable the card is to a player from its cards
alone, ignoring the tokens on it; together with the card, the tokens on it and the
player's own tokens it forms the state chunk that ToM0 matches against its instances.
"""
from __future__ import annotations

from ...rules import Category, sequence_category
from ...rules.scoring import CATEGORY_BY_NEIGHBOURS

__all__ = ["CATEGORY_NAMES", "Category", "category_name", "sequence_category", "state_chunk",
           "state_items"]

#: The category slot's value by how many of card - 1 and card + 1 a player owns:
#: ``str(sequence_category(cards, card))`` without the call (read at every decision).
CATEGORY_NAMES: tuple[str, ...] = tuple(str(category) for category in CATEGORY_BY_NEIGHBOURS)


def category_name(cards: tuple[int, ...], card: int) -> str:
    """``str(sequence_category(cards, card))``: the category slot's value of ``card`` for
    a player holding ``cards``, looked up by its owned neighbours."""
    return CATEGORY_NAMES[(card - 1 in cards) + (card + 1 in cards)]


def state_chunk(category: Category | str, card: int, tokens_on_card: int,
                tokens_owned: int) -> dict[str, object]:
    """The retrieval request of a ToM0 decision: an instance without its action slot
    (the category as its name, a plain ``str``)."""
    return dict(state_items(str(category), card, tokens_on_card, tokens_owned))


def state_items(category: str, card: int, tokens_on_card: int,
                tokens_owned: int) -> tuple[tuple[str, object], ...]:
    """The state chunk's ``(slot, value)`` items in order (``category`` a name): what
    ``DeclarativeMemory.retrieve_items`` takes, without the dict."""
    return (("category", category), ("card", card), ("tokens_on_card", tokens_on_card),
            ("tokens_owned", tokens_owned))
