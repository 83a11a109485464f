"""Decisions per second of IBL blending: nothanks.actr.blending against pyibl, side by side.

Run: python benchmarks/bench_ibl.py [--histories 1000,2500,5000] [--decisions 20]
[--rounds 3] [--levels 100] [--outcomes 0]

The task (issue 30): an agent with three attributes, each partially matched (linear
similarity on 1..levels), mismatch penalty 1, noise 0.25, decay 0.5, chooses between two
options of random attribute values and learns a random outcome, after a history of N
decisions (one reference per decision at times 1..N). By default every instance is distinct
(100 levels, continuous outcomes); ``--levels 5 --outcomes 5`` (whole outcomes 0-4) makes
repeated instances merge into a few hundred, each with many references. A decision is one
``choose`` (a blend per option) and one ``respond``. Both libraries get the same
histories and options; the timing alternates blocks of ``--decisions`` decisions between
them, ``--rounds`` times per history length, and reports the median block (machines shared
with other jobs swing). Target: ≥ 20× pyibl's decisions per second at N = 5,000, and a cost
per decision that grows no faster than linearly with N. pyibl is a test/benchmark-only
dependency (the dev extras).
"""
from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

from nothanks.actr.blending import BlendingLearner, InstanceMemory
from nothanks.actr.mismatch import Linear

ATTRIBUTES = ("a", "b", "c")
LOW = 1
#: The task's attribute levels (1..high) and outcomes (0: uniform on 0-10, else 0..K-1).
TASK = {"high": 100, "outcomes": 0}


def _outcomes(rng: np.random.Generator, count: int) -> np.ndarray:
    if TASK["outcomes"]:
        return rng.integers(0, TASK["outcomes"], count).astype(float)
    return rng.uniform(0, 10, count)


def _history(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` random past decisions (attribute values) and their outcomes."""
    rng = np.random.default_rng(seed)
    return rng.integers(LOW, TASK["high"] + 1, (n, 3)), _outcomes(rng, n)


def ours(n: int, seed: int) -> BlendingLearner:
    """Our learner with the history: instance t referenced at time t, the clock at n + 1."""
    values, outcomes = _history(n, seed)
    memory = InstanceMemory(ATTRIBUTES, noise=0.25, decay=0.5, mismatch_penalty=1.0,
                            similarity=dict.fromkeys(ATTRIBUTES, Linear(TASK["high"] - LOW)),
                            seed=seed)
    for t, (row, outcome) in enumerate(zip(values.tolist(), outcomes.tolist(),
                                           strict=True), start=1):
        memory.advance()
        memory.learn(row, outcome, when=t)
    memory.advance()
    return BlendingLearner(memory)


def _pyibl_history(n: int, seed: int):
    """pyibl's agent with the same history: instance t referenced at time t, the clock at
    n + 1."""
    import pyibl
    values, outcomes = _history(n, seed)
    agent = pyibl.Agent(list(ATTRIBUTES), noise=0.25, decay=0.5, mismatch_penalty=1.0)
    agent.similarity(list(ATTRIBUTES), pyibl.bounded_linear_similarity(LOW, TASK["high"]))
    for row, outcome in zip(values.tolist(), outcomes.tolist(), strict=True):
        agent.advance()
        agent.populate([row], outcome)
    agent.advance()
    return agent


def _options(rng: np.random.Generator, count: int) -> list[list[tuple[int, ...]]]:
    """``count`` pairs of two different random options."""
    pairs = []
    while len(pairs) < count:
        pair = [tuple(rng.integers(LOW, TASK["high"] + 1, 3).tolist()) for _ in range(2)]
        if pair[0] != pair[1]:  # pyibl refuses duplicate choices
            pairs.append(pair)
    return pairs


def _block(agent, options: list, outcomes: list[float]) -> float:
    """Seconds per decision over one block."""
    start = time.perf_counter()
    for pair, outcome in zip(options, outcomes, strict=True):
        agent.choose(pair)
        agent.respond(outcome)
    return (time.perf_counter() - start) / len(options)


def measure(n: int, decisions: int, rounds: int, seed: int = 1) -> dict[str, float]:
    """Median seconds per decision of each library at history length ``n`` (and our
    instance count at the end)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = _pyibl_history(n, seed)
    own = ours(n, seed)
    rng = np.random.default_rng(seed + 1)
    warm = _options(rng, 2)
    _block(own, warm, [1.0, 2.0])  # compile or load the kernels
    _block(reference, warm, [1.0, 2.0])
    times: dict[str, list[float]] = {"ours": [], "pyibl": []}
    for _ in range(rounds):
        options = _options(rng, decisions)
        outcomes = _outcomes(rng, decisions).tolist()
        times["pyibl"].append(_block(reference, options, outcomes))
        times["ours"].append(_block(own, options, outcomes))
    result = {name: statistics.median(values) for name, values in times.items()}
    result["instances"] = len(own.memory)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--histories", default="1000,2500,5000",
                        help="history lengths N, comma-separated")
    parser.add_argument("--decisions", type=int, default=20, help="decisions per block")
    parser.add_argument("--rounds", type=int, default=3, help="blocks per library and N")
    parser.add_argument("--levels", type=int, default=100, help="attribute values 1..levels")
    parser.add_argument("--outcomes", type=int, default=0,
                        help="0: outcomes uniform on 0-10; K: whole outcomes 0..K-1")
    args = parser.parse_args(argv)
    TASK.update(high=args.levels, outcomes=args.outcomes)
    lengths = [int(x) for x in args.histories.split(",")]
    print(f"levels 1..{args.levels}, outcomes "
          f"{'uniform 0-10' if not args.outcomes else f'0..{args.outcomes - 1}'}")
    print(f"{'N':>6} {'instances':>9} {'pyibl ms/dec':>13} {'ours ms/dec':>12} {'pyibl dec/s':>12} "
          f"{'ours dec/s':>11} {'ratio':>7}")
    results = {}
    for n in lengths:
        r = results[n] = measure(n, args.decisions, args.rounds)
        print(f"{n:>6} {r['instances']:>9} {r['pyibl'] * 1e3:>13.3f} {r['ours'] * 1e3:>12.4f} "
              f"{1 / r['pyibl']:>12.1f} {1 / r['ours']:>11.1f} "
              f"{r['pyibl'] / r['ours']:>6.1f}x", flush=True)
    if len(lengths) > 1:
        first, last = lengths[0], lengths[-1]
        for name in ("ours", "pyibl"):
            growth = results[last][name] / results[first][name]
            print(f"{name}: cost per decision x{growth:.2f} from N={first} to N={last} "
                  f"(linear: x{last / first:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
