"""The settings of a self-play training run (``nothanks train``'s options), apart from the
training code so that the command line can read their defaults without importing numpy."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from . import TrainError


@dataclass(frozen=True)
class TrainSettings:
    """What a training run computes; a run resumes only with the same settings.

    Named as ``nothanks train``'s options (``--games-per-iteration``, ...). The budgets
    (iterations, hours) and the workers are not settings: they change when a run stops
    or how fast it goes, not what it computes.
    """

    players: int = 4  # the thesis's game (rules.Variant's default)
    games_per_iteration: int = 64
    sims: int = 50
    steps_per_iteration: int = 100
    batch_size: int = 256
    buffer: int = 50_000
    seed: int = 0
    tokens: str = "public"
    hidden: int = 128
    layers: int = 2
    trunk: str = "mlp"  # the network's trunk (search/network.py): mlp or conv
    conv_channels: int = 8  # conv trunk only: the convolution's channels,
    conv_kernel: int = 3  # its width in cards,
    table_units: int = 32  # and the table branch's units
    learning_rate: float = 1e-3
    eval_every: int = 5
    eval_deals: int = 10
    league: str = ""  # the mixture of the training tables (league.py); "" pure self-play
    gate_deals: int = 10
    gate_margin: float = 0.05
    panel: str = ""  # the evaluation panel (league.py); "" random and heuristic

    def __post_init__(self) -> None:
        from ...search.encoding import TOKEN_MODES
        if not 3 <= self.players <= 7:
            raise TrainError(f"players={self.players}: No Thanks! is for 3 to 7 players")
        if self.tokens not in TOKEN_MODES:
            raise TrainError(f"tokens={self.tokens!r}; valid: {', '.join(TOKEN_MODES)}")
        counts = {name: getattr(self, name) for name in (
            "games_per_iteration", "sims", "steps_per_iteration", "batch_size", "buffer",
            "hidden", "layers", "eval_deals", "gate_deals")}
        if low := [f"{k}={v}" for k, v in counts.items() if v < 1]:
            raise TrainError(f"{', '.join(low)}: each must be >= 1")
        if self.batch_size > self.buffer:
            raise TrainError(f"batch_size={self.batch_size} is larger than buffer={self.buffer}"
                             ": a minibatch is drawn from the replay buffer; valid: "
                             "batch_size <= buffer (--batch-size, --buffer)")
        if self.eval_every < 0 or self.seed < 0:
            raise TrainError(f"eval_every={self.eval_every}, seed={self.seed}: both must be "
                             ">= 0 (eval_every 0: no evaluation)")
        if not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise TrainError(f"learning_rate={self.learning_rate}: give a finite number > 0")
        if not (math.isfinite(self.gate_margin) and -1 < self.gate_margin < 1):
            raise TrainError(f"gate_margin={self.gate_margin}: give a number between -1 and "
                             "1 (the first-place share over 1/players a snapshot needs to "
                             "join the league)")
        from .league import parse_league, parse_panel
        parse_league(self.league)
        parse_panel(self.panel, self.eval_deals)
        try:
            self.network_config()
        except ValueError as exc:  # e.g. a network wider than the configuration allows
            raise TrainError(str(exc)) from None

    def as_dict(self) -> dict:
        """The settings by name, as recorded in a run's checkpoints: an MLP run's without
        the conv trunk's (``trunk``, ``conv_*``, ``table_units``), so that runs made
        before the conv trunk existed resume and their files keep their bits."""
        values = dataclasses.asdict(self)
        if self.trunk == "mlp":
            for name in CONV_SETTINGS:
                del values[name]
        return values

    def network_config(self):
        """The :class:`nothanks.search.network.NetworkConfig` of these settings."""
        from ...search.network import NetworkConfig
        return NetworkConfig(players=self.players, hidden=self.hidden, layers=self.layers,
                             tokens=self.tokens, trunk=self.trunk,
                             conv_channels=self.conv_channels, conv_kernel=self.conv_kernel,
                             table_units=self.table_units)


#: The settings of the conv trunk, absent from an MLP run's records.
CONV_SETTINGS = ("trunk", "conv_channels", "conv_kernel", "table_units")


def check_budget(iterations: int | None, hours: float | None) -> None:
    """:class:`TrainError` unless a run is given a budget (either or both)."""
    if iterations is None and hours is None:
        raise TrainError("give a budget: --iterations N or --hours H (or both: training "
                         "stops at the first one reached)")
