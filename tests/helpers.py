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


def random_state(players: int, rng):
    """A search state after a random number of random moves of a new game (``rng``: a
    numpy Generator)."""
    from nothanks.search import kernel as k
    from nothanks.search.selfplay import deal_state
    s = deal_state(Variant(players=players), rng)
    for _ in range(int(rng.integers(0, 80))):
        if s[k.HEADER + s[k.TO_MOVE]] == 0 or rng.random() < 0.3:
            k.apply_take(s)
            if s[k.OVER]:
                return deal_state(Variant(players=players), rng)
            k.reveal(s, int(rng.integers(s[k.POOL])))
        else:
            k.apply_pass(s)
    return s


def random_weights(config, seed: int) -> dict:
    """Weights of a :class:`~nothanks.search.network.NetworkConfig` with every entry
    random: heads large enough that p_take and the values spread, and batch
    normalization's statistics far from (0, 1)."""
    import numpy as np

    from nothanks.search.network import init_weights
    rng = np.random.default_rng(seed)
    weights = init_weights(config, seed)
    for name, value in weights.items():
        if name.endswith("_var"):
            weights[name] = rng.uniform(0.2, 3.0, value.shape).astype(np.float32)
        elif name.endswith("_scale"):
            weights[name] = rng.uniform(0.5, 2.0, value.shape).astype(np.float32)
        else:  # weights: unit variance of each output; biases, shifts, means: 0.5
            fan_in = max(1, int(np.prod(value.shape[:-1])) if name == "w_conv"
                         else (value.shape[-2] if value.ndim > 1 else 1))
            spread = 1.5 / np.sqrt(fan_in) if name.startswith("w_") else 0.5
            weights[name] = rng.normal(0.0, spread, value.shape).astype(np.float32)
    return weights


def compiled_forward(net, s) -> tuple:
    """p_take and the values (rotated to the mover) of a
    :class:`~nothanks.search.network.Network` at search state ``s`` by the search's
    compiled forward pass."""
    import numpy as np

    from nothanks.search import kernel as k
    from nothanks.search.puct import evaluate_state
    config = net.config
    n = config.players
    seat_values = np.zeros(n)
    p = evaluate_state(s, config.low_card, config.tokens == "hidden", net.kernel_arrays(),
                       np.zeros(config.features, np.float32),
                       np.zeros(config.hidden, np.float32),
                       np.zeros(config.hidden, np.float32), np.zeros(n, np.float32),
                       seat_values)
    return p, np.roll(seat_values, -int(s[k.TO_MOVE]))
