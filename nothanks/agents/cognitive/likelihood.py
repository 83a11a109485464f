"""How likely a model makes a move: choice probabilities, lapses and Bayes updates.

The ToM-k models are stochastic only through activation noise, so the probability that
a model in a given state takes the card is the share of its decisions that take over
independent noise draws. :func:`take_probability` estimates it by re-deciding the same
state with fresh noise ``samples`` times, then puts the model's random state back, so
the model carries on exactly as if it had not been asked (its memories, clock and
random streams are untouched). A person also errs now and then: :func:`lapse_mix`
mixes the model's probability with a coin flip, and :func:`bayes_update` turns the
per-model likelihoods of a move into a posterior. The order-inference engine
(:mod:`nothanks.studies.inference`) and the adaptive ``bayes-tom`` model both use these.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...actr import DeclarativeMemory
from ...rules import Action, View
from ..base import Agent
from ..baselines import RandomAgent
from .tom import ToMAgent


def lapse_mix(p: float | np.ndarray, lapse: float) -> float | np.ndarray:
    """``(1 − ε)·p + ε/2``: the model's probability of a move, with a lapse rate ε of
    coin-flip moves."""
    if not 0.0 <= lapse <= 1.0:
        raise ValueError(f"lapse={lapse!r} is not a probability; valid: 0 <= lapse <= 1")
    return (1.0 - lapse) * p + lapse / 2.0


def bayes_update(log_prior: np.ndarray, log_likelihood: np.ndarray) -> np.ndarray:
    """Normalised log posterior after one observation (log space: no underflow over
    hundreds of decisions)."""
    joint = np.asarray(log_prior, float) + np.asarray(log_likelihood, float)
    top = joint.max()
    if not np.isfinite(top):
        raise ValueError("every model gives the move probability 0; use a lapse rate > 0")
    return joint - (top + math.log(np.exp(joint - top).sum()))


def normalised_prior(models: Sequence[str], prior: dict[str, float] | None) -> np.ndarray:
    """Log prior over ``models``: uniform by default, else the given weights normalised."""
    if prior is None:
        return np.full(len(models), -math.log(len(models)))
    unknown = sorted(set(prior) - set(models))
    if unknown:
        raise ValueError(f"prior names unknown model(s) {unknown}; valid: {list(models)}")
    weights = np.array([float(prior.get(m, 0.0)) for m in models])
    if (weights < 0).any() or not np.isfinite(weights).all() or weights.sum() <= 0:
        raise ValueError(f"prior {prior!r} must give non-negative weights with a positive sum")
    with np.errstate(divide="ignore"):
        return np.log(weights / weights.sum())


def _memories(agent: ToMAgent) -> list[DeclarativeMemory]:
    return [agent.instance_memory, agent.token_memory.memory]


class _FreshNoise:
    """Re-decide a model's state with new noise, then restore its random state."""

    def __init__(self, agent: ToMAgent) -> None:
        self.agent = agent
        self.memories = _memories(agent)

    def __enter__(self) -> _FreshNoise:
        agent = self.agent
        self.saved = [m.random_state() for m in self.memories]
        self.history = len(agent.token_memory.history)
        self.report = agent.report_state()
        return self

    def draw(self, rng: np.random.Generator) -> None:
        """Give every memory fresh noise from ``rng`` for the next decision."""
        for memory in self.memories:
            memory.reseed_noise(rng)

    def __exit__(self, *exc) -> None:
        agent = self.agent
        for memory, saved in zip(self.memories, self.saved, strict=True):
            memory.set_random_state(saved)
        del agent.token_memory.history[self.history:]
        agent.restore_report(self.report)


def sample_decisions(agent: ToMAgent, view: View, samples: int,
                     rng: np.random.Generator) -> int:
    """How many of ``samples`` fresh-noise decisions of ``agent`` in ``view`` take.

    The agent's memories, clock and random state are as before afterwards.
    """
    if samples < 1:
        raise ValueError(f"samples={samples!r}; valid: >= 1")
    takes = 0
    with _FreshNoise(agent) as fork:
        for _ in range(samples):
            fork.draw(rng)
            takes += agent.decide(view) == Action.TAKE
    return takes


def take_probability(agent: Agent, view: View, samples: int,
                     rng: np.random.Generator) -> tuple[float, int]:
    """P(take) of ``agent`` in ``view`` and the number of samples behind it (0: exact).

    A ToM model is sampled (:func:`sample_decisions`); a random agent has its ``p``;
    any other agent must be deterministic and is asked once. Without tokens every agent
    must take.
    """
    if view.own_tokens == 0:
        return 1.0, 0
    if isinstance(agent, ToMAgent):
        return sample_decisions(agent, view, samples, rng) / samples, samples
    if isinstance(agent, RandomAgent):
        return float(agent.p), 0
    return float(agent.decide(view) == Action.TAKE), 0
