"""Property tests over random games and variants (Hypothesis)."""
from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from nothanks.rules import Game, HiddenInformationError, Variant


@st.composite
def variants(draw) -> Variant:
    players = draw(st.integers(3, 7))
    low = draw(st.integers(1, 10))
    high = draw(st.integers(low + 1, low + 35))
    removed = draw(st.integers(0, high - low))
    tokens = draw(st.one_of(st.none(), st.integers(0, 12)))
    return Variant(players, low, high, removed, tokens, draw(st.booleans()))


def play_random(variant: Variant, seed: int, policy_seed: int, check=None) -> Game:
    game = Game(variant, seed)
    rng = random.Random(policy_seed)
    steps = 0
    while not game.over:
        if check:
            check(game)
        game.apply(rng.choice(game.legal_actions()))
        steps += 1
        assert steps <= variant.cards_played * (variant.players * (variant.tokens + 1) + 1)
    return game


@given(variants(), st.integers(0, 2**32), st.integers(0, 2**16))
def test_tokens_conserved_and_every_card_ends_with_one_player(variant, seed, policy_seed):
    total = variant.players * variant.tokens

    def check(game: Game) -> None:
        held = sum(game.tokens(s) for s in range(variant.players))
        assert held + game.tokens_on_card == total
        assert all(game.tokens(s) >= 0 for s in range(variant.players))

    game = play_random(variant, seed, policy_seed, check)
    assert sum(game.tokens(s) for s in range(variant.players)) == total
    taken = [c for s in range(variant.players) for c in game.cards(s)]
    assert len(taken) == len(set(taken)) == variant.cards_played
    assert not set(taken) & set(game.removed_cards)


@given(variants(), st.integers(0, 2**32), st.integers(0, 2**16))
def test_same_seed_same_game(variant, seed, policy_seed):
    a = play_random(variant, seed, policy_seed)
    b = play_random(variant, seed, policy_seed)
    assert a.history == b.history


@given(variants(), st.integers(0, 2**32), st.integers(0, 2**16))
def test_views_never_leak_hidden_information(variant, seed, policy_seed):
    def check(game: Game) -> None:
        for seat in range(variant.players):
            view = game.view(seat)
            assert view.cards_left == game.cards_left
            seen_cards = {c for cards in view.cards for c in cards} | {view.card}
            assert not seen_cards & set(game.removed_cards), "removed card visible"
            assert all(getattr(e, "card", None) not in game.removed_cards for e in view.history)
            other = (seat + 1) % variant.players
            if variant.open_tokens:
                assert view.tokens_of(other) == game.tokens(other)
            else:
                assert view._tokens is None
                try:
                    view.tokens_of(other)
                except HiddenInformationError:
                    pass
                else:
                    raise AssertionError("hidden tokens readable")

    play_random(variant, seed, policy_seed, check)
