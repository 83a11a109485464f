"""A search opponent: information-set Monte Carlo tree search (``ismcts``).

Not a model of people: a strong, honest player to measure the models and moves
against. It decides from what its seat may see (the view) and the public events it
observed, with perfect recall of public actions (so it knows every token count by
tallying passes and takes; it never reads the game's hidden state), and samples the
removed cards afresh in every iteration (see :mod:`nothanks.search`).
"""
from __future__ import annotations

from ..rules import Action, Event, Variant, View
from ..rules.seeding import state_words
from .base import Agent

#: Default prior probability that an opponent is the ToM model (``adapt``): chosen on
#: 200-game probes against 3 x tom2 and 3 x heuristic (docs/ismcts.md, "Choosing the default").
PRIOR = 0.8


class ISMCTSAgent(Agent):
    """Information-set MCTS with UCT.

    Args:
        iterations: search iterations per decision (the budget).
        c: UCT exploration constant (rewards are rank points scaled to [0, 1]).
        rollout: ``model`` (every seat plays as the kind of player the search takes it
            for: the suite's ToM-k model or the heuristic; see ``order``, ``adapt``),
            ``heuristic`` (everyone takes iff point gain - tokens on card <= 0, or once
            the tokens on the card reach ``ratio`` times the point gain) or ``random``
            (take with probability 1/2) play-outs.
        seconds: also stop a search after this many seconds (0: no limit). A time limit
            makes decisions depend on the machine's speed, so it is off by default.
        ratio: for ``rollout=heuristic``; 1 gives the plain heuristic. The default 0.4 is about
            where the thesis's models take a card that fits nothing (half the time at
            0.35-0.45 times its value in tokens), so play-outs resemble their play; with
            1, everyone in a play-out hoards tokens until forced, which misjudges
            opponents who take earlier (numbers in docs/ismcts.md).
        spread: for ``rollout=heuristic``, each play-out decision draws its ratio uniformly from
            ``ratio`` ± ``spread`` (0: always ``ratio``).
        order: with ``rollout=model``, every play-out player acts as a ToM-``order``
            model of the suite (its ToM0 from the shipped instance set, exact token
            counts; :mod:`nothanks.agents.population`). This is an assumption about
            what kind of players sit at the table, not hidden information.
        opponents: with ``rollout=model``: ``model`` (the other seats act as their kind
            of player in the tree too; only the searcher's own nodes use UCT) or
            ``search`` (they choose by UCT for their own rank points). With the other
            rollouts they always choose by UCT.
        adapt: with ``rollout=model``, infer each opponent's kind of player (the ToM-k
            model or the ``heuristic`` agent at T = -3, 0, 3) from its public moves so far
            and draw it from that posterior in every iteration
            (:class:`nothanks.agents.population.PlayerKinds`), instead of assuming the
            model for everyone.
        prior: with ``adapt``, the prior probability that an opponent is the model (the
            rest is split evenly over the heuristic thresholds).
    """

    name = "ismcts"

    def __init__(self, iterations: int = 1000, c: float = 0.7, rollout: str = "model",
                 seconds: float = 0.0, ratio: float = 0.4, spread: float = 0.0,
                 order: int = 2, opponents: str = "model", adapt: bool = True,
                 prior: float = PRIOR) -> None:
        super().__init__()
        from ..search.mcts import check_budget, check_model_settings, check_policy

        check_budget(iterations, c, rollout, seconds, "uct")
        check_policy(ratio, spread)
        check_model_settings("model", order, opponents)
        from .population import check_prior

        check_prior(prior)
        self.iterations, self.c, self.rollout, self.seconds = iterations, c, rollout, seconds
        self.ratio, self.spread = ratio, spread
        self.order, self.opponents, self.adapt, self.prior = order, opponents, bool(adapt), prior
        self._table = None
        self._kinds = None
        self._seed = 0
        self._tally = None
        self._info: dict[str, object] = {}

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        from ..search import TokenTally

        super().start(seat, variant, seed)
        self._seed = seed
        self._tally = TokenTally(variant)
        if self.rollout == "model":
            from .population import tom0_take_table

            self._table = tom0_take_table(variant)
            if self.adapt:
                from .population import PlayerKinds

                self._kinds = PlayerKinds(variant, seat, self._table, self.order, self.prior)
        self._info = {}

    def observe(self, event: Event) -> None:
        self._tally.observe(event)
        if self._kinds is not None:
            self._kinds.observe(event)

    def decide(self, view: View) -> Action:
        from ..search import root_state, search

        if view.own_tokens == 0:
            self._info = {"take_value": None, "pass_value": None, "take_visits": 0,
                          "pass_visits": 0, "iterations": 0}
            return Action.TAKE
        turn = len(view.history)
        seed = int(state_words(self._seed, turn)[0])
        kinds = self._kinds.search_arguments() if self._kinds is not None else {}
        result = search(root_state(view, self._tally.counts), iterations=self.iterations,
                        c=self.c, rollout=self.rollout, seed=seed, seconds=self.seconds,
                        ratio=self.ratio, spread=self.spread, table=self._table,
                        order=self.order,
                        opponents=self.opponents if self.rollout == "model" else "search",
                        **kinds)
        take, passed = result.value("take"), result.value("pass")
        self._info = {
            "take_value": take.rank_points, "pass_value": passed.rank_points,
            "take_visits": take.visits, "pass_visits": passed.visits,
            "iterations": result.iterations,
        }
        return result.action

    def decision_info(self) -> dict[str, object]:
        """Mean rank points the search expects after take and after pass (the mover's),
        how often it tried each, and the iterations run."""
        return dict(self._info)
