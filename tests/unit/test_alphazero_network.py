"""The AlphaZero agent's encoding and numpy network: rotation, the hidden-token estimate,
checkpoints (round trip, atomic write, clear errors)."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from nothanks.rules import Action, Game, Variant
from nothanks.search import kernel as k
from nothanks.search import root_state
from nothanks.search.encoding import TOKEN_SCALE, encode, feature_size
from nothanks.search.network import (
    CheckpointError,
    Network,
    NetworkConfig,
    init_weights,
    load_checkpoint,
    save_checkpoint,
)


def mid_game_state(players: int, seed: int, moves: int = 40) -> np.ndarray:
    """The search state after ``moves`` random moves of a seeded game."""
    game = Game(Variant(players=players), seed=seed)
    choose = random.Random(seed)
    for _ in range(moves):
        if game.over:
            break
        forced = game.tokens(game.seat) == 0
        game.apply(Action.TAKE if forced or choose.random() < 0.3 else Action.PASS)
    return root_state(game.view(game.seat))


def rotate_seats(s: np.ndarray, shift: int) -> np.ndarray:
    """The same state with seat ``i`` renamed ``(i - shift) % n``."""
    n, width = int(s[k.PLAYERS]), int(s[k.WIDTH])
    r = s.copy()
    tokens = s[k.HEADER:k.HEADER + n]
    owned = s[k.HEADER + n:k.HEADER + n + n * width].reshape(n, width)
    r[k.HEADER:k.HEADER + n] = np.roll(tokens, -shift)
    r[k.HEADER + n:k.HEADER + n + n * width] = np.roll(owned, -shift, axis=0).ravel()
    r[k.TO_MOVE] = (s[k.TO_MOVE] - shift) % n
    return r


@pytest.mark.parametrize("players", [3, 5, 7])
def test_encoding_is_rotated_to_the_mover(players):
    s = mid_game_state(players, seed=players)
    me, n, width = int(s[k.TO_MOVE]), players, int(s[k.WIDTH])
    x = encode(s)
    assert x.dtype == np.float32 and x.shape == (feature_size(players),)
    grid = x[:2 * n * 33].reshape(n, 33, 2)
    for row in range(n):
        seat = (me + row) % n
        held = s[k.HEADER + n + seat * width + 3:k.HEADER + n + seat * width + 36]
        assert np.array_equal(grid[row, :, 0], held), (row, seat)
        assert np.allclose(grid[row, :, 1], s[k.HEADER + seat] * TOKEN_SCALE)
    table = x[2 * n * 33:]
    assert np.flatnonzero(table[:33]).tolist() == [int(s[k.CARD]) - 3]
    assert table[34] == pytest.approx(s[k.ON_CARD] * TOKEN_SCALE)
    # the same position with the seats renamed encodes identically
    for shift in range(1, n):
        assert np.array_equal(encode(rotate_seats(s, shift)), x)


def test_hidden_tokens_show_only_the_movers_count_and_an_even_estimate():
    s = mid_game_state(4, seed=12, moves=30)
    me = int(s[k.TO_MOVE])
    counts = s[k.HEADER:k.HEADER + 4].copy()
    assert len(set(counts.tolist())) > 1  # the estimate differs from some true count
    x = encode(s, tokens="hidden").reshape(-1)[:2 * 4 * 33].reshape(4, 33, 2)
    public = encode(s).reshape(-1)[:2 * 4 * 33].reshape(4, 33, 2)
    assert np.array_equal(x[:, :, 0], public[:, :, 0])
    assert np.allclose(x[0, :, 1], counts[me] * TOKEN_SCALE)
    unaccounted = 4 * Variant().tokens - counts[me] - s[k.ON_CARD]
    assert np.allclose(x[1:, :, 1], unaccounted / 3 * TOKEN_SCALE)
    # what the hidden encoding shows does not change when the others' counts move
    # between them
    other = s.copy()
    a, b = (me + 1) % 4, (me + 2) % 4
    moved = min(2, int(other[k.HEADER + a]))
    other[k.HEADER + a] -= moved
    other[k.HEADER + b] += moved
    assert np.array_equal(encode(other, tokens="hidden"), encode(s, tokens="hidden"))
    with pytest.raises(ValueError, match="tokens='secret' is unknown; valid: public, hidden"):
        encode(s, tokens="secret")


def test_untrained_network_is_deterministic_small_and_rotated_batchwise():
    config = NetworkConfig(players=4)
    weights = init_weights(config, seed=3)
    assert all(np.array_equal(weights[n], init_weights(config, 3)[n]) for n in weights)
    assert not np.array_equal(weights["w_in"], init_weights(config, 4)["w_in"])
    net = Network(weights, config)
    batch = np.stack([encode(mid_game_state(4, seed)) for seed in range(5)])
    p, v = net.evaluate(batch)
    assert p.shape == (5,) and v.shape == (5, 4) and p.dtype == v.dtype == np.float32
    assert np.all((p > 0.3) & (p < 0.7)) and np.all(np.abs(v) < 0.5)
    one_p, one_v = net.evaluate(batch[2])
    assert np.allclose(one_p, p[2:3]) and np.allclose(one_v, v[2:3])
    with pytest.raises(ValueError, match=r"valid: \[B, 300\]"):
        net.evaluate(batch[:, :10])


def test_checkpoint_round_trip_and_size(tmp_path):
    config = NetworkConfig(players=5, hidden=64, layers=3, tokens="hidden")
    weights = init_weights(config, seed=1)
    path = tmp_path / "net.npz"
    save_checkpoint(path, weights, config, {"step": 7, "note": "test"})
    loaded, loaded_config, meta = load_checkpoint(path)
    assert loaded_config == config and meta == {"step": 7, "note": "test"}
    assert all(np.array_equal(loaded[n], weights[n]) for n in weights)
    assert path.stat().st_size < 10 * 2**20
    default = tmp_path / "default.npz"
    save_checkpoint(default, init_weights(NetworkConfig(7), 0), NetworkConfig(7), {})
    assert default.stat().st_size < 1 * 2**20  # the default shape for 7 players: < 1 MB


def test_checkpoint_write_is_atomic(tmp_path, monkeypatch):
    config = NetworkConfig(players=3, hidden=16)
    path = tmp_path / "net.npz"
    save_checkpoint(path, init_weights(config, 1), config, {"step": 1})
    before = path.read_bytes()

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", crash)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(path, init_weights(config, 2), config, {"step": 2})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["net.npz"]  # no leftover
    with pytest.raises(ValueError, match="not JSON-serialisable"):
        save_checkpoint(path, init_weights(config, 2), config, {"bad": object()})


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_bad_checkpoints_get_clear_errors(tmp_path):
    config = NetworkConfig(players=4, hidden=8)
    good = tmp_path / "good.npz"
    save_checkpoint(good, init_weights(config, 0), config, {})
    with pytest.raises(CheckpointError, match="missing.npz: no such checkpoint file"):
        load_checkpoint(tmp_path / "missing.npz")
    with pytest.raises(CheckpointError, match="is not a network checkpoint"):
        load_checkpoint(write(tmp_path / "text.npz", b"hello"))
    with pytest.raises(CheckpointError, match="is not a network checkpoint"):
        load_checkpoint(write(tmp_path / "cut.npz", good.read_bytes()[:300]))
    other = tmp_path / "other.npz"
    np.savez(other, w=np.zeros(3))
    with pytest.raises(CheckpointError, match="its format is 'missing'"):
        load_checkpoint(other)
    with pytest.raises(CheckpointError, match="network for 4 players; this game has 5"):
        load_checkpoint(good, players=5)
    assert load_checkpoint(good, players=4)[1] == config
    wrong = init_weights(config, 0)
    wrong["w_value"] = np.zeros((8, 3), dtype=np.float32)
    with pytest.raises(CheckpointError, match=r"weight w_value has shape \(8, 3\)"):
        save_checkpoint(tmp_path / "wrong.npz", wrong, config, {})
    assert not (tmp_path / "wrong.npz").exists()
    nan = init_weights(config, 0)
    nan["b_in"][0] = np.nan
    with pytest.raises(CheckpointError, match="b_in holds non-finite values"):
        Network(nan, config)
    with pytest.raises(ValueError, match="players=2 is invalid; valid: 3 to 7"):
        NetworkConfig(players=2)
    with pytest.raises(ValueError, match="tokens='open' is unknown"):
        NetworkConfig(players=4, tokens="open")
