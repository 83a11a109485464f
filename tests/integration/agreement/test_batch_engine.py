"""The batch engine (nothanks.play.batch on nothanks.search.baseline_games) against the Python
engine: the same generator words as random.Random, the same deals as rules.deal, and the
same GameRecords as Match for the same seeds (3-7 players, several baseline mixes)."""
from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from nothanks.agents import make_agent
from nothanks.experiments.rows import compact_frames
from nothanks.kernels import reference_mode
from nothanks.play import batch
from nothanks.play.runner import play_games
from nothanks.rules import Variant, deal
from nothanks.search import baseline_games as bg

#: Seeds at the edges of random.Random's seeding: one word, two words, the largest.
EDGE_SEEDS = [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 123456789012345678]


def test_generators_are_random_random_across_a_twist():
    mt, index = bg.generators(EDGE_SEEDS)
    for lane, seed in enumerate(EDGE_SEEDS):
        expected = random.Random(seed)
        # 700 floats = 1,400 words: past the first 624-word twist and into the third
        assert [bg.mt_random(mt, index, lane) for _ in range(700)] == \
            [expected.random() for _ in range(700)], seed


@pytest.mark.parametrize("variant", [Variant(), Variant(players=7, low_card=1,
                                                        high_card=60, removed=3)])
def test_shuffle_is_the_deal(variant):
    mt, index = bg.generators(EDGE_SEEDS)
    for lane, seed in enumerate(EDGE_SEEDS):
        deck = np.arange(variant.low_card, variant.high_card + 1)
        bg.shuffle(mt, index, lane, deck)
        assert tuple(deck[:variant.cards_played].tolist()) == deal(variant, seed)[0]


MIXES = {
    "random": lambda n: ["random"] * n,
    "mixed": lambda n: (["random:p=0.3", "heuristic", "always-pass", "heuristic:T=-3",
                         "random:p=0.8", "heuristic:T=4", "random"])[:n],
    "passers": lambda n: ["always-pass"] * (n - 1) + ["heuristic:T=2.5"],
}


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("mix", sorted(MIXES))
def test_play_games_batch_gives_the_python_engines_records(players, mix):
    specs, variant = MIXES[mix](players), Variant(players=players)
    for record in (True, False):
        python = list(play_games(specs, 24, 11, variant, start=5, record=record,
                                 batch=False))
        batched = list(play_games(specs, 24, 11, variant, start=5, record=record))
        assert batched == python
        # field types too: a numpy int in a record would compare equal and log otherwise
        assert [type(v) for r in batched for d in r.decisions for v in d] == \
            [type(v) for r in python for d in r.decisions for v in d]
        # and the tables `nothanks simulate` writes from them
        for ours, theirs in zip(compact_frames(batched), compact_frames(python), strict=True):
            pd.testing.assert_frame_equal(ours, theirs)


def test_buffers_grow_for_long_games(monkeypatch):
    """Always-pass tables play hundreds of decisions a game: more than the first buffer
    holds (two games' worth of 64 plus room for the longest game)."""
    monkeypatch.setattr(batch, "CALL_GAMES", 2)
    specs, variant = ["always-pass"] * 4, Variant(starting_tokens=30)
    python = list(play_games(specs, 16, 3, variant, batch=False))
    first_buffer = 2 * 64 + bg.decision_bound(4, 30, variant.cards_played)
    assert sum(len(r.decisions) for r in python) > first_buffer
    assert list(play_games(specs, 16, 3, variant)) == python


def test_play_games_takes_the_batch_path_only_when_asked_and_able(monkeypatch):
    calls = []
    real = batch.play_batch

    def counting(*args, **kwargs):
        calls.append(len(args[0]))
        return real(*args, **kwargs)

    monkeypatch.setattr("nothanks.play.runner.play_batch", counting)
    list(play_games(["random", "heuristic", "always-pass", "random"], 300))
    assert calls == [256, 44]
    list(play_games(["random"] * 4, 5, batch=False))
    list(play_games(["tom0", "random", "random", "random"], 2))  # a model: one Match each
    with reference_mode():
        list(play_games(["random"] * 4, 5))
    assert calls == [256, 44]


def test_agents_the_kernel_cannot_play_are_refused():
    class Subclass(type(make_agent("random"))):
        pass

    variant, seeds = Variant(players=3), [1]
    for agent in (make_agent("tom0"), Subclass()):
        with pytest.raises(ValueError, match="cannot be played by the batch engine"):
            batch.play_columns([[make_agent("random"), make_agent("random"), agent]],
                               variant, seeds, [[1, 2, 3]])
    with pytest.raises(ValueError, match="give one of each per game"):
        batch.play_columns([[make_agent("random")] * 3], variant, [], [])
    with pytest.raises(ValueError, match="seed -1 is out of range"):
        batch.play_columns([[make_agent("random")] * 3], variant, [-1], [[1, 2, 3]])
