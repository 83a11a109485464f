"""The policy-value network's input: seed 004's state encoding, rotated to the mover.

A search state (:mod:`nothanks.search.kernel`) becomes one float32 vector of
:func:`feature_size` entries, laid out as

- the seat grid, an array ``[players, cards, 2]`` flattened in C order: row ``i`` is
  the seat ``i`` places after the player to move (row 0: the mover, then the others in
  turn order); channel 0 is 1 where that seat holds the card (``low_card + j`` in
  column ``j``), channel 1 holds the seat's token count times :data:`TOKEN_SCALE`,
  replicated across the columns (seed 004, section 2.3);
- the table vector: the face-up card one-hot (``cards`` entries), the card's value
  divided by ``high_card``, the tokens on it times :data:`TOKEN_SCALE`, and the cards
  still face down divided by ``cards``.

``tokens="hidden"`` shows only what a seat's :class:`~nothanks.rules.View` shows: the
mover's own count exactly, and for every other seat an estimate, the tokens not
accounted for (every token in the game minus the mover's and those on the card) shared
evenly among the other seats. ``"public"`` shows every seat's count (seed 004's
assumption; also what perfect recall of the public passes and takes gives).
"""
from __future__ import annotations

import numpy as np

from .kernel import CARD, HEADER, LEFT, ON_CARD, PLAYERS, TO_MOVE, WIDTH, jit

#: Token modes: every count shown (``public``) or only the mover's (``hidden``).
TOKEN_MODES = ("public", "hidden")
#: Token counts enter the features multiplied by this (keeps inputs near [0, 1]).
TOKEN_SCALE = 0.1


def feature_size(players: int, low_card: int = 3, high_card: int = 35) -> int:
    """Length of the encoding for ``players`` seats and cards ``low_card..high_card``."""
    cards = high_card - low_card + 1
    return 2 * players * cards + cards + 3


def check_tokens(tokens: str) -> bool:
    """True for ``hidden``, False for ``public``; a ValueError names the valid modes."""
    if tokens not in TOKEN_MODES:
        raise ValueError(f"tokens={tokens!r} is unknown; valid: {', '.join(TOKEN_MODES)}")
    return tokens == "hidden"


@jit
def encode_into(s, low_card, hidden, x):
    """Write the encoding of state ``s`` into ``x`` (float32, :func:`feature_size` long)."""
    n = s[PLAYERS]
    width = s[WIDTH]
    high = width - 2
    cards = high - low_card + 1
    me = s[TO_MOVE]
    estimate = 0.0
    if hidden:
        for seat in range(n):
            if seat != me:
                estimate += s[HEADER + seat]
        estimate /= n - 1
    for i in range(n):
        seat = (me + i) % n
        base = HEADER + n + seat * width + low_card
        tokens = float(s[HEADER + seat]) if i == 0 or not hidden else estimate
        tokens *= TOKEN_SCALE
        row = 2 * i * cards
        for j in range(cards):
            x[row + 2 * j] = s[base + j]
            x[row + 2 * j + 1] = tokens
    table = 2 * n * cards
    for j in range(cards):
        x[table + j] = 0.0
    card = s[CARD]
    if card >= low_card:
        x[table + card - low_card] = 1.0
        x[table + cards] = card / high
    else:  # the game is over
        x[table + cards] = 0.0
    x[table + cards + 1] = s[ON_CARD] * TOKEN_SCALE
    x[table + cards + 2] = s[LEFT] / cards


def encode(s: np.ndarray, tokens: str = "public", low_card: int = 3) -> np.ndarray:
    """The float32 encoding of search state ``s`` (see the module docstring), rotated to
    the player to move ``s[TO_MOVE]``; ``low_card`` is the variant's lowest card (the
    state does not record it)."""
    hidden = check_tokens(tokens)
    high = int(s[WIDTH]) - 2
    if not 1 <= low_card < high:
        raise ValueError(f"low_card={low_card!r} does not fit the state (cards up to {high}); "
                         f"valid: 1 to {high - 1}")
    x = np.empty(feature_size(int(s[PLAYERS]), low_card, high), dtype=np.float32)
    encode_into(s, low_card, hidden, x)
    return x
