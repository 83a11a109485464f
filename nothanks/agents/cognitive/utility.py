"""The ``utility`` agent: strategy productions chosen by learned ACT-R utility.

At each decision with a choice (tokens left) one *strategy production* is chosen by
noisy conflict resolution (:class:`~nothanks.actr.ProceduralMemory`) and the chosen
strategy decides. The strategies (spec key ``strategies``, joined by ``+``):

* ``tom0``, ``tom1``, ``tom2``: what the thesis's ToM-k model would do (a
  :class:`~nothanks.agents.cognitive.ToMAgent` of that order, which observes every event
  of the game, so its memories are the same whichever strategy decides);
* ``seq``: the thesis's sequence rules (§3.2, the ``monotone`` instances' rule): take a
  card that extends or completes a run, else take once the tokens on it reach
  :func:`~nothanks.agents.cognitive.generate_instances.tokens_needed`;
* ``T<x>`` (e.g. ``T0``, ``T-3``): the heuristic's threshold rule, take iff
  (increase in own card points) − (tokens on the card) <= x
  (:class:`~nothanks.agents.HeuristicAgent`).

Rewards (spec key ``reward``): ``take`` — at each take of a card (by anyone: the card
is settled), minus the change of the own score since the previous take, i.e. minus the
tokens this player paid passing on that card and, if it took the card, the card's points
less the tokens it got; a game's rewards add up to minus its score change (the
default). ``rank`` — at game end ``rank_reward`` times the rank points (3/2/1/0 with four
players). Each reward goes to every strategy chosen since the previous reward (under
``take`` the choices made on the card just settled; under ``rank`` every choice of the
game), minus the model time since it was chosen (ACT-R's rule; the clock moves
``time_per_turn`` seconds per turn of any player). The two cannot be mixed: a take's
reward empties the history of choices, so a rank reward after it would reach none.

Learning across games (``carry``): off by default, so every game starts from no
preference and a game is reproducible from its seed alone (the suite's contract for every
agent); ``carry=true`` keeps the utilities from game to game of the same agent object (a
trial: :func:`nothanks.play.runner.play_trial`), and a game's unrewarded choices are cleared
without learning when the next game starts (ACT-R's non-numeric reward).
"""
from __future__ import annotations

import math

from ...actr import ProceduralMemory
from ...rules import Action, Event, GameOver, Passed, Took, Variant, View
from ...rules.scoring import Category, card_points, sequence_category
from ...rules.seeding import derive_seed
from ..base import Agent
from ..baselines import HeuristicAgent
from .generate_instances import tokens_needed
from .tom import ToMAgent

__all__ = ["REWARD_SCHEMES", "SequenceRule", "UtilityAgent", "parse_strategies"]

#: The reward schemes (spec key ``reward``).
REWARD_SCHEMES = ("take", "rank")
#: The ToM strategies by name.
_TOM_STRATEGIES = {"tom0": 0, "tom1": 1, "tom2": 2}
_VALID = "tom0, tom1, tom2, seq, T<number> (e.g. T0, T-3)"


class SequenceRule(Agent):
    """The thesis's sequence rules as a strategy: take a card that extends or completes
    a run of the player's cards; a card outside any run once the tokens on it reach
    ``tokens_needed(card, own tokens)`` (fewer when the supply is low)."""

    name = "seq"

    def decide(self, view: View) -> Action:
        if view.own_tokens == 0:
            return Action.TAKE
        if sequence_category(view.own_cards, view.card) != Category.NO_SEQUENCE:
            return Action.TAKE
        needed = tokens_needed(view.card, view.own_tokens)
        return Action.TAKE if view.tokens_on_card >= needed else Action.PASS


def _strategy(name: str) -> Agent:
    """The agent that plays strategy ``name``; a ValueError naming the valid ones."""
    if name in _TOM_STRATEGIES:
        return ToMAgent(_TOM_STRATEGIES[name])
    if name == "seq":
        return SequenceRule()
    if name.startswith("T"):
        try:
            threshold = float(name[1:])
        except ValueError:
            threshold = math.nan
        if math.isfinite(threshold):
            return HeuristicAgent(threshold)
    raise ValueError(f"strategies: {name!r} is not a strategy; valid: {_VALID}, joined by +")


def parse_strategies(text: str) -> list[str]:
    """The strategy names of a ``strategies`` value (``+``-joined); a ValueError for an
    empty, unknown or repeated one."""
    names = [n.strip() for n in text.split("+")]
    if not text.strip() or any(not n for n in names):
        raise ValueError(f"strategies={text!r} has an empty entry; valid: {_VALID}, "
                         "joined by + (e.g. tom1+seq+T0)")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"strategies={text!r} repeats {', '.join(repeated)}; name each once")
    for name in names:
        _strategy(name)  # validates
    return names


class UtilityAgent(Agent):
    """Chooses a strategy per decision by learned ACT-R utility (module docstring).

    Args:
        strategies: the strategy productions, joined by ``+``.
        reward: reward scheme, ``take`` or ``rank``.
        rank_reward: reward per rank point at game end (``rank``).
        alpha: learning rate α (ACT-R ``:alpha``).
        egs: utility noise s (ACT-R ``:egs``; > 0 so that the learner explores).
        iu: initial utility of every strategy (ACT-R ``:iu``).
        time_per_turn: model seconds per turn of any player (the reward's time discount).
        carry: keep the utilities from game to game of this agent object.
        learn: utility learning on (ACT-R ``:ul``); ``false`` is the no-learning control:
            the same noisy choices among the starting utilities, no reward given.
    """

    name = "utility"
    learns = True

    def __init__(self, strategies: str = "tom0+tom1+tom2+seq+T0+T-3", reward: str = "take",
                 rank_reward: float = 10.0, alpha: float = 0.2, egs: float = 3.0,
                 iu: float = 0.0, time_per_turn: float = 0.05, carry: bool = False,
                 learn: bool = True) -> None:
        super().__init__()
        if reward not in REWARD_SCHEMES:
            raise ValueError(f"reward={reward!r} is unknown; valid: {', '.join(REWARD_SCHEMES)}")
        for key, value in (("rank_reward", rank_reward), ("time_per_turn", time_per_turn)):
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{key}={value!r} is invalid; valid: a finite number >= 0")
        self.strategy_names = parse_strategies(strategies)
        self.strategies = [_strategy(n) for n in self.strategy_names]
        self.reward_scheme = reward
        self.rank_reward = float(rank_reward)
        self.time_per_turn = float(time_per_turn)
        self.carries = carry
        self.learn = learn
        # ACT-R's own checks of alpha, egs and iu
        self.memory = ProceduralMemory(self.strategy_names, alpha=alpha, egs=egs, iu=iu,
                                       ul=learn, seed=0)
        self._observers = [s for s in self.strategies if s.observes()]
        self._cards: list[int] = []
        self._tokens = 0
        self._rewarded_score = 0
        self._chosen: str | None = None
        self._info: dict[str, object] = {}

    # ------------------------------------------------------------------ game lifecycle
    def start(self, seat: int, variant: Variant, seed: int) -> None:
        """New game: every strategy starts (seeded from ``seed``); the utilities start
        afresh unless ``carry``, in which case choices not yet rewarded are cleared."""
        super().start(seat, variant, seed)
        for i, strategy in enumerate(self.strategies):
            strategy.start(seat, variant, derive_seed(seed, 1 + i))
        if self.carries:
            if self.learn:  # (without learning there is no history to clear)
                self.memory.clear()
        else:
            self.memory.reset()
        self.memory.reseed(derive_seed(seed, 0))
        self._cards = []
        self._tokens = variant.tokens
        self._rewarded_score = self._score()
        self._chosen = None
        self._info = {}

    def _score(self) -> int:
        return card_points(self._cards) - self._tokens

    def _reward_score_change(self) -> float:
        """Minus the own score's change since the last reward (lower scores are better)."""
        now = self._score()
        change, self._rewarded_score = now - self._rewarded_score, now
        return -float(change)

    def observe(self, event: Event) -> None:
        for strategy in self._observers:
            strategy.observe(event)
        kind = type(event)
        if kind is Passed:
            self.memory.advance(self.time_per_turn)
            if event.seat == self.seat:
                self._tokens -= 1
        elif kind is Took:
            self.memory.advance(self.time_per_turn)
            if event.seat == self.seat:
                self._cards.append(event.card)
                self._tokens += event.tokens
            if self.learn and self.reward_scheme == "take":  # the card is settled
                self.memory.reward(self._reward_score_change())
        elif kind is GameOver and self.learn and self.reward_scheme == "rank":
            self.memory.reward(self.rank_reward * event.rank_points[self.seat])

    # ------------------------------------------------------------------ deciding
    def decide(self, view: View) -> Action:
        utilities = self.memory.utilities
        if view.own_tokens == 0:
            self._chosen = None
            self._info = {"model_time": self.memory.time,
                          "reason": "no tokens left: must take",
                          "learning": {"strategy": None, "utilities": utilities}}
            return Action.TAKE
        chosen = self.memory.select().production
        strategy = self.strategies[self.strategy_names.index(chosen)]
        action = strategy.decide(view)
        said = strategy.decision_info().get("reason")
        self._chosen = chosen
        self._info = {"model_time": self.memory.time,
                      "reason": f"strategy {chosen}" + (f": {said}" if said else ""),
                      "learning": {"strategy": chosen, "utilities": utilities}}
        return action

    def decision_info(self) -> dict[str, object]:
        """The last decision's model time, a reason naming the strategy (and the
        strategy's own reason, if it gives one) and ``learning``, the learning state: the
        strategy chosen (``None`` when forced to take) and every strategy's utility at
        the choice (the ``learning`` table's state)."""
        return dict(self._info)

    @property
    def utilities(self) -> dict[str, float]:
        """Every strategy's current utility."""
        return self.memory.utilities

