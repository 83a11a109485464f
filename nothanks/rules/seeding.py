"""Mersenne Twister generators in the state ``random.Random(seed)`` would have, for less.

Seeding is most of what dealing a game and starting a random agent cost (about 4 µs of
C work per seed that no call avoids). What can be skipped is around it: a new generator
object per deal, and ``random.Random.seed``'s Python-level checks of the seed's type.
"""
from __future__ import annotations

import random
import threading

#: The C seeding of ``random.Random`` (its base class, ``_random.Random``): for an int, all
#: that ``random.Random.seed`` does besides resetting ``gauss_next``.
_seed_state = random.Random.__mro__[1].seed


def reseed(rng: random.Random, seed: int | None) -> None:
    """Put ``rng`` in exactly the state of ``random.Random(seed)`` (``getstate()`` equal;
    tests/agreement/test_engine.py checks it)."""
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
