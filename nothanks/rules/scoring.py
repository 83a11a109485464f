"""Scoring and ranking: lowest score wins."""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterable, Sequence
from enum import StrEnum


def card_points(cards: Iterable[int]) -> int:
    """Sum of the lowest card of each run of consecutive cards (thesis §2.1)."""
    total = 0
    previous = None
    for card in sorted(cards):
        if previous is None or card != previous + 1:
            total += card
        previous = card
    return total


def score(cards: Iterable[int], tokens: int) -> int:
    """Final score: card points minus tokens held."""
    return card_points(cards) - tokens


def ranks_and_points(scores: Sequence[float]) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Places (1 = lowest score) and rank points for each player.

    Rank points are n-1, ..., 1, 0 for n players (3/2/1/0 with four). Tied players
    share the place of the best of them and the mean of the rank points they span
    (docs/models.md), so rank points always sum to n(n-1)/2.
    """
    n = len(scores)
    ordered = sorted(scores)
    ranks: list[int] = []
    points: list[float] = []
    for s in scores:
        better = bisect_left(ordered, s)
        tied = bisect_right(ordered, s) - better
        ranks.append(better + 1)
        # places better+1 .. better+tied earn points n-1-better down to n-better-tied; their
        # mean is a multiple of 1/2, so this division is exact
        points.append((2 * (n - 1 - better) - (tied - 1)) / 2)
    return tuple(ranks), tuple(points)


def sequence_gain(cards: Iterable[int], card: int) -> int:
    """Increase in card points if ``card`` were added to ``cards`` (can be negative).

    Only the card's neighbours matter: a card next to none of the owned cards starts a
    run (+card), one below an owned run becomes its lowest card (-1), one above an owned
    run adds nothing, and one between two runs joins them, so the upper run's lowest
    card no longer counts (-(card + 1)).
    """
    owned = cards if isinstance(cards, Collection) else tuple(cards)
    if card in owned:  # a card owned already counts again: the sums say how
        return card_points([*owned, card]) - card_points(owned)
    above = card + 1 in owned
    if card - 1 in owned:
        return -(card + 1) if above else 0
    return -1 if above else card


class Category(StrEnum):
    """Sequence category of the face-up card for one player (thesis §3.1).

    How the card would fit the player's cards, from its cards alone: a fact of the game
    that ToM0's state chunk uses and the decision log records.
    """

    #: neither card - 1 nor card + 1 is owned: the card would count its face value
    NO_SEQUENCE = "none"
    #: exactly one of card - 1 and card + 1 is owned: the card extends a run
    EXTENSION = "extension"
    #: both card - 1 and card + 1 are owned: the card joins two runs
    COMPLETION = "completion"


#: Category by the number of the card's neighbours the player owns (0, 1 or 2).
CATEGORY_BY_NEIGHBOURS = (Category.NO_SEQUENCE, Category.EXTENSION, Category.COMPLETION)


def sequence_category(cards: Collection[int], card: int) -> Category:
    """The category of ``card`` for a player who owns ``cards`` (a ``str``: its value)."""
    return CATEGORY_BY_NEIGHBOURS[(card - 1 in cards) + (card + 1 in cards)]
