"""Bots nobody here wrote, as agents: OpenSpiel's MCTS and IS-MCTS (``openspiel-mcts``,
``openspiel-ismcts``) playing ``python_no_thanks`` (:mod:`nothanks.integrations.openspiel`).

An agent keeps the public events it observes. At each decision it builds an OpenSpiel
state from them alone: the reveals and moves it saw, and the removed cards drawn among
the cards it has not seen (a determinisation, seeded from the agent's seed and the turn).
With perfect recall of the public moves every token count is known (see
:mod:`nothanks.search.infoset`), so the removed cards are the only thing it has to guess;
it never reads the hidden game state. Then it asks the bot for an action.

Needs the ``integrations`` extra (``open-spiel``); OpenSpiel is imported on first use.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..rules import Action, CardRevealed, Event, Variant, View
from ..rules.seeding import state_words
from .base import Agent

#: Words of seed state per decision (``RandomState`` takes an array of 32-bit words).
_SEED_WORDS = 4


def _openspiel() -> Any:
    """The integration module (imports ``pyspiel``); a clear error without the extra."""
    try:
        from ..integrations import openspiel
    except ImportError as exc:  # the optional extra is missing
        raise ValueError(
            f"the OpenSpiel agents need open-spiel ({exc}); install the extra: "
            "pip install 'nothanks[integrations]'") from None
    return openspiel


class OpenSpielAgent(Agent):
    """Base of the OpenSpiel bots: determinised states from public events; subclasses
    build the bot (:meth:`make_bot`) and may read its answer differently (:meth:`ask`).

    Args:
        sims: simulations per decision (the bot's ``max_simulations``), at least
            :attr:`min_sims` (2).
        c: the UCT exploration constant (``uct_c``). Returns are rank points, 0 to
            ``players - 1``, unscaled, as OpenSpiel sees them; OpenSpiel's examples use 2.
        rollouts: random play-outs per evaluated leaf (``RandomRolloutEvaluator``).
    """

    #: The fewest simulations the bots can decide from: the first only creates the root,
    #: and a root without children or visits fails OpenSpiel's final choice.
    min_sims = 2

    def __init__(self, sims: int = 100, c: float = 2.0, rollouts: int = 1) -> None:
        super().__init__()
        if sims < self.min_sims:
            raise ValueError(f"sims={sims} is invalid; {self.name} needs at least "
                             f"{self.min_sims} simulations")
        if not c >= 0:
            raise ValueError(f"c={c} is invalid; the exploration constant is >= 0")
        if rollouts < 1:
            raise ValueError(f"rollouts={rollouts} is invalid; give at least 1 play-out")
        self.sims, self.c, self.rollouts = sims, c, rollouts
        _openspiel()  # a clear error now, not at the first decision, without the extra
        self._game: Any = None
        self._seed = 0
        self._events: list[Event] = []

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        if self._game is None or self._game.variant != variant:
            self._game = _openspiel().load_variant(variant)
        super().start(seat, variant, seed)
        self._seed = seed
        self._events = []

    def __getstate__(self) -> dict[str, Any]:
        """The agent without its OpenSpiel game (a Python game object, which does not
        pickle): a copy loads it again from its variant."""
        state = dict(self.__dict__)
        state["_game"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        variant = state.get("variant")
        if variant is not None:  # started: the game it plays
            self._game = _openspiel().load_variant(variant)

    def observe(self, event: Event) -> None:
        self._events.append(event)

    def determinize(self, rng: np.random.RandomState) -> Any:
        """An OpenSpiel state from the observed events, the removed cards drawn among the
        cards not revealed so far.

        Raises ValueError when the events do not lead to this agent's turn (events were
        missed).
        """
        v = self.variant
        revealed = {e.card for e in self._events if isinstance(e, CardRevealed)}
        pool = [c for c in range(v.low_card, v.high_card + 1) if c not in revealed]
        removed = [int(c) for c in rng.choice(pool, size=v.removed, replace=False)]
        return _openspiel().state_with_removed(self._game, removed,
                                           _openspiel().public_actions(v, self._events))

    def make_bot(self, rng: np.random.RandomState) -> Any:
        """The OpenSpiel bot for one decision, drawing from ``rng``."""
        raise NotImplementedError

    def decide(self, view: View) -> Action:
        if view.own_tokens == 0:
            return Action.TAKE
        rng = np.random.RandomState(
            state_words(self._seed, len(view.history), words=_SEED_WORDS))
        state = self.determinize(rng)
        seen = _openspiel().seen(state, self.seat)
        if state.current_player() != self.seat or seen.card != view.card:
            raise ValueError(
                f"{self.name}: the events observed ({len(self._events)}) do not lead to seat "
                f"{self.seat}'s decision on card {view.card}: events were missed")
        return _openspiel().ACTIONS[int(self.make_bot(rng).step(state))]


class OpenSpielMCTSAgent(OpenSpielAgent):
    """OpenSpiel's UCT (``open_spiel.python.algorithms.mcts.MCTSBot``, random
    play-outs) on one determinisation per decision: the tree sees the sampled removed
    cards as if known (its chance nodes draw the reveals from the rest)."""

    name = "openspiel-mcts"

    def make_bot(self, rng: np.random.RandomState) -> Any:
        from open_spiel.python.algorithms import mcts

        return mcts.MCTSBot(self._game, self.c, self.sims,
                            mcts.RandomRolloutEvaluator(self.rollouts, rng),
                            random_state=rng, solve=False)


class OpenSpielISMCTSAgent(OpenSpielAgent):
    """OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``,
    OpenSpiel's Python port of its C++ ``ISMCTSBot``; random play-outs, the most visited
    action): every simulation redraws the removed cards through the state's
    ``resample_from_infostate`` (fed by the decision's seeded generator, not OpenSpiel's
    unseeded default sampler), and nodes are keyed by information states. The C++ bot
    cannot run on a Python game (docs/openspiel.md, "OpenSpiel's bots as agents")."""

    name = "openspiel-ismcts"

    def make_bot(self, rng: np.random.RandomState) -> Any:
        from open_spiel.python.algorithms import ismcts, mcts

        bot = ismcts.ISMCTSBot(self._game, mcts.RandomRolloutEvaluator(self.rollouts, rng),
                               self.c, self.sims, random_state=rng)
        bot.set_resampler(lambda state, player: state.resample_from_infostate(
            player, rng.uniform))
        return bot
