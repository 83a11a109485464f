"""A game advanced one decision at a time, for interfaces that must pause between moves.

:func:`nothanks.runner.play_game` runs a whole game in one call; a user interface needs
to stop at every decision (to wait for a human, to show a model "thinking", to step
back). :class:`Match` plays exactly the same game as ``play_game`` with the same seed —
agents are started with the same per-seat seeds and see the same events in the same
order — but splits each decision into :meth:`Match.propose` (the agent decides; nothing
changes on the table yet) and :meth:`Match.commit` (the action is applied).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agents import Agent, make_agent
from ..rules import Action, Game, IllegalActionError, Variant
from ..runner import GameResult, agent_seed


@dataclass(frozen=True)
class Decision:
    """One decision as the deciding player saw it, with the model's explanation if any."""

    index: int
    turn: int
    seat: int
    agent: str
    card: int
    tokens_on_card: int
    tokens_before: int
    cards_before: tuple[int, ...]
    action: Action
    forced: bool
    info: dict[str, Any] = field(default_factory=dict)
    trace: Any = None

    def row(self, game_id: int) -> tuple:
        """The decision as a row of :data:`nothanks.runner.DECISION_COLUMNS`."""
        return (
            game_id, self.turn, self.seat, self.agent, self.card, self.tokens_on_card,
            self.tokens_before, self.cards_before, str(self.action), self.forced,
        )

    @property
    def latency(self) -> float | None:
        """Retrieval latency (seconds) the model reported, if it is a cognitive model."""
        value = self.info.get("latency")
        return float(value) if isinstance(value, (int, float)) else None


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
            if hasattr(agent, "traces"):
                agent.traces = True
    return agents


class Match:
    """One game with optional human seat, advanced one decision at a time.

    Args:
        agents: one agent (or agent spec) per seat; the human seat's entry is ignored
            and replaced by a :class:`HumanSeat`.
        variant: the rules (default: the thesis's 4-player game).
        seed: the game seed; dealing and every agent's randomness derive from it exactly
            as in :func:`nothanks.runner.play_game`.
        human_seat: the seat a person plays, or ``None`` for a model-only game.
        traces: ask cognitive models to keep a reasoning trace of each decision.
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
        if human_seat is not None:
            agents[human_seat] = HumanSeat()
        self.agents = build_agents(agents, traces)
        self.seed = seed
        self.game_id = game_id
        self.human_seat = human_seat
        for seat, agent in enumerate(self.agents):
            agent.start(seat, self.variant, agent_seed(seed, seat))
        listeners = [a.observe for a in self.agents if a.observes()]
        self.game = Game(self.variant, seed, listeners=listeners)
        for listener in listeners:  # the first card was revealed before anyone listened
            listener(self.game.history[0])
        self.decisions: list[Decision] = []
        self.pending: Decision | None = None

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
        return tuple(a.spec for a in self.agents)

    def legal_actions(self) -> tuple[Action, ...]:
        return self.game.legal_actions()

    # --- transitions --------------------------------------------------------------------
    def _decision(self, action: Action, info: dict[str, Any], trace: Any) -> Decision:
        view = self.game.view(self.game.seat)
        return Decision(
            len(self.decisions), self.game.turn, view.seat, self.agents[view.seat].spec,
            view.card, view.tokens_on_card, view.own_tokens, view.cards[view.seat],
            Action(action), view.own_tokens == 0, info, trace,
        )

    def propose(self) -> Decision:
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
        self.pending = self._decision(
            action, dict(agent.decision_info()), getattr(agent, "last_trace", None)
        )
        return self.pending

    def commit(self) -> Decision:
        """Apply the pending model decision."""
        if self.pending is None:
            raise IllegalActionError("no model decision is pending: call propose() first")
        decision, self.pending = self.pending, None
        self.game.apply(decision.action, decision.seat)
        self.decisions.append(decision)
        return decision

    def step(self) -> Decision:
        """Propose and commit the next model decision."""
        self.propose()
        return self.commit()

    def human_acts(self, action: Action | str) -> Decision:
        """Apply the person's action, validated by the rules engine.

        Raises :class:`~nothanks.rules.IllegalActionError` (state unchanged) when it is not
        the person's turn or the action is illegal (e.g. a pass with no tokens).
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
        decision = self._decision(action, {}, None)
        self.game.apply(action, self.human_seat)
        self.decisions.append(decision)
        return decision

    def run_models(self) -> list[Decision]:
        """Let models move until the person must act or the game ends."""
        made = []
        while not self.game.over and self.game.seat != self.human_seat:
            made.append(self.step())
        return made

    # --- results ------------------------------------------------------------------------
    def result(self) -> GameResult:
        """The finished game in the runner's result format (same as ``play_game``)."""
        if not self.game.over:
            raise IllegalActionError("the game is not over yet: no result")
        over = self.game.history[-1]
        players = range(self.variant.players)
        return GameResult(
            self.game_id, self.seed, self.specs, tuple(self.game.cards(s) for s in players),
            tuple(self.game.tokens(s) for s in players), over.scores, over.ranks,
            over.rank_points, [d.row(self.game_id) for d in self.decisions],
            [d.info for d in self.decisions],
        )


def replay(
    agents: Sequence[str | Agent], variant: Variant | None, seed: int, decisions: int,
    *, traces: bool = False,
) -> Match:
    """A model-only match replayed from its seed up to ``decisions`` applied decisions."""
    match = Match(agents, variant, seed, traces=traces)
    while len(match.decisions) < decisions and not match.over:
        match.step()
    return match
