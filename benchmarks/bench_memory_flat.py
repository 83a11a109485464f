"""Peak memory over a long model run: one process plays N games of one table (agents built
once and reused, as a design's worker reuses them), and the resident set size is
sampled every ``--every`` games. Flat means the caches a model keeps (the ToM0 query
windows, at most ``tom.WINDOWS_KEPT`` per model; the score tables; the instance
chunks) stop growing once the queries met have been met.

Run: python benchmarks/bench_memory_flat.py [--games 100000] [--every 5000]
                                            [--table tom0,tom0,tom0,tom0] [--out CSV]
Prints one row per sample (games played, RSS in MiB, peak RSS in MiB, windows kept per
model, CPU seconds) and, with --out, writes them as CSV.
"""
from __future__ import annotations

import argparse
import csv
import resource
import time
from pathlib import Path

import nothanks.agents.cognitive  # noqa: F401  (registers the model specs)
from nothanks.agents import make_agent
from nothanks.agents.cognitive import ToMAgent
from nothanks.play.runner import game_seed, play_game


def _rss_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def _windows(agent) -> int:
    kept = getattr(agent, "_kept_inputs", None)
    return len(kept[3].windows) if isinstance(agent, ToMAgent) and kept else 0


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--every", type=int, default=5_000)
    parser.add_argument("--table", default="tom0,tom0,tom0,tom0",
                        help="agent specs, comma-separated (one per seat)")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    agents = [make_agent(spec) for spec in args.table.split(",")]
    rows = []
    start = time.process_time()
    print("games,rss_mib,peak_rss_mib,windows_per_model,cpu_s", flush=True)
    for index in range(args.games):
        shift = index % len(agents)
        play_game(agents[shift:] + agents[:shift], seed=game_seed(args.seed, index),
                  game_id=index, record=False)
        if (index + 1) % args.every == 0:
            row = {"games": index + 1, "rss_mib": round(_rss_mib(), 1),
                   "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                                         / 1024, 1),
                   "windows_per_model": max(_windows(a) for a in agents),
                   "cpu_s": round(time.process_time() - start, 1)}
            rows.append(row)
            print(",".join(str(v) for v in row.values()), flush=True)
    if args.out is not None:
        with open(args.out, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return rows


if __name__ == "__main__":
    main()
