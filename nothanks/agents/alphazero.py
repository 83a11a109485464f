"""The AlphaZero-style agent (``alphazero``): PUCT search guided by a trained
policy-value network (issue 32; docs/alphazero.md).

Like ``ismcts`` it decides from what its seat may see: its view and the public events
it observed (perfect recall of passes and takes gives every token count; the network
may be told to see only an estimate of the others', ``tokens="hidden"`` in its
checkpoint). It never reads the game's hidden state: the search draws every card it
reveals from the cards still unseen (:mod:`nothanks.search.puct`).

The network comes from a checkpoint file (:func:`nothanks.search.network.
save_checkpoint`), made by ``nothanks train``; a network is trained for one number of
players, so ``checkpoint`` may hold ``{players}``, replaced by the table's seat count.
"""
from __future__ import annotations

import math
from pathlib import Path

from ..rules import Action, Event, Variant, View
from ..rules.seeding import state_words
from .base import Agent

#: The shipped checkpoint (made by ``nothanks train``; docs/alphazero.md).
DEFAULT_CHECKPOINT = "data/selfplay/alphazero.npz"
#: Stands for the table's number of players in a ``checkpoint`` path.
PLAYERS_FIELD = "{players}"


class AlphaZeroAgent(Agent):
    """PUCT search with the policy-value network.

    Args:
        sims: simulations per decision (each evaluates one new node with the network).
        checkpoint: the network's checkpoint file; ``{players}`` in it is replaced by
            the table's number of players.
        c_puct: the exploration constant of PUCT (seed 004, eq. 2).
    """

    name = "alphazero"

    def __init__(self, sims: int = 100, checkpoint: str = DEFAULT_CHECKPOINT,
                 c_puct: float = 1.5) -> None:
        super().__init__()
        if not isinstance(sims, int) or isinstance(sims, bool) or sims < 1:
            raise ValueError(f"sims={sims!r} is invalid; valid: an integer >= 1")
        if not (math.isfinite(c_puct) and c_puct >= 0):
            raise ValueError(f"c_puct={c_puct!r} is invalid; valid: a finite number >= 0")
        if not checkpoint:
            raise ValueError("checkpoint is empty; valid: the path of a network checkpoint "
                             f"(default {DEFAULT_CHECKPOINT})")
        self.sims, self.checkpoint, self.c_puct = sims, str(checkpoint), float(c_puct)
        self._networks: dict[Path, object] = {}
        if PLAYERS_FIELD not in self.checkpoint:
            self._network_for(None)  # a missing or bad file fails now, not mid-tournament
        self._network = None
        self._seed = 0
        self._tally = None
        self._info: dict[str, object] = {}

    def _network_for(self, variant: Variant | None):
        """The network for ``variant``'s table (loaded once per file); a ValueError names
        the file and what is wrong (missing: the command that makes it)."""
        from ..search.network import CheckpointError, Network, load_checkpoint

        players = None if variant is None else variant.players
        path = Path(self.checkpoint.replace(PLAYERS_FIELD, str(players)))
        if path not in self._networks:
            if not path.is_file():
                made_by = ("`nothanks train --update-shipped --out data/selfplay`"
                           if self.checkpoint == DEFAULT_CHECKPOINT else
                           "`nothanks train --players N --out DIR` (it writes "
                           "DIR/alphazero.npz)")
                raise CheckpointError(f"alphazero: no network checkpoint at {path}; make one "
                                      f"with {made_by} (docs/alphazero.md) and pass "
                                      "checkpoint=PATH")
            weights, config, _ = load_checkpoint(path)
            self._networks[path] = Network(weights, config)
        network = self._networks[path]
        config = network.config
        if variant is not None and (config.players, config.low_card, config.high_card) != (
                variant.players, variant.low_card, variant.high_card):
            raise CheckpointError(
                f"alphazero: {path} holds a network for {config.players} players and cards "
                f"{config.low_card}-{config.high_card}; this game has {variant.players} "
                f"players and cards {variant.low_card}-{variant.high_card} (train one for "
                "it, or name one per player count with checkpoint=...{players}...)")
        return network

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        from ..search import TokenTally

        super().start(seat, variant, seed)
        self._network = self._network_for(variant)
        self._seed = seed
        self._tally = TokenTally(variant)
        self._info = {}

    def observe(self, event: Event) -> None:
        self._tally.observe(event)

    def decide(self, view: View) -> Action:
        import numpy as np

        from ..search import root_state
        from ..search.puct import puct_search

        if view.own_tokens == 0:
            self._info = {"prior": None, "take_visits": 0, "pass_visits": 0,
                          "take_value": None, "pass_value": None, "root_values": None,
                          "iterations": 0}
            return Action.TAKE
        rng = np.random.default_rng(int(state_words(self._seed, len(view.history))[0]))
        result = puct_search(root_state(view, self._tally.counts), self._network,
                             self.sims, rng, c_puct=self.c_puct)
        points = (view.variant.players - 1) / 2.0  # rank rewards -> rank points

        def rank_points(value: float) -> float | None:
            return None if math.isnan(value) else (value + 1.0) * points

        self._info = {
            "prior": result.prior,
            "take_visits": result.visits[0], "pass_visits": result.visits[1],
            "take_value": rank_points(result.action_values[0]),
            "pass_value": rank_points(result.action_values[1]),
            "root_values": [float(v) for v in result.root_values],
            "iterations": self.sims,
        }
        return Action.TAKE if result.best_takes() else Action.PASS

    def decision_info(self) -> dict[str, object]:
        """The network's prior probability of take at the root, the simulations through
        take and through pass, the mover's mean rank points (n-1 for first place .. 0)
        after each (``None`` if never tried), every seat's mean rank reward over the
        search (``root_values``, seat order, 1 .. -1) and the simulations run."""
        return dict(self._info)
