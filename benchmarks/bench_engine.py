"""Games per second of the rules engine with baseline agents, on one core.

Run: python benchmarks/bench_engine.py [--games N]
Targets: >= 2,000 games/s for four random agents.
"""
from __future__ import annotations

import argparse
import time

from nothanks.runner import play_games

TARGET_RANDOM = 2000.0


def games_per_second(specs: list[str], games: int, record: bool) -> float:
    """Best of three runs (the machine is shared; the best run is the least disturbed)."""
    best = float("inf")
    for repeat in range(3):
        start = time.perf_counter()
        for _ in play_games(specs, games, seed=repeat, record=record):
            pass
        best = min(best, time.perf_counter() - start)
    return games / best


def main(argv: list[str] | None = None) -> list[tuple[str, float, str]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=4000)
    args = parser.parse_args(argv)
    rows = []
    for label, specs in (("random x4", ["random"] * 4), ("heuristic x4", ["heuristic"] * 4)):
        for record in (False, True):
            rate = games_per_second(specs, args.games, record)
            target = TARGET_RANDOM if label.startswith("random") else None
            verdict = "" if target is None else ("PASS" if rate >= target else "FAIL")
            name = f"{label}, decisions {'recorded' if record else 'not recorded'}"
            rows.append((name, rate, verdict))
            print(f"{name:42s} {rate:10,.0f} games/s   "
                  f"{f'target >= {target:d} ' if target else ''}{verdict}")
    return rows


if __name__ == "__main__":
    main()
