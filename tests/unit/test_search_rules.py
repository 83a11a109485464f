"""The search's compact rules copy plays the same games as nothanks.rules.Game."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nothanks.rules import Game, GameOver, IllegalActionError, Variant
from nothanks.search import TokenTally, root_state
from nothanks.search import kernel as k


@st.composite
def variants(draw) -> Variant:
    players = draw(st.integers(3, 7))
    low = draw(st.integers(1, 6))
    high = draw(st.integers(low + 1, low + 36))
    removed = draw(st.integers(0, high - low))
    tokens = draw(st.one_of(st.none(), st.integers(0, 12)))
    return Variant(players, low, high, removed, tokens, draw(st.booleans()))


def fields(s: np.ndarray) -> dict:
    n, width = int(s[k.PLAYERS]), int(s[k.WIDTH])
    owned = s[k.HEADER + n:k.HEADER + n + n * width].reshape(n, width)
    start = k.HEADER + n + n * width
    return {
        "card": int(s[k.CARD]), "on": int(s[k.ON_CARD]), "to_move": int(s[k.TO_MOVE]),
        "left": int(s[k.LEFT]), "over": bool(s[k.OVER]),
        "tokens": tuple(int(t) for t in s[k.HEADER:k.HEADER + n]),
        "cards": tuple(tuple(int(c) for c in np.flatnonzero(row)) for row in owned),
        "unseen": tuple(sorted(int(c) for c in s[start:start + s[k.POOL]])),
    }


def game_fields(game: Game) -> dict:
    v = game.variant
    seen = {c for seat in range(v.players) for c in game.cards(seat)}
    if not game.over:
        seen.add(game.card)
    return {
        "card": -1 if game.over else game.card, "on": game.tokens_on_card,
        "to_move": game.seat, "left": game.cards_left, "over": game.over,
        "tokens": game.token_counts,
        "cards": tuple(game.cards(seat) for seat in range(v.players)),
        "unseen": tuple(c for c in range(v.low_card, v.high_card + 1) if c not in seen),
    }


@settings(max_examples=60, deadline=None)
@given(variants(), st.integers(0, 2**32), st.lists(st.booleans(), max_size=400),
       st.integers(0, 6))
def test_same_actions_same_game(variant, seed, takes, seat):
    """Step by step, the kernel state equals the game's after every action, from any
    seat's information set; the final scores and rank points are the game's."""
    game = Game(variant, seed)
    s = root_state(game.view(seat % variant.players))
    assert fields(s) == game_fields(game)
    for take in takes:
        if game.over:
            break
        if take or game.tokens(game.seat) == 0:
            game.apply("take")
            k.apply_take(s)
            if not s[k.OVER]:
                k.reveal(s, k.find_in_pool(s, game.card))
        else:
            game.apply("pass")
            k.apply_pass(s)
        assert fields(s) == game_fields(game)
        for other in range(variant.players):
            if not game.over:
                assert fields(root_state(game.view(other))) == fields(s)
    assert set(game.removed_cards) <= set(fields(s)["unseen"])
    if game.over:
        out = np.empty(2 * variant.players)
        k.outcome(s, out)
        final = game.history[-1]
        assert isinstance(final, GameOver)
        assert tuple(out[:variant.players]) == final.scores
        assert tuple(out[variant.players:]) == final.rank_points


@settings(max_examples=40, deadline=None)
@given(variants(), st.integers(0, 2**32), st.lists(st.booleans(), max_size=300))
def test_replay_refuses_what_the_game_refuses(variant, seed, takes):
    """A whole action list: both accept the same prefix (a pass without tokens or a move
    after the end is refused at the same index)."""
    game = Game(variant, seed)
    s = root_state(game.view(0))
    order = [game.card]
    accepted = 0
    for take in takes:
        try:
            game.apply("take" if take else "pass")
        except IllegalActionError:
            break
        accepted += 1
        if take and not game.over:
            order.append(game.card)
    actions = np.array([k.TAKE if t else k.PASS for t in takes], dtype=np.int64)
    out = np.zeros(2 * variant.players)
    assert k.apply_actions(s, actions, np.array(order[1:] + [0], dtype=np.int64), out) == accepted
    assert fields(s) == game_fields(game)


@settings(max_examples=30, deadline=None)
@given(variants(), st.integers(0, 2**32), st.integers(1, 2**63 - 1),
       st.sampled_from([k.HEURISTIC, k.RANDOM]))
def test_rollouts_finish_legal_games(variant, seed, rng_seed, policy):
    """A rollout ends the game with every dealt card taken, tokens conserved, and the
    outcome the rules' scoring gives for the final holdings."""
    game = Game(variant, seed)
    s = root_state(game.view(0))
    out = np.empty(2 * variant.players)
    k.rollout(s, policy, 0, 1.0, np.array([rng_seed], dtype=np.uint64), out)
    f = fields(s)
    assert f["over"] and f["on"] == 0
    assert sum(len(c) for c in f["cards"]) == variant.cards_played
    assert sum(f["tokens"]) == variant.tokens * variant.players
    assert len(f["unseen"]) == variant.removed
    from nothanks.rules import ranks_and_points, score
    scores = tuple(score(c, t) for c, t in zip(f["cards"], f["tokens"], strict=True))
    assert tuple(out[:variant.players]) == scores
    assert tuple(out[variant.players:]) == ranks_and_points(scores)[1]


def test_tally_follows_public_events():
    game = Game(Variant(), seed=3)
    for action in ["pass", "pass", "take", "pass", "take", "pass", "pass", "pass"]:
        game.apply(action)
    tally = TokenTally.from_events(game.variant, game.history)
    assert tuple(tally.counts) == game.token_counts
