"""Helpers shared by several test files (imported plainly: ``from helpers import ...``)."""
from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

from nothanks.agents import RandomAgent
from nothanks.experiments.design import Design, Table
from nothanks.rules import Event, GameOver, Variant, View

ROOT = Path(__file__).resolve().parents[1]
VARIANT = Variant()

#: Two games with a ToM2 focal: decisions, predictions and recalls all have rows.
TOM2_MINI = Design(name="tom2-mini", seed=3, games=2,
                   tables=(Table("ToM2 vs ToM0", ("tom0", "tom0", "tom0", "tom2"), 3),))


def view_of(cards, card: int, tokens_on_card: int = 0, own_tokens: int = 11,
            seat: int = 0) -> View:
    """A hand-made view of the thesis game for ``seat``: hidden tokens, 10 cards left in
    the deck, no history; ``cards`` lists each seat's cards."""
    return View(seat, VARIANT, seat, card, tokens_on_card, own_tokens,
                tuple(map(tuple, cards)), 10, (), 0, None)


def copy_log(log: Path, tmp_path: Path) -> Path:
    """A copy of the experiment directory ``log`` that a test may damage."""
    target = tmp_path / "copy"
    shutil.copytree(log, target)
    return target


def load_benchmark(name: str) -> ModuleType:
    """The script ``benchmarks/<name>.py`` as a module (registered, so its dataclasses
    and forked processes work)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class CountingLearner(RandomAgent):
    """A random player that 'learns' how many games it has finished: with ``carry`` the
    count goes on from game to game, without it every game starts from zero. Register it
    (``register(CountingLearner.name, CountingLearner)``) where a test needs it by name."""

    name = "test-counting-learner"
    learns = True

    def __init__(self, p: float = 0.5, carry: bool = False) -> None:
        super().__init__(p=p)
        self.carries = bool(carry)
        self.spec = f"{self.name}:p={p},carry={str(bool(carry)).lower()}"
        self.finished = 0

    def start(self, seat, variant, seed) -> None:
        super().start(seat, variant, seed)
        if not self.carries:
            self.finished = 0

    def observe(self, event: Event) -> None:
        if isinstance(event, GameOver):
            self.finished += 1

    def decision_info(self) -> dict[str, object]:
        return {"learning": {"finished": self.finished,
                             "counts": {"finished": self.finished, "left": 9 - self.finished}}}

