"""How much of a model workload is compiled work, against a baseline's 3x budget.

Run: python benchmarks/model_floor.py [--baseline 2e26c44] [--rounds 3] [--quick]

Issue 29 asks for the 4 x ToM2 game, the ToM0 decision and the order-inference
likelihood to run 3x faster than the baseline revision. This script asks whether that
is reachable by removing Python alone. For each of those ``compare.py`` workloads
(``tom2x4``, ``decision_tom0``, ``likelihood_24``) it runs three fresh processes per
round, their order alternating: the baseline's and this tree's totals (``compare.py``'s
own worker, nothing timed inside), and this tree again with the CPU time spent inside
the compiled calls the workload makes: the noise draws
(``actr.kernel.counter_logistic``), the token recalls (``recall_best``) and the ToM core
(``tom_core.decide``, ``decide_tom0``). Those calls compute the same bits as the
reference, so what they cost stays whatever Python around them is removed.

It prints, per workload, the baseline's median, the 3x budget (a third of it), this
tree's median and the ratio, and the compiled time per unit of work twice: as timed
around each call (an upper bound: it includes numba's argument checks and the timer)
and with the median cost of an empty compiled call at least as wide as any of them,
timed the same way, taken off every call (a lower bound on the work itself). When the
lower bound is at or above the budget, the row cannot reach 3x with the same bits.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
import compare  # noqa: E402  (the workloads and the worktree checkout live there)

WORKLOADS = ("tom2x4", "decision_tom0", "likelihood_24")
#: The unit of each workload's value (and of its compiled time per unit).
UNITS = {"tom2x4": "ms per game", "decision_tom0": "ms per decision",
         "likelihood_24": "s per run"}
# the compiled entry points timed, by where they live
_KERNELS = ("counter_logistic", "recall_best")
_CORE = ("decide", "decide_tom0")


def _timed_compiled() -> tuple[dict[str, list[int]], float]:
    """Wrap the compiled entry points so every call adds its CPU ns and a count to the
    returned table; and the median CPU ns of an empty compiled call at least as wide as
    any of them, timed the same way."""
    import numba
    import numpy as np

    from nothanks.actr import kernel
    from nothanks.agents.cognitive import tom_kernel

    spent: dict[str, list[int]] = {}
    clock = time.process_time_ns

    def wrap(namespace, name):
        call = getattr(namespace, name)

        def timed(*args):
            began = clock()
            result = call(*args)
            tally = spent.setdefault(name, [0, 0])
            tally[0] += clock() - began
            tally[1] += 1
            return result
        setattr(namespace, name, timed)

    kernels, core = kernel.kernels(), tom_kernel.compiled()
    if kernels is None or core is None:
        raise SystemExit("the compiled kernels are off here (numba missing, or "
                         "NOTHANKS_REFERENCE=1)")
    # an untimed game first: every entry point loads its machine code at its first call
    from nothanks.play.runner import game_seed, play_game
    play_game(["tom2", "tom0", "tom0", "tom0"], seed=game_seed(99, 0), record=False)
    for name in _KERNELS:
        wrap(kernels, name)
    for name in _CORE:
        wrap(core, name)

    # the widest call timed (decide_tom0: 4 arrays, 7 scalars; decide: 5 arrays, 3
    # scalars), so every call's own checks cost at most this probe's
    @numba.njit(nogil=True)
    def empty(a, b, c, d, e, f, g, h, i, j, k, m):
        return k

    probe: list[int] = []
    table, row = np.zeros((2, 4)), np.zeros(4)
    ints = np.zeros(4, np.int64)
    arguments = (table, row, row, ints, row, 1, 2, 3, 4, 0.5, 0.25, 2.0)
    empty(*arguments)
    for _ in range(20000):
        began = clock()
        empty(*arguments)
        probe.append(clock() - began)
    # the median: robust to the odd preempted call
    return spent, float(statistics.median(probe))


def worker(workload: str, quick: bool) -> dict:
    """This tree's ``workload`` with its compiled calls timed: the total as
    ``compare.py`` measures it, the compiled CPU per unit (upper and lower bound), the
    calls per unit."""
    from nothanks.agents.cognitive.tom import ToMAgent

    spent, per_call = _timed_compiled()
    decisions = [0]
    decide = ToMAgent.decide

    def counted(self, view):
        decisions[0] += 1
        return decide(self, view)
    ToMAgent.decide = counted
    result = compare.MEASURES[workload][0](quick)
    if workload == "tom2x4":  # per game played
        units = compare.model_games(quick)
        scale = 1e6  # ns -> ms
    elif workload == "decision_tom0":  # every seat is a ToM0 model: per decision
        units = decisions[0]
        scale = 1e6
    else:
        units = 1
        scale = 1e9  # ns -> s
    calls = sum(count for _, count in spent.values())
    inside = sum(ns for ns, _ in spent.values())
    import nothanks
    return {"nothanks": nothanks.__file__, "value": result["value"],
            "upper": inside / units / scale,
            "lower": (inside - calls * per_call) / units / scale,
            "calls": calls / units, "empty_call_ns": per_call,
            "by_call": {name: [ns / units / scale, count / units]
                        for name, (ns, count) in spent.items()}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default="2e26c44", help="git revision (2e26c44)")
    parser.add_argument("--new", default=str(compare.REPO),
                        help="the folder of the tree measured (default: this one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workloads", nargs="*", default=list(WORKLOADS), choices=WORKLOADS)
    parser.add_argument("--quick", action="store_true", help="small workloads, a smoke test")
    parser.add_argument("--worker", choices=WORKLOADS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.quick)))
        return
    new = Path(args.new)
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cores; baseline "
          f"{args.baseline}, new {new}, {args.rounds} rounds", flush=True)
    rows: dict[str, dict[str, list]] = {w: {"baseline": [], "new": [], "floor": []}
                                        for w in args.workloads}
    with compare.checkout(args.baseline) as baseline:
        for round_ in range(args.rounds):
            for workload in args.workloads:
                # the totals by compare.py's own worker (its workload, untouched), then the
                # compiled calls timed by this script's worker
                sides = [("baseline", baseline, compare.HERE), ("new", new, compare.HERE),
                         ("floor", new, HERE)]
                for side, tree, script in sides[::-1] if round_ % 2 else sides:
                    result = compare.run_worker(tree, workload, args.quick, script=script)
                    rows[workload][side].append(result)
                    print(f"  round {round_ + 1} {workload:14s} {side:8s} "
                          f"{result['value']:.4g}", flush=True)
    print(f"\n{'workload':14s} {'unit':16s} {'baseline':>9s} {'3x budget':>9s} {'new':>9s} "
          f"{'ratio':>6s} {'compiled':>9s} {'work':>9s} {'calls':>7s}  work / budget")
    for workload, sides in rows.items():
        old = statistics.median(r["value"] for r in sides["baseline"])
        new_value = statistics.median(r["value"] for r in sides["new"])
        upper = statistics.median(r["upper"] for r in sides["floor"])
        lower = statistics.median(r["lower"] for r in sides["floor"])
        calls = statistics.median(r["calls"] for r in sides["floor"])
        print(f"{workload:14s} {UNITS[workload]:16s} {old:9.4g} {old / 3:9.4g} "
              f"{new_value:9.4g} {old / new_value:5.2f}x {upper:9.4g} {lower:9.4g} "
              f"{calls:7.0f}  {lower / (old / 3):.2f}")
    detail = {w: sides["floor"][-1]["by_call"] for w, sides in rows.items()}
    print(f"\nper entry point, last round (compiled per unit, calls per unit): "
          f"{json.dumps(detail)}")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
