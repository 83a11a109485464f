"""The learner: fits the policy-value network to self-play samples with JAX and Optax.

The only module of the suite that imports JAX. It trains the weight dict of
:mod:`nothanks.search.network` (same names, shapes and forward pass: tested equal to
the numpy evaluation to float32 rounding), so self-play workers and the agent play with
numpy alone.

Loss (seed 004, eq. 6), on a batch of ``(s, pi, z)`` samples:

- value: the squared error between the outcome vector ``z`` (rank rewards rotated to the
  sample's mover) and the predicted ``v``, summed over seats, mean over the batch;
- policy: the cross-entropy between the search's visit shares ``(pi, 1 - pi)`` and the
  network's ``(q, 1 - q)``, mean over the batch;
- L2: ``weight_decay`` times the sum of squares of the weight matrices (not the biases,
  nor batch normalization's scales and shifts).

The conv trunk's batch normalization uses each batch's statistics in a step and moves
the running statistics toward them (momentum
:data:`~nothanks.search.network.BN_MOMENTUM`); the forward pass of play uses the
running ones, as the numpy network does.

Optimiser: Adam at ``learning_rate``. One step is deterministic on the CPU, so a
learner restored with :meth:`Learner.load_state` takes the same steps, bit for bit, as
one that never stopped.
"""
from __future__ import annotations

import math
from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np
import optax

from ...search.network import (
    BN_EPSILON,
    BN_MOMENTUM,
    STATISTICS,
    NetworkConfig,
    card_windows,
    check_weights,
    init_weights,
)

_WEIGHT = "weight/"
_OPT = "opt/"
_STEP = "step"


def forward(params: dict, x: jnp.ndarray, layers: int) -> tuple[jnp.ndarray, jnp.ndarray]:
    """``(policy logit [B], values [B, players])``: the forward pass of
    :meth:`nothanks.search.network.Network.evaluate`, before the sigmoid (for the conv
    trunk: in play, batch normalization by the running statistics in ``params``)."""
    return _heads(params, _trunk_input(params, x, False)[0], layers)


def _heads(params: dict, h: jnp.ndarray, layers: int) -> tuple[jnp.ndarray, jnp.ndarray]:
    """The trunk's fully connected layers and the two heads on the trunk's input ``h``."""
    h = jax.nn.relu(h @ params["w_in"] + params["b_in"])
    for layer in range(layers - 1):
        h = jax.nn.relu(h @ params["w_hidden"][layer] + params["b_hidden"][layer])
    logit = (h @ params["w_policy"] + params["b_policy"])[:, 0]
    return logit, jnp.tanh(h @ params["w_value"] + params["b_value"])


def _trunk_input(params: dict, x: jnp.ndarray, train: bool) -> tuple[jnp.ndarray, dict]:
    """What the first trunk layer reads (:meth:`Network.trunk_input`) and, in training
    (``train``), the batch's statistics of the normalized layers (``bn_*_mean`` and
    ``bn_*_var`` names; in play, by the running ones: an empty dict)."""
    if "w_conv" not in params:
        return x, {}
    players = params["w_value"].shape[1]
    kernel, _, channels = params["w_conv"].shape
    cards = (x.shape[1] - 3) // (2 * players + 1)
    grid = x[:, :2 * players * cards].reshape(x.shape[0], players, cards, 2)
    conv = jnp.einsum("bsjdi,dio->bsjo", card_windows(grid, kernel, jnp), params["w_conv"])
    table = x[:, 2 * players * cards:] @ params["w_table"]
    batch = {}
    normalized = []
    for branch, u, axes in (("conv", conv, (0, 1, 2)), ("table", table, (0,))):
        if train:
            mean, var = jnp.mean(u, axis=axes), jnp.var(u, axis=axes)
            batch[f"bn_{branch}_mean"], batch[f"bn_{branch}_var"] = mean, var
        else:
            mean, var = params[f"bn_{branch}_mean"], params[f"bn_{branch}_var"]
        u = ((u - mean) * jax.lax.rsqrt(var + BN_EPSILON) * params[f"bn_{branch}_scale"]
             + params[f"bn_{branch}_shift"])
        normalized.append(jax.nn.relu(u).reshape(x.shape[0], -1))
    return jnp.concatenate(normalized, axis=1), batch


def losses(params: dict, features: jnp.ndarray, policy: jnp.ndarray, outcome: jnp.ndarray,
           layers: int, weight_decay: float, statistics: dict | None = None
           ) -> tuple[jnp.ndarray, dict]:
    """The total loss and its parts (see the module docstring). With ``statistics`` (the
    conv trunk's running statistics, not trained) batch normalization uses the batch's
    statistics, returned as ``parts["batch"]``."""
    if statistics is None:
        logit, values = forward(params, features, layers)
        batch = None
    else:
        h, batch = _trunk_input({**params, **statistics}, features, True)
        logit, values = _heads(params, h, layers)
    value_loss = jnp.mean(jnp.sum((outcome - values) ** 2, axis=1))
    policy_loss = -jnp.mean(policy * jax.nn.log_sigmoid(logit)
                            + (1.0 - policy) * jax.nn.log_sigmoid(-logit))
    l2 = sum(jnp.sum(params[name] ** 2) for name in params if name.startswith("w_"))
    l2_loss = weight_decay * l2
    total = value_loss + policy_loss + l2_loss
    parts = {"loss": total, "policy_loss": policy_loss, "value_loss": value_loss,
             "l2_loss": l2_loss}
    if batch is not None:
        parts["batch"] = batch
    return total, parts


@lru_cache(maxsize=16)
def compiled(layers: int, learning_rate: float, weight_decay: float, conv: bool = False):
    """The jitted ``(step, losses, forward)`` functions for one setting, shared by every
    learner with it (JAX compiles each once per batch shape). With ``conv`` (batch
    normalization) ``step`` and ``losses`` take the running statistics too, and ``step``
    returns them updated (:data:`~nothanks.search.network.BN_MOMENTUM`)."""
    optimizer = optax.adam(learning_rate)
    if not conv:
        def step(params, opt_state, features, policy, outcome):
            grads, parts = jax.grad(losses, has_aux=True)(params, features, policy, outcome,
                                                          layers, weight_decay)
            updates, opt_state = optimizer.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, parts

        def loss(params, features, policy, outcome):
            return losses(params, features, policy, outcome, layers, weight_decay)[1]

        return (optimizer, jax.jit(step), jax.jit(loss),
                jax.jit(lambda params, x: forward(params, x, layers)))

    def conv_step(params, statistics, opt_state, features, policy, outcome):
        grads, parts = jax.grad(losses, has_aux=True)(params, features, policy, outcome,
                                                      layers, weight_decay, statistics)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        batch = parts.pop("batch")
        statistics = {name: BN_MOMENTUM * value + (1.0 - BN_MOMENTUM) * batch[name]
                      for name, value in statistics.items()}
        return optax.apply_updates(params, updates), statistics, opt_state, parts

    def conv_loss(params, statistics, features, policy, outcome):
        parts = losses(params, features, policy, outcome, layers, weight_decay,
                       statistics)[1]
        del parts["batch"]
        return parts

    return (optimizer, jax.jit(conv_step), jax.jit(conv_loss),
            jax.jit(lambda params, x: forward(params, x, layers)))


class Learner:
    """The network's weights and Adam's state, updated one batch at a time (and, for
    the conv trunk, batch normalization's running statistics: weights that Adam does
    not train)."""

    def __init__(self, config: NetworkConfig, seed: int, learning_rate: float = 1e-3,
                 weight_decay: float = 1e-4) -> None:
        for name, value in (("learning_rate", learning_rate), ("weight_decay", weight_decay)):
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{name}={value!r} is invalid; valid: a finite number >= 0")
        self.config = config
        self.learning_rate, self.weight_decay = float(learning_rate), float(weight_decay)
        self._conv = config.trunk == "conv"
        optimizer, self._step, self._loss, self._forward = compiled(
            config.layers, self.learning_rate, self.weight_decay, self._conv)
        initial = init_weights(config, seed)
        self._params = {k: jnp.asarray(v) for k, v in initial.items() if k not in STATISTICS}
        self._statistics = {k: jnp.asarray(v) for k, v in initial.items() if k in STATISTICS}
        self._opt_state = optimizer.init(self._params)
        self.steps = 0

    @property
    def weights(self) -> dict[str, np.ndarray]:
        """The current weights (numpy copies, :func:`~nothanks.search.network.init_weights`
        names and shapes)."""
        every = {**self._params, **self._statistics}
        return {name: np.array(every[name]) for name in self.config.shapes()}

    def evaluate(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(p_take [B], values [B, players])`` by the JAX forward pass (in play: batch
        normalization by the running statistics)."""
        logit, values = self._forward({**self._params, **self._statistics},
                                      jnp.asarray(features, jnp.float32))
        return np.asarray(jax.nn.sigmoid(logit)), np.asarray(values)

    def _batch(self, features, policy, outcome) -> tuple[jnp.ndarray, ...]:
        features = np.asarray(features, dtype=np.float32)
        policy = np.asarray(policy, dtype=np.float32)
        outcome = np.asarray(outcome, dtype=np.float32)
        size, f, n = len(features), self.config.features, self.config.players
        if (features.shape != (size, f) or policy.shape != (size,)
                or outcome.shape != (size, n) or size == 0):
            raise ValueError(f"a batch needs features [B, {f}], policy [B] and outcome "
                             f"[B, {n}] with B >= 1; got {features.shape}, {policy.shape}, "
                             f"{outcome.shape}")
        return jnp.asarray(features), jnp.asarray(policy), jnp.asarray(outcome)

    def step(self, features: np.ndarray, policy: np.ndarray,
             outcome: np.ndarray) -> dict[str, float]:
        """One optimiser step on a batch; returns its losses before the step (``loss``,
        ``policy_loss``, ``value_loss``, ``l2_loss``)."""
        batch = self._batch(features, policy, outcome)
        if self._conv:
            self._params, self._statistics, self._opt_state, parts = self._step(
                self._params, self._statistics, self._opt_state, *batch)
        else:
            self._params, self._opt_state, parts = self._step(self._params,
                                                              self._opt_state, *batch)
        self.steps += 1
        return {name: float(value) for name, value in parts.items()}

    def loss(self, features: np.ndarray, policy: np.ndarray,
             outcome: np.ndarray) -> dict[str, float]:
        """The losses of a batch at the current weights (no step)."""
        statistics = (self._statistics,) if self._conv else ()
        parts = self._loss(self._params, *statistics,
                           *self._batch(features, policy, outcome))
        return {name: float(value) for name, value in parts.items()}

    def state(self) -> dict[str, np.ndarray]:
        """Everything needed to resume exactly: weights, Adam's moments and step count,
        and this learner's step count (numpy arrays, e.g. for ``np.savez``)."""
        leaves = jax.tree_util.tree_leaves(self._opt_state)
        state = {_WEIGHT + name: value for name, value in self.weights.items()}
        state.update({f"{_OPT}{i}": np.array(leaf) for i, leaf in enumerate(leaves)})
        state[_STEP] = np.array(self.steps, dtype=np.int64)
        return state

    def load_state(self, state: dict[str, np.ndarray]) -> None:
        """Continue from a :meth:`state` (of a learner with the same configuration); a
        ValueError says what does not fit."""
        weights = {k.removeprefix(_WEIGHT): np.asarray(v) for k, v in state.items()
                   if k.startswith(_WEIGHT)}
        check_weights(weights, self.config, "learner state")
        leaves, tree = jax.tree_util.tree_flatten(self._opt_state)
        saved = [state.get(f"{_OPT}{i}") for i in range(len(leaves))]
        if _STEP not in state or any(s is None for s in saved) or any(
                np.shape(s) != np.shape(leaf) for s, leaf in zip(saved, leaves, strict=True)):
            raise ValueError("learner state: the optimiser's state is missing or does not fit "
                             f"this learner ({len(leaves)} arrays 'opt/0'.. and 'step' needed)")
        self._params = {name: jnp.asarray(weights[name], dtype=jnp.float32)
                        for name in self.config.shapes() if name not in STATISTICS}
        self._statistics = {name: jnp.asarray(weights[name], dtype=jnp.float32)
                            for name in self.config.shapes() if name in STATISTICS}
        self._opt_state = jax.tree_util.tree_unflatten(
            tree, [jnp.asarray(s, dtype=leaf.dtype) for s, leaf in zip(saved, leaves,
                                                                        strict=True)])
        self.steps = int(state[_STEP])
