"""A fast stand-in for the ToM models' decisions, for the search's play-outs (``rollout=model``).

The search plays tens of thousands of moves per decision; the ACT-R models decide far
too slowly to play them. Their decisions, though, rest on one documented rule: ToM0
retrieves the best-matching instance of a fixed instance set by partial matching
(``nothanks.agents.cognitive``), and ToM-k (k >= 1) only adds predictions of the others
made by the same ToM0. So the search precomputes, per sequence category, card, tokens
on the card and tokens owned, the probability that ToM0 takes, and the compiled rules
copy (:func:`nothanks.search.kernel.model_takes`) applies the ToM-k recursion to it.

The probability is ACT-R's Boltzmann approximation of which chunk is retrieved: chunk
*i* with activation ``A_i = MP * Σ mismatch`` (instances have fixed activation 0) is
retrieved with probability ``exp(A_i / t) / (Σ_j exp(A_j / t) + exp(τ / t))`` with
temperature ``t = √2 · s``, the last term standing for a retrieval failure (below the
threshold τ, ToM0 passes). The mismatch functions, weights, noise, penalty and threshold
are the models' own defaults (read from :class:`~nothanks.agents.cognitive.tom.ToMAgent`).

This is prior knowledge of *what kind of players* sit at the table — the population
the suite studies — not hidden information: it uses no card, token or seed of the game
that the searcher's view does not show. Importing this module imports the cognitive
agents, so the search agent imports it only when ``rollout=model`` is asked for; the
search itself (:mod:`nothanks.search`) imports no agent.
"""
from __future__ import annotations

import inspect
import math
from functools import lru_cache

import numpy as np

from ..actr import ExactMatch, Linear, Weber
from ..rules import Category, Variant

#: Table axis 0: how many of card - 1 and card + 1 a player holds (the kernel computes
#: it the same way), i.e. the sequence category.
CATEGORIES = (Category.NO_SEQUENCE, Category.EXTENSION, Category.COMPLETION)


def _model_defaults() -> dict[str, float]:
    """The ToM models' default noise, mismatch penalty and instance threshold."""
    from .cognitive.tom import ToMAgent

    parameters = inspect.signature(ToMAgent).parameters
    return {name: float(parameters[name].default) for name in ("s", "mp", "instance_rt")}


@lru_cache(maxsize=8)
def tom0_take_table(variant: Variant, instances: str = "") -> np.ndarray:
    """P(ToM0 takes) as a float64 array ``[category, card, tokens_on_card, tokens_owned]``.

    ``category`` indexes :data:`CATEGORIES`; ``card`` runs over 0..high_card + 1 (cards
    outside the deck stay 0); tokens run over 0..(all tokens of the game), the most
    either can ever be. ``instances`` is an instance file ("" = the shipped set).
    Cached per variant and file; the returned array must not be written to.
    """
    from .cognitive.instance_sets import load_instances
    from .cognitive.tom import CATEGORY_WEIGHT

    params = _model_defaults()
    temperature = math.sqrt(2.0) * params["s"]
    mp = params["mp"]
    chunks = load_instances(instances or None).instances
    category = np.array([CATEGORIES.index(i.category) for i in chunks])
    card = np.array([i.card for i in chunks], dtype=float)
    on_card = np.array([i.tokens_on_card for i in chunks], dtype=float)
    owned = np.array([i.tokens_owned for i in chunks], dtype=float)
    takes = np.array([str(i.action) == "take" for i in chunks])
    total = variant.players * variant.tokens
    table = np.zeros((len(CATEGORIES), variant.high_card + 2, total + 1, total + 1))
    card_match = Linear(max(1, variant.high_card - variant.low_card))
    weber, exact = Weber(), ExactMatch(CATEGORY_WEIGHT)
    # exp(A / t) factorises over the slots, so the sums over chunks are matrix products
    on_factor = np.exp(mp / temperature * np.array(
        [weber.vectorized(x, on_card) for x in range(total + 1)]))
    owned_factor = np.exp(mp / temperature * np.array(
        [weber.vectorized(x, owned) for x in range(total + 1)]))
    failure = math.exp(params["instance_rt"] / temperature)
    for index in range(len(CATEGORIES)):
        # another category's chunks are 100 * MP below: exp(-500 / t) is exactly 0 here
        fixed_category = exact.vectorized(index, category)
        for face in range(variant.low_card, variant.high_card + 1):
            weight = np.exp(mp / temperature * (fixed_category + card_match.vectorized(
                face, card)))
            all_chunks = (on_factor * weight) @ owned_factor.T
            take_chunks = (on_factor * (weight * takes)) @ owned_factor.T
            table[index, face] = take_chunks / (all_chunks + failure)
    table.setflags(write=False)
    return table


#: The kinds of player the search can take an opponent for: the ToM-k model of the
#: suite, or the ``heuristic`` agent at T = -3, 0 or 3 (the prior gives the model the
#: probability ``prior`` and splits the rest evenly among the heuristic thresholds).
KINDS = (("model", 0.0), ("heuristic", -3.0), ("heuristic", 0.0), ("heuristic", 3.0))
#: Chance that a player of any kind makes the other move than its kind predicts (so one
#: surprising move does not rule a kind out).
LAPSE = 0.05


def check_prior(prior: float) -> None:
    """Raise ValueError unless ``prior`` is a probability."""
    if not (isinstance(prior, int | float) and 0 <= prior <= 1):
        raise ValueError(f"prior={prior!r} is invalid; valid: the prior probability that "
                         "an opponent is the model, 0 to 1 (e.g. 0.5)")


class PlayerKinds:
    """Which kind of player (:data:`KINDS`) each other seat most likely is, from its
    public moves alone: every pass and take is scored by the probability each kind gives
    it (with :data:`LAPSE`) in the public state of that moment (cards, the face-up card
    and the tokens on it, token counts tallied from the moves).

    :meth:`search_arguments` gives what :func:`nothanks.search.search` takes to draw
    each seat's kind from this posterior in every iteration (the observer's own seat is
    the model): which kind an opponent is, is hidden information like the removed
    cards, and is sampled like them.
    """

    def __init__(self, variant: Variant, seat: int, table: np.ndarray, order: int,
                 prior: float = 0.5) -> None:
        from ..search import kernel as k

        check_prior(prior)
        rest = (1 - prior) / (len(KINDS) - 1)
        weights = np.array([prior] + [rest] * (len(KINDS) - 1))

        self.seat, self.table, self.order = seat, table, order
        self.state = k.new_state(variant.players, variant.high_card, 0)
        self.state[k.HEADER:k.HEADER + variant.players] = variant.tokens
        with np.errstate(divide="ignore"):  # a prior of 0 or 1 rules kinds out for good
            self.log_posterior = np.tile(np.log(weights), (variant.players, 1))
        self._scratch = np.zeros((order + 1, variant.players), dtype=np.int64)
        self._kinds = np.array([k.MODEL if kind == "model" else k.HEURISTIC
                                for kind, _ in KINDS], dtype=np.int64)
        self._thresholds = np.array([threshold for _, threshold in KINDS])

    def observe(self, event: object) -> None:
        from ..rules import CardRevealed, Passed, Took
        from ..search import kernel as k  # (not kept: an agent holding it would not pickle)

        s = self.state
        if isinstance(event, CardRevealed):
            s[k.CARD], s[k.LEFT] = event.card, event.cards_left
            return
        if not isinstance(event, Passed | Took):
            return
        s[k.TO_MOVE] = event.seat
        if event.seat != self.seat:
            took = isinstance(event, Took)
            for index in range(len(KINDS)):
                p = k.take_probability(s, self._kinds[index], self._thresholds[index],
                                       self.table, self.order, self._scratch)
                p = (1 - LAPSE) * p + LAPSE / 2
                self.log_posterior[event.seat, index] += math.log(p if took else 1 - p)
        if isinstance(event, Took):
            k.apply_take(s)
        else:
            k.apply_pass(s)

    def posterior(self) -> np.ndarray:
        """P(kind j | seat i's moves so far) as a ``(players, kinds)`` array; the
        observer's own row says model."""
        weights = np.exp(self.log_posterior - self.log_posterior.max(axis=1, keepdims=True))
        weights /= weights.sum(axis=1, keepdims=True)
        weights[self.seat] = 0.0
        weights[self.seat, 0] = 1.0
        return weights

    def search_arguments(self) -> dict[str, np.ndarray]:
        """``kinds``, ``thresholds`` and ``weights`` for :func:`nothanks.search.search`."""
        return {"kinds": self._kinds, "thresholds": self._thresholds,
                "weights": self.posterior()}

    def names(self) -> list[str]:
        """Per seat, the most likely kind in words (e.g. ``model``, ``heuristic:T=0``)."""
        return [f"{KINDS[j][0]}:T={KINDS[j][1]:g}" if KINDS[j][0] == "heuristic"
                else KINDS[j][0] for j in self.posterior().argmax(axis=1)]
