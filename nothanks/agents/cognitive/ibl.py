"""The ``ibl`` agent: instance-based learning of the value of take and pass.

Each decision is an option per action with the situation as the View shows it: the
face-up card, the tokens on it, the agent's own tokens, and whether the card extends or
completes a run of its own cards (``run``). Its value is the blended outcome of the instances
(:class:`~nothanks.actr.InstanceMemory`) of that action, partially matched on the situation
(card: linear over the deck's range; token counts: Weber; run: exact-match weight 1; the
action itself must match exactly). The agent takes the action of higher blended value (pass
only with tokens left); an action no instance matches yet gets the ``prior`` (stored as an
instance at time 0, pyibl's default utility). The clock advances by one per decision.

Outcomes (spec key ``reward``): ``score`` — each decision's reward is minus the change of the
own score it causes (a pass costs a token: −1; a take −(card points added − tokens got)), so a
game's rewards add up to minus its score change; ``rank`` — no reward per decision, and
``rank_reward`` times the rank points at game end. Each decision's instance first holds the
value expected and learns its credited outcome (``credit``; :data:`~nothanks.actr.CREDIT_SCHEMES`):
``equal`` (the game's return), ``exponential`` (γ^(steps to the end) times it) or ``td``
(the reward plus γ times the best blended value at the next decision).

Learning across games (``carry``): off by default, so every game starts from an empty memory
and is reproducible from its seed alone; ``carry=true`` keeps the instances (and the clock)
from game to game of the same agent object. Every decision's info holds the learning state
(``learning``: the instance count and the blended values of take and pass).
"""
from __future__ import annotations

from ...actr import CREDIT_SCHEMES, BlendingLearner, ExactMatch, InstanceMemory, Linear, Weber
from ...actr.blending import Similarity
from ...rules import Action, Event, GameOver, Variant, View
from ...rules.scoring import sequence_gain
from ..base import Agent

__all__ = ["ATTRIBUTES", "REWARDS", "IBLAgent"]

#: The attributes of an instance: the action and the situation.
ATTRIBUTES = ("action", "card", "tokens_on_card", "own_tokens", "run")
#: The outcome schemes (spec key ``reward``).
REWARDS = ("score", "rank")
_ACTIONS = (Action.TAKE, Action.PASS)


class IBLAgent(Agent):
    """Learns the value of take and pass from its own outcomes (module docstring).

    Args:
        credit: credit scheme over a game: ``equal``, ``exponential`` or ``td``.
        gamma: γ of ``exponential`` and ``td`` (0-1).
        reward: ``score`` (minus each decision's score change) or ``rank`` (at game end).
        rank_reward: outcome per rank point at game end (``rank``).
        noise: activation noise σ (> 0: the agent explores).
        decay: base-level decay d.
        tau: blending temperature τ; 0 means σ·√2 (pyibl's default).
        mp: mismatch penalty MP of the situation attributes.
        prior: the outcome of an action no instance matches yet.
        carry: keep the instances from game to game of this agent object.
    """

    name = "ibl"
    learns = True

    def __init__(self, credit: str = "td", gamma: float = 0.5, reward: str = "score",
                 rank_reward: float = 10.0, noise: float = 0.25, decay: float = 0.5,
                 tau: float = 0.0, mp: float = 5.0, prior: float = 0.0,
                 carry: bool = False) -> None:
        super().__init__()
        if credit not in CREDIT_SCHEMES:
            raise ValueError(f"credit={credit!r} is unknown; valid: {', '.join(CREDIT_SCHEMES)}")
        if reward not in REWARDS:
            raise ValueError(f"reward={reward!r} is unknown; valid: {', '.join(REWARDS)}")
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma={gamma!r} is invalid; valid: a number from 0 to 1")
        if not rank_reward >= 0 or rank_reward == float("inf"):
            raise ValueError(f"rank_reward={rank_reward!r} is invalid; valid: a finite "
                             "number >= 0")
        if not tau >= 0:
            raise ValueError(f"tau={tau!r} is invalid; valid: > 0, or 0 for σ·√2")
        if tau == 0 and noise == 0:
            raise ValueError("tau=0 means σ·√2, but noise=0; valid: noise > 0 or tau > 0")
        self.credit, self.gamma, self.reward = credit, float(gamma), reward
        self.rank_reward = float(rank_reward)
        self.carries = bool(carry)
        self._settings = {"noise": noise, "decay": decay, "temperature": tau or None,
                          "mismatch_penalty": mp}
        self.prior = prior
        self._make(Variant(), 0)  # checks the ACT-R parameters now (a bad spec fails here)
        self._info: dict[str, object] = {}

    def _make(self, variant: Variant, seed: int) -> None:
        """A fresh memory and learner for ``variant``'s deck, seeded with ``seed``."""
        similarity = {"card": Linear(max(variant.high_card - variant.low_card, 1)),
                      "tokens_on_card": Weber(), "own_tokens": Weber(),
                      "run": Similarity(ExactMatch())}
        memory = InstanceMemory(ATTRIBUTES, similarity=similarity, seed=seed,
                                **self._settings)
        self.learner = BlendingLearner(memory, credit=self.credit, gamma=self.gamma,
                                       default_utility=self.prior)

    @property
    def memory(self) -> InstanceMemory:
        """The instances learned so far."""
        return self.learner.memory

    # ------------------------------------------------------------------ game lifecycle
    def start(self, seat: int, variant: Variant, seed: int) -> None:
        """New game: a fresh memory seeded with ``seed``, or with ``carry`` the same one
        reseeded (a game left unfinished keeps its decisions' expected values)."""
        super().start(seat, variant, seed)
        if self.carries and len(self.memory):
            self.learner.discard_episode()
            self.memory.reseed(seed)
        else:
            self._make(variant, seed)
        self._info = {}

    def observe(self, event: Event) -> None:
        if type(event) is GameOver:
            final = (self.rank_reward * event.rank_points[self.seat]
                     if self.reward == "rank" else 0.0)
            self.learner.end_episode(final)

    # ------------------------------------------------------------------ deciding
    def decide(self, view: View) -> Action:
        card, on_card, own = view.card, view.tokens_on_card, view.own_tokens
        owned = view.own_cards
        run = int(card - 1 in owned or card + 1 in owned)
        options = [(action.value, card, on_card, own, run) for action in _ACTIONS]
        index, values = self.learner.choose(options, allowed=(True, own > 0))
        action = _ACTIONS[index]
        if self.reward == "rank":
            reward = 0.0
        elif action is Action.TAKE:
            reward = -float(sequence_gain(owned, card) - on_card)
        else:
            reward = -1.0
        self.learner.step(reward)
        take, pass_ = values
        self._info = {
            "reason": ("no tokens left: must take" if own == 0 else
                       f"blended take {take:.3f} vs pass {pass_:.3f}"),
            "learning": {"instances": len(self.memory), "take": take, "pass": pass_},
        }
        return action

    def decision_info(self) -> dict[str, object]:
        """The last decision's reason and learning state: the instance count (after it was
        stored) and the blended values of take and pass it chose between."""
        return dict(self._info)
