"""Speed of the cognitive models.

Run: python benchmarks/bench_models.py [--games 40] [--table7-games 500] [--skip-table7]

Prints (with the targets the models were tuned to):
* a 4-player game of four ToM2 models (token memory on, traces off): median ms per
  game on one core, target <= 50 ms;
* the full Table 7 run (3 designs x 500 games, 2 processes): seconds, target <= 60 s;
* ToM-k cost per decision for k = 0..5 (one ToM-k against three ToM0 models).
The machine is shared: the load average is printed next to the numbers.
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

from nothanks.agents import make_agent

try:
    from nothanks.play.runner import game_seed, play_game, play_games
except ImportError:  # before issue 45 moved it (compare.py runs this on 685ee07 and older)
    from nothanks.runner import game_seed, play_game, play_games  # type: ignore[no-redef]

TARGET_TOM2_GAME_MS = 50.0
TARGET_TABLE7_S = 60.0


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def game_times(specs: list[str], games: int, seed: int = 0) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds per game, agents reused across games as the runner does.

    CPU time (this process only) is less disturbed by other jobs on a shared machine.
    """
    wall, cpu = [], []
    results = play_games(specs, games, seed, record=False)
    while True:
        began, began_cpu = time.perf_counter(), time.process_time()
        if next(results, None) is None:
            return wall, cpu
        wall.append(time.perf_counter() - began)
        cpu.append(time.process_time() - began_cpu)


def decision_cost(k: int, games: int) -> tuple[float, int]:
    """Mean CPU ms per decision of one ToM-k model against three ToM0 models (CPU time:
    on a shared machine wall time mostly measures the other processes)."""
    focal = make_agent(f"tom:k={k}")
    others = [make_agent("tom0") for _ in range(3)]
    spent, decisions = 0.0, 0
    original = focal.decide

    def timed(view):
        nonlocal spent, decisions
        began = time.process_time()
        action = original(view)
        spent += time.process_time() - began
        decisions += 1
        return action

    seats = [focal, *others]
    # an untimed first game: compiled kernels load on their first call (~0.5 s)
    play_game(seats, seed=game_seed(7, 0), record=False)
    # A full pass of the cyclic garbage collector over everything loaded so far takes
    # 12-35 ms; the workload is deterministic, so it would land in the same timed
    # decision every round (one 13 ms pass, spread over 349 timed decisions, added
    # 38 µs to each). Collected and frozen here, the timed decisions pay only for what
    # they allocate themselves.
    gc.collect()
    gc.freeze()
    focal.decide = timed
    for index in range(games):
        shift = index % 4
        play_game(seats[shift:] + seats[:shift], seed=game_seed(7, index), record=False)
    return 1000.0 * spent / max(decisions, 1), decisions


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40, help="games per timing (40)")
    parser.add_argument("--table7-games", type=int, default=500, help="games per design")
    parser.add_argument("--skip-table7", action="store_true")
    args = parser.parse_args(argv)
    results: dict[str, float] = {}
    print(load())
    wall, cpu = game_times(["tom2"] * 4, args.games)
    median, median_cpu = 1000.0 * statistics.median(wall), 1000.0 * statistics.median(cpu)
    results["tom2x4_median_ms"], results["tom2x4_median_cpu_ms"] = median, median_cpu
    print(f"4 x ToM2 game (token memory on, traces off), {len(wall)} games: median "
          f"{median:.1f} ms wall, {median_cpu:.1f} ms CPU   target <= "
          f"{TARGET_TOM2_GAME_MS:.0f} ms  {'PASS' if median <= TARGET_TOM2_GAME_MS else 'FAIL'}"
          f" (wall), {'PASS' if median_cpu <= TARGET_TOM2_GAME_MS else 'FAIL'} (CPU)")
    for k in range(6):
        cost, decisions = decision_cost(k, max(4, args.games // 4))
        results[f"tom{k}_ms_per_decision"] = cost
        print(f"ToM{k} vs 3 x ToM0: {cost:7.2f} CPU ms per decision ({decisions} decisions)")
    if not args.skip_table7:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from table7_calibration import THESIS_DESIGNS, run
        print(load())
        began = time.perf_counter()
        summaries = run([(f, o, args.table7_games) for f, o in THESIS_DESIGNS], workers=2,
                        seed=0)
        elapsed = time.perf_counter() - began
        cpu = sum(s["cpu_seconds"] for s in summaries)
        results["table7_seconds"], results["table7_cpu_seconds"] = elapsed, cpu
        print(f"Table 7 ({len(THESIS_DESIGNS)} x {args.table7_games} games, 2 processes): "
              f"{elapsed:.1f} s wall, {cpu:.1f} CPU s in the workers (= {cpu / 2:.1f} s on "
              f"2 idle cores)   target <= {TARGET_TABLE7_S:.0f} s  "
              f"{'PASS' if elapsed <= TARGET_TABLE7_S else 'FAIL'} (wall), "
              f"{'PASS' if cpu / 2 <= TARGET_TABLE7_S else 'FAIL'} (CPU / 2)")
        print(load())
    return results


if __name__ == "__main__":
    main()
