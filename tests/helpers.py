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

#: The longest test files, roughly longest first (seconds on 2 busy cores, fresh clone,
#: 2026-11-27: 164 + the quick_figures build, 65, 61, 122, 64, 48, 42, 41, 33, 32, 25,
#: 23). ``make test`` hands whole files to its two processes in collection order
#: (``--dist loadfile --no-loadscope-reorder``), so these go first and the short files
#: fill the gaps at the end: both processes finish within seconds of each other. (xdist's
#: own order, most tests first, left the two browser files for the end, one after the
#: other: a minute with one process idle.) The browser files need no ``quick_figures``
#: build: they run while the notebooks' process makes it, instead of waiting for it; and
#: by the time test_outputs_where_told copies numba's cache into its fresh repository, the
#: figures build and the notebooks have compiled the models' kernels into it (on a fresh
#: clone its commands would otherwise compile them again: 41 s instead of 22 s).
LONGEST_FIRST = (
    "test_notebooks.py", "test_web_session.py", "test_web_play.py",
    "test_outputs_where_told.py", "test_golden_log.py", "test_instance_sets.py",
    "test_agent_conformance.py", "test_docs.py", "test_bad_input.py",
    "test_random_kills.py", "test_calibrate.py", "test_counter_noise.py",
)

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

