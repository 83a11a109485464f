"""The OpenSpiel game ``python_no_thanks`` (nothanks.integrations.openspiel): OpenSpiel's
own conformance test, a step-by-step differential check against :class:`Game`, and what
each seat's observers show."""
from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest

from nothanks.integrations import openspiel as nt_openspiel
from nothanks.rules import Game, GameOver, Variant, deal

CHANCE = pyspiel.PlayerId.CHANCE


@pytest.mark.parametrize("spec", [
    "python_no_thanks",
    "python_no_thanks(players=3)",
    "python_no_thanks(players=7,open_tokens=True)",
    "python_no_thanks(players=5,low_card=1,high_card=12,removed=0,starting_tokens=2)",
])
def test_random_sim_test_passes_with_serialization(spec):
    """OpenSpiel's own random-simulation test (legal actions, chance, observers, clones,
    serialization by history) on the thesis game and the edge player counts."""
    game = pyspiel.load_game(spec)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_parameters_make_the_variant_and_bad_ones_are_refused():
    game = pyspiel.load_game("python_no_thanks(players=6,removed=4)")
    assert game.num_players() == 6
    assert game.variant == Variant(players=6, removed=4)
    assert game.get_type().short_name == nt_openspiel.SHORT_NAME
    assert game.get_parameters()["open_tokens"] is False  # hidden tokens: the default
    # the loading strings of docs/openspiel.md
    assert pyspiel.load_game("python_no_thanks(players=4)").variant == Variant()
    assert pyspiel.load_game("python_no_thanks(open_tokens=true)").variant.open_tokens
    with pytest.raises(Exception, match=r"players=8 is not supported; valid: 3 to 7"):
        pyspiel.load_game("python_no_thanks(players=8)")
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['jokers'\]"):
        nt_openspiel.variant_from_params({"jokers": 1})


def _play_both(variant: Variant, seed: int, actions_rng: random.Random):
    """Play one seeded deal in OpenSpiel and in our Game side by side, checking at every
    step that both agree; returns the final OpenSpiel state and Game."""
    order, removed = deal(variant, seed)
    params = {"players": variant.players, "open_tokens": variant.open_tokens}
    state = pyspiel.load_game(nt_openspiel.SHORT_NAME, params).new_initial_state()
    ours = Game(variant, seed)
    low = variant.low_card
    for card in removed:  # the removals: chance, never observed
        assert state.current_player() == CHANCE
        assert card - low in dict(state.chance_outcomes())
        state.apply_action(card - low)
    reveals = iter(order)
    while not ours.over:
        if state.current_player() == CHANCE:  # a reveal: the card our deal turns up
            card = next(reveals)
            assert card - low in dict(state.chance_outcomes())
            state.apply_action(card - low)
        assert state.current_player() == ours.seat
        for seat in range(variant.players):  # every seat sees what its View shows
            view, seen = ours.view(seat), nt_openspiel.seen(state, seat)
            assert (seen.card, seen.tokens_on_card, seen.own_tokens, seen.cards,
                    seen.cards_left, seen.history) == (
                view.card, view.tokens_on_card, view.own_tokens, view.cards,
                view.cards_left, view.history)
            assert seen.tokens == (ours.token_counts if variant.open_tokens else None)
        legal = [nt_openspiel.ACTIONS[a] for a in state.legal_actions()]
        assert tuple(legal) == ours.legal_actions()
        action = actions_rng.choice(legal)
        state.apply_action(nt_openspiel.ACTIONS.index(action))
        ours.apply(action)
    assert next(reveals, None) is None
    return state, ours


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_openspiel_and_our_game_agree_step_by_step(players):
    """Seeded deals: same cards revealed, same seat to move, same legal actions, and the
    final returns are our rank points."""
    for seed in range(3):
        variant = Variant(players=players, open_tokens=seed == 2)
        rng = random.Random(seed)
        state, ours = _play_both(variant, seed, rng)
        over = ours.history[-1]
        assert isinstance(over, GameOver)
        assert state.is_terminal()
        assert state.returns() == list(over.rank_points)
        assert sum(state.returns()) == players * (players - 1) / 2
        assert state.game.scores() == ours.scores()


def _state_after(removed: list[int], moves: list[int], spec: str = "python_no_thanks"):
    state = pyspiel.load_game(spec).new_initial_state()
    for card in removed:
        state.apply_action(card - 3)
    for move in moves:
        state.apply_action(move)
    return state


def test_removed_cards_are_never_observed():
    """Two deals that differ only in the removed cards look the same to every seat."""
    moves = [20 - 3, 1, 1, 0, 30 - 3, 1]  # reveal 20, pass, pass, take, reveal 30, pass
    first = _state_after([3, 4, 5, 6, 7, 8, 9, 10, 11], moves)
    second = _state_after([12, 13, 14, 15, 16, 17, 18, 19, 21], moves)
    assert str(first) != str(second)
    for seat in range(4):
        assert first.information_state_string(seat) == second.information_state_string(seat)
        assert first.observation_string(seat) == second.observation_string(seat)
        np.testing.assert_array_equal(first.information_state_tensor(seat),
                                      second.information_state_tensor(seat))


def test_hidden_tokens_stay_hidden_and_open_tokens_are_shown():
    removed = [3, 4, 5, 6, 7, 8, 9, 10, 11]
    moves = [20 - 3, 1, 1, 0]  # reveal 20, seats 0 and 1 pass, seat 2 takes it with 2
    hidden = _state_after(removed, moves)
    opened = _state_after(removed, moves, "python_no_thanks(open_tokens=True)")
    observer = hidden.get_game().make_py_observer()
    assert "tokens" not in observer.dict  # only own_tokens: the seat's own count
    observer.set_from(hidden, 1)
    assert observer.dict["own_tokens"][0] == 10
    assert "13" not in hidden.observation_string(1)  # seat 2's count is not shown
    assert "tokens [" not in hidden.information_state_string(1)
    shown = opened.get_game().make_py_observer()
    shown.set_from(opened, 1)
    assert list(shown.dict["tokens"]) == [10, 10, 13, 11]
    assert "tokens [10, 10, 13, 11]" in opened.observation_string(1)


def test_a_pending_reveal_shows_no_card():
    """After a take the next card is chance's: no seat sees the engine's placeholder."""
    state = _state_after(list(range(3, 12)), [20 - 3, 0])
    assert state.current_player() == CHANCE
    seen = nt_openspiel.seen(state, 0)
    assert seen.card is None
    assert seen.cards_left == 23
    assert seen.history[-1].card == 20  # the take is the last event seen
    observer = state.get_game().make_py_observer()
    observer.set_from(state, 0)
    assert not observer.dict["card"].any()
    assert "card -" in state.observation_string(0)
