"""The policy-value network (numpy only): a trunk of fully connected layers with two heads.

A shared trunk of ``layers`` fully connected ReLU layers of ``hidden`` units reads the
encoding (:mod:`nothanks.search.encoding`); the policy head gives the probability that
the player to move takes (sigmoid), the value head one rank-reward estimate in [-1, 1]
per seat (tanh), rotated like the encoding (column 0: the player to move, then the
others in turn order).

What the trunk's first layer reads is the configuration's ``trunk``:

- ``"mlp"`` (the default): the encoding itself;
- ``"conv"`` (seed 004's network): two branches, concatenated. The seat grid goes
  through a 1-D convolution along the card axis of each seat row (``conv_kernel``
  cards wide, zero-padded, ``conv_channels`` output channels, the same kernel for every
  seat: runs of consecutive cards score as their lowest card), batch normalization and
  ReLU; the table vector through a dense layer of ``table_units``, batch normalization
  and ReLU. The convolution's output of every seat and card, flattened (seat, card,
  channel), and the table branch's units are the first trunk layer's input.

Batch normalization normalizes with the batch's statistics while the learner trains
and with running averages of them (``bn_*_mean``, ``bn_*_var``) in play; in play it is
an affine map per channel, so :class:`Network` folds it into the convolution's and the
table layer's weights and biases once, and the search evaluates one position at a time
with no normalization step.

Weights are a dict of float32 arrays (:func:`init_weights` names and shapes); the JAX
learner (``nothanks.studies.selfplay.learner``) trains the same dict, and self-play
and the agent evaluate it here, without JAX. Checkpoints are ``.npz`` files written
atomically (:func:`save_checkpoint`) and checked on loading (:func:`load_checkpoint`).
"""
from __future__ import annotations

import io
import json
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from ..files import atomic_write_bytes, read_npz
from .encoding import TOKEN_MODES, feature_size

#: The trunks the network can have (see the module docstring).
TRUNKS = ("mlp", "conv")
#: Batch normalization's epsilon (added to the variance) and the running averages'
#: momentum (the weight of the old average at each training step).
BN_EPSILON = 1e-5
BN_MOMENTUM = 0.9

#: Written into every checkpoint; a file without it is not one of ours.
FORMAT = "nothanks-alphazero-network-1"
#: The weight names of every trunk, in the order :meth:`Network.kernel_arrays` returns
#: them.
WEIGHT_NAMES = ("w_in", "b_in", "w_hidden", "b_hidden", "w_policy", "b_policy",
                "w_value", "b_value")
#: The conv trunk's further weights: the convolution ``[kernel, 2, channels]`` and the
#: table layer ``[table, table_units]`` (no biases: batch normalization's shift is one),
#: each with batch normalization's scale, shift, running mean and running variance.
CONV_NAMES = ("w_conv", "bn_conv_scale", "bn_conv_shift", "bn_conv_mean", "bn_conv_var",
              "w_table", "bn_table_scale", "bn_table_shift", "bn_table_mean",
              "bn_table_var")
#: The running statistics: updated by the learner from the batches, not by gradients.
STATISTICS = ("bn_conv_mean", "bn_conv_var", "bn_table_mean", "bn_table_var")
#: The conv trunk's settings, absent from an MLP's configuration as written to files
#: (:meth:`NetworkConfig.as_dict`).
CONV_FIELDS = ("conv_channels", "conv_kernel", "table_units")


class CheckpointError(ValueError):
    """A checkpoint file is missing, corrupt, or does not fit; the message says which."""


@dataclass(frozen=True)
class NetworkConfig:
    """The network's shape: seats, trunk width and depth, token mode, card range, and the
    trunk's kind (``trunk``; for ``"conv"`` its convolution's channels and width in
    cards, an odd number, and the table branch's units)."""

    players: int
    hidden: int = 128
    layers: int = 2
    tokens: str = "public"
    low_card: int = 3
    high_card: int = 35
    trunk: str = "mlp"
    conv_channels: int = 8
    conv_kernel: int = 3
    table_units: int = 32

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
        if self.trunk not in TRUNKS:
            raise ValueError(f"trunk={self.trunk!r} is unknown; valid: {', '.join(TRUNKS)}")
        if not whole(self.conv_channels) or not 1 <= self.conv_channels <= 256:
            raise ValueError(f"conv_channels={self.conv_channels!r} is invalid; valid: 1 to "
                             "256")
        if (not whole(self.conv_kernel) or self.conv_kernel % 2 == 0
                or not 1 <= self.conv_kernel <= self.cards):
            raise ValueError(f"conv_kernel={self.conv_kernel!r} is invalid; valid: an odd "
                             f"number of cards from 1 to {self.cards}")
        if not whole(self.table_units) or not 1 <= self.table_units <= 4096:
            raise ValueError(f"table_units={self.table_units!r} is invalid; valid: 1 to 4096")
        if self.trunk == "mlp":
            changed = [f"{name}={getattr(self, name)!r}" for name in CONV_FIELDS
                       if getattr(self, name) != _DEFAULTS[name]]
            if changed:
                raise ValueError(f"{', '.join(changed)} apply only to trunk='conv'; valid: "
                                 "trunk='conv', or the defaults with trunk='mlp'")

    @property
    def cards(self) -> int:
        """Columns of the seat grid: the cards ``low_card..high_card``."""
        return self.high_card - self.low_card + 1

    @property
    def features(self) -> int:
        """Length of the input encoding."""
        return feature_size(self.players, self.low_card, self.high_card)

    @property
    def trunk_inputs(self) -> int:
        """Length of the first trunk layer's input: the encoding (mlp), or the
        convolution's outputs of every seat and card and the table branch's units
        (conv)."""
        if self.trunk == "mlp":
            return self.features
        return self.players * self.cards * self.conv_channels + self.table_units

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """Every weight's name and shape (:data:`WEIGHT_NAMES`, then for the conv trunk
        :data:`CONV_NAMES`)."""
        f, h, n, deep = self.trunk_inputs, self.hidden, self.players, self.layers - 1
        shapes = {"w_in": (f, h), "b_in": (h,), "w_hidden": (deep, h, h),
                  "b_hidden": (deep, h), "w_policy": (h, 1), "b_policy": (1,),
                  "w_value": (h, n), "b_value": (n,)}
        if self.trunk == "conv":
            c, t = self.conv_channels, self.table_units
            table = self.features - 2 * n * self.cards
            shapes.update({"w_conv": (self.conv_kernel, 2, c), "bn_conv_scale": (c,),
                           "bn_conv_shift": (c,), "bn_conv_mean": (c,), "bn_conv_var": (c,),
                           "w_table": (table, t), "bn_table_scale": (t,),
                           "bn_table_shift": (t,), "bn_table_mean": (t,),
                           "bn_table_var": (t,)})
        return shapes

    def as_dict(self) -> dict:
        """The configuration by field, as written to files: an MLP's without the conv
        trunk's fields (:data:`CONV_FIELDS`, ``trunk``), so it reads as it did before
        the conv trunk existed."""
        values = asdict(self)
        if self.trunk == "mlp":
            for name in ("trunk", *CONV_FIELDS):
                del values[name]
        return values


_DEFAULTS = {field.name: field.default for field in fields(NetworkConfig)}


def init_weights(config: NetworkConfig, seed: int) -> dict[str, np.ndarray]:
    """Fresh float32 weights for ``config``, the same for the same ``seed``: He-normal
    trunk layers, zero biases, and heads scaled small so that an untrained network says
    p_take ~ 1/2 and values ~ 0."""
    rng = np.random.default_rng(seed)
    weights = {}
    for name, shape in config.shapes().items():
        if name.startswith("b_") or name.endswith(("_shift", "_mean")):
            weights[name] = np.zeros(shape, dtype=np.float32)
            continue
        if name.endswith(("_scale", "_var")):
            weights[name] = np.ones(shape, dtype=np.float32)
            continue
        fan_in = math.prod(shape[:-1]) if name == "w_conv" else shape[-2]
        scale = (math.sqrt(2.0 / fan_in) if name in ("w_in", "w_hidden", "w_conv", "w_table")
                 else 0.01)
        weights[name] = (rng.standard_normal(shape) * scale).astype(np.float32)
    return weights


def fold_normalization(weights: dict[str, np.ndarray], branch: str
                       ) -> tuple[np.ndarray, np.ndarray]:
    """``(weight, bias)`` of ``branch`` (``"conv"`` or ``"table"``) with batch
    normalization in play folded in: ``scale (u - mean) / sqrt(var + eps) + shift`` of
    the layer's output ``u`` is the layer with its output columns multiplied by
    ``scale / sqrt(var + eps)`` plus the bias ``shift - mean scale / sqrt(var + eps)``
    (float32)."""
    factor = weights[f"bn_{branch}_scale"] / np.sqrt(weights[f"bn_{branch}_var"] + BN_EPSILON)
    weight = (weights[f"w_{branch}"] * factor).astype(np.float32)
    bias = (weights[f"bn_{branch}_shift"] - weights[f"bn_{branch}_mean"] * factor)
    return np.ascontiguousarray(weight), bias.astype(np.float32)


def card_windows(grid, kernel: int, xp):
    """The windows a 1-D convolution along the cards reads: ``grid [..., cards, 2]``
    zero-padded by ``kernel // 2`` cards at each end, as ``[..., cards, kernel, 2]``
    (window ``d`` of card ``j``: card ``j + d - kernel // 2``). ``xp`` is the array
    module (numpy, or ``jax.numpy`` in the learner), so both forward passes share it."""
    cards, pad = grid.shape[-2], kernel // 2
    widths = [(0, 0)] * (grid.ndim - 2) + [(pad, pad), (0, 0)]
    padded = xp.pad(grid, widths)
    return xp.stack([padded[..., d:d + cards, :] for d in range(kernel)], axis=-2)


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
    """The network with fixed weights, evaluated with numpy (batch normalization folded:
    play uses its running statistics)."""

    def __init__(self, weights: dict[str, np.ndarray], config: NetworkConfig) -> None:
        check_weights(weights, config, "Network")
        self.config = config
        self.weights = {name: np.ascontiguousarray(weights[name], dtype=np.float32)
                        for name in config.shapes()}
        n, cards, hidden = config.players, config.cards, config.hidden
        trunk = tuple(self.weights[name] for name in WEIGHT_NAMES)
        if config.trunk == "mlp":
            grid = self.weights["w_in"][:2 * n * cards]
            token_rows = grid.reshape(n, cards, 2, hidden)[:, :, 1]
            self._arrays = (*trunk,
                            np.ascontiguousarray(token_rows.sum(axis=1, dtype=np.float32)),
                            np.zeros((0, 2, 0), np.float32), np.zeros(0, np.float32),
                            np.zeros((0, 0), np.float32), np.zeros(0, np.float32))
        else:
            self._conv = fold_normalization(self.weights, "conv")
            self._table = fold_normalization(self.weights, "table")
            self._arrays = (*trunk, np.zeros((0, hidden), np.float32), *self._conv,
                            *self._table)

    def trunk_input(self, x: np.ndarray) -> np.ndarray:
        """What the first trunk layer reads for features ``x [B, F]``: ``x`` itself
        (mlp), or the two branches' outputs concatenated (conv; see the module
        docstring)."""
        config = self.config
        if config.trunk == "mlp":
            return x
        n, cards = config.players, config.cards
        grid = x[:, :2 * n * cards].reshape(len(x), n, cards, 2)
        w_conv, b_conv = self._conv
        windows = card_windows(grid, config.conv_kernel, np)  # [B, n, cards, kernel, 2]
        conv = np.einsum("bsjdi,dio->bsjo", windows, w_conv) + b_conv
        w_table, b_table = self._table
        table = x[:, 2 * n * cards:] @ w_table + b_table
        return np.concatenate([np.maximum(conv, 0.0).reshape(len(x), -1),
                               np.maximum(table, 0.0)], axis=1).astype(np.float32)

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
        h = np.maximum(self.trunk_input(x) @ w["w_in"] + w["b_in"], 0.0)
        for layer in range(self.config.layers - 1):
            h = np.maximum(h @ w["w_hidden"][layer] + w["b_hidden"][layer], 0.0)
        logit = (h @ w["w_policy"] + w["b_policy"])[:, 0]
        p_take = (1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
        values = np.tanh(h @ w["w_value"] + w["b_value"]).astype(np.float32)
        return p_take, values

    def kernel_arrays(self) -> tuple[np.ndarray, ...]:
        """The weights for compiled code (:func:`nothanks.search.puct.forward`), one
        tuple layout for both trunks: the arrays in :data:`WEIGHT_NAMES` order; then
        (mlp) ``w_in``'s token-channel rows summed per seat row ``[players, hidden]`` (a
        seat's token count is repeated across its row of the grid, so one multiply-add
        per seat does for all its columns), or (conv) an empty ``[0, hidden]``; then
        (conv) the convolution's and the table layer's weight and bias with batch
        normalization folded in (:func:`fold_normalization`), or (mlp) empty arrays."""
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
              for name in config.shapes()}
    buffer = io.BytesIO()
    np.savez(buffer, format=np.array(FORMAT), config=np.array(json.dumps(config.as_dict())),
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
