"""The one game driver: agents seated at a :class:`~nothanks.rules.Game`, advanced one
decision at a time or run to the end, every decision kept as a typed record.

The batch runner (:mod:`nothanks.play.runner`), the notebook apps (:mod:`nothanks.ui`) and
the participant session (:mod:`nothanks.experiments.session`) all play through
:class:`Match`, so a game with a given seed is the same game wherever it is played:
agents are started with the same per-seat seeds and see every event exactly once, in
the order the game emits it.

A decision is split in two for interfaces that pause between moves:
:meth:`Match.propose` asks the agent to move (nothing changes on the table) and
:meth:`Match.commit` applies it. A person's move goes through :meth:`Match.human_acts`.
:meth:`Match.run` plays a model-only game to its end in one call.

The records carry what the game already knows at each decision (true token counts of
every seat, cards left, the card's sequence category) so that nothing downstream has to
replay a game to rebuild its state.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

from ..agents import Agent, make_agent
from ..rules import Action, Event, Game, IllegalActionError, Variant
from ..rules.scoring import CATEGORY_BY_NEIGHBOURS
from ..rules.seeding import agent_seed


class DecisionRecord(NamedTuple):
    """One decision: what the deciding player saw, what the game knew, what was done.

    ``info`` is what the agent reported about its decision (native Python values;
    cognitive models: ToM order, reason, predictions, recalled counts...), ``trace`` its
    reasoning trace when traces are on. ``decision_time`` and ``marks`` are filled for a
    person's decisions in a participant session. (An immutable named tuple: one is made
    per decision of every game, so it must be cheap to build.)
    """

    index: int
    turn: int
    seat: int
    agent: str
    card: int
    tokens_on_card: int
    tokens_before: int
    cards_before: tuple[int, ...]
    cards_left: int
    sequence_category: str  # a rules.Category (a str: "none", "extension", "completion")
    true_tokens: tuple[int, ...]
    action: Action
    forced: bool
    info: Mapping[str, Any] = MappingProxyType({})
    trace: Any = None
    decision_time: float | None = None
    marks: tuple[int, ...] | None = None

    def move(self) -> tuple:
        """The decision without the agent's explanation: (turn, seat, agent, card, tokens
        on card, tokens before, cards before, action, forced) — what two plays of the
        same game must agree on."""
        return (self.turn, self.seat, self.agent, self.card, self.tokens_on_card,
                self.tokens_before, self.cards_before, str(self.action), self.forced)

    @property
    def latency(self) -> float | None:
        """Retrieval latency (model seconds) the model reported, if it is a cognitive model."""
        value = self.info.get("latency")
        return float(value) if isinstance(value, (int, float)) else None


_new_tuple = tuple.__new__


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game: who sat where, the outcome per seat, and every decision."""

    game_id: int
    seed: int
    agents: tuple[str, ...]
    labels: tuple[str, ...]
    tom_orders: tuple[int | None, ...]
    kinds: tuple[str, ...]
    cards: tuple[tuple[int, ...], ...]
    tokens: tuple[int, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    rank_points: tuple[float, ...]
    decisions: tuple[DecisionRecord, ...] = ()

    @property
    def players(self) -> int:
        return len(self.agents)


class HumanSeat(Agent):
    """Placeholder agent for the seat a person plays: it never decides by itself."""

    name = "human"
    kind = "human"

    def decide(self, view):
        raise RuntimeError("the human seat is played through Match.human_acts, not decide()")


def build_agents(specs: Sequence[str | Agent], traces: bool = False) -> list[Agent]:
    """Agents from specs (or ready agents); ask cognitive models to keep reasoning traces."""
    agents = [s if isinstance(s, Agent) else make_agent(s) for s in specs]
    if traces:
        for agent in agents:
            if agent.can_trace:
                agent.traces = True
    return agents


def _trace_of(agent: Agent) -> Any:
    """The reasoning trace of the agent's last decision, when it keeps one."""
    return agent.last_trace if agent.traces else None


class Match:
    """One game between seated agents, with an optional human seat.

    Args:
        agents: one agent (or agent spec) per seat. The human seat's entry is a
            :class:`HumanSeat` for a person, or an agent that plays the person's part (a
            stand-in): it is started and observes like every agent, but the match never
            asks it to decide: its moves come through :meth:`human_acts`. Anything
            else there is replaced by a :class:`HumanSeat`.
        variant: the rules (default: the thesis's 4-player game).
        seed: the game seed; dealing and every agent's randomness derive from it.
        human_seat: the seat a person plays, or ``None`` for a model-only game.
        traces: ask cognitive models to keep a reasoning trace of each decision.
        game_id: the game's number in its run, carried into the records.
        listeners: more observers of every event (e.g. a user interface).
        agent_seeds: every seat's :func:`agent_seed` of ``seed``, when the caller derived
            them already (the runner does, for many games at once with
            :func:`derive_seeds`); derived here otherwise.
    """

    def __init__(
        self,
        agents: Sequence[str | Agent],
        variant: Variant | None = None,
        seed: int = 0,
        *,
        human_seat: int | None = None,
        traces: bool = False,
        game_id: int = 0,
        listeners: Sequence[Callable[[Event], None]] = (),
        agent_seeds: Sequence[int] | None = None,
    ) -> None:
        self.variant = variant or Variant()
        if len(agents) != self.variant.players:
            raise ValueError(
                f"{len(agents)} agents given for a {self.variant.players}-player game; "
                "give one agent or spec per seat"
            )
        if human_seat is not None and not 0 <= human_seat < self.variant.players:
            raise ValueError(
                f"human_seat={human_seat} does not exist; valid: 0 to {self.variant.players - 1}"
            )
        agents = list(agents)
        if human_seat is not None and not isinstance(agents[human_seat], Agent):
            agents[human_seat] = HumanSeat()
        self.agents = build_agents(agents, traces)
        self.seed = seed
        self.game_id = game_id
        self.human_seat = human_seat
        self._specs = tuple([a.spec for a in self.agents])
        if agent_seeds is None:
            agent_seeds = [agent_seed(seed, seat) for seat in range(len(self.agents))]
        for seat, agent in enumerate(self.agents):
            agent.start(seat, self.variant, agent_seeds[seat])
        observers = [a.observe for a in self.agents if a.observes()]
        # the game emits its first CardRevealed to these listeners as it is dealt
        self.game = Game(self.variant, seed, listeners=[*observers, *listeners])
        self.decisions: list[DecisionRecord] = []
        self.pending: DecisionRecord | None = None

    # --- queries ------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def to_move(self) -> int:
        return self.game.seat

    @property
    def human_turn(self) -> bool:
        """Whether the game waits for the person (and no model decision is pending)."""
        return (
            not self.game.over and self.pending is None and self.game.seat == self.human_seat
        )

    @property
    def specs(self) -> tuple[str, ...]:
        """The agent spec of every seat, as logged."""
        return self._specs

    def legal_actions(self) -> tuple[Action, ...]:
        return self.game.legal_actions()

    def watch(self, listener: Callable[[Event], None]) -> None:
        """Call ``listener`` with every later event of this game."""
        self.game.subscribe(listener)

    # --- transitions --------------------------------------------------------------------
    def _record(self, action: Action, info: dict[str, Any], trace: Any,
                decision_time: float | None = None,
                marks: tuple[int, ...] | None = None) -> DecisionRecord:
        # the state in one call: one record per decision of every game
        turn, seat, card, on_card, tokens, cards, cards_left = self.game.to_move()
        own = tokens[seat]
        # tuple.__new__ with every field in order: what DecisionRecord(...) does, without
        # its keyword-handling wrapper; the category is sequence_category(cards, card)
        # without the call
        return _new_tuple(DecisionRecord, (
            len(self.decisions), turn, seat, self._specs[seat], card, on_card, own, cards,
            cards_left, CATEGORY_BY_NEIGHBOURS[(card - 1 in cards) + (card + 1 in cards)],
            tokens, action,
            own == 0, info, trace, decision_time, marks,
        ))

    def propose(self) -> DecisionRecord:
        """Ask the model to move to decide (once); the table is unchanged until commit."""
        if self.pending is not None:
            return self.pending
        if self.game.over:
            raise IllegalActionError("the game is over: no decision left to propose")
        seat = self.game.seat
        if seat == self.human_seat:
            raise IllegalActionError(
                f"seat {seat} is the human's: use human_acts(), not propose()"
            )
        agent = self.agents[seat]
        action = agent.decide(self.game.view(seat))
        self.pending = self._record(Action(action), agent.decision_info(), _trace_of(agent))
        return self.pending

    def commit(self) -> DecisionRecord:
        """Apply the pending model decision."""
        if self.pending is None:
            raise IllegalActionError("no model decision is pending: call propose() first")
        decision = self.pending
        self.game.apply(decision.action, decision.seat)
        self.pending = None
        self.decisions.append(decision)
        return decision

    def step(self) -> DecisionRecord:
        """Propose and commit the next model decision."""
        self.propose()
        return self.commit()

    def human_acts(self, action: Action | str, *, decision_time: float | None = None,
                   marks: Sequence[int] | None = None) -> DecisionRecord:
        """Apply the person's action, validated by the rules engine.

        ``decision_time`` (seconds) and ``marks`` (opponent seats marked as having made a
        bad move) are kept in the record. Raises
        :class:`~nothanks.rules.IllegalActionError` (state unchanged) when it is not the
        person's turn or the action is illegal (e.g. a pass with no tokens).
        """
        if not self.human_turn:
            who = "the game is over" if self.game.over else f"it is seat {self.game.seat}'s turn"
            raise IllegalActionError(f"the human (seat {self.human_seat}) cannot act: {who}")
        try:
            action = Action(action)
        except ValueError:
            raise IllegalActionError(
                f"unknown action {action!r}; valid: 'take', 'pass'"
            ) from None
        decision = self._record(action, {}, None, decision_time,
                                None if marks is None else tuple(marks))
        self.game.apply(action, self.human_seat)
        self.decisions.append(decision)
        return decision

    def run_models(self) -> list[DecisionRecord]:
        """Let models move until the person must act or the game ends."""
        made = []
        while not self.game.over and self.game.seat != self.human_seat:
            made.append(self.step())
        return made

    def run(self, record: bool = True) -> GameRecord:
        """Play a model-only game to its end and return its record (without decision
        records if ``record`` is false: faster when only the outcome matters)."""
        if self.human_seat is not None:
            raise IllegalActionError(
                f"seat {self.human_seat} is played by a person: drive it with run_models() "
                "and human_acts()")
        if self.pending is not None:
            self.commit()
        game, agents = self.game, self.agents
        # bound methods looked up once per game, not once per decision
        view, apply, decide = game.view, game.apply, [agent.decide for agent in agents]
        if not record:
            while not game.over:
                seat = game.seat
                apply(decide[seat](view(seat)), seat)
            return self.record()
        # an agent that reports nothing about its decisions (the base decision_info)
        # gets the same empty dict without the call
        infos = [None if type(agent).decision_info is Agent.decision_info
                 else agent.decision_info for agent in agents]
        traced = [agent.traces for agent in agents]
        keep, make = self.decisions.append, self._record
        while not game.over:
            seat = game.seat
            action = decide[seat](view(seat))
            if type(action) is not Action:
                action = Action(action)
            info = infos[seat]
            decision = make(action, {} if info is None else info(),
                            _trace_of(agents[seat]) if traced[seat] else None)
            apply(action, seat)
            keep(decision)
        return self.record()

    # --- results ------------------------------------------------------------------------
    def record(self) -> GameRecord:
        """The finished game as a record."""
        if not self.game.over:
            raise IllegalActionError("the game is not over yet: no record")
        game, human, agents = self.game, self.human_seat, self.agents
        over = game.history[-1]
        orders = [a.tom_order for a in agents]
        kinds = [a.kind for a in agents]
        if human is not None:
            orders[human], kinds[human] = None, "human"
        return GameRecord(
            self.game_id, self.seed, self._specs, tuple([a.label for a in agents]),
            tuple(orders), tuple(kinds), tuple([game.cards(s) for s in range(len(agents))]),
            game.token_counts,
            over.scores, over.ranks, over.rank_points, tuple(self.decisions),
        )


def play_to_decision(
    agents: Sequence[str | Agent], variant: Variant | None, seed: int, decisions: int,
    *, traces: bool = False,
) -> Match:
    """A model-only match played from its seed until ``decisions`` decisions were
    applied (or the game ended): the position a step-through view shows."""
    match = Match(agents, variant, seed, traces=traces)
    while len(match.decisions) < decisions and not match.over:
        match.step()
    return match
