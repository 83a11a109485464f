"""``bayes-tom``: a ToM model that infers each opponent's model as the game goes.

A ToM-k model predicts every opponent with ToM-(k−1), whoever the opponent is. This
model instead keeps, for each opponent, a posterior over candidate models (ToM0, ToM1,
ToM2, random, heuristic) and updates it on each of that opponent's moves: the
likelihood of the move under a candidate is whether the candidate, put in the
opponent's place as the model sees it (its cards, the card, the tokens on it, the
opponent's supply as the model recalls it), makes that move, mixed with a lapse rate
(P = (1 − ε)·[predicted = move] + ε/2; with several recalled counts the indicator is
averaged over them). When deciding it follows the ToM protocol (docs/models.md): its own
ToM0, then each opponent in turn order predicted by its most probable model
(``predict=map``) or by the posterior-weighted vote of all models
(``predict=weighted``), passing on a card ToM0 wants only if every opponent is predicted
to pass.

The reasoning is :class:`~.tom.ToMAgent`'s: this class only plugs in the model used
for the top-level projection of each opponent (its ``opponent_model``,
``_predict_opponent`` below); everything else —
token memory, instance retrieval, the recursion inside a projection, traces — is
inherited. Candidates are evaluated with the model's own noisy memory at the time of
the move (one evaluation per move, not a sampled probability: the model judges as it
plays).

**Across games.** A game replays alone (game *i* of a run depends on its seed only),
so by default every game starts from the prior (``carry=false``). With ``carry=true``
an agent object that plays several games in a row (a participant session reuses one
object per table for all games against that table) starts each game with every
opponent's prior set to the mean of its opponents' final posteriors of the previous
game, mixed with ``floor`` per model (prior = floor + (1 − n·floor)·pooled): the agent
protocol names seats, not people, and seats rotate between games, so what carries over
is a belief about the table, not about one seat.
"""
from __future__ import annotations

import numpy as np

from ...rules import Action, Event, Passed, Took, Variant, View
from ..baselines import HeuristicAgent, RandomAgent
from .likelihood import bayes_update, lapse_mix, normalised_prior, take_probability
from .tom import Belief, Outcome, ToMAgent, replace_belief, subclass_factory

#: Candidate models of an opponent and the ToM order each stands for (None: baseline).
MODELS: dict[str, int | None] = {"ToM0": 0, "ToM1": 1, "ToM2": 2, "random": None,
                                 "heuristic": None}
PREDICT_MODES = ("map", "weighted")


def _model_list(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split("+") if n.strip())
    unknown = [n for n in names if n not in MODELS]
    if unknown or not names or len(set(names)) != len(names):
        raise ValueError(f"models={text!r} is invalid; valid: distinct names from "
                         f"{'+'.join(MODELS)} joined by '+'")
    return names


class BayesToMAgent(ToMAgent):
    """A ToM model that predicts each opponent with its inferred model (module doc).

    Args:
        models: candidate models of an opponent, joined by ``+``.
        predict: ``map`` (the most probable model) or ``weighted`` (posterior vote).
        lapse: lapse rate ε of the likelihood.
        carry: start a new game from the previous game's pooled posterior.
        floor: smallest prior probability of a model when carrying over.
        **tom: the parameters of :class:`ToMAgent` (except ``k``).
    """

    name = "bayes-tom"

    def __init__(self, *, models: str = "ToM0+ToM1+ToM2+random+heuristic",
                 predict: str = "map", lapse: float = 0.1, carry: bool = False,
                 floor: float = 0.01, **tom) -> None:
        super().__init__(1, **tom)
        self.models = _model_list(models)
        if predict not in PREDICT_MODES:
            raise ValueError(f"predict={predict!r} is unknown; valid: {', '.join(PREDICT_MODES)}")
        if not 0.0 < lapse <= 1.0:
            raise ValueError(f"lapse={lapse!r} is invalid; valid: 0 < lapse <= 1 (a move no "
                             "candidate predicts must keep a non-zero likelihood)")
        if not 0.0 <= floor < 1.0 / len(self.models):
            raise ValueError(f"floor={floor!r} is invalid; valid: 0 <= floor < "
                             f"1/{len(self.models)}")
        self.predict, self.lapse, self.carry, self.floor = predict, lapse, carry, floor
        self.name = "bayes-tom"
        self.tom_order = None  # its order depends on what it infers; logged by name
        self._baselines = {"random": RandomAgent(), "heuristic": HeuristicAgent()}
        self._log_prior = normalised_prior(self.models, None)
        #: opponent seat -> log posterior over ``models`` (this game)
        self.log_posteriors: dict[int, np.ndarray] = {}
        #: one row per observed opponent move: (seat, turn, action, posterior tuple)
        self.history: list[tuple[int, int, str, tuple[float, ...]]] = []
        self.opponent_model = self._predict_opponent

    # ------------------------------------------------------------------ lifecycle
    def start(self, seat: int, variant: Variant, seed: int) -> None:
        if self.carry and self.log_posteriors:
            pooled = np.mean([np.exp(p) for p in self.log_posteriors.values()], axis=0)
            pooled = self.floor + (1.0 - self.floor * len(pooled)) * pooled / pooled.sum()
            self._log_prior = np.log(pooled)
        else:
            self._log_prior = normalised_prior(self.models, None)
        super().start(seat, variant, seed)
        for agent in self._baselines.values():
            agent.start(seat, variant, seed)
        self.log_posteriors = {s: self._log_prior.copy() for s in self._opponents(seat)}
        self.history = []
        self._cards: list[tuple[int, ...]] = [()] * variant.players
        self._cards_left = 0

    def posteriors(self) -> dict[int, dict[str, float]]:
        """Opponent seat -> model -> posterior probability, now."""
        return {s: dict(zip(self.models, np.exp(p).tolist(), strict=True))
                for s, p in self.log_posteriors.items()}

    def posterior_frame(self):
        """One row per observed opponent move and model: the posterior after it."""
        import pandas as pd
        rows = [(seat, turn, action, model, p) for seat, turn, action, post in self.history
                for model, p in zip(self.models, post, strict=True)]
        return pd.DataFrame(rows, columns=["seat", "turn", "action", "model", "posterior"])

    # ------------------------------------------------------------------ observing
    def observe(self, event: Event) -> None:
        if isinstance(event, (Passed, Took)) and event.seat != self.seat:
            self._learn(event)
        if isinstance(event, Took):
            seat = event.seat
            self._cards[seat] = tuple(sorted((*self._cards[seat], event.card)))
        elif hasattr(event, "cards_left"):
            self._cards_left = event.cards_left
        super().observe(event)

    def _learn(self, event: Passed | Took) -> None:
        """Update the mover's posterior with the likelihood of its move."""
        on_card = event.tokens_on_card - 1 if isinstance(event, Passed) else event.tokens
        mine = View(self.seat, self.variant, event.seat, event.card, on_card,
                    self._tally[self.seat], tuple(self._cards), self._cards_left, (), 0, None)
        self._begin(mine)
        world, _ = self._beliefs(mine)
        took = isinstance(event, Took)
        p_take = np.array([self._take_share(m, event.seat, on_card, world)
                           for m in self.models])
        p_move = lapse_mix(p_take if took else 1.0 - p_take, self.lapse)
        post = bayes_update(self.log_posteriors[event.seat], np.log(p_move))
        self.log_posteriors[event.seat] = post
        self.history.append((event.seat, event.turn, "take" if took else "pass",
                             tuple(np.exp(post).tolist())))

    def _take_share(self, model: str, seat: int, on_card: int,
                    world: tuple[Belief, ...]) -> float:
        """Share of ``seat``'s candidate counts for which ``model`` takes."""
        counts = world[seat].candidates
        takes = [self._takes(model, seat, on_card, count, world) for count in counts]
        return float(np.mean(takes))

    def _takes(self, model: str, seat: int, on_card: int, count: int,
               world: tuple[Belief, ...]) -> float:
        order = MODELS[model]
        if order is not None:
            outcome = self._as_model(order, seat, on_card, count, world)
            return float(outcome.action == Action.TAKE)
        view = self._view
        theirs = View(seat, self.variant, seat, view.card, on_card, count, view.cards,
                      view.cards_left, (), 0, None)
        return take_probability(self._baselines[model], theirs, 1, None)[0]

    def _as_model(self, order: int, seat: int, on_card: int, count: int,
                  world: tuple[Belief, ...]) -> Outcome:
        """ToM-``order`` from ``seat``'s view, assuming it holds ``count``."""
        return self.reason_plainly(order, seat, on_card, count, replace_belief(
            world, seat, Belief((count,), world[seat].source)))

    # ------------------------------------------------------------------ deciding
    def _predict_opponent(self, level: int, seat: int, tokens_on_card: int, tokens: int,
                          world: tuple[Belief, ...]) -> Outcome:
        """The opponent model (``ToMAgent.opponent_model``): a top-level projection of
        opponent ``seat`` by its inferred model instead of ToM-``level``."""
        weights = np.exp(self.log_posteriors[seat])
        if self.predict == "map":
            weights = (np.arange(len(weights)) == int(weights.argmax())).astype(float)
        latency, failures, node, p_take = 0.0, 0, None, 0.0
        for model, weight in zip(self.models, weights, strict=True):
            if weight <= 0.0:
                continue
            order = MODELS[model]
            if order is None:
                p_take += weight * self._takes(model, seat, tokens_on_card, tokens, world)
                continue
            outcome = self._as_model(order, seat, tokens_on_card, tokens, world)
            latency += outcome.latency
            failures += outcome.failures
            node = node or outcome.node
            p_take += weight * (outcome.action == Action.TAKE)
        # predicted to pass only when a pass is more likely than a take: a tie (a random
        # player) counts as a take, so the model does not bet on a card coming back
        action = Action.PASS if p_take < 0.5 else Action.TAKE
        if self.traces and node is None:
            node = self._node(0, seat, tokens_on_card, tokens, world[seat].source, None, None,
                              None, (), action, f"predicted by {self._best(seat)}")
        return Outcome(action, latency, failures, node)

    def _best(self, seat: int) -> str:
        return self.models[int(np.argmax(self.log_posteriors[seat]))]

    def decision_info(self) -> dict[str, object]:
        info = super().decision_info()
        info["opponent_models"] = {s: self._best(s) for s in self.log_posteriors}
        return info


def bayes_factory():
    """The registry factory: ``bayes-tom``'s own keys plus every ToMAgent key but ``k``."""
    return subclass_factory(BayesToMAgent, ("models", "predict", "lapse", "carry", "floor"),
                            ("k",), "bayes_tom")

