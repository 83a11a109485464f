"""PUCT search with the policy-value network, and self-play games as training samples."""
from __future__ import annotations

import numpy as np
import pytest

from nothanks.rules import Variant
from nothanks.search import kernel as k
from nothanks.search.encoding import encode
from nothanks.search.network import Network, NetworkConfig, init_weights
from nothanks.search.puct import evaluate_state, puct_search
from nothanks.search.selfplay import deal_state, rank_rewards, self_play_game


def mid_game_state(players: int, seed: int, moves: int = 40) -> np.ndarray:
    """A search state after up to ``moves`` random moves of a new game."""
    rng = np.random.default_rng(seed)
    s = deal_state(Variant(players=players), rng)
    for _ in range(moves):
        if s[k.HEADER + s[k.TO_MOVE]] == 0 or rng.random() < 0.3:
            k.apply_take(s)
            if s[k.OVER]:
                break
            k.reveal(s, int(rng.integers(s[k.POOL])))
        else:
            k.apply_pass(s)
    return s


def network(players: int = 4, layers: int = 2, seed: int = 0,
            tokens: str = "public") -> Network:
    config = NetworkConfig(players=players, hidden=32, layers=layers, tokens=tokens)
    return Network(init_weights(config, seed), config)


def test_rank_rewards_follow_seed_004_and_share_ties():
    assert rank_rewards([3, 1, 2, 5, 4]).tolist() == [0.0, 1.0, 0.5, -1.0, -0.5]
    assert rank_rewards([10, 10, 30]).tolist() == [0.5, 0.5, -1.0]
    assert rank_rewards([7, 7, 7, 7]).tolist() == [0.0] * 4
    # the same as the rules kernel's rank points, rescaled to 1 .. -1
    stream = np.array([12345], dtype=np.uint64)
    for seed in range(20):
        s = deal_state(Variant(players=5), np.random.default_rng(seed))
        out = np.zeros(10)
        k.rollout(s, k.RANDOM, 0, 1.0, stream, out)
        assert np.allclose(rank_rewards(out[:5]), 2 * out[5:] / 4 - 1)


@pytest.mark.parametrize(("layers", "tokens"), [(1, "public"), (3, "hidden")])
def test_the_compiled_forward_pass_is_the_numpy_one(layers, tokens):
    net = network(5, layers, seed=layers, tokens=tokens)
    config = net.config
    for seed in range(6):
        s = mid_game_state(5, seed, moves=10 * seed)
        p, rotated = net.evaluate(encode(s, tokens))
        seat_values = np.zeros(5)
        q = evaluate_state(s, 3, tokens == "hidden", net.kernel_arrays(),
                           np.zeros(config.features, np.float32),
                           np.zeros(32, np.float32), np.zeros(32, np.float32),
                           np.zeros(5, np.float32), seat_values)
        assert q == pytest.approx(float(p[0]), abs=1e-5)
        mover = int(s[k.TO_MOVE])
        assert np.allclose(np.roll(seat_values, -mover), rotated[0], atol=1e-5)


def last_card_state() -> np.ndarray:
    """3 players, the last card (35) face up, seat 0 to move with 5 tokens, the others
    with none: taking makes seat 0 last (score 30), passing makes seat 1 take (34)."""
    s = k.new_state(3, 35, 33)
    s[k.HEADER:k.HEADER + 3] = (5, 0, 0)
    s[k.CARD], s[k.LEFT] = 35, 0
    start = k.HEADER + 3 + 3 * 37
    s[start:start + 9] = np.arange(3, 12)
    s[k.POOL] = 9
    return s


def test_terminal_values_are_exact_and_the_mover_maximises_its_own():
    s = last_card_state()
    before = s.copy()
    result = puct_search(s, network(3), 60, np.random.default_rng(1))
    assert np.array_equal(s, before)
    assert sum(result.visits) == 60
    take, passed = result.visits
    assert passed > 50 and not result.best_takes()
    # a take ends the game: its values are the rank rewards of the final scores; after a
    # pass the first visit meets seat 1's new node (the network's value), every later one
    # seat 1's forced take, the end
    assert result.action_values[0] == -1.0
    assert result.action_values[1] == pytest.approx(1.0, abs=2.0 / passed)
    want = (take * rank_rewards([30, 0, 0]) + (passed - 1) * rank_rewards([-4, 34, 0])) / 60
    assert np.allclose(result.root_values, want, atol=1.0 / 60)


def test_a_mover_without_tokens_must_take():
    s = last_card_state()
    s[k.TO_MOVE] = 1
    result = puct_search(s, network(3), 20, np.random.default_rng(0), dirichlet_alpha=1.0)
    assert result.visits == (20, 0) and result.best_takes()


def test_search_is_reproducible_and_noise_only_with_alpha():
    net = network(4)
    s = deal_state(Variant(), np.random.default_rng(5))

    def run(alpha: float, weight: float, seed: int = 9):
        return puct_search(s, net, 200, np.random.default_rng(seed),
                           dirichlet_alpha=alpha, dirichlet_weight=weight)

    plain = run(0.0, 0.25)
    assert sum(plain.visits) == 200
    assert run(0.0, 0.25).visits == plain.visits
    assert np.array_equal(run(0.0, 0.25).root_values, plain.root_values)
    assert run(0.0, 1.0).visits == plain.visits  # no noise: the weight is unused
    noisy = [run(0.3, 1.0, seed).visits for seed in range(4)]
    assert any(v != plain.visits for v in noisy)
    assert plain.prior == pytest.approx(float(net.evaluate(encode(s))[0][0]), abs=1e-5)
    with pytest.raises(ValueError, match="sims=0 is invalid"):
        puct_search(s, net, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="dirichlet_weight=2 is invalid; valid: 0 to 1"):
        puct_search(s, net, 5, np.random.default_rng(0), dirichlet_weight=2)
    with pytest.raises(ValueError, match="network is for 4 players and cards up to 35; "
                                         "this state has 3 players"):
        puct_search(last_card_state(), net, 5, np.random.default_rng(0))


def test_self_play_samples_are_reproducible_and_consistent():
    net = network(4)
    game = self_play_game(net, 4, sims=12, seed=21, temperature_moves=6)
    again = self_play_game(net, 4, sims=12, seed=21, temperature_moves=6)
    for name in ("features", "policy", "outcome", "scores"):
        assert np.array_equal(getattr(game, name), getattr(again, name)), name
    other = self_play_game(net, 4, sims=12, seed=22, temperature_moves=6)
    assert not np.array_equal(other.scores, game.scores) or len(other) != len(game)
    t = len(game)
    assert game.features.shape == (t, net.config.features) and game.policy.shape == (t,)
    assert game.outcome.shape == (t, 4) and game.features.dtype == np.float32
    assert np.all((game.policy >= 0) & (game.policy <= 1))
    rewards = rank_rewards(game.scores)
    assert np.array_equal(game.outcome[0], rewards.astype(np.float32))  # seat 0 moves first
    rotations = {tuple(np.roll(rewards, -m).astype(np.float32)) for m in range(4)}
    assert {tuple(row) for row in game.outcome} <= rotations
    own_tokens = game.features[:, 1]  # grid row 0 (the mover), token channel
    forced = own_tokens == 0
    assert np.all(game.policy[forced] == 1.0)
    assert np.all(np.isin(game.policy[~forced] * 12, np.arange(13)))  # visit shares
    with pytest.raises(ValueError, match="network is for 4 players, not 5"):
        self_play_game(net, 5, sims=4, seed=0)
    with pytest.raises(ValueError, match="temperature_moves=-1 is invalid"):
        self_play_game(net, 4, sims=4, seed=0, temperature_moves=-1)
