"""Game variants: player count, deck, starting tokens and token visibility."""
from __future__ import annotations

from dataclasses import dataclass

#: Starting tokens by player count (thesis §2.1 for 3-5 players; the
#: published player-count variants for 6 and 7).
STARTING_TOKENS = {3: 11, 4: 11, 5: 11, 6: 9, 7: 7}


class VariantError(ValueError):
    """A variant parameter is out of range; the message says which and what is valid."""


@dataclass(frozen=True, slots=True)
class Variant:
    """The rules parameters of one game.

    The defaults are the thesis's game: 4 players, cards 3-35 with 9 removed unseen,
    11 tokens each, token counts hidden.
    """

    players: int = 4
    low_card: int = 3
    high_card: int = 35
    removed: int = 9
    starting_tokens: int | None = None
    open_tokens: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or not 3 <= self.players <= 7:
            raise VariantError(f"players={self.players!r} is not supported; valid: 3 to 7")
        if not (isinstance(self.low_card, int) and isinstance(self.high_card, int)):
            raise VariantError("low_card and high_card must be integers")
        if self.low_card < 1 or self.high_card <= self.low_card:
            raise VariantError(
                f"deck range {self.low_card}-{self.high_card} is invalid; "
                "need 1 <= low_card < high_card"
            )
        deck = self.high_card - self.low_card + 1
        if not isinstance(self.removed, int) or not 0 <= self.removed < deck:
            raise VariantError(
                f"removed={self.removed!r} is invalid for a deck of {deck} cards; "
                f"valid: 0 to {deck - 1}"
            )
        if self.starting_tokens is not None and (
            not isinstance(self.starting_tokens, int) or self.starting_tokens < 0
        ):
            raise VariantError(
                f"starting_tokens={self.starting_tokens!r} is invalid; "
                "valid: a non-negative integer or None (by player count)"
            )

    @property
    def tokens(self) -> int:
        """Tokens each player starts with."""
        if self.starting_tokens is not None:
            return self.starting_tokens
        return STARTING_TOKENS[self.players]

    @property
    def deck_size(self) -> int:
        """Number of cards in the box before any are removed."""
        return self.high_card - self.low_card + 1

    @property
    def cards_played(self) -> int:
        """Number of cards dealt face down and played (24 in the standard game)."""
        return self.deck_size - self.removed

    @classmethod
    def from_options(cls, options: dict[str, object]) -> Variant:
        """Build a variant from loosely typed options (CLI, TOML), with clear errors."""
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(options) - known)
        if unknown:
            raise VariantError(f"unknown variant option(s) {unknown}; valid: {sorted(known)}")
        return cls(**options)  # type: ignore[arg-type]
