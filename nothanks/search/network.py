"""The policy-value network (numpy only): a multilayer perceptron with two heads.

A shared trunk of ``layers`` fully connected ReLU layers of ``hidden`` units reads the
encoding (:mod:`nothanks.search.encoding`); the policy head gives the probability that
the player to move takes (sigmoid), the value head one rank-reward estimate in [-1, 1]
per seat (tanh), rotated like the encoding (column 0: the player to move, then the
others in turn order). Seed 004 puts a convolutional branch over the seat grid and a
dense branch over the table vector before the trunk; with 33 columns and at most 7 rows
a dense trunk over both is small and fast enough at batch size 1, which is what the
search needs.

Weights are a dict of float32 arrays (:func:`init_weights` names and shapes); the JAX
learner (``nothanks.studies.selfplay.learner``) trains the same dict, and self-play
and the agent evaluate it here, without JAX. Checkpoints are ``.npz`` files written
atomically (:func:`save_checkpoint`) and checked on loading (:func:`load_checkpoint`).
"""
from __future__ import annotations

import io
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..files import atomic_write_bytes, read_npz
from .encoding import TOKEN_MODES, feature_size

#: Written into every checkpoint; a file without it is not one of ours.
FORMAT = "nothanks-alphazero-network-1"
#: The weight names, in the order :meth:`Network.kernel_arrays` returns them.
WEIGHT_NAMES = ("w_in", "b_in", "w_hidden", "b_hidden", "w_policy", "b_policy",
                "w_value", "b_value")


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt, or does not fit; the message says which."""


@dataclass(frozen=True)
class NetworkConfig:
    """The network's shape: seats, trunk width and depth, token mode and card range."""

    players: int
    hidden: int = 128
    layers: int = 2
    tokens: str = "public"
    low_card: int = 3
    high_card: int = 35

    def __post_init__(self) -> None:
        def whole(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)

        if not whole(self.players) or not 3 <= self.players <= 7:
            raise ValueError(f"players={self.players!r} is invalid; valid: 3 to 7")
        if not whole(self.hidden) or not 1 <= self.hidden <= 4096:
            raise ValueError(f"hidden={self.hidden!r} is invalid; valid: 1 to 4096 units")
        if not whole(self.layers) or not 1 <= self.layers <= 16:
            raise ValueError(f"layers={self.layers!r} is invalid; valid: 1 to 16")
        if self.tokens not in TOKEN_MODES:
            raise ValueError(f"tokens={self.tokens!r} is unknown; valid: "
                             f"{', '.join(TOKEN_MODES)}")
        if not (whole(self.low_card) and whole(self.high_card)
                and 1 <= self.low_card < self.high_card):
            raise ValueError(f"cards {self.low_card!r}-{self.high_card!r} are invalid; "
                             "valid: 1 <= low_card < high_card")

    @property
    def features(self) -> int:
        """Length of the input encoding."""
        return feature_size(self.players, self.low_card, self.high_card)

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Every weight's name and shape."""
        f, h, n, deep = self.features, self.hidden, self.players, self.layers - 1
        return {"w_in": (f, h), "b_in": (h,), "w_hidden": (deep, h, h),
                "b_hidden": (deep, h), "w_policy": (h, 1), "b_policy": (1,),
                "w_value": (h, n), "b_value": (n,)}


def init_weights(config: NetworkConfig, seed: int) -> dict[str, np.ndarray]:
    """Fresh float32 weights for ``config``, the same for the same ``seed``: He-normal
    trunk layers, zero biases, and heads scaled small so that an untrained network says
    p_take ~ 1/2 and values ~ 0."""
    rng = np.random.default_rng(seed)
    weights = {}
    for name, shape in config.shapes().items():
        if name.startswith("b_"):
            weights[name] = np.zeros(shape, dtype=np.float32)
            continue
        fan_in = shape[-2]
        scale = math.sqrt(2.0 / fan_in) if name in ("w_in", "w_hidden") else 0.01
        weights[name] = (rng.standard_normal(shape) * scale).astype(np.float32)
    return weights


def check_weights(weights: dict[str, np.ndarray], config: NetworkConfig, where: str) -> None:
    """A CheckpointError (naming ``where``) unless ``weights`` has exactly the names and
    shapes ``config`` needs, all finite."""
    shapes = config.shapes()
    missing, extra = sorted(set(shapes) - set(weights)), sorted(set(weights) - set(shapes))
    if missing or extra:
        raise CheckpointError(f"{where}: weights {sorted(weights)} do not fit the network; "
                              f"missing {missing}, unexpected {extra}")
    for name, shape in shapes.items():
        array = np.asarray(weights[name])
        if array.shape != shape:
            raise CheckpointError(f"{where}: weight {name} has shape {array.shape}; the "
                                  f"configuration {config} needs {shape}")
        if not np.all(np.isfinite(array)):
            raise CheckpointError(f"{where}: weight {name} holds non-finite values")


class Network:
    """The network with fixed weights, evaluated with numpy."""

    def __init__(self, weights: dict[str, np.ndarray], config: NetworkConfig) -> None:
        check_weights(weights, config, "Network")
        self.config = config
        self.weights = {name: np.ascontiguousarray(weights[name], dtype=np.float32)
                        for name in WEIGHT_NAMES}
        cards = config.high_card - config.low_card + 1
        grid = self.weights["w_in"][:2 * config.players * cards]
        token_rows = grid.reshape(config.players, cards, 2, config.hidden)[:, :, 1]
        self._arrays = (*(self.weights[name] for name in WEIGHT_NAMES),
                        np.ascontiguousarray(token_rows.sum(axis=1, dtype=np.float32)))

    def evaluate(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(p_take [B], values [B, players])`` for ``features [B, F]`` (or one ``[F]``
        row, treated as a batch of one); values rotated like the encoding."""
        x = np.asarray(features, dtype=np.float32)
        if x.ndim == 1:
            x = x[None, :]
        if x.ndim != 2 or x.shape[1] != self.config.features:
            raise ValueError(f"features of shape {np.shape(features)} do not fit the "
                             f"network; valid: [B, {self.config.features}]")
        w = self.weights
        h = np.maximum(x @ w["w_in"] + w["b_in"], 0.0)
        for layer in range(self.config.layers - 1):
            h = np.maximum(h @ w["w_hidden"][layer] + w["b_hidden"][layer], 0.0)
        logit = (h @ w["w_policy"] + w["b_policy"])[:, 0]
        p_take = (1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
        values = np.tanh(h @ w["w_value"] + w["b_value"]).astype(np.float32)
        return p_take, values

    def kernel_arrays(self) -> tuple[np.ndarray, ...]:
        """The weights for compiled code (:func:`nothanks.search.puct.forward`): the
        arrays in :data:`WEIGHT_NAMES` order, then ``w_in``'s token-channel rows summed
        per seat row ``[players, hidden]`` (a seat's token count is repeated across its
        row of the grid, so one multiply-add per seat does for all its columns)."""
        return self._arrays


def save_checkpoint(path: str | Path, weights: dict[str, np.ndarray], config: NetworkConfig,
                    meta: dict) -> None:
    """Write ``weights``, ``config`` and ``meta`` (JSON-serialisable) to the ``.npz`` file
    ``path``, atomically: the file is complete or the previous one is left untouched."""
    check_weights(weights, config, str(path))
    try:
        meta_text = json.dumps(meta, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"checkpoint meta for {path} is not JSON-serialisable: {exc}") from None
    arrays = {f"weight_{name}": np.asarray(weights[name], dtype=np.float32)
              for name in WEIGHT_NAMES}
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array(FORMAT), config=np.array(json.dumps(asdict(config))),
             meta=np.array(meta_text), **arrays)
    atomic_write_bytes(buffer.getvalue(), Path(path))


def load_checkpoint(path: str | Path, players: int | None = None
                    ) -> tuple[dict[str, np.ndarray], NetworkConfig, dict]:
    """``(weights, config, meta)`` from a file :func:`save_checkpoint` wrote.

    A :class:`CheckpointError` names the file and what is wrong: missing, not a
    checkpoint (or corrupt), weights that do not fit its configuration, or (when
    ``players`` is given) a network for another number of players.
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        contents = read_npz(path)
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"{path} is not a network checkpoint: {exc}; valid: an .npz "
                              "written by nothanks train (its alphazero.npz)") from None
    if str(contents.get("format", "")) != FORMAT:
        raise CheckpointError(f"{path} is not a network checkpoint: its format is "
                              f"{str(contents.get('format', 'missing'))!r}, expected {FORMAT!r}")
    try:
        config = NetworkConfig(**json.loads(str(contents["config"])))
        meta = json.loads(str(contents["meta"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: unreadable configuration or meta: {exc}") from None
    weights = {key.removeprefix("weight_"): value for key, value in contents.items()
               if key.startswith("weight_")}
    check_weights(weights, config, str(path))
    if players is not None and config.players != players:
        raise CheckpointError(f"{path} holds a network for {config.players} players; this "
                              f"game has {players} (train one for {players} players)")
    return {k: v.astype(np.float32) for k, v in weights.items()}, config, meta
