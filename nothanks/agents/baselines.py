"""Baseline agents to compare the cognitive models against."""
from __future__ import annotations

import math
import random

from ..rules import Action, Variant, View, reseed, sequence_gain
from .base import Agent

_TAKE, _PASS = Action.TAKE, Action.PASS


class RandomAgent(Agent):
    """Takes with probability ``p`` (default 0.5) unless forced to take.

    Args:
        p: probability of taking the card when passing is allowed.
    """

    name = "random"

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"random: p={p} is not a probability; valid: 0 <= p <= 1")
        self.p = p
        self._rng = random.Random(0)
        self._draw = self._rng.random  # bound once: the generator is reseeded in place

    def __getstate__(self) -> dict:
        """The agent without its bound draw (a copy binds its own generator's)."""
        return {k: v for k, v in self.__dict__.items() if k != "_draw"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._draw = self._rng.random

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        super().start(seat, variant, seed)
        reseed(self._rng, seed)

    def decide(self, view: View) -> Action:
        if view.own_tokens == 0 or self._draw() < self.p:
            return _TAKE
        return _PASS


class HeuristicAgent(Agent):
    """Takes iff (increase in own card points) - (tokens on card) <= ``T`` (default 0).

    Args:
        T: largest cost (points gained minus tokens won) at which it takes.
    """

    name = "heuristic"

    def __init__(self, T: float = 0.0) -> None:
        super().__init__()
        if not math.isfinite(T):
            raise ValueError(f"heuristic: T={T} is not a number of points; valid: any finite "
                             "number (e.g. 0, -3)")
        self.T = T

    def decide(self, view: View) -> Action:
        if view.own_tokens == 0:
            return Action.TAKE
        cost = sequence_gain(view.own_cards, view.card) - view.tokens_on_card
        return Action.TAKE if cost <= self.T else Action.PASS


class AlwaysPassAgent(Agent):
    """Passes whenever allowed: a floor for any strategy."""

    name = "always-pass"

    def decide(self, view: View) -> Action:
        return Action.TAKE if view.own_tokens == 0 else Action.PASS


class ScriptedAgent(Agent):
    """Plays a given list of actions in order: replays a logged player (e.g. a human)
    against the engine, so a recorded game can be checked or re-run."""

    name = "scripted"

    def __init__(self, actions: list[str], spec: str = "human") -> None:
        super().__init__()
        self.actions = list(actions)
        self.spec = spec

    def decide(self, view: View) -> Action:
        if not self.actions:
            raise IndexError(f"scripted player at seat {self.seat} has no actions left")
        return Action(self.actions.pop(0))
