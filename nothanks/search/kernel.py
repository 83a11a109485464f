"""A compact copy of the rules for search: one int64 array per game state, compiled loops.

The search plays tens of thousands of moves per decision, far more than the
object-based :class:`nothanks.rules.Game` can afford; this module holds the same rules
in one flat ``int64`` array and plain functions that numba compiles. A property test
(``tests/unit/test_search_rules.py``) plays the same actions through both and checks that
they agree on every state, score and rank.

State layout (``HEADER`` fields, then three blocks):

    [card, on_card, to_move, left, pool, over, players, width,
     tokens[players], owned[players * width], pool_cards[...]]

``card`` is the face-up card (-1 once the game is over), ``left`` how many cards are
still to be revealed after it, ``pool`` how many cards are unseen (still face down or
removed unseen), ``owned[seat * width + c]`` is 1 if ``seat`` holds card ``c``
(``width = high_card + 2`` so that ``c + 1`` is always a valid index), and
``pool_cards[:pool]`` are the unseen cards. Drawing a card uniformly from the unseen
pool is exactly drawing the next card of a uniformly shuffled deck whose removed cards
nobody has seen.

numba is imported when this module is (the search imports it on first use, so
``import nothanks`` stays fast); compiled functions are cached on disk. Without numba,
or with ``NOTHANKS_REFERENCE=1``, the same functions run as plain Python (slow but
identical).
"""
from __future__ import annotations

import numpy as np

from ..kernels import tom as tom_core
from ..kernels.compiling import COMPILED, jit

__all__ = ["COMPILED", "jit"]  # (re-exported: the switch lives in compiling)

CARD, ON_CARD, TO_MOVE, LEFT, POOL, OVER, PLAYERS, WIDTH = range(8)
HEADER = 8
TAKE, PASS = 0, 1
HEURISTIC, RANDOM, MODEL = 0, 1, 2
#: Every seat's count of assumed counts (exact counts: one).
_ONE_COUNT = np.ones(16, np.int64)


def new_state(players: int, high_card: int, deck_size: int) -> np.ndarray:
    """An empty state array for ``players`` seats and cards up to ``high_card``."""
    width = high_card + 2
    s = np.zeros(HEADER + players + players * width + deck_size, dtype=np.int64)
    s[PLAYERS] = players
    s[WIDTH] = width
    return s


@jit
def owned(s, seat, card):
    """1 if ``seat`` holds ``card``."""
    return s[HEADER + s[PLAYERS] + seat * s[WIDTH] + card]


@jit
def gain(s, seat, card):
    """Increase of ``seat``'s card points if it took ``card`` (negative when it joins runs)."""
    base = HEADER + s[PLAYERS] + seat * s[WIDTH]
    points = 0 if s[base + card - 1] else card
    if s[base + card + 1]:
        points -= card + 1
    return points


@jit
def apply_pass(s):
    """The player to move places a token on the card (the caller checks it has one)."""
    seat = s[TO_MOVE]
    s[HEADER + seat] -= 1
    s[ON_CARD] += 1
    s[TO_MOVE] = (seat + 1) % s[PLAYERS]


@jit
def apply_take(s):
    """The player to move takes the card and its tokens; ends the game after the last card.

    Unless the game is over, the caller reveals the next card with :func:`reveal`.
    """
    seat = s[TO_MOVE]
    n = s[PLAYERS]
    s[HEADER + seat] += s[ON_CARD]
    s[HEADER + n + seat * s[WIDTH] + s[CARD]] = 1
    s[ON_CARD] = 0
    if s[LEFT] == 0:
        s[OVER] = 1
        s[CARD] = -1


@jit
def reveal(s, index):
    """Turn up the unseen card at ``pool_cards[index]``; it leaves the unseen pool."""
    n = s[PLAYERS]
    start = HEADER + n + n * s[WIDTH]
    last = start + s[POOL] - 1
    card = s[start + index]
    s[start + index] = s[last]
    s[last] = card
    s[POOL] -= 1
    s[LEFT] -= 1
    s[CARD] = card
    return card


@jit
def find_in_pool(s, card):
    """Index of ``card`` among the unseen cards, or -1."""
    n = s[PLAYERS]
    start = HEADER + n + n * s[WIDTH]
    for i in range(s[POOL]):
        if s[start + i] == card:
            return i
    return -1


@jit
def card_points(s, seat):
    """Sum of the lowest card of each run ``seat`` holds."""
    base = HEADER + s[PLAYERS] + seat * s[WIDTH]
    total = 0
    for c in range(1, s[WIDTH] - 1):
        if s[base + c] and not s[base + c - 1]:
            total += c
    return total


@jit
def outcome(s, out):
    """Final scores into ``out[:n]`` and rank points into ``out[n:2n]`` (ties share)."""
    n = s[PLAYERS]
    for seat in range(n):
        out[seat] = card_points(s, seat) - s[HEADER + seat]
    for seat in range(n):
        better = 0
        tied = 0
        for other in range(n):
            if out[other] < out[seat]:
                better += 1
            elif out[other] == out[seat]:
                tied += 1
        # places better+1 .. better+tied share points n-1-better down to n-better-tied
        out[n + seat] = (2 * (n - 1 - better) - (tied - 1)) / 2.0


@jit
def next_random(rng):
    """A float in [0, 1) from the xorshift64* generator whose state is ``rng[0]``."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return ((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@jit
def draw(s, rng):
    """Reveal a card drawn uniformly from the unseen pool; return it."""
    return reveal(s, int(next_random(rng) * s[POOL]))


@jit
def rollout(s, policy, threshold, ratio, rng, out, spread=0.0):
    """Play ``s`` to the end (in place) and write the outcome (see :func:`outcome`).

    ``policy`` HEURISTIC: every player takes iff its point gain minus the tokens on the
    card is at most ``threshold``, or the tokens on the card reach ``ratio`` times the
    gain; with ``spread`` > 0 each such decision draws its ratio uniformly from
    ``ratio`` ± ``spread`` (players whose taking point varies from move to move, as the
    models' noisy retrievals do). RANDOM: takes with probability 1/2. Both take when out
    of tokens.
    """
    while not s[OVER]:
        seat = s[TO_MOVE]
        if s[HEADER + seat] == 0:
            take = True
        elif policy == HEURISTIC:
            points = gain(s, seat, s[CARD])
            level = ratio
            if spread > 0.0:
                level += spread * (2.0 * next_random(rng) - 1.0)
            take = points - s[ON_CARD] <= threshold or s[ON_CARD] >= level * points
        else:
            take = next_random(rng) < 0.5
        if take:
            apply_take(s)
            if not s[OVER]:
                draw(s, rng)
        else:
            apply_pass(s)
    outcome(s, out)


@jit
def tom0_take(s, table, seat, on_card, tokens):
    """P(ToM0 takes the face-up card) for ``seat`` holding ``tokens`` with ``on_card``
    tokens on it, from ``table`` (:func:`nothanks.agents.population.tom0_take_table`)."""
    card = s[CARD]
    base = HEADER + s[PLAYERS] + seat * s[WIDTH]
    last = table.shape[2] - 1
    return table[s[base + card - 1] + s[base + card + 1], card, min(on_card, last),
                 min(tokens, last)]


@jit
def skips(s, table, order, seat, tokens, scratch):
    """Whether a ToM-``order`` model at ``seat`` (order >= 1) holding ``tokens`` whose
    ToM0 says take predicts every other player to pass, and so passes instead.

    The models' own compiled recursion (:func:`nothanks.kernels.tom.reason`) with
    exact counts, every other player projected, and ToM0 read from ``table``
    (:func:`tom0_take`: a prediction takes when P(take) >= 1/2). ``scratch``: an int64
    array of at least two rows of at least ``players`` (each seat's category of the
    card, then the counts)."""
    n = s[PLAYERS]
    card = s[CARD]
    categories = scratch[0]
    world = scratch[1:2]
    for i in range(n):
        base = HEADER + n + i * s[WIDTH]
        categories[i] = s[base + card - 1] + s[base + card + 1]
        world[0, i] = s[HEADER + i]
    takes = tom_core.reason(order, seat, s[ON_CARD], tokens, -1, True, True, 1, categories,
                            _ONE_COUNT[:n], world, table[:, card], None, None)[0]
    return not takes


@jit
def take_probability(s, kind, threshold, table, order, scratch):
    """P(the player to move takes) as a player of ``kind``: MODEL, a ToM-``order`` model
    (:func:`model_takes`), or HEURISTIC, taking iff its point gain minus the tokens on the
    card is at most ``threshold`` (the ``heuristic`` agent). 1 when out of tokens."""
    seat = s[TO_MOVE]
    tokens = s[HEADER + seat]
    if tokens == 0:
        return 1.0
    if kind == HEURISTIC:
        return 1.0 if gain(s, seat, s[CARD]) - s[ON_CARD] <= threshold else 0.0
    p = tom0_take(s, table, seat, s[ON_CARD], tokens)
    if order > 0 and p > 0.0 and skips(s, table, order, seat, tokens, scratch):
        return 0.0
    return p


@jit
def model_takes(s, table, order, rng, scratch):
    """The player to move's choice as a ToM-``order`` model (exact token counts): its own
    ToM0 takes with the table's probability; at order >= 1 a take becomes a pass when
    every other player is predicted to pass (:func:`skips`)."""
    seat = s[TO_MOVE]
    tokens = s[HEADER + seat]
    if tokens == 0:
        return True
    if next_random(rng) >= tom0_take(s, table, seat, s[ON_CARD], tokens):
        return False
    return order == 0 or not skips(s, table, order, seat, tokens, scratch)


@jit
def player_takes(s, kinds, thresholds, table, order, rng, scratch):
    """The player to move's choice as the kind of player ``kinds[seat]`` says (MODEL:
    :func:`model_takes`; HEURISTIC with ``thresholds[seat]``: see :func:`take_probability`)."""
    seat = s[TO_MOVE]
    if kinds[seat] == MODEL:
        return model_takes(s, table, order, rng, scratch)
    return take_probability(s, HEURISTIC, thresholds[seat], table, order, scratch) > 0.5


@jit
def sample_kinds(cumulative, kinds, thresholds, rng, seat_kinds, seat_thresholds):
    """Draw every seat's kind of player: seat ``i`` gets kind ``j`` with probability
    ``cumulative[i, j] - cumulative[i, j - 1]`` (rows: cumulative posteriors, ending at 1)."""
    for seat in range(cumulative.shape[0]):
        u = next_random(rng)
        j = 0
        while j < cumulative.shape[1] - 1 and u >= cumulative[seat, j]:
            j += 1
        seat_kinds[seat] = kinds[j]
        seat_thresholds[seat] = thresholds[j]


@jit
def model_rollout(s, kinds, thresholds, table, order, rng, out, scratch):
    """Play ``s`` to the end with every seat the kind of player ``kinds`` says
    (:func:`player_takes`) and write the outcome (see :func:`outcome`). ``scratch``:
    an int64 array ``(order + 1, players)``."""
    while not s[OVER]:
        if player_takes(s, kinds, thresholds, table, order, rng, scratch):
            apply_take(s)
            if not s[OVER]:
                draw(s, rng)
        else:
            apply_pass(s)
    outcome(s, out)


@jit
def apply_actions(s, actions, order, out):
    """Apply ``actions`` (TAKE/PASS) revealing ``order`` after each take; return how many
    were applied before one was illegal (a pass without tokens, or a move after the end).
    Writes the outcome to ``out`` if the game ended. For checking against the rules."""
    revealed = 0
    for i in range(actions.shape[0]):
        if s[OVER]:
            return i
        if actions[i] == PASS:
            if s[HEADER + s[TO_MOVE]] == 0:
                return i
            apply_pass(s)
        else:
            apply_take(s)
            if not s[OVER]:
                reveal(s, find_in_pool(s, order[revealed]))
                revealed += 1
    if s[OVER]:
        outcome(s, out)
    return actions.shape[0]
