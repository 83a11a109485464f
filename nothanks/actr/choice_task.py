"""ACT-R tutorial unit 6's probability-learning ("choice") task, run on
:class:`~nothanks.actr.ProceduralMemory`: the outside check of utility learning
(docs/actr.md, "Utility learning").

The task (Friedman et al., 1964, as the tutorial sets it): 48 trials; on each the model
guesses heads or tails, then sees the answer, which is heads on 90% of the trials
independent of the guess. The data are the proportion of heads guesses per block of 12
trials, :data:`CHOICE_DATA`. The tutorial's own model (not published; the tutorial says it
varied only the utility noise ``:egs`` and the rewards of right and wrong answers) fits
them with the statistics in :data:`PUBLISHED_FIT`, averaged over 100 runs.

Our model is two competing productions, ``respond-heads`` and ``respond-tails``, starting
at ACT-R's ``:iu`` 0 (a 50% start, as the tutorial requires), learning with ``:alpha`` 0.2;
the feedback is read :data:`REWARD_DELAY` seconds after the response production is
selected, and a production reading it gives the reward of a right or a wrong guess.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .procedural import ProceduralMemory

__all__ = ["CHOICE_DATA", "PUBLISHED_FIT", "REWARD_DELAY", "ChoiceModel", "correlation",
           "mean_deviation", "run_choice_experiment"]

#: Proportion of heads guesses per block of 12 trials (tutorial unit 6, section 6.6).
CHOICE_DATA = (0.664, 0.778, 0.804, 0.818)
#: The tutorial author's model over 100 runs: its block means and its fit to the data.
PUBLISHED_FIT = {"correlation": 0.998, "mean_deviation": 0.010, "runs": 100,
                 "model": (0.655, 0.785, 0.819, 0.823)}
#: Seconds from selecting the response production to the reward: the key press (~0.3 s
#: of motor time after the production fires) and attending and reading the feedback
#: (~0.2 s). Only ``reward − delay`` enters learning, so the fitted rewards absorb it.
REWARD_DELAY = 0.5
#: Trials per block, blocks per run, and the chance that the answer is heads.
BLOCK, BLOCKS, P_HEADS = 12, 4, 0.9
#: Seconds between trials: the feedback shown for 1 s, and the next "choose" screen.
TRIAL_TIME = 1.5


@dataclass(frozen=True)
class ChoiceModel:
    """The parameters of our choice model: utility noise ``egs`` and the rewards of a
    right and a wrong guess (the two the tutorial fitted), and ``alpha``."""

    egs: float = 1.0
    right: float = 2.0
    wrong: float = 0.0
    alpha: float = 0.2


def run_choice_experiment(model: ChoiceModel, runs: int, seed: int) -> np.ndarray:
    """The proportion of heads guesses per block (four values), averaged over ``runs``
    fresh runs of the 48-trial experiment (each starts from a reset model). Seeded: the
    same ``seed`` gives the same result; run ``r`` draws its noise and its answers from
    children of ``seed``."""
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs!r}")
    heads = np.zeros(BLOCKS)
    for child in np.random.SeedSequence(seed).spawn(runs):
        noise, answers = (np.random.default_rng(s) for s in child.spawn(2))
        memory = ProceduralMemory(("respond-heads", "respond-tails"), alpha=model.alpha,
                                  egs=model.egs, ul=True, seed=noise)
        is_heads = answers.random(BLOCK * BLOCKS) < P_HEADS
        for trial in range(BLOCK * BLOCKS):
            guess = memory.select().production
            memory.advance(REWARD_DELAY)
            right = (guess == "respond-heads") == is_heads[trial]
            memory.reward(model.right if right else model.wrong)
            memory.advance(TRIAL_TIME)
            heads[trial // BLOCK] += guess == "respond-heads"
    return heads / (runs * BLOCK)


def correlation(results: Sequence[float], data: Sequence[float]) -> float:
    """Pearson's correlation of ``results`` and ``data`` (ACT-R's ``correlation``)."""
    return float(np.corrcoef(np.asarray(results, float), np.asarray(data, float))[0, 1])


def mean_deviation(results: Sequence[float], data: Sequence[float]) -> float:
    """Root mean square deviation of ``results`` from ``data`` (ACT-R's
    ``mean-deviation``)."""
    diff = np.asarray(results, float) - np.asarray(data, float)
    return float(np.sqrt(np.mean(diff * diff)))
