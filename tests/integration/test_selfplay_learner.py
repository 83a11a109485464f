"""The JAX learner: its forward pass is the numpy network's, it learns, and it resumes
exactly from its state.

JAX is imported inside the tests (the ``learner_type`` fixture), not when the file is
collected: a pytest run that deselects the ``jax`` marker imports no JAX, so its
processes may fork (``make test`` runs the ``jax`` tests in a run of their own)."""
from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest

from nothanks.search.network import Network, NetworkConfig, init_weights
from nothanks.search.selfplay import self_play_game

pytestmark = pytest.mark.jax

CONFIG = NetworkConfig(players=4, hidden=32, layers=2)
#: One learning rate for every test: JAX compiles the step once for all of them.
RATE = 3e-3


@pytest.fixture(scope="module")
def learner_type() -> type:
    """The JAX learner class (skips without the [learn] extra)."""
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    from nothanks.studies.selfplay.learner import Learner
    return Learner


@pytest.fixture(scope="module")
def batch() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Samples of two self-played games of the untrained network."""
    net = Network(init_weights(CONFIG, 0), CONFIG)
    games = [self_play_game(net, 4, sims=8, seed=seed) for seed in (1, 2)]
    return tuple(np.concatenate([getattr(g, n) for g in games])
                 for n in ("features", "policy", "outcome"))


def test_the_jax_forward_pass_is_the_numpy_one(learner_type, batch):
    learner = learner_type(CONFIG, seed=5, learning_rate=RATE)
    p, v = learner.evaluate(batch[0])
    q, w = Network(learner.weights, learner.config).evaluate(batch[0])
    assert np.allclose(p, q, atol=1e-5) and np.allclose(v, w, atol=1e-5)
    learner.step(*batch)  # and after a step, on the new weights
    p, v = learner.evaluate(batch[0])
    q, w = Network(learner.weights, learner.config).evaluate(batch[0])
    assert np.allclose(p, q, atol=1e-5) and np.allclose(v, w, atol=1e-5)


def test_steps_reduce_the_loss_on_a_fixed_batch(learner_type, batch):
    learner = learner_type(CONFIG, seed=1, learning_rate=RATE)
    first = learner.loss(*batch)
    assert set(first) == {"loss", "policy_loss", "value_loss", "l2_loss"}
    reported = [learner.step(*batch)["loss"] for _ in range(30)]
    assert reported[0] == pytest.approx(first["loss"], rel=1e-5)  # losses before the step
    last = learner.loss(*batch)
    assert last["loss"] < 0.8 * first["loss"]
    assert last["value_loss"] < first["value_loss"]
    assert last["policy_loss"] < first["policy_loss"]
    with pytest.raises(ValueError, match=r"a batch needs features \[B, 300\], policy \[B\] "
                                         r"and outcome \[B, 4\]"):
        learner.step(batch[0], batch[1], batch[2][:, :3])


def test_a_restored_learner_takes_the_same_steps_bit_for_bit(learner_type, batch):
    shuffled = tuple(part[::-1] for part in batch)  # same shape: compiled once
    plan = [batch, shuffled, batch, shuffled, shuffled, batch]
    straight = learner_type(CONFIG, seed=2, learning_rate=RATE)
    for step in plan:
        straight.step(*step)
    stopped = learner_type(CONFIG, seed=2, learning_rate=RATE)
    for step in plan[:3]:
        stopped.step(*step)
    buffer = io.BytesIO()
    np.savez(buffer, **stopped.state())  # through a file, as the trainer keeps it
    buffer.seek(0)
    with np.load(buffer) as data:
        saved = {key: data[key] for key in data.files}
    # other initial weights: everything comes from the state
    resumed = learner_type(CONFIG, seed=99, learning_rate=RATE)
    resumed.load_state(saved)
    assert resumed.steps == 3
    for step in plan[3:]:
        resumed.step(*step)
    for name, value in straight.weights.items():
        assert np.array_equal(resumed.weights[name], value), name
    state = straight.state()
    assert all(np.array_equal(state[k], v) for k, v in resumed.state().items())
    del saved["opt/1"]
    with pytest.raises(ValueError, match="optimiser's state is missing or does not fit"):
        learner_type(CONFIG, seed=0, learning_rate=RATE).load_state(saved)


def test_the_package_imports_no_jax():
    code = ("import sys, nothanks.studies.selfplay, nothanks.search.selfplay; "
            "print(sorted(m for m in ('jax', 'optax') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def conv_config(players: int) -> NetworkConfig:
    """A small conv-trunk network (seed 004's), kernel and channels varying by seats."""
    return NetworkConfig(players=players, hidden=16, layers=1 + players % 2, trunk="conv",
                         conv_channels=2 + players % 3, conv_kernel=(3, 5)[players % 2],
                         table_units=6, tokens=("public", "hidden")[players % 2])


@pytest.mark.parametrize("players", [3, 5, 7])
def test_the_conv_forward_passes_agree_jax_numpy_and_compiled(learner_type, players):
    """The three forward passes of the conv trunk (the learner's in JAX, the numpy
    network's with batch normalization folded, the search's compiled one) on random
    weights and statistics and random positions; again after training steps, which
    move the running statistics."""
    from nothanks.search.encoding import encode

    from helpers import compiled_forward, random_state, random_weights
    config = conv_config(players)
    learner = learner_type(config, seed=players, learning_rate=RATE)
    state = learner.state()
    state.update({f"weight/{name}": value
                  for name, value in random_weights(config, players).items()})
    learner.load_state(state)
    rng = np.random.default_rng(players)
    states = [random_state(players, rng) for _ in range(8)]
    x = np.stack([encode(s, config.tokens) for s in states])
    for trained in (False, True):
        net = Network(learner.weights, config)
        p, v = learner.evaluate(x)
        q, w = net.evaluate(x)
        assert np.allclose(p, q, atol=1e-5) and np.allclose(v, w, atol=1e-5)
        assert p.std() > 1e-3 and v.std() > 1e-3  # outputs that differ between positions
        for row, s in enumerate(states):
            r, rotated = compiled_forward(net, s)
            assert r == pytest.approx(float(q[row]), abs=1e-5)
            assert np.allclose(rotated, w[row], atol=1e-5)
        if not trained:
            before = learner.weights
            outcome = rng.uniform(-1, 1, (len(x), players)).astype(np.float32)
            for _ in range(3):
                learner.step(x, rng.uniform(0, 1, len(x)).astype(np.float32), outcome)
            after = learner.weights
            for name in ("bn_conv_mean", "bn_conv_var", "bn_table_mean", "w_conv"):
                assert not np.allclose(after[name], before[name]), name


def test_a_restored_conv_learner_takes_the_same_steps_bit_for_bit(learner_type, batch):
    features, policy, outcome = batch  # 4 players
    config = conv_config(4)
    straight = learner_type(config, seed=2, learning_rate=RATE)
    stopped = learner_type(config, seed=2, learning_rate=RATE)
    for _ in range(2):
        straight.step(features, policy, outcome)
        stopped.step(features, policy, outcome)
    resumed = learner_type(config, seed=99, learning_rate=RATE)
    resumed.load_state({k: np.array(v) for k, v in stopped.state().items()})
    for learner in (straight, resumed):
        learner.step(features[::-1], policy[::-1], outcome[::-1])
    for name, value in straight.weights.items():
        assert np.array_equal(resumed.weights[name], value), name
    assert straight.loss(features, policy, outcome) == resumed.loss(features, policy, outcome)
