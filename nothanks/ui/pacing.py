"""Pacing of model moves on screen: a thinking pause per decision, and the one helper that
runs a sequence of model moves either at once (pause 0, tests) or as an asyncio task.

Earlier game apps derived a model's thinking time from its memory size; our cognitive models
report the summed retrieval latency of each decision (ACT-R's ``F·e^(−A)``), which
already grows with how hard the model had to think, so the pause is that latency,
scaled and clamped to a range a person can follow. Baselines report no latency and get
``default`` seconds.
"""
from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol


class Move(Protocol):
    """What pacing needs of a model move: who moves and how long it retrieved."""

    seat: int

    @property
    def latency(self) -> float | None: ...


@dataclass(frozen=True)
class ThinkingTime:
    """Seconds to show "thinking…" before a model's move appears.

    ``pause = clamp(scale × latency, minimum, maximum)``, or ``default`` when the agent
    reports no latency. ``ThinkingTime.off()`` (all zero) makes every app synchronous.
    """

    #: ToM1/ToM2 decisions retrieve for about 2-4 s of ACT-R time, ToM0 for 0.2-0.6 s:
    #: halved and clamped, the pause is 0.5-2.5 s and grows with the order of ToM.
    scale: float = 0.5
    minimum: float = 0.5
    maximum: float = 2.5
    default: float = 0.8

    def __post_init__(self) -> None:
        for name in ("scale", "minimum", "maximum", "default"):
            if getattr(self, name) < 0:
                raise ValueError(f"ThinkingTime.{name}={getattr(self, name)} must be >= 0")
        if self.minimum > self.maximum:
            raise ValueError(
                f"ThinkingTime.minimum={self.minimum} exceeds maximum={self.maximum}"
            )

    @classmethod
    def off(cls) -> ThinkingTime:
        return cls(0.0, 0.0, 0.0, 0.0)

    @classmethod
    def fixed(cls, seconds: float) -> ThinkingTime:
        """The same pause for every move (``0`` = off)."""
        return cls(0.0, seconds, seconds, seconds)

    @property
    def is_off(self) -> bool:
        return self.maximum == 0 and self.default == 0

    def __call__(self, decision: Move) -> float:
        latency = decision.latency
        if latency is None:
            return min(self.default, self.maximum)
        return min(max(self.scale * latency, self.minimum), self.maximum)


class Pacer:
    """Runs model moves for an app: synchronously when thinking is off, else in a task.

    ``propose()`` decides one model move and returns it (or ``None`` when the models are
    done); ``show(move)`` draws the move being thought about (``None``: the table as it
    is); ``commit(move)`` makes it visible; ``done()`` runs at the end. A new
    :meth:`run` cancels the previous one, so starting a new game mid-move is safe.
    """

    def __init__(self, thinking: ThinkingTime) -> None:
        self.thinking = thinking
        self.task: asyncio.Task | None = None
        self.busy = False

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = None
        self.busy = False

    def run(
        self,
        propose: Callable[[], Move | None],
        commit: Callable[[Move], Any],
        show: Callable[[Move | None], None],
        done: Callable[[], None],
    ) -> None:
        self.cancel()
        loop = _running_loop()
        if self.thinking.is_off or loop is None:
            while (decision := propose()) is not None:
                commit(decision)
            show(None)
            done()
            return
        self.busy = True
        self.task = loop.create_task(self._paced(propose, commit, show, done))

    async def _paced(self, propose, commit, show, done) -> None:
        try:
            while (decision := propose()) is not None:
                show(decision)
                await asyncio.sleep(self.thinking(decision))
                commit(decision)
                show(None)
        finally:
            self.busy = False
        done()

    async def wait(self) -> None:
        """Await the running move sequence (for tests and scripted use)."""
        if self.task is not None:
            await self.task


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


#: The model orders of theory of mind, then the baselines, as offered in the apps.
OPPONENT_SPECS = ("tom0", "tom1", "tom2", "heuristic", "random", "always-pass")


def load_cognitive_models() -> bool:
    """Register the cognitive models' specs if that package is installed."""
    try:
        importlib.import_module("nothanks.agents.cognitive")
    except ImportError:
        return False
    return True


def opponent_choices() -> list[tuple[str, str]]:
    """``(label, spec)`` of every opponent the apps offer that is registered here."""
    from ..agents import registered
    load_cognitive_models()
    available = set(registered())
    return [(spec_label(s), s) for s in OPPONENT_SPECS if s in available]


def spec_label(spec: str) -> str:
    """``tom1`` → ``ToM1``; other specs as written."""
    name, _, rest = spec.partition(":")
    if name.startswith("tom") and name[3:].isdigit():
        return "ToM" + name[3:] + (f" ({rest})" if rest else "")
    return spec
