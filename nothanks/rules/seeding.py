"""The seeds module: every seed the suite derives, derived here.

A run's games, its agents and every study built on them are reproducible from one root
seed because each seed below is a pure function of its inputs:

- :func:`game_seed` and :func:`agent_seed`: a game's seed from the run's root seed and
  the game's position, an agent's seed from its game's seed and its seat (NumPy's
  ``SeedSequence``, 63 bits); :func:`derive_seeds` gives the same seeds for a batch, and
  :func:`agent_seeds` every agent seed of a batch of games (the one batch form, used by
  every loop that plays games; a placebo replay's other agent seeds are the same rule
  with another seat offset);
- :func:`stream_seeds`: the seeds of one agent's several ``random.Random`` streams;
- :func:`derive_seed`: the same derivation for any other entropy (a study's trial, a
  search's turn);
- :func:`seed_words`: seeds of any size as ``SeedSequence`` entropy words;
- :func:`text_seed`, :func:`key_seed` and :func:`name_word`: seeds from names (a
  participant's id, a logged decision graded by the search, a perturbation's operation);
- :func:`stream`: a NumPy generator from entropy; :func:`state_words`: raw state words;
  :func:`spawn`: independent child sequences of a seed;
- :func:`reseed` and :func:`seeded`: Mersenne Twister generators in the state
  ``random.Random(seed)`` would have, without a new generator object per deal and
  without ``random.Random.seed``'s Python-level checks of the seed's type (what seeding
  costs: docs/benchmarks.md).
"""
from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: Largest root seed: game and agent seeds derive from it through NumPy's SeedSequence
#: (any non-negative integer), and the logs store it as a signed 64-bit integer.
MAX_SEED = 2**63 - 1

#: The C seeding of ``random.Random`` (its base class, ``_random.Random``): for an int, all
#: that ``random.Random.seed`` does besides resetting ``gauss_next``.
_seed_state = random.Random.__mro__[1].seed


def reseed(rng: random.Random, seed: int | None) -> None:
    """Put ``rng`` in exactly the state of ``random.Random(seed)`` (``getstate()`` equal;
    tests/integration/agreement/test_engine.py checks it)."""
    if type(seed) is int:
        _seed_state(rng, seed)
        rng.gauss_next = None
    else:  # None, str, bytes...: the full method with its conversions
        rng.seed(seed)


_per_thread = threading.local()


def seeded(seed: int | None) -> random.Random:
    """A generator in the state of ``random.Random(seed)``, reused: this thread's own,
    so it is valid until this thread asks for the next one (for a use that ends first,
    like shuffling a deck)."""
    try:
        rng = _per_thread.rng
    except AttributeError:
        rng = _per_thread.rng = random.Random(0)
    reseed(rng, seed)
    return rng


def derive_seed(*entropy: int) -> int:
    """A 63-bit seed from non-negative ints: ``SeedSequence(entropy)``'s first 64-bit state
    word, shifted right by one."""
    import numpy as np  # on first use: importing the rules loads no numpy
    state = np.random.SeedSequence(list(entropy)).generate_state(1, np.uint64)[0]
    return int(state) >> 1


def game_seed(root_seed: int, game_index: int) -> int:
    """Seed of game ``game_index`` of a run with ``root_seed`` (63-bit, position-based)."""
    return derive_seed(root_seed, game_index)


#: An agent's seed is ``derive_seed(game seed, AGENT_SEAT_OFFSET + seat)``.
AGENT_SEAT_OFFSET = 1


def agent_seed(seed: int, seat: int, offset: int = AGENT_SEAT_OFFSET) -> int:
    """Seed for the agent in ``seat`` of the game with ``seed`` (``offset``: another
    family of agent seeds for the same deals, e.g. a placebo replay's)."""
    return derive_seed(seed, offset + seat)


def agent_seeds(game_seeds: Sequence[int], players: int,
                offset: int = AGENT_SEAT_OFFSET) -> list[list[int]]:
    """:func:`agent_seed` of every seat of every game, derived at once
    (:func:`derive_seeds`): one list of ``players`` seeds per game seed, in order."""
    flat = derive_seeds([(seed, offset + seat) for seed in game_seeds
                         for seat in range(players)])
    return [flat[k:k + players] for k in range(0, len(flat), players)]


def stream_seeds(seed: int, streams: int) -> list[int]:
    """Seeds of an agent's ``streams`` separate ``random.Random`` streams from its one
    agent seed: ``seed, seed + 1, ...`` (the human stand-in's rule; kept because the
    shipped synthetic participants were drawn with it). New code derives streams with
    :func:`derive_seed` or :func:`spawn` instead."""
    return [seed + k for k in range(streams)]


def seed_words(*values: int) -> list[int]:
    """Seeds as ``SeedSequence`` entropy: each value (a 63-bit game seed, say) split into
    its low and high 32-bit words."""
    return [part for value in map(int, values) for part in (value & 0xFFFFFFFF, value >> 32)]


def state_words(*entropy: int, words: int = 1, dtype: type | None = None) -> np.ndarray:
    """``SeedSequence(entropy).generate_state(words, dtype)``: raw state words (a search's
    generator state, a seed of 32 bits); ``dtype`` defaults to ``numpy.uint32``."""
    import numpy as np  # on first use: importing the rules loads no numpy
    return np.random.SeedSequence(list(entropy)).generate_state(
        words, np.uint32 if dtype is None else dtype)


def spawn(seed: int, count: int) -> list[np.random.SeedSequence]:
    """``count`` independent child sequences of ``SeedSequence(seed)`` (e.g. one per
    memory of a model)."""
    import numpy as np  # on first use: importing the rules loads no numpy
    return np.random.SeedSequence(seed).spawn(count)


def stream(*entropy: int) -> np.random.Generator:
    """A NumPy generator seeded with ``SeedSequence(entropy)``."""
    import numpy as np  # on first use: importing the rules loads no numpy
    return np.random.default_rng(np.random.SeedSequence(list(entropy)))


def text_seed(text: str) -> int:
    """A 60-bit seed from a name (a participant's id): the first 15 hex digits of its
    SHA-256."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:15], 16)


def key_seed(text: str) -> int:
    """A 63-bit seed from a key (a logged decision's identity): its 8-byte BLAKE2b digest,
    read little-endian, shifted right by one."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(),
                          "little") >> 1


def name_word(text: str) -> int:
    """A 32-bit entropy word from a name (a perturbation's operation): its 4-byte BLAKE2b
    digest."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "big")


_WORD = 0xFFFFFFFF


def _hashmix(value: np.ndarray, constant: int) -> tuple[np.ndarray, int]:
    """SeedSequence's hash of a word (elementwise); returns the next hash constant too."""
    import numpy as np  # on first use: importing the rules loads no numpy
    value = value ^ np.uint32(constant)
    constant = (constant * 0x931E8875) & _WORD
    value = value * np.uint32(constant)
    return value ^ (value >> np.uint32(16)), constant


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    import numpy as np  # on first use: importing the rules loads no numpy
    mixed = np.uint32(0xCA01F9DD) * x - np.uint32(0x4973F715) * y
    return mixed ^ (mixed >> np.uint32(16))


def _words(value: int) -> list[int]:
    """``value`` as SeedSequence reads an int: 32-bit words, least significant first."""
    if value < 0:
        raise ValueError(f"a seed must be a non-negative integer, not {value}")
    words = [value & _WORD]
    value >>= 32
    while value:
        words.append(value & _WORD)
        value >>= 32
    return words


def derive_seeds(entropies: Sequence[Sequence[int]]) -> list[int]:
    """``int(SeedSequence(e).generate_state(1, uint64)[0]) >> 1`` for every ``e`` at once.

    The same 63-bit seeds as :func:`game_seed` and :func:`agent_seed` (their entropy is
    ``[root, index]`` and ``[seed, 1 + seat]``): NumPy's SeedSequence hashing, replayed
    on ``uint32`` arrays (whose arithmetic wraps like its C code), one array operation per
    step for a whole batch (tests/integration/agreement/test_engine.py checks every value; the cost
    per seed: docs/benchmarks.md).
    """
    seeds = [0] * len(entropies)
    for positions, entropy in _word_rows(entropies):
        for position, seed in zip(positions, _hash_words(entropy).tolist(), strict=True):
            seeds[position] = seed
    return seeds


def _word_rows(entropies: Sequence[Sequence[int]]) -> list[tuple[list[int], np.ndarray]]:
    """The entropies as SeedSequence reads them, grouped by their number of 32-bit words:
    (positions in ``entropies``, words x entropies array of ``uint32``) per group.

    Entropies of equal length with every value below 2**64 (a run's seeds) are split into
    words by array operations; any others word by word in Python.
    """
    import numpy as np  # on first use: importing the rules loads no numpy
    try:
        table = np.asarray(entropies) if len(entropies) else np.empty((0, 0), np.int64)
    except (ValueError, OverflowError, TypeError):  # ragged
        return _word_rows_one_by_one(entropies)
    if table.ndim != 2 or table.dtype.kind not in "iu":  # huge or not integers
        return _word_rows_one_by_one(entropies)
    if table.dtype.kind == "i":
        if (table < 0).any():
            return _word_rows_one_by_one(entropies)  # for its error message
        table = table.astype(np.uint64)
    low = (table & np.uint64(_WORD)).astype(np.uint32)
    high = (table >> np.uint64(32)).astype(np.uint32)
    two_words = high != 0  # a value of 2**32 or more is two words, low first
    pattern = two_words @ (np.uint64(1) << np.arange(table.shape[1], dtype=np.uint64))
    groups = []
    for code in np.unique(pattern).tolist():
        rows = np.flatnonzero(pattern == code)
        words = []
        for column in range(table.shape[1]):
            words.append(low[rows, column])
            if code >> column & 1:
                words.append(high[rows, column])
        groups.append((rows.tolist(), np.array(words, dtype=np.uint32)))
    return groups


def _word_rows_one_by_one(
        entropies: Sequence[Sequence[int]]) -> list[tuple[list[int], np.ndarray]]:
    """:func:`_word_rows` for any entropies, one value at a time."""
    import numpy as np  # on first use: importing the rules loads no numpy
    rows = [[word for value in entropy for word in _words(value)] for entropy in entropies]
    by_length: dict[int, list[int]] = {}
    for position, words in enumerate(rows):
        by_length.setdefault(len(words), []).append(position)
    return [(positions, np.array([rows[p] for p in positions], dtype=np.uint32).T)
            for positions in by_length.values()]


def _hash_words(entropy: np.ndarray) -> np.ndarray:
    """SeedSequence's first 64-bit state word, shifted right by one, for every column of
    ``entropy`` (words x entropies, ``uint32``)."""
    import numpy as np  # on first use: importing the rules loads no numpy
    length = entropy.shape[0]
    zero = np.zeros(entropy.shape[1], dtype=np.uint32)
    constant = 0x43B0D7E5
    pool = []
    for i in range(4):  # the pool's 4 words: hashed entropy (or zeros)
        word, constant = _hashmix(entropy[i] if i < length else zero, constant)
        pool.append(word)
    for source in range(4):  # every word mixed into every other
        for target in range(4):
            if source != target:
                hashed, constant = _hashmix(pool[source], constant)
                pool[target] = _mix(pool[target], hashed)
    for source in range(4, length):  # entropy beyond the pool's size
        for target in range(4):
            hashed, constant = _hashmix(entropy[source], constant)
            pool[target] = _mix(pool[target], hashed)
    halves, constant = [], 0x8B51F9DD  # generate_state: two 32-bit words, low first
    for word in pool[:2]:
        word = word ^ np.uint32(constant)
        constant = (constant * 0x58F38DED) & _WORD
        word = word * np.uint32(constant)
        halves.append((word ^ (word >> np.uint32(16))).astype(np.uint64))
    return ((halves[1] << np.uint64(32)) | halves[0]) >> np.uint64(1)
