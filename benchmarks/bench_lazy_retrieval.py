"""Compiled work of a ToM0 model's retrieval, eager against lazy, side by side in one process.

Run: python benchmarks/bench_lazy_retrieval.py [--games N] [--rounds N]

Plays N games of 4 x ToM0 (the models keep their windows across games) and captures the
inputs of every ToM0 decision's compiled call (``tom_core.decide_tom0``). Then, in
alternating rounds over the same captured calls, it times:

- eager: every instance's noise drawn (``kernels.counter.logistic``, the draw the models
  made before the lazy retrieval) and the eager pass (``kernels.retrieval.eager_best``),
  in one compiled call;
- lazy: ``decide_tom0`` as the models call it now, for calls met for the first time
  (no window: ``lazy_best`` over every instance) and for calls with a window
  (``windowed_best``).

Each call's chunk is checked against the eager one's. It prints CPU µs per call (the
median of the rounds) and the ratios. One process, the same inputs: the ratio holds on a
busy machine better than absolute times do.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from nothanks.agents import make_agent
from nothanks.agents.cognitive import tom_kernel
from nothanks.kernels import counter, retrieval
from nothanks.kernels import tom as tom_core
from nothanks.kernels.compiling import jit
from nothanks.play.match import Match
from nothanks.rules.seeding import game_seed


@jit
def _eager(table, base, key1, key2, first, scale, category, card_row, on_row, own_row,
           penalty, out, noise):
    """The eager retrieval's compiled work: draw every instance, then the eager pass."""
    counter.logistic(key1, key2, first, scale, noise)
    return retrieval.eager_best(base, table[tom_core.CATEGORY_ROW + category],
                                table[card_row], table[on_row], table[own_row], penalty,
                                noise, out)


def capture(games: int) -> list[tuple]:
    """The arguments of every compiled ToM0 decision in ``games`` games of 4 x ToM0."""
    core = tom_kernel.compiled()
    if core is None:
        raise SystemExit("the compiled kernels are off (numba missing or switched off)")
    calls: list[tuple] = []
    decide = core.decide_tom0

    def kept(*args):
        calls.append(args)
        return decide(*args)

    core.decide_tom0 = kept
    try:
        agents = [make_agent("tom0") for _ in range(4)]
        for index in range(games):
            shift = index % 4
            Match(agents[shift:] + agents[:shift], seed=game_seed(5, index)).run()
    finally:
        core.decide_tom0 = decide
    return [args for args in calls if len(args[7]) == 0]  # noise reserved, not drawn


def _eager_args(args: tuple) -> tuple:
    (table, base, _, _, _, _, _, _, key1, key2, first, scale, card_row, category, on_row,
     own_row, penalty, _, _, det) = args
    return (table, base, key1, key2, first, scale, category, card_row, on_row, own_row,
            penalty, det, np.empty(len(base)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games of 4 x ToM0 (200)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (5)")
    args = parser.parse_args(argv)
    calls = capture(args.games)
    first_time = [c for c in calls if len(c[3]) == 0]
    windowed = [c for c in calls if len(c[3]) > 0]
    decide = tom_kernel.compiled().decide_tom0
    for call in calls:  # the same chunk, hence the same action and latency
        eager_take = decide(*call)
        best, top = _eager(*_eager_args(call))
        assert eager_take == tom_core._retrieved(call[0], best, top, call[17], call[18])
    groups = {"first time (no window)": first_time, "windowed": windowed}
    times: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds):
        for side in (("eager", "lazy") if round_ % 2 == 0 else ("lazy", "eager")):
            for name, group in groups.items():
                if not group:
                    continue
                began = time.process_time()
                if side == "eager":
                    for call in group:
                        _eager(*_eager_args(call))
                else:
                    for call in group:
                        decide(*call)
                spent = (time.process_time() - began) / len(group) * 1e6
                times.setdefault((name, side), []).append(spent)
    print(f"{len(calls)} ToM0 decisions with their noise reserved over {args.games} games: "
          f"{len(first_time)} first-time queries, {len(windowed)} windowed; window size "
          f"median {np.median([len(c[3]) for c in windowed]) if windowed else 0:.0f}")
    print(f"{'calls':26s} {'eager µs':>9s} {'lazy µs':>9s} {'speed-up':>9s}")
    for name in groups:
        if (name, "eager") not in times:
            continue
        eager = statistics.median(times[name, "eager"])
        lazy = statistics.median(times[name, "lazy"])
        print(f"{name:26s} {eager:9.2f} {lazy:9.2f} {eager / lazy:8.2f}x")


if __name__ == "__main__":
    main()
