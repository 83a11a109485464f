"""Many games between baseline players in one compiled call, on the rules kernel.

:func:`play` plays a batch of games between ``random``, ``heuristic`` and
``always-pass`` players (what :class:`nothanks.play.match.Match` plays one at a time; the
costs: docs/benchmarks.md, "Baseline games in batches") on the search's state array
(:mod:`nothanks.search.kernel`: the same transitions, scores and rank points) and writes
every decision into columns, with the same randomness as the Python engine:

- the deck is shuffled as ``random.Random(game_seed).shuffle`` shuffles it
  (:func:`nothanks.rules.deal`), on a Mersenne Twister written out here
  (:func:`mt_seed_lanes`, :func:`mt_next`: CPython's ``init_by_array`` and
  ``genrand_uint32``);
- a ``random`` agent draws ``random.Random(agent_seed).random()`` at each decision
  where it holds tokens (:func:`mt_random`: CPython's ``genrand_res53``).

``nothanks.play.batch`` turns the columns into the Python engine's records;
tests/integration/agreement/test_batch_engine.py checks the generator against ``random.Random`` and
whole games against :class:`~nothanks.play.match.Match`.

Kinds of player (``kinds[g, seat]``), each taking when out of tokens:

- :data:`RANDOM`: takes iff a uniform draw is below ``params[g, seat]`` (``p``);
- :data:`HEURISTIC`: takes iff the gain in card points minus the tokens on the card is
  at most ``params[g, seat]`` (``T``);
- :data:`ALWAYS_PASS`: passes whenever allowed.
"""
from __future__ import annotations

import numpy as np

from .kernel import (
    CARD,
    HEADER,
    LEFT,
    ON_CARD,
    OVER,
    PLAYERS,
    POOL,
    TO_MOVE,
    WIDTH,
    apply_pass,
    apply_take,
    gain,
    jit,
    outcome,
    reveal,
)

RANDOM, HEURISTIC, ALWAYS_PASS = 0, 1, 2
TAKE, PASS = 0, 1

#: The Mersenne Twister's size and shift (CPython's ``N`` and ``M``).
MT_N, MT_M = 624, 397
_MASK = 0xFFFFFFFF
#: Games whose generators are seeded together (in lanes, see :func:`mt_seed_lanes`).
CHUNK = 128


def _init_genrand(seed: int) -> np.ndarray:
    """CPython's ``init_genrand(seed)``: the state ``init_by_array`` starts from."""
    state = [seed]
    for i in range(1, MT_N):
        state.append((1812433253 * (state[-1] ^ (state[-1] >> 30)) + i) & _MASK)
    return np.array(state, dtype=np.uint32)


#: ``init_genrand(19650218)``, where every seeding by ``init_by_array`` starts.
START = _init_genrand(19650218)

#: Columns of the per-decision integer table :func:`play` fills (``true_tokens`` apart).
DECISION_FIELDS = ("game", "turn", "seat", "card", "on_card", "hand", "cards_left",
                   "neighbours", "action")


def seed_words(seed: int) -> tuple[int, int, int]:
    """``seed`` as ``random.Random(seed)`` reads it: (low word, high word, number of
    words) for a non-negative seed below 2**64 (a ValueError otherwise)."""
    if not 0 <= seed < 1 << 64:
        raise ValueError(f"seed {seed} is out of range; valid: 0 <= seed < 2**64")
    high = seed >> 32
    return seed & _MASK, high, 2 if high else 1


@jit
def mt_seed_lanes(mt, index, words, start):
    """Seed generator ``lane`` (column ``lane`` of ``mt``, ``MT_N x lanes`` uint32) as
    CPython's ``random.Random(seed)`` does, for every lane at once: ``init_by_array``
    with the seed's words (``words[lane]``: low word, high word, number of words).

    The lanes go through each step together: the inner loops over lanes vectorize (one
    seed's steps depend on each other; docs/benchmarks.md has the gain).
    ``index[lane]`` is set to 0: the first twist is done lazily by :func:`mt_next`.
    ``start``: :data:`START`. (Loops, not slice assignments: numba compiles those for
    seconds.)
    """
    lanes = mt.shape[1]
    add0 = np.empty(lanes, dtype=np.uint64)
    add1 = np.empty(lanes, dtype=np.uint64)
    for lane in range(lanes):
        low = np.uint64(words[lane, 0])
        # init_key[j] + j: the low word and 0, or the high word and 1, in turn
        add0[lane] = low
        add1[lane] = np.uint64(words[lane, 1] + 1) if words[lane, 2] == 2 else low
        index[lane] = 0
    for i in range(MT_N):
        value = start[i]
        for lane in range(lanes):
            mt[i, lane] = value
    i, j = 1, 0
    for _ in range(MT_N):  # max(N, key length) steps: the key has 1 or 2 words
        row, previous = mt[i], mt[i - 1]
        add = add0 if j == 0 else add1
        for lane in range(lanes):
            p = np.uint64(previous[lane])
            row[lane] = np.uint32((np.uint64(row[lane]) ^ ((p ^ (p >> np.uint64(30)))
                                                           * np.uint64(1664525))) + add[lane])
        i += 1
        j ^= 1
        if i >= MT_N:
            for lane in range(lanes):
                mt[0, lane] = mt[MT_N - 1, lane]
            i = 1
    for _ in range(MT_N - 1):
        row, previous = mt[i], mt[i - 1]
        step = np.uint64(i)
        for lane in range(lanes):
            p = np.uint64(previous[lane])
            row[lane] = np.uint32((np.uint64(row[lane]) ^ ((p ^ (p >> np.uint64(30)))
                                                           * np.uint64(1566083941))) - step)
        i += 1
        if i >= MT_N:
            for lane in range(lanes):
                mt[0, lane] = mt[MT_N - 1, lane]
            i = 1
    for lane in range(lanes):
        mt[0, lane] = 0x80000000


@jit
def mt_next(mt, index, lane):
    """The next 32-bit word of generator ``lane`` (CPython's ``genrand_uint32``).

    The twist is done one word at a time, as each is needed, in CPython's order and in
    place: word ``k`` reads words ``k + 1`` and ``k + M`` (mod ``N``) exactly as the
    full loop reads them, so the words are the same, and a game that draws fifty words
    does not twist all 624.
    """
    k = index[lane]
    if k >= MT_N:
        k = 0
    after = k + 1 if k + 1 < MT_N else 0
    ahead = k + MT_M if k < MT_N - MT_M else k + MT_M - MT_N
    y = (np.int64(mt[k, lane]) & 0x80000000) | (np.int64(mt[after, lane]) & 0x7FFFFFFF)
    y = np.int64(mt[ahead, lane]) ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    mt[k, lane] = y
    index[lane] = k + 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


@jit
def mt_random(mt, index, lane):
    """A float in [0, 1): ``random.Random.random`` (``genrand_res53``)."""
    a = mt_next(mt, index, lane) >> 5
    b = mt_next(mt, index, lane) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@jit
def shuffle(mt, index, lane, deck):
    """Shuffle ``deck`` in place as ``random.Random.shuffle`` does: Fisher-Yates from the
    last position, each index drawn by rejection from ``getrandbits`` (``_randbelow``)."""
    for i in range(deck.shape[0] - 1, 0, -1):
        choices = i + 1
        bits = 0
        while choices >> bits:
            bits += 1
        j = mt_next(mt, index, lane) >> (32 - bits)
        while j >= choices:
            j = mt_next(mt, index, lane) >> (32 - bits)
        deck[i], deck[j] = deck[j], deck[i]


def generators(seeds: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Generators in the states of ``random.Random(seed)`` for ``seeds``, one lane each:
    ``(mt, index)`` for :func:`mt_next`, :func:`mt_random` and :func:`shuffle`."""
    mt = np.zeros((MT_N, len(seeds)), dtype=np.uint32)
    index = np.zeros(len(seeds), dtype=np.int64)
    mt_seed_lanes(mt, index, np.array([seed_words(s) for s in seeds], dtype=np.int64), START)
    return mt, index


def decision_bound(players: int, tokens: int, cards_played: int) -> int:
    """The most decisions a game can take: on each card at most one pass per token in
    play (a pass moves a token from a player to the card), then the take."""
    return cards_played * (players * tokens + 1)


@jit
def play(first, low_card, high_card, cards_played, tokens, bound, game_words, kinds,
         params, seat_words, start, record, order, takers, finals, ranks, decisions, true_tokens,
         hand_cards, hand_starts, hand_ends, final_hands, counts):
    """Play games ``first, first + 1, ...`` of the batch until all are played or the next
    might not fit in ``decisions``; return the index after the last game played.

    ``bound``: :func:`decision_bound` of the variant. Per game ``g``: ``game_words[g]`` =
    (low word, high word, words) of its seed, ``kinds[g, seat]`` and ``params[g, seat]``
    its players, ``seat_words[g, seat]`` their seeds as words; ``start``: :data:`START`.
    Written per game: ``order[g]`` the cards in the order revealed, ``takers[g, i]``
    the seat that took ``order[g, i]``, ``finals[g]`` (tokens, then scores, then rank
    points: 3 x players floats) and ``ranks[g]``. With ``record``, one row of ``decisions``
    (:data:`DECISION_FIELDS`) and of ``true_tokens`` (every seat's tokens before the
    move) per decision, from row ``counts[0]`` on (advanced).

    Hands: after take ``i`` of game ``g`` (take ``t = g * cards_played + i``), the taker's
    cards, ascending, are ``hand_cards[hand_starts[g, i]:hand_ends[g, i]]``, written from
    ``counts[1]`` on (advanced). A hand's id is ``t + 1`` (0: no cards yet); the
    decisions' ``hand`` column is the mover's hand id, ``final_hands[g, seat]`` each
    seat's at the end. Stops early, too, when the next game's hands might not fit.

    The generators of :data:`CHUNK` games (the deal's and every seat's) are seeded
    together (:func:`mt_seed_lanes`) before those games are played.
    """
    games, players = kinds.shape
    deck_size = high_card - low_card + 1
    deck = np.empty(deck_size, dtype=np.int64)
    hand = np.zeros(players, dtype=np.int64)  # the id of every seat's hand
    size = np.zeros(players, dtype=np.int64)
    sorted_cards = np.zeros((players, cards_played), dtype=np.int64)
    hands_bound = cards_played * (cards_played + 1) // 2  # a game's hands, at most
    out = np.zeros(2 * players, dtype=np.float64)
    width = high_card + 2
    s = np.zeros(HEADER + players + players * width + deck_size, dtype=np.int64)  # new_state
    owned_at = HEADER + players
    pool_at = owned_at + players * width
    row, at = counts[0], counts[1]
    g = first
    while g < games:
        stop = min(games, g + CHUNK)
        lanes = (stop - g) * (players + 1)
        mt = np.empty((MT_N, lanes), dtype=np.uint32)
        index = np.empty(lanes, dtype=np.int64)
        words = np.empty((lanes, 3), dtype=np.int64)
        for k in range(g, stop):
            lane = (k - g) * (players + 1)
            for w in range(3):
                words[lane, w] = game_words[k, w]
                for seat in range(players):
                    words[lane + 1 + seat, w] = seat_words[k, seat, w]
        mt_seed_lanes(mt, index, words, start)
        for k in range(g, stop):
            if (record and row + bound > decisions.shape[0]
                    or at + hands_bound > hand_cards.shape[0]):
                counts[0], counts[1] = row, at
                return k
            lane = (k - g) * (players + 1)
            for i in range(deck_size):
                deck[i] = low_card + i
            shuffle(mt, index, lane, deck)
            # the state: tokens, no cards, the dealt cards as the unseen pool in reverse
            # order, so that revealing the pool's last card turns up the next of the deal
            for i in range(s.shape[0]):
                s[i] = 0
            s[PLAYERS] = players
            s[WIDTH] = width
            for seat in range(players):
                s[HEADER + seat] = tokens
                hand[seat] = 0
                size[seat] = 0
            for i in range(cards_played):
                order[k, i] = deck[i]
                s[pool_at + cards_played - 1 - i] = deck[i]
            s[POOL] = cards_played
            s[LEFT] = cards_played
            reveal(s, s[POOL] - 1)
            turn = 0
            taken = 0
            while not s[OVER]:
                seat = s[TO_MOVE]
                card = s[CARD]
                if s[HEADER + seat] == 0:
                    take = True
                elif kinds[k, seat] == RANDOM:
                    take = mt_random(mt, index, lane + 1 + seat) < params[k, seat]
                elif kinds[k, seat] == HEURISTIC:
                    take = gain(s, seat, card) - s[ON_CARD] <= params[k, seat]
                else:
                    take = False
                if record:
                    base = owned_at + seat * width
                    decisions[row, 0] = k
                    decisions[row, 1] = turn
                    decisions[row, 2] = seat
                    decisions[row, 3] = card
                    decisions[row, 4] = s[ON_CARD]
                    decisions[row, 5] = hand[seat]
                    decisions[row, 6] = s[LEFT]
                    decisions[row, 7] = s[base + card - 1] + s[base + card + 1]
                    decisions[row, 8] = TAKE if take else PASS
                    for other in range(players):
                        true_tokens[row, other] = s[HEADER + other]
                    row += 1
                turn += 1
                if take:
                    takers[k, taken] = seat
                    # the taker's cards stay ascending: the new card moves down into place
                    cards = sorted_cards[seat]
                    i = size[seat]
                    while i > 0 and cards[i - 1] > card:
                        cards[i] = cards[i - 1]
                        i -= 1
                    cards[i] = card
                    size[seat] += 1
                    hand_starts[k, taken] = at
                    for i in range(size[seat]):
                        hand_cards[at + i] = cards[i]
                    at += size[seat]
                    hand_ends[k, taken] = at
                    hand[seat] = k * cards_played + taken + 1
                    taken += 1
                    apply_take(s)
                    if not s[OVER]:
                        reveal(s, s[POOL] - 1)
                else:
                    apply_pass(s)
            outcome(s, out)
            for seat in range(players):
                final_hands[k, seat] = hand[seat]
                finals[k, seat] = s[HEADER + seat]
                finals[k, players + seat] = out[seat]
                finals[k, 2 * players + seat] = out[players + seat]
                better = 0
                for other in range(players):
                    if out[other] < out[seat]:
                        better += 1
                ranks[k, seat] = better + 1
        g = stop
    counts[0], counts[1] = row, at
    return g


def warm() -> None:
    """Compile (or load from numba's cache) :func:`play` and its helpers now."""
    kinds = np.zeros((1, 3), dtype=np.int64)
    words = np.zeros((1, 3, 3), dtype=np.int64)
    words[:, :, 2] = 1
    game_words = np.array([[0, 0, 1]], dtype=np.int64)
    play(0, 1, 3, 3, 1, decision_bound(3, 1, 3), game_words, kinds, np.full((1, 3), 0.5),
         words, START, True, np.zeros((1, 3), np.int64), np.zeros((1, 3), np.int64),
         np.zeros((1, 9)), np.zeros((1, 3), np.int64),
         np.zeros((12, len(DECISION_FIELDS)), np.int64), np.zeros((12, 3), np.int64),
         np.zeros(6, np.int64), np.zeros((1, 3), np.int64), np.zeros((1, 3), np.int64),
         np.zeros((1, 3), np.int64), np.zeros(2, np.int64))
