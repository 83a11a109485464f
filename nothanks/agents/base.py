"""The agent protocol: told its seat at game start, observes events, decides from a view."""
from __future__ import annotations

from typing import ClassVar

from ..rules import Action, Event, Variant, View


class Agent:
    """Base class of every player the runner can seat.

    Subclasses override :meth:`decide` and, when they keep memory across turns,
    :meth:`observe`. ``spec`` is the agent-spec string that recreates the agent.
    """

    #: Registry name (e.g. ``"heuristic"``); set by subclasses.
    name: ClassVar[str] = "agent"
    #: Human vs model, for logs.
    kind: ClassVar[str] = "model"
    #: Theory-of-mind order of a cognitive model; ``None`` for every other agent.
    tom_order: int | None = None
    #: Whether this kind of agent can record a reasoning trace of each decision.
    can_trace: ClassVar[bool] = False
    #: Whether it records one now (set it only on an agent that ``can_trace``).
    traces: bool = False
    #: The trace of the last decision while ``traces`` is on, else ``None``.
    last_trace: object | None = None
    #: Whether this kind of agent learns from experience; its :meth:`decision_info` then
    #: holds a ``"learning"`` mapping (its learning state), logged in the ``learning`` table.
    learns: ClassVar[bool] = False
    #: Whether this agent keeps what it learned from one game to the next (a learning agent
    #: with ``carry=true``). Such an agent must play its games in order: a design seats it
    #: only with ``trial = N`` (each trial starts from a fresh agent).
    carries: bool = False

    def __init__(self) -> None:
        self.seat = -1
        self.variant = Variant()
        self.spec = self.name

    @property
    def label(self) -> str:
        """Short name for tables and plots: ``ToM1`` for any ToM-1 model, else ``name``.

        Logged with every row so analysis never has to parse agent specs.
        """
        return self.name if self.tom_order is None else f"ToM{self.tom_order}"

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        """A new game begins: this agent sits at ``seat``; ``seed`` seeds its randomness."""
        self.seat = seat
        self.variant = variant

    def observe(self, event: Event) -> None:
        """Every public event of the game, including the agent's own moves."""

    def decide(self, view: View) -> Action:
        """Choose ``take`` or ``pass`` for the face-up card. Called only on this agent's turn."""
        raise NotImplementedError

    def decision_info(self) -> dict[str, object]:
        """Extra columns for the decision log about the last decision (models override)."""
        return {}

    @classmethod
    def observes(cls) -> bool:
        """Whether this agent needs events (lets the runner skip no-op calls)."""
        return cls.observe is not Agent.observe
