"""What each fast path of a model game buys on its own workload: the engine as shipped
against the engine with that one path taken out, side by side in one process.

Run: python benchmarks/bench_fast_paths.py [--rounds N] [--games N] [--paths NAME ...]

The paths (each taken out by pointing its entry at the reference it replaces, here in
the benchmark only; the package has one switch, ``nothanks.kernels.reference_mode``):

- ``tomk-core``: ToM-k decisions (k >= 1) in one compiled call (``kernels.tom.decide``)
  instead of the Python recursion over the memory's retrievals; workloads 4×ToM2,
  ToM1 vs 3×ToM0, and one ToM-k model's decisions (k = 1..5) against 3×ToM0;
- ``tom0-core``: a ToM0 model's decision in one compiled call with the lazy, windowed
  retrieval (``kernels.tom.decide_tom0``) instead of the memory's retrieval; workloads
  4×ToM0 and one ToM0 model's decisions against 3×ToM0;
- ``kept-rows``: the token memory's recalls from its kept rows (one compiled search)
  instead of the memory's two retrievals; workload 4×ToM2;
- ``batch``: baseline games in compiled batches instead of one ``Match`` each;
  workload 4×random.

Each round plays the workload with the path and without it (CPU per game, or per
decision of the focal model), the order alternating
round by round, and reports CPU seconds per game (medians over the rounds) and the
ratio with/without. The records of both sides are compared: a path that changed a game
would be a bug, and the script stops. A path that pays less than 1.3× on its workload
is to be deleted (docs/benchmarks.md, "Fast paths and what each pays").
"""
from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import nothanks.agents.cognitive  # noqa: F401  (registers the model specs)
from nothanks.agents.cognitive import TokenMemory, ToMAgent
from nothanks.play.runner import play_games
from nothanks.rules import Variant


@contextmanager
def _replaced(owner: type, name: str, value) -> Iterator[None]:
    old = owner.__dict__[name]
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, old)


@contextmanager
def _without_kept_rows() -> Iterator[None]:
    init = TokenMemory.__init__

    def plain(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self._keeping = False

    with _replaced(TokenMemory, "__init__", plain):
        yield


PATHS: dict[str, tuple[Callable[[], object], list[tuple[str, list[str], bool]]]] = {
    "tomk-core": (lambda: _replaced(ToMAgent, "_reason_compiled", lambda self, v, w: None),
                  [("4xToM2", ["tom2"] * 4, True),
                   ("ToM1 vs 3xToM0", ["tom1", "tom0", "tom0", "tom0"], True)]),
    "tom0-core": (lambda: _replaced(ToMAgent, "_decide_tom0", lambda self, view: None),
                  [("4xToM0", ["tom0"] * 4, True)]),
    "kept-rows": (_without_kept_rows, [("4xToM2", ["tom2"] * 4, True)]),
    "batch": (None, [("4xrandom", ["random"] * 4, True)]),
}


def _play(specs: list[str], games: int, seed: int, batch: bool = True) -> tuple[float, list]:
    start = time.process_time()
    records = list(play_games(specs, games, seed, Variant(), batch=batch))
    return time.process_time() - start, records


def measure(path: str, rounds: int, games: int) -> list[str]:
    switch, workloads = PATHS[path]
    lines = []
    for label, specs, _ in workloads:
        n = games * (50 if path == "batch" else 1)
        _play(specs, 2, 1)  # untimed: every entry loads its machine code first
        with_path, without = [], []
        for r in range(rounds):
            seed = 1000 + r
            sides = [True, False] if r % 2 == 0 else [False, True]
            results = {}
            for on in sides:
                if path == "batch":
                    results[on] = _play(specs, n, seed, batch=on)
                elif on:
                    results[on] = _play(specs, n, seed)
                else:
                    with switch():
                        results[on] = _play(specs, n, seed)
            if results[True][1] != results[False][1]:
                raise SystemExit(f"{path}: the records differ with and without the path "
                                 f"({label}, seed {seed}): a bug")
            with_path.append(results[True][0] / n)
            without.append(results[False][0] / n)
        a, b = statistics.median(with_path), statistics.median(without)
        lines.append(f"| {path} | {label} | {n} | {1000 * b:.2f} | {1000 * a:.2f} | "
                     f"{b / a:.2f}x |")
    return lines


def measure_decisions(path: str, rounds: int, games: int) -> list[str]:
    """A core per decision: one ToM-k model against 3xToM0 (k = 1..5 for ``tomk-core``, 0
    for ``tom0-core``), CPU ms per decision of the focal model
    (``bench_models.decision_cost``), the path on and off."""
    from bench_models import decision_cost

    entry, off = (("_reason_compiled", lambda self, v, w: None) if path == "tomk-core"
                  else ("_decide_tom0", lambda self, view: None))
    lines = []
    for k in (range(1, 6) if path == "tomk-core" else (0,)):
        with_path, without = [], []
        for r in range(rounds):
            for on in ([True, False] if r % 2 == 0 else [False, True]):
                if on:
                    with_path.append(decision_cost(k, games)[0])
                else:
                    with _replaced(ToMAgent, entry, off):
                        without.append(decision_cost(k, games)[0])
        a, b = statistics.median(with_path), statistics.median(without)
        lines.append(f"| {path} | ToM{k} decision vs 3xToM0 | {games} | {b:.3f} ms/dec | "
                     f"{a:.3f} ms/dec | {b / a:.2f}x |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--games", type=int, default=20,
                        help="games per side and round (x50 for the batch path)")
    parser.add_argument("--paths", nargs="*", default=list(PATHS), choices=list(PATHS))
    args = parser.parse_args(argv)
    print("| path | workload | games | without (ms CPU/game) | with (ms CPU/game) | gain |")
    print("| --- | --- | --- | --- | --- | --- |")
    for path in args.paths:
        for line in measure(path, args.rounds, args.games):
            print(line, flush=True)
        if path in ("tomk-core", "tom0-core"):
            for line in measure_decisions(path, args.rounds, args.games):
                print(line, flush=True)


if __name__ == "__main__":
    main()
