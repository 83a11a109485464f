"""Training against a league, and the evaluation panel (docs/alphazero.md, "League").

Pure self-play teaches the value head what to expect of players like the network itself,
and the strength measured against other players drifts (docs/alphazero.md). With a
league, each training table seats the current network (the *learner*) beside opponents
drawn from a population stated in the run's settings (``--league``):

* ``self``: the current network again (its decisions are training samples too);
* ``past``: a past snapshot that joined the league (drawn uniformly among the members);
* any agent spec: a fixed agent, e.g. ``heuristic``, ``tom0``, ``tom1``,
  ``ismcts:iterations=50``.

The mixture is written ``WEIGHT*ENTRY; ...`` (weights are relative), e.g.
``0.4*self; 0.2*past; 0.2*heuristic; 0.1*tom0; 0.1*tom1``. Game *g* of an iteration seats
the learner in seat ``g % players`` and draws every other seat from the mixture (``past``
only once the league has members), so the learner plays every seat equally often.

**Gating (AlphaZero-style, chosen over prioritized fictitious self-play):** at every
evaluation the current network plays ``gate_deals`` deals, each in every seat rotation,
against lineups drawn from the league's non-``self`` entries; it joins the league when
its first-place share (ties included) is at least ``1/players + gate_margin``. Gating
needs no per-member win-rate bookkeeping, is a pure function of the run's seed and
weights (so a resumed run gates exactly as an uninterrupted one), and keeps weak or
collapsed snapshots out of the population the learner trains against.

The **evaluation panel** (``--panel``) is a list of fixed opponents ``DEALS*SPEC; ...``:
the network plays each deal in every seat rotation against three copies of the spec, on
deals shared by the panel's opponents (an opponent with fewer deals plays the first of
them). Without ``--panel`` the panel is ``random`` and ``heuristic`` at ``--eval-deals``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from ...agents.base import Agent
from ...rules import Action, Event, Passed, Took, Variant, View
from ...rules.seeding import state_words
from . import TrainError

#: The league entries that are not agent specs.
SELF, PAST = "self", "past"
#: The fixed panel of runs without ``--panel`` (at ``--eval-deals`` deals each).
DEFAULT_PANEL = ("random", "heuristic")


@dataclass(frozen=True)
class Entry:
    """One part of a mixture: ``weight`` (league) or deals (panel) and what sits there."""

    weight: float
    who: str


def _parse(text: str, option: str, example: str, count: bool) -> tuple[Entry, ...]:
    """``N*WHO; ...`` as entries; a :class:`TrainError` names the part that is wrong."""
    from ...agents import AgentSpecError, make_agent
    entries = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        number, star, who = part.partition("*")
        who = who.strip()
        try:
            weight = int(number) if count else float(number)
        except ValueError:
            weight = None
        if not star or weight is None or not who or not (weight > 0 and np.isfinite(weight)):
            kind = "an integer >= 1" if count else "a number > 0"
            raise TrainError(f"{option} part {part!r}: write N*WHO with N {kind}, "
                             f"parts separated by ';' (e.g. {example!r})")
        if who not in (SELF, PAST) or count:
            try:
                make_agent(who)  # the name and its parameters are checked here
            except (AgentSpecError, ValueError) as exc:
                raise TrainError(f"{option} part {part!r}: {exc}") from None
        if any(e.who == who for e in entries):
            raise TrainError(f"{option}: {who!r} appears twice; give each entry once")
        entries.append(Entry(weight, who))
    return tuple(entries)


@cache  # read every iteration; checking a spec builds its agent once
def parse_league(text: str) -> tuple[Entry, ...]:
    """The league mixture of ``--league`` (empty: pure self-play)."""
    return _parse(text, "--league", "0.5*self; 0.2*past; 0.3*heuristic", count=False)


@cache
def parse_panel(text: str, eval_deals: int) -> tuple[Entry, ...]:
    """The evaluation panel of ``--panel``: (deals, spec) entries; empty text gives
    :data:`DEFAULT_PANEL` at ``eval_deals`` deals each."""
    if not text.strip():
        return tuple(Entry(eval_deals, who) for who in DEFAULT_PANEL)
    entries = _parse(text, "--panel", "25*heuristic; 25*tom1; 10*ismcts:iterations=200",
                     count=True)
    if not entries:
        raise TrainError("--panel has no entries; write DEALS*SPEC; ... or leave it out")
    return entries


def draw_seating(entries: Sequence[Entry], players: int, game: int, members: int,
                 rng: np.random.Generator) -> tuple[str, ...]:
    """Who sits where in league game ``game``: :data:`SELF` in seat ``game % players``,
    the other seats drawn from ``entries`` by weight (:data:`PAST` only if the league has
    ``members``). All-``self`` tables are pure self-play games."""
    usable = [e for e in entries if e.who != PAST or members]
    weights = np.array([e.weight for e in usable], dtype=float)
    seats = []
    for seat in range(players):
        if seat == game % players:
            seats.append(SELF)
        else:
            seats.append(usable[int(rng.choice(len(usable), p=weights / weights.sum()))].who)
    return tuple(seats)


def gate_lineups(entries: Sequence[Entry], players: int, deals: int, members: int,
                 rng: np.random.Generator) -> list[tuple[str, ...]]:
    """One lineup of ``players - 1`` opponents per gate deal, drawn by weight from the
    league's entries other than :data:`SELF` (:data:`PAST` only with ``members``)."""
    usable = [e for e in entries if e.who != SELF and (e.who != PAST or members)]
    if not usable:
        return []
    weights = np.array([e.weight for e in usable], dtype=float)
    picks = rng.choice(len(usable), size=(deals, players - 1), p=weights / weights.sum())
    return [tuple(usable[int(k)].who for k in row) for row in picks]


class SearchSeat(Agent):
    """The network's PUCT search at one seat of an ordinary game, given the network
    itself (not a checkpoint file). With ``explore`` it plays as in self-play (Dirichlet
    noise at the root, moves drawn by visit share for the game's first
    ``temperature_moves`` decisions) and keeps every decision as a training sample;
    without, it decides as the ``alphazero`` agent does with the same network and seed.
    """

    name = "selfplay-seat"

    def __init__(self, network, sims: int, *, explore: bool, temperature_moves: int = 10,
                 dirichlet_alpha: float = 1.0, dirichlet_weight: float = 0.25,
                 c_puct: float = 1.5) -> None:
        super().__init__()
        self.network, self.sims, self.explore = network, sims, explore
        self.temperature_moves = temperature_moves
        self.dirichlet_alpha, self.dirichlet_weight = dirichlet_alpha, dirichlet_weight
        self.c_puct = c_puct
        self.features: list[np.ndarray] = []
        self.policy: list[float] = []

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        from ...search import TokenTally
        super().start(seat, variant, seed)
        self._seed = seed
        self._tally = TokenTally(variant)
        self.features, self.policy = [], []

    def observe(self, event: Event) -> None:
        self._tally.observe(event)

    def decide(self, view: View) -> Action:
        from ...search import root_state
        from ...search.encoding import encode
        from ...search.puct import puct_search
        config = self.network.config
        if self.explore:
            self.features.append(encode(root_state(view, self._tally.counts), config.tokens,
                                        config.low_card))
        if view.own_tokens == 0:
            take, share = True, 1.0
        else:
            rng = np.random.default_rng(int(state_words(self._seed, len(view.history))[0]))
            noise = self.dirichlet_alpha if self.explore else 0.0
            result = puct_search(root_state(view, self._tally.counts), self.network,
                                 self.sims, rng, c_puct=self.c_puct, dirichlet_alpha=noise,
                                 dirichlet_weight=self.dirichlet_weight)
            share = result.take_share
            decided = sum(isinstance(e, (Passed, Took)) for e in view.history)
            if self.explore and decided < self.temperature_moves:
                take = bool(rng.random() < share)
            else:
                take = result.best_takes()
        if self.explore:
            self.policy.append(share)
        return Action.TAKE if take else Action.PASS


def league_game(weights: dict[str, np.ndarray], config, sims: int, seed: int,
                seating: Sequence[str], past: dict[str, np.ndarray] | None = None):
    """One training game of ``seating`` (a worker's task): ``self`` seats search with
    ``weights`` and give the samples, ``past`` seats search greedily with ``past``,
    the others are agent specs. Returns :class:`nothanks.search.selfplay.GameSamples`
    (the ``self`` seats' decisions, in the order they were made)."""
    from ...play.runner import play_game
    from ...search.puct import rank_rewards
    from ...search.selfplay import GameSamples
    players = config.players
    agents, variant = _table(seating, weights, past, config, sims, explore=True)
    record = play_game(agents, variant, seed, record=False)
    scores = np.asarray(record.scores, dtype=np.int64)
    rewards = rank_rewards(scores)
    learners = [(seat, a) for seat, a in enumerate(agents)
                if isinstance(a, SearchSeat) and a.explore]
    turn = np.arange(players)
    features = [f for _, a in learners for f in a.features]
    policy = [p for _, a in learners for p in a.policy]
    outcome = [rewards[(seat + turn) % players] for seat, a in learners for _ in a.policy]
    return GameSamples(np.stack(features), np.asarray(policy, dtype=np.float32),
                       np.stack(outcome).astype(np.float32), scores)


def seated_game(weights: dict[str, np.ndarray], config, sims: int, lineup: Sequence[str],
                seed: int, index: int, past: dict[str, np.ndarray] | None = None
                ) -> tuple[int, float]:
    """Game ``index`` of a gate or panel evaluation (a worker's task): the network
    (greedy, ``sims`` per move) in seat ``index % players``, ``lineup`` in the other
    seats in turn order (``past`` seats with the ``past`` weights), on deal
    ``index // players`` of ``seed``; the network's rank and rank points."""
    from ...play.runner import play_game
    from ...rules.seeding import game_seed
    players = config.players
    seat = index % players
    seating = [*lineup[:seat], SELF, *lineup[seat:]]
    agents, variant = _table(seating, weights, past, config, sims, explore=False)
    record = play_game(agents, variant, game_seed(seed, index // players), game_id=index,
                       record=False)
    return record.ranks[seat], record.rank_points[seat]


def _table(seating: Sequence[str], weights: dict[str, np.ndarray],
           past: dict[str, np.ndarray] | None, config, sims: int, *, explore: bool
           ) -> tuple[list[Agent], Variant]:
    """The agents of ``seating`` and the game's variant: ``self`` seats search with
    ``weights`` (as in self-play if ``explore``), ``past`` seats greedily with ``past``,
    the others are agent specs."""
    from ...agents import make_agent
    from ...search.network import Network
    network = Network(weights, config)
    old = None if past is None else Network(past, config)
    agents = [SearchSeat(network, sims, explore=explore) if who == SELF
              else SearchSeat(old, sims, explore=False) if who == PAST
              else make_agent(who) for who in seating]
    return agents, Variant(players=config.players, low_card=config.low_card,
                           high_card=config.high_card)


def first_share(ranks: Sequence[int], players: int) -> tuple[float, float, float]:
    """The first-place share (ties included) of games played deal by deal in every seat
    rotation (``players`` consecutive games a deal), with a 95% interval that resamples
    deals (:func:`nothanks.analysis.paired.cluster_share`)."""
    from ...analysis.paired import cluster_share
    first = (np.asarray(ranks) == 1).reshape(-1, players)
    return cluster_share(first.sum(axis=1), np.full(len(first), players))
