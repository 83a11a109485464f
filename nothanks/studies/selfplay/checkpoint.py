"""Checkpoints of a self-play training run: the whole training state, and the small play
checkpoint the agent loads.

The training state (:data:`STATE_FILE` in the run's folder) holds everything the run needs
to go on exactly as if it had never stopped: the learner's state (weights and optimiser),
the replay buffer, the iteration and game counters, the training seconds so far, the
curve rows and the run's settings. The minibatch and self-play generators are derived
from the run's seed and the iteration (:mod:`.train`), so the iteration counter is their
state. It is one ``.npz`` file written atomically (a temporary file, flushed and synced,
then renamed over the old one: :func:`nothanks.files.atomic_write_bytes`), so a kill at
any moment leaves either the previous checkpoint or the new one, never part of one.

A run resumes only with the settings it was started with (:func:`check_settings`): other
settings would mix two different trainings in one curve.

The play checkpoint (:data:`PLAY_FILE`) is the network's weights only
(:func:`nothanks.search.network.save_checkpoint`), at most :data:`MAX_PLAY_BYTES`.
"""
from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...files import atomic_write_bytes, read_npz
from . import TrainError
from .settings import CONV_SETTINGS

#: The training state in a run's folder.
STATE_FILE = "training.npz"
#: The play checkpoint (weights only) in a run's folder.
PLAY_FILE = "alphazero.npz"
#: Largest play checkpoint shipped (10 MB).
MAX_PLAY_BYTES = 10_000_000
#: Version of the training state's layout.
FORMAT = 1
_META = "meta"
_PREFIXES = ("learner/", "replay/")


class CheckpointError(TrainError):
    """A checkpoint that cannot be used: unreadable, of another layout, or made with other
    settings (the message says which, and how to start afresh)."""


@dataclass
class TrainingState:
    """Everything a run needs to go on: see the module's docstring.

    ``settings`` are the run's settings by name (as their command-line options, ``_``
    for ``-``); ``curve`` the curve rows so far; ``learner`` the learner's
    ``state()``; ``replay`` the buffer's ``to_arrays()``.
    """

    settings: dict
    iteration: int = 0
    games: int = 0
    seconds: float = 0.0
    curve: list[dict] = field(default_factory=list)
    learner: dict[str, np.ndarray] = field(default_factory=dict)
    replay: dict[str, np.ndarray] = field(default_factory=dict)
    league: list[int] = field(default_factory=list)  # iterations of the league's members


def save_state(path: Path, state: TrainingState) -> None:
    """Write ``state`` to ``path`` atomically (the old file stays whole until the new one
    is complete and synced)."""
    meta = {"format": FORMAT, "settings": state.settings, "iteration": state.iteration,
            "games": state.games, "seconds": state.seconds, "curve": state.curve,
            "league": state.league}
    arrays = {_META: np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)}
    for prefix, part in zip(_PREFIXES, (state.learner, state.replay), strict=True):
        for key, value in part.items():
            arrays[prefix + key] = np.asarray(value)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write_bytes(buffer.getvalue(), Path(path))


def load_state(path: Path) -> TrainingState:
    """The training state saved at ``path``; :class:`CheckpointError` if it is not one
    (names the file and what is wrong)."""
    path = Path(path)
    try:
        arrays = read_npz(path)
    except (OSError, ValueError) as exc:
        raise CheckpointError(f"{path} is not a readable training checkpoint ({exc}); move "
                              "it away to start afresh, or give a new --out") from None
    if _META not in arrays:
        raise CheckpointError(f"{path} is not a training checkpoint (no {_META!r} entry); "
                              "give a new --out")
    try:
        meta = json.loads(arrays.pop(_META).tobytes())
    except ValueError as exc:
        raise CheckpointError(f"{path}: its settings are unreadable ({exc})") from None
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{path} has layout {meta.get('format')!r}; this version reads "
                              f"layout {FORMAT}: give a new --out to start afresh")
    parts: list[dict[str, np.ndarray]] = [{}, {}]
    for key, value in arrays.items():
        for part, prefix in zip(parts, _PREFIXES, strict=True):
            if key.startswith(prefix):
                part[key[len(prefix):]] = value
    return TrainingState(settings=meta["settings"], iteration=meta["iteration"],
                         games=meta["games"], seconds=meta["seconds"], curve=meta["curve"],
                         learner=parts[0], replay=parts[1],
                         league=list(meta.get("league", [])))


def option(name: str) -> str:
    """The command-line option of setting ``name`` (``games_per_iteration`` ->
    ``--games-per-iteration``)."""
    return "--" + name.replace("_", "-")


def check_settings(saved: Mapping[str, object], given: Mapping[str, object],
                   folder: Path) -> None:
    """Refuse to resume the run in ``folder`` with settings other than those it was
    started with: :class:`CheckpointError` listing each setting that differs (as its
    option, the run's value and the given one) and how to go on or start afresh."""
    names = sorted(set(saved) | set(given))
    differ = [name for name in names if saved.get(name) != given.get(name)]
    if not differ:
        return
    def value(settings: Mapping[str, object], name: str) -> str:
        if name in settings:
            return repr(settings[name])
        return "none (an MLP run)" if name in CONV_SETTINGS else "none"

    shown = "; ".join(f"{option(n)}: the run has {value(saved, n)}, this command gives "
                      f"{value(given, n)}" for n in differ)
    same = " ".join(f"{option(n)} {saved[n]}" for n in differ if n in saved)
    raise CheckpointError(
        f"{Path(folder) / STATE_FILE} was made with other settings ({shown}); to resume it, "
        f"rerun with {same}; to start afresh, give a new --out (or remove {STATE_FILE})")


def export_play(path: Path, weights: Mapping[str, np.ndarray], config, meta: dict) -> int:
    """Write the play checkpoint (weights only) to ``path`` and return its size in bytes;
    :class:`CheckpointError` (and nothing written) if it would exceed
    :data:`MAX_PLAY_BYTES`."""
    from ...search.network import save_checkpoint
    check_play_size(config)
    save_checkpoint(Path(path), dict(weights), config, meta)
    return Path(path).stat().st_size


def check_play_size(config) -> None:
    """:class:`CheckpointError` if a network of ``config`` (a
    :class:`~nothanks.search.network.NetworkConfig`) makes a play checkpoint above
    :data:`MAX_PLAY_BYTES` (float32 weights; checked before any weight is made)."""
    size = 4 * sum(math.prod(shape) for shape in config.shapes().values())
    if size > MAX_PLAY_BYTES:
        raise CheckpointError(f"a network of {config.hidden} units x {config.layers} layers "
                              f"for {config.players} players takes {size:,} bytes, above the "
                              f"play checkpoint's limit of {MAX_PLAY_BYTES:,}: give a smaller "
                              "--hidden or --layers (conv trunk: or --conv-channels)")
