"""The rules engine's fast paths give what the plain calls give: the same deals and
generator states, events that behave like the frozen dataclasses they were, and the same
decision records from ``Match.run`` as from deciding one step at a time.

The batch seed derivation gives the very seeds of game_seed and agent_seed."""
from __future__ import annotations

import copy
import operator
import pickle
import random
import threading

import numpy as np
import pytest

from nothanks.agents import RandomAgent, make_agent
from nothanks.play.match import Match
from nothanks.play.runner import play_game, play_games, seating
from nothanks.rules import (
    CardRevealed,
    GameOver,
    Passed,
    Took,
    Variant,
    View,
    card_points,
    deal,
    reseed,
    seeded,
    sequence_gain,
)
from nothanks.rules.seeding import agent_seed, derive_seeds, game_seed

SEEDS = [0, 1, 2, 7, 2**31 - 1, 2**32, 2**32 + 5, 2**62 + 12345, 2**63 - 1, 2**100 + 3, -4]


def _plain_deal(variant: Variant, seed: int | str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The deal as ``random.Random(seed).shuffle`` makes it."""
    deck = list(range(variant.low_card, variant.high_card + 1))
    random.Random(seed).shuffle(deck)
    played = variant.cards_played
    return tuple(deck[:played]), tuple(sorted(deck[played:]))


@pytest.mark.parametrize("variant", [
    Variant(), Variant(players=3, low_card=1, high_card=8, removed=2),
    Variant(players=7, low_card=1, high_card=100, removed=0), Variant(high_card=4, low_card=3,
                                                                      removed=0),
])
def test_deal_is_the_shuffle_of_random_random(variant):
    rng = random.Random(3)
    seeds = SEEDS + [rng.getrandbits(63) for _ in range(400)] + ["a string seed"]
    for seed in seeds:
        assert deal(variant, seed) == _plain_deal(variant, seed), seed


def test_reseed_and_seeded_give_the_state_of_a_new_generator():
    rng = random.Random(99)
    rng.gauss(0.0, 1.0)  # leaves a gauss_next behind, which a new generator has not
    for seed in SEEDS + [random.Random(5).getrandbits(63) for _ in range(200)] + ["text", None]:
        reseed(rng, seed)
        if seed is None:  # fresh OS entropy: only check that it is usable
            rng.random()
            continue
        assert rng.getstate() == random.Random(seed).getstate(), seed
        assert seeded(seed).getstate() == random.Random(seed).getstate(), seed


def test_each_thread_deals_with_its_own_generator():
    mine = seeded(1)
    theirs = []
    worker = threading.Thread(target=lambda: theirs.append(seeded(1)))
    worker.start()
    worker.join()
    assert theirs[0] is not mine and seeded(2) is mine


def test_random_agent_draws_the_stream_of_random_random():
    agent = RandomAgent(p=0.5)
    for seed in (0, 2**62 + 1):
        agent.start(1, Variant(), seed)
        expected = random.Random(seed)
        assert [agent._draw() for _ in range(50)] == [expected.random() for _ in range(50)]


EVENTS = [CardRevealed(0, 20, 23), Passed(1, 0, 20, 1), Took(2, 1, 20, 1),
          GameOver(3, (10, 20, 30, 40), (1, 2, 3, 4), (3.0, 2.0, 1.0, 0.0))]


def test_events_compare_hash_and_print_like_frozen_dataclasses():
    passed, took = Passed(1, 0, 20, 1), Took(1, 0, 20, 1)
    assert passed == Passed(turn=1, seat=0, card=20, tokens_on_card=1)
    assert operator.ne(passed, Passed(1, 0, 20, 1)) is False
    assert passed != took and operator.eq(passed, took) is False  # same fields, other event
    plain = (1, 0, 20, 1)  # not equal to a plain tuple either, from either side
    assert operator.eq(passed, plain) is False and operator.eq(plain, passed) is False
    assert operator.ne(plain, passed) is True
    assert hash(passed) == hash(Passed(1, 0, 20, 1)) and len({passed, took}) == 2
    assert repr(took) == "Took(turn=1, seat=0, card=20, tokens=1)"
    assert repr(EVENTS[0]) == "CardRevealed(turn=0, card=20, cards_left=23)"
    for event in EVENTS:
        assert pickle.loads(pickle.dumps(event)) == event
        with pytest.raises(AttributeError):
            event.turn = 9
        with pytest.raises(AttributeError):
            event.other = 1
        with pytest.raises(TypeError):
            _ = event < event


def test_run_records_what_stepping_records():
    specs = ["random", "heuristic", "tom0", "random:p=0.2"]
    run = Match(specs, seed=31).run()
    stepped = Match(specs, seed=31)
    while not stepped.over:
        stepped.step()
    assert run.decisions == stepped.record().decisions
    assert run == stepped.record()
    empty = [d.info for d in run.decisions if d.agent != "tom0"]  # base decision_info
    assert empty and all(type(i) is dict and i == {} for i in empty)
    assert len({id(i) for i in empty}) == len(empty)  # one dict each, as the call made
    again = Match(specs, seed=31)
    again.run(record=False)
    assert again.game.history == stepped.game.history


def test_the_human_seat_is_recorded_as_human_whoever_plays_its_part():
    stand_in = make_agent("tom1")  # an agent playing the person's part
    match = Match([stand_in, "tom0", "random", "heuristic"], seed=4, human_seat=0)
    while not match.over:
        match.run_models()
        if match.human_turn:
            match.human_acts("take")
    record = match.record()
    assert record.kinds == ("human", "model", "model", "model")
    assert record.tom_orders == (None, 0, None, None)
    assert record.labels == ("ToM1", "ToM0", "random", "heuristic")
    assert record.cards == tuple(match.game.cards(seat) for seat in range(4))


def test_views_are_snapshots_equal_only_to_themselves():
    game = Match(["random"] * 4, Variant(open_tokens=True), seed=2).game
    view = game.view(1)
    assert (view.seat, view.to_move, view.card, view.own_tokens, view.cards_left) == (
        1, 0, game.card, 11, 23)
    assert view.tokens_of(3) == 11 and view.history == tuple(game.history)
    again = game.view(1)
    assert view != again and view == view and len({view, again}) == 2
    with pytest.raises(AttributeError):
        view.card = 3
    assert repr(view).startswith("View(seat=1, card=")
    for copied in (pickle.loads(pickle.dumps(view)), copy.deepcopy(view)):
        assert type(copied) is View and copied.history == view.history
        assert copied.tokens_of(2) == 11 and copied.cards == view.cards


def test_seeds_of_equal_length_entropies_split_into_words_by_arrays():
    """Rectangular entropies (the runner's) take the array path: values at the word and
    sign boundaries, one and two words, and widths within and beyond the pool's four."""
    rng = random.Random(1)
    values = [0, 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1, 2**63, 2**64 - 1]
    for width in (1, 2, 3, 5):
        entropies = [tuple(rng.choice(values + [rng.getrandbits(rng.randint(1, 64))])
                           for _ in range(width)) for _ in range(150)]
        assert derive_seeds(entropies) == [
            int(np.random.SeedSequence(list(e)).generate_state(1, np.uint64)[0]) >> 1
            for e in entropies]
    assert derive_seeds([]) == []
    with pytest.raises(ValueError, match="non-negative"):
        derive_seeds([(3, 4), (5, -1)])


def test_sequence_gain_is_the_difference_of_card_points():
    rng = random.Random(8)
    for _ in range(3000):
        cards = rng.sample(range(3, 36), rng.randint(0, 12))
        card = rng.randint(2, 36)  # owned cards and the deck's edges too
        expected = card_points(cards + [card]) - card_points(cards)
        assert sequence_gain(cards, card) == expected, (cards, card)
        assert sequence_gain(iter(sorted(cards)), card) == expected


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
