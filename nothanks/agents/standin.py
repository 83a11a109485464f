"""A human stand-in: a noisy mixture of simple strategies with personal parameters.

It stands in for participants until real people have played, so the participant
analysis can run end to end (see ``nothanks.experiments.synthetic``). It is not a model
of human play.
"""
from __future__ import annotations

import math
import random

from ..rules import Action, Event, Passed, Took, Variant, View, sequence_gain
from .base import Agent


class HumanStandIn(Agent):
    """A noisy mixture of strategies standing in for a participant (see module doc).

    Args:
        T: value-rule threshold: take iff points gained − tokens on card ≤ T.
        greed: greedy rule: take iff tokens on card ≥ greed × card.
        w_greedy: probability of deciding by the greedy rule.
        lapse: probability of a coin-flip decision.
        low: own-token count below which T rises by 2 per missing token.
        speed: median decision time in seconds.
        critic: probability of marking a clearly bad opponent take.
    """

    name = "human-standin"
    kind = "human"

    def __init__(self, T: float = -4.0, greed: float = 0.45, w_greedy: float = 0.2,
                 lapse: float = 0.05, low: int = 3, speed: float = 3.0,
                 critic: float = 0.3) -> None:
        super().__init__()
        for key, value in (("greed", greed), ("speed", speed)):
            if not value > 0:
                raise ValueError(f"{key}={value} is invalid; valid: > 0")
        for key, value in (("w_greedy", w_greedy), ("lapse", lapse), ("critic", critic)):
            if not 0 <= value <= 1:
                raise ValueError(f"{key}={value} is not a probability; valid: 0 to 1")
        if w_greedy + lapse > 1:
            raise ValueError(f"w_greedy + lapse = {w_greedy + lapse} exceeds 1")
        self.T, self.greed, self.w_greedy, self.lapse = T, greed, w_greedy, lapse
        self.low, self.speed, self.critic = low, speed, critic
        self._rng = random.Random(0)
        self._side = random.Random(0)
        self.think_time = 0.0
        self._cards: list[tuple[int, ...]] = []
        self._last_move: dict[int, tuple[str, int]] = {}

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        super().start(seat, variant, seed)
        self._rng = random.Random(seed)
        self._side = random.Random(seed + 1)
        self._cards = [()] * variant.players
        self._last_move = {}
        self.think_time = 0.0

    def observe(self, event: Event) -> None:
        """Remember each player's cards and last move (to judge it when marking)."""
        if isinstance(event, Took):
            cost = sequence_gain(self._cards[event.seat], event.card) - event.tokens
            self._cards[event.seat] = tuple(sorted(self._cards[event.seat] + (event.card,)))
            self._last_move[event.seat] = ("take", cost)
        elif isinstance(event, Passed):
            self._last_move[event.seat] = ("pass", 0)

    def decide(self, view: View) -> Action:
        cost = sequence_gain(view.own_cards, view.card) - view.tokens_on_card
        threshold = self.T + 2 * max(0, self.low - view.own_tokens)
        self.think_time = self._side.lognormvariate(
            math.log(self.speed) + (0.4 if abs(cost - threshold) <= 2 else 0.0), 0.5)
        if view.own_tokens == 0:
            return Action.TAKE
        u = self._rng.random()
        if u < self.lapse:
            take = self._rng.random() < 0.5
        elif u < self.lapse + self.w_greedy:
            take = view.tokens_on_card >= self.greed * view.card
        else:
            take = cost <= threshold
        return Action.TAKE if take else Action.PASS

    def marks(self) -> tuple[int, ...]:
        """Opponent seats whose last move this stand-in marks as bad now."""
        out = []
        for seat, (kind, cost) in sorted(self._last_move.items()):
            if seat == self.seat:
                continue
            bad = kind == "take" and cost >= 10
            if self._side.random() < (self.critic if bad else self.critic / 20):
                out.append(seat)
        return tuple(out)
