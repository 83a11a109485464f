"""Rule regression tests: the mistakes public No Thanks! engines make, and thesis examples."""
from __future__ import annotations

import pytest

from nothanks.rules import (
    STARTING_TOKENS,
    Action,
    CardRevealed,
    Game,
    GameOver,
    HiddenInformationError,
    IllegalActionError,
    Passed,
    Took,
    Variant,
    VariantError,
    card_points,
    ranks_and_points,
    score,
)


def test_standard_deck_plays_24_cards_and_removes_9():
    game = Game(Variant(), seed=7)
    revealed = []
    game.subscribe(lambda e: revealed.append(e.card) if isinstance(e, CardRevealed) else None)
    while not game.over:
        game.apply(Action.TAKE)
    assert len(revealed) + 1 == 24  # the first reveal happened before subscribing
    assert len(game.removed_cards) == 9
    taken = sorted(c for s in range(4) for c in game.cards(s))
    assert len(taken) == 24
    assert sorted(taken + list(game.removed_cards)) == list(range(3, 36))


@pytest.mark.parametrize("players,tokens", [(3, 11), (4, 11), (5, 11), (6, 9), (7, 7)])
def test_starting_tokens_by_player_count(players, tokens):
    game = Game(Variant(players=players), seed=1)
    assert [game.tokens(s) for s in range(players)] == [tokens] * players
    assert STARTING_TOKENS[players] == tokens


def test_starting_tokens_override():
    assert Game(Variant(starting_tokens=2), seed=1).tokens(3) == 2


def test_taker_keeps_the_turn():
    game = Game(Variant(), seed=3)
    game.apply(Action.PASS)  # seat 0 passes
    game.apply(Action.PASS)  # seat 1 passes
    assert game.seat == 2
    first = game.card
    game.apply(Action.TAKE)  # seat 2 takes card and 2 tokens
    assert game.cards(2) == (first,)
    assert game.tokens(2) == 13
    assert game.seat == 2, "the taker acts on the next card"
    assert game.card != first and game.tokens_on_card == 0


def test_pass_moves_clockwise_and_places_a_token():
    game = Game(Variant(), seed=3)
    game.apply(Action.PASS)
    assert game.seat == 1 and game.tokens(0) == 10 and game.tokens_on_card == 1
    for _ in range(3):
        game.apply(Action.PASS)
    assert game.seat == 0, "turn wraps around the table"


def test_forced_take_at_zero_tokens():
    game = Game(Variant(starting_tokens=1), seed=5)
    game.apply(Action.PASS)  # seat 0 now has 0 tokens
    for _ in range(3):
        game.apply(Action.PASS)
    assert game.seat == 0
    assert game.legal_actions() == (Action.TAKE,)
    before = (game.card, game.tokens_on_card, game.tokens(0))
    with pytest.raises(IllegalActionError,
                       match=r"player 0 cannot pass on card \d+: it has no tokens"):
        game.apply(Action.PASS)
    assert (game.card, game.tokens_on_card, game.tokens(0)) == before, "state unchanged"


def test_out_of_turn_and_after_end_are_illegal():
    game = Game(Variant(), seed=5)
    with pytest.raises(IllegalActionError, match="player 2 cannot take: it is player 0's turn"):
        game.apply(Action.TAKE, seat=2)
    while not game.over:
        game.apply(Action.TAKE)
    assert game.legal_actions() == ()
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.apply(Action.PASS)
    with pytest.raises(IllegalActionError, match="unknown action 'fold'"):
        Game(Variant(), seed=5).apply("fold")


def test_game_ends_when_last_card_taken_with_scores():
    game = Game(Variant(), seed=11)
    events = []
    game.subscribe(events.append)
    while not game.over:
        game.apply(Action.PASS if game.tokens(game.seat) > 8 else Action.TAKE)
    over = events[-1]
    assert isinstance(over, GameOver)
    assert over.scores == tuple(score(game.cards(s), game.tokens(s)) for s in range(4))
    assert sum(isinstance(e, Took) for e in events) == 24


@pytest.mark.parametrize("cards,points", [
    ((20, 22), 42),           # thesis: 20 and 22 are no run
    ((20, 21, 22), 20),       # a run counts its lowest card
    ((3, 5, 6), 8),
    ((3, 4, 5, 6), 3),        # taking 4 completes 3,4,5,6 -> 3
    ((4, 5), 4), ((4, 5, 7), 11), ((3, 4, 5), 3), ((4, 5, 6), 4),  # thesis §3.1 scenarios
    ((), 0),
])
def test_card_points_thesis_examples(cards, points):
    assert card_points(cards) == points


def test_score_subtracts_tokens():
    assert score((20, 21, 22), 5) == 15


def test_ranks_and_points_without_ties():
    ranks, points = ranks_and_points([10, -3, 25, 4])
    assert ranks == (3, 1, 4, 2)
    assert points == (1.0, 3.0, 0.0, 2.0)


def test_ties_share_the_mean_of_spanned_rank_points():
    ranks, points = ranks_and_points([5, 5, 9, 1])
    assert ranks == (2, 2, 4, 1)
    assert points == (1.5, 1.5, 0.0, 3.0)
    ranks, points = ranks_and_points([7, 7, 7, 7])
    assert ranks == (1, 1, 1, 1) and points == (1.5,) * 4
    _, points = ranks_and_points([1, 2, 2, 2, 9])  # 5 players: 4/3/2/1/0
    assert points == (4.0, 2.0, 2.0, 2.0, 0.0)


def test_view_hides_other_tokens_unless_open():
    game = Game(Variant(), seed=2)
    view = game.view(1)
    assert view.tokens_of(1) == 11
    with pytest.raises(HiddenInformationError, match="cannot see player 0's tokens"):
        view.tokens_of(0)
    assert not hasattr(view, "removed_cards")
    open_view = Game(Variant(open_tokens=True), seed=2).view(1)
    assert open_view.tokens_of(0) == 11


def test_view_is_a_snapshot():
    game = Game(Variant(), seed=2)
    view = game.view(0)
    game.apply(Action.PASS)
    assert view.tokens_on_card == 0 and view.own_tokens == 11
    assert len(view.history) == 1 and isinstance(game.view(0).history[-1], Passed)


@pytest.mark.parametrize("kwargs,message", [
    ({"players": 2}, "players=2 is not supported; valid: 3 to 7"),
    ({"players": 8}, "valid: 3 to 7"),
    ({"removed": 40}, "removed=40 is invalid for a deck of 33 cards"),
    ({"low_card": 10, "high_card": 5}, "need 1 <= low_card < high_card"),
    ({"starting_tokens": -1}, "starting_tokens=-1 is invalid"),
])
def test_variant_validation(kwargs, message):
    with pytest.raises(VariantError, match=message):
        Variant(**kwargs)


def test_small_deck_variant():
    variant = Variant(players=3, low_card=1, high_card=6, removed=1, starting_tokens=2)
    game = Game(variant, seed=0)
    while not game.over:
        game.apply(game.legal_actions()[-1])
    assert sum(len(game.cards(s)) for s in range(3)) == 5


def test_explicit_order_is_validated():
    with pytest.raises(ValueError, match="24 distinct cards"):
        Game(Variant(), order=(3, 4, 5))


# ------------------------------------------------------------------ default variant
def test_variant_defaults_are_the_thesis_game():
    variant = Variant()
    assert (variant.players, variant.open_tokens, variant.tokens) == (4, False, 11)
    assert (variant.low_card, variant.high_card, variant.removed) == (3, 35, 9)


# --- atomic transitions and seat errors ------------------------------------------------
def test_a_failing_listener_cannot_leave_a_transition_half_done():
    heard: list[object] = []

    def broken(event):
        raise RuntimeError("listener bug")

    game = Game(Variant(), seed=4, listeners=[heard.append])
    game.subscribe(broken)
    game.subscribe(heard.append)
    card = game.card
    with pytest.raises(RuntimeError, match="listener bug"):
        game.apply("pass")
    # the pass is fully committed: token moved, history, turn and seat advanced
    assert (game.tokens(0), game.tokens_on_card, game.seat, game.turn) == (10, 1, 1, 1)
    assert game.history[-1].seat == 0 and game.card == card
    assert heard[-2:] == [game.history[-1]] * 2  # the listeners after the broken one too
    with pytest.raises(RuntimeError, match="listener bug"):
        game.apply("take")
    # take committed, next card revealed, both events delivered to the working listener
    assert game.cards(1) == (card,) and game.tokens(1) == 12 and game.card != card
    assert heard[-4:] == [e for e in game.history[-2:] for _ in range(2)]
    assert game.legal_actions() and not game.over  # the game can go on


def test_acting_for_a_seat_that_does_not_exist_says_so():
    game = Game(Variant(), seed=1)
    with pytest.raises(IllegalActionError, match="seat 9 does not exist; valid: 0 to 3"):
        game.apply("pass", seat=9)
