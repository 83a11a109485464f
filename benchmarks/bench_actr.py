"""Median latency of one declarative-memory retrieval, on one core.

Run: python benchmarks/bench_actr.py [--retrievals N]

Targets (issue): a partial-matching retrieval over 300 fixed-activation chunks with the
thesis's four slots (exact-weighted category with 3 values, linear card, two Weber token
counts), per_time noise, no record, the clock advancing before 4 of every 5 retrievals
(so noise is usually redrawn): <= 20 µs. A retrieval over 1,000 learned chunks with 10
references each, the clock advancing before every retrieval (so every base level is
recomputed): <= 150 µs. The other rows have no target and show what the options cost.
Every request is drawn at random, so the timings include cache misses of every kind.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from nothanks.actr import DeclarativeMemory, ExactMatch, Linear, Weber

CATEGORIES = ("no_sequence", "extension", "completion")
THESIS_MISMATCH = {"category": ExactMatch(100), "card": Linear(32),
                   "tokens_on_card": Weber(), "tokens_owned": Weber()}


def random_state(rng: np.random.Generator) -> dict[str, object]:
    """A No Thanks!-like state chunk: category, card 3-35, tokens on card, tokens owned."""
    return {"category": CATEGORIES[int(rng.integers(3))], "card": int(rng.integers(3, 36)),
            "tokens_on_card": int(rng.integers(0, 25)), "tokens_owned": int(rng.integers(0, 25))}


def instance_memory(chunks: int, **params) -> DeclarativeMemory:
    """``chunks`` distinct fixed-activation instances, as the thesis's ToM0 uses."""
    memory = DeclarativeMemory(mismatch=THESIS_MISMATCH, seed=1, **params)
    rng = np.random.default_rng(0)
    while len(memory) < chunks:
        memory.add({**random_state(rng), "action": ("take", "pass")[len(memory) % 2]},
                   fixed_activation=0)
    return memory


def learned_memory(chunks: int, references: int, **params) -> DeclarativeMemory:
    """``chunks`` decaying chunks, each stored ``references`` times one time unit apart."""
    memory = DeclarativeMemory(mismatch=THESIS_MISMATCH, seed=1, **params)
    rng = np.random.default_rng(0)
    states = []
    while len(states) < chunks:
        state = random_state(rng)
        if state not in states:
            states.append(state)
    for _ in range(references):
        for state in states:
            memory.add(state)
        memory.advance(1.0)
    return memory


def median_us(memory: DeclarativeMemory, retrievals: int, advance_every: int | None,
              record: bool = False) -> float:
    """Median wall time of ``retrieve`` alone, in µs.

    The clock moves (untimed) before each retrieval except every ``advance_every``-th
    (1: before every one; None: never).
    """
    rng = np.random.default_rng(42)
    requests = [random_state(rng) for _ in range(retrievals)]
    timings = []
    clock = time.perf_counter_ns
    for index, request in enumerate(requests):
        if advance_every is not None and (advance_every == 1 or index % advance_every):
            memory.advance(1.0)
        start = clock()
        memory.retrieve(request, record=record)
        timings.append(clock() - start)
    return statistics.median(timings[len(timings) // 10:]) / 1000  # skip warm-up


def main(argv: list[str] | None = None) -> list[tuple[str, float, float | None, str]]:
    """Print and return rows of (name, median µs, target µs or None, PASS/FAIL/'')."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--retrievals", type=int, default=20_000)
    args = parser.parse_args(argv)
    n = args.retrievals
    cases = [
        ("300 fixed, 4 slots, per_time, clock moves 4/5", 20.0,
         lambda: median_us(instance_memory(300), n, 5)),
        ("1000 learned x 10 refs, 4 slots, clock moves 5/5", 150.0,
         lambda: median_us(learned_memory(1000, 10), max(n // 4, 1), 1)),
        ("200 fixed, 4 slots, per_time, clock moves 4/5", None,
         lambda: median_us(instance_memory(200), n, 5)),
        # a ToM0 decision: ~2,100 instances, a new model time (fresh noise) every time
        ("2117 fixed, 4 slots, per_time, clock moves 5/5", None,
         lambda: median_us(instance_memory(2117), max(n // 4, 1), 1)),
        ("300 fixed, 4 slots, per_time, clock never moves", None,
         lambda: median_us(instance_memory(300), n, None)),
        ("300 fixed, 4 slots, per_retrieval", None,
         lambda: median_us(instance_memory(300, noise_mode="per_retrieval"), n, 5)),
        ("300 fixed, 4 slots, per_time, record=True", None,
         lambda: median_us(instance_memory(300), max(n // 10, 1), 5, record=True)),
        ("1000 learned x 10 refs, optimized learning", None,
         lambda: median_us(learned_memory(1000, 10, optimized_learning=True),
                           max(n // 4, 1), 1)),
    ]
    rows = []
    print(f"{'retrieval':52s} {'median µs':>10s} {'target':>8s}  verdict")
    for name, target, measure in cases:
        median = measure()
        verdict = "" if target is None else ("PASS" if median <= target else "FAIL")
        rows.append((name, median, target, verdict))
        shown = "" if target is None else f"<= {target:g}"
        print(f"{name:52s} {median:10.1f} {shown:>8s}  {verdict}")
    return rows


if __name__ == "__main__":
    main()
