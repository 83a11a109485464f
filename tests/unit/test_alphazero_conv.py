"""The conv trunk (seed 004's network, ``trunk="conv"``): the numpy and the compiled
forward passes agree for 3 to 7 players, batch normalization is folded for play, a conv
checkpoint round-trips and plays, and an MLP's configuration reads as before. (The JAX
learner's forward pass is compared with both in
tests/integration/test_selfplay_learner.py.)"""
from __future__ import annotations

import json

import numpy as np
import pytest

from nothanks.agents import make_agent
from nothanks.play.match import Match
from nothanks.rules import Variant
from nothanks.search.encoding import encode
from nothanks.search.network import (
    STATISTICS,
    Network,
    NetworkConfig,
    init_weights,
    load_checkpoint,
    save_checkpoint,
)
from nothanks.search.puct import puct_search
from nothanks.studies.selfplay.settings import TrainSettings

from helpers import compiled_forward, random_state, random_weights


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_the_compiled_conv_forward_pass_is_the_numpy_one(players):
    kernel = (1, 3, 5, 3, 7)[players - 3]
    config = NetworkConfig(players=players, hidden=24, layers=1 + players % 2,
                           tokens=("public", "hidden")[players % 2], trunk="conv",
                           conv_channels=players, conv_kernel=kernel, table_units=5)
    net = Network(random_weights(config, players), config)
    rng = np.random.default_rng(players)
    states = [random_state(players, rng) for _ in range(6)]
    p, values = net.evaluate(np.stack([encode(s, config.tokens) for s in states]))
    assert p.std() > 0.01 and values.std() > 0.01  # the test sees outputs that differ
    for row, s in enumerate(states):
        q, rotated = compiled_forward(net, s)
        assert q == pytest.approx(float(p[row]), abs=1e-5)
        assert np.allclose(rotated, values[row], atol=1e-5)


def test_play_folds_batch_normalization_by_its_running_statistics():
    """The folded network equals the unfolded formula: convolution, normalization by
    the running statistics, ReLU (one seat row computed by hand)."""
    config = NetworkConfig(players=3, hidden=8, layers=1, trunk="conv", conv_channels=2,
                           conv_kernel=3, table_units=4)
    w = random_weights(config, 7)
    net = Network(w, config)
    x = encode(random_state(3, np.random.default_rng(7)))
    grid = x[:2 * 3 * 33].reshape(3, 33, 2)
    padded = np.concatenate([np.zeros((1, 2)), grid[1], np.zeros((1, 2))])
    conv = np.array([[np.sum(padded[j:j + 3] * w["w_conv"][:, :, o]) for o in range(2)]
                     for j in range(33)])
    normal = ((conv - w["bn_conv_mean"]) / np.sqrt(w["bn_conv_var"] + 1e-5)
              * w["bn_conv_scale"] + w["bn_conv_shift"])
    seat_row = net.trunk_input(x[None])[0, 33 * 2:2 * 33 * 2].reshape(33, 2)
    assert np.allclose(seat_row, np.maximum(normal, 0.0), atol=1e-5)
    table = ((x[2 * 3 * 33:] @ w["w_table"] - w["bn_table_mean"])
             / np.sqrt(w["bn_table_var"] + 1e-5) * w["bn_table_scale"] + w["bn_table_shift"])
    assert np.allclose(net.trunk_input(x[None])[0, -4:], np.maximum(table, 0.0), atol=1e-5)
    moved = dict(w, bn_conv_mean=w["bn_conv_mean"] - 1.0)  # the statistics matter
    assert not np.allclose(Network(moved, config).trunk_input(x[None]), net.trunk_input(x[None]))


def test_a_conv_checkpoint_round_trips_and_plays(tmp_path):
    config = NetworkConfig(players=4, hidden=16, trunk="conv", conv_channels=3,
                           conv_kernel=5, table_units=6)
    weights = random_weights(config, 3)
    path = tmp_path / "conv.npz"
    save_checkpoint(path, weights, config, {"note": "conv"})
    loaded, loaded_config, meta = load_checkpoint(path, players=4)
    assert loaded_config == config and meta == {"note": "conv"}
    assert sorted(loaded) == sorted(config.shapes()) and set(STATISTICS) <= set(loaded)
    assert all(np.array_equal(loaded[n], weights[n]) for n in weights)
    s = random_state(4, np.random.default_rng(1))
    result = puct_search(s, Network(loaded, loaded_config), 20, np.random.default_rng(2))
    assert sum(result.visits) == 20
    agent = make_agent(f"alphazero:sims=8,checkpoint={path}")

    def play():
        return Match([agent, "random", "random", "random"], Variant(), 5).run()

    first = play()
    searched = [d.info for d in first.decisions if d.seat == 0 and not d.forced]
    assert searched and all(i["take_visits"] + i["pass_visits"] == 8 for i in searched)
    assert play().scores == first.scores
    bad = dict(weights)
    del bad["bn_conv_var"]
    with pytest.raises(ValueError, match=r"missing \['bn_conv_var'\]"):
        Network(bad, config)


def test_an_mlp_configuration_is_written_as_before_and_conv_options_need_conv(tmp_path):
    config = NetworkConfig(players=4, hidden=8)
    path = tmp_path / "mlp.npz"
    save_checkpoint(path, init_weights(config, 0), config, {})
    with np.load(path) as data:
        written = json.loads(str(data["config"]))
        names = sorted(data.files)
    assert written == {"players": 4, "hidden": 8, "layers": 2, "tokens": "public",
                       "low_card": 3, "high_card": 35}
    assert names == sorted(["format", "config", "meta", "weight_w_in", "weight_b_in",
                            "weight_w_hidden", "weight_b_hidden", "weight_w_policy",
                            "weight_b_policy", "weight_w_value", "weight_b_value"])
    conv = NetworkConfig(players=4, trunk="conv")
    assert conv.as_dict()["trunk"] == "conv" and conv.trunk_inputs == 4 * 33 * 8 + 32
    with pytest.raises(ValueError, match="conv_channels=4 apply only to trunk='conv'"):
        NetworkConfig(players=4, conv_channels=4)
    with pytest.raises(ValueError, match="trunk='rnn' is unknown; valid: mlp, conv"):
        NetworkConfig(players=4, trunk="rnn")
    with pytest.raises(ValueError, match="conv_kernel=4 is invalid; valid: an odd number"):
        NetworkConfig(players=4, trunk="conv", conv_kernel=4)
    # the training settings: an MLP run records no conv setting (older runs resume)
    assert "trunk" not in TrainSettings().as_dict()
    assert TrainSettings(trunk="conv", conv_kernel=5).network_config().conv_kernel == 5
    assert TrainSettings(trunk="conv").as_dict()["conv_channels"] == 8
