"""The ToM0 state chunk: how the face-up card fits a player's cards (thesis §3.1).

The sequence category measures how valuable the card is to a player from its cards
alone, ignoring the tokens on it; together with the card, the tokens on it and the
player's own tokens it forms the state chunk that ToM0 matches against its instances.
"""
from __future__ import annotations

from ...rules import Category, sequence_category

__all__ = ["Category", "sequence_category", "state_chunk"]


def state_chunk(category: Category, card: int, tokens_on_card: int,
                tokens_owned: int) -> dict[str, object]:
    """The retrieval request of a ToM0 decision: an instance without its action slot."""
    return {"category": str(category), "card": card, "tokens_on_card": tokens_on_card,
            "tokens_owned": tokens_owned}
