"""The rules of No Thanks!: variants, state, views, events, scoring."""
from .events import Action, CardRevealed, Event, GameOver, Passed, Took
from .game import Game, IllegalActionError, deal
from .scoring import (
    Category,
    card_points,
    ranks_and_points,
    score,
    sequence_category,
    sequence_gain,
)
from .seeding import reseed, seeded
from .variant import STARTING_TOKENS, Variant, VariantError
from .view import HiddenInformationError, View

__all__ = [
    "Action", "CardRevealed", "Event", "GameOver", "Passed", "Took", "Game",
    "IllegalActionError", "deal", "Category", "card_points", "ranks_and_points", "score",
    "sequence_category", "sequence_gain", "STARTING_TOKENS", "Variant", "VariantError",
    "HiddenInformationError", "View", "reseed", "seeded",
]
