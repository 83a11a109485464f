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
- L2: ``weight_decay`` times the sum of squares of the weight matrices (not the biases).

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

from ...search.network import WEIGHT_NAMES, NetworkConfig, check_weights, init_weights

_WEIGHT = "weight/"
_OPT = "opt/"
_STEP = "step"


def forward(params: dict, x: jnp.ndarray, layers: int) -> tuple[jnp.ndarray, jnp.ndarray]:
    """``(policy logit [B], values [B, players])``: the forward pass of
    :meth:`nothanks.search.network.Network.evaluate`, before the sigmoid."""
    h = jax.nn.relu(x @ params["w_in"] + params["b_in"])
    for layer in range(layers - 1):
        h = jax.nn.relu(h @ params["w_hidden"][layer] + params["b_hidden"][layer])
    logit = (h @ params["w_policy"] + params["b_policy"])[:, 0]
    return logit, jnp.tanh(h @ params["w_value"] + params["b_value"])


def losses(params: dict, features: jnp.ndarray, policy: jnp.ndarray, outcome: jnp.ndarray,
           layers: int, weight_decay: float) -> tuple[jnp.ndarray, dict]:
    """The total loss and its parts (see the module docstring)."""
    logit, values = forward(params, features, layers)
    value_loss = jnp.mean(jnp.sum((outcome - values) ** 2, axis=1))
    policy_loss = -jnp.mean(policy * jax.nn.log_sigmoid(logit)
                            + (1.0 - policy) * jax.nn.log_sigmoid(-logit))
    l2 = sum(jnp.sum(params[name] ** 2) for name in params if name.startswith("w_"))
    l2_loss = weight_decay * l2
    total = value_loss + policy_loss + l2_loss
    return total, {"loss": total, "policy_loss": policy_loss, "value_loss": value_loss,
                   "l2_loss": l2_loss}


@lru_cache(maxsize=16)
def compiled(layers: int, learning_rate: float, weight_decay: float):
    """The jitted ``(step, losses, forward)`` functions for one setting, shared by every
    learner with it (JAX compiles each once per batch shape)."""
    optimizer = optax.adam(learning_rate)

    def step(params, opt_state, features, policy, outcome):
        grads, parts = jax.grad(losses, has_aux=True)(params, features, policy, outcome,
                                                      layers, weight_decay)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, parts

    def loss(params, features, policy, outcome):
        return losses(params, features, policy, outcome, layers, weight_decay)[1]

    return (optimizer, jax.jit(step), jax.jit(loss),
            jax.jit(lambda params, x: forward(params, x, layers)))


class Learner:
    """The network's weights and Adam's state, updated one batch at a time."""

    def __init__(self, config: NetworkConfig, seed: int, learning_rate: float = 1e-3,
                 weight_decay: float = 1e-4) -> None:
        for name, value in (("learning_rate", learning_rate), ("weight_decay", weight_decay)):
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{name}={value!r} is invalid; valid: a finite number >= 0")
        self.config = config
        self.learning_rate, self.weight_decay = float(learning_rate), float(weight_decay)
        optimizer, self._step, self._loss, self._forward = compiled(
            config.layers, self.learning_rate, self.weight_decay)
        self._params = {k: jnp.asarray(v) for k, v in init_weights(config, seed).items()}
        self._opt_state = optimizer.init(self._params)
        self.steps = 0

    @property
    def weights(self) -> dict[str, np.ndarray]:
        """The current weights (numpy copies, :func:`~nothanks.search.network.init_weights`
        names and shapes)."""
        return {name: np.array(self._params[name]) for name in WEIGHT_NAMES}

    def evaluate(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(p_take [B], values [B, players])`` by the JAX forward pass."""
        logit, values = self._forward(self._params, jnp.asarray(features, jnp.float32))
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
        self._params, self._opt_state, parts = self._step(self._params, self._opt_state,
                                                          *batch)
        self.steps += 1
        return {name: float(value) for name, value in parts.items()}

    def loss(self, features: np.ndarray, policy: np.ndarray,
             outcome: np.ndarray) -> dict[str, float]:
        """The losses of a batch at the current weights (no step)."""
        parts = self._loss(self._params, *self._batch(features, policy, outcome))
        return {name: float(value) for name, value in parts.items()}

    def state(self) -> dict[str, np.ndarray]:
        """Everything needed to resume exactly: weights, Adam's moments and step count,
        and this learner's step count (numpy arrays, e.g. for ``np.savez``)."""
        leaves = jax.tree_util.tree_leaves(self._opt_state)
        state = {_WEIGHT + name: np.array(self._params[name]) for name in WEIGHT_NAMES}
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
                        for name in WEIGHT_NAMES}
        self._opt_state = jax.tree_util.tree_unflatten(
            tree, [jnp.asarray(s, dtype=leaf.dtype) for s, leaf in zip(saved, leaves,
                                                                        strict=True)])
        self.steps = int(state[_STEP])
