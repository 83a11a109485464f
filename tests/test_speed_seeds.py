"""The batch seed derivation gives the very seeds of game_seed and agent_seed."""
from __future__ import annotations

import random

import numpy as np
import pytest

from nothanks.agents import make_agent
from nothanks.match import agent_seed, derive_seeds, game_seed
from nothanks.runner import play_game, play_games, seating


def _numpy_seed(entropy: list[int]) -> int:
    return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0]) >> 1


def test_derive_seeds_equals_numpy_seed_sequence_on_random_entropy():
    rng = random.Random(11)
    entropies = [
        [rng.choice([0, 1, 2**32 - 1, 2**32, rng.getrandbits(rng.randint(1, 200))])
         for _ in range(rng.randint(1, 6))]
        for _ in range(300)
    ] + [[2**63 - 1, 7], [0, 0], [5]]
    assert derive_seeds(entropies) == [_numpy_seed(e) for e in entropies]
    assert derive_seeds([(9, 4), (2**62 + 3, 3)]) == [game_seed(9, 4), agent_seed(2**62 + 3, 2)]


def test_derive_seeds_rejects_negative_entropy():
    with pytest.raises(ValueError, match="non-negative"):
        derive_seeds([[1, -2]])


def test_play_games_plays_the_games_play_game_plays_alone():
    specs = ("random", "heuristic", "random:p=0.2", "always-pass")
    for index, record in enumerate(play_games(list(specs), 3, 5)):
        pool = [make_agent(s) for s in specs]
        alone = play_game([pool[i] for i in seating(specs, index)], seed=game_seed(5, index),
                          game_id=index)
        assert record.seed == alone.seed
        assert [d.move() for d in record.decisions] == [d.move() for d in alone.decisions]
