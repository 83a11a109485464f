"""Experiment runner: logging overhead and parallel speed-up on the table7 design.

Run: python benchmarks/bench_experiments.py [--games N] [--traced-games N]
Targets: logging overhead <= 10% of simulation time, with the compact log and
with the full log (--traces); 2 local processes >= 1.7x the throughput of one.

* overhead, compact log: ``play_chunk`` (decision rows, predictions, recalls, Parquet
  encoding) against ``play_game(record=False)`` on the same games;
* overhead, full log: the same with models recording traces in both (the models' own
  trace recording is simulation; serialising and logging the traces is the overhead);
* speed-up: ``run_design`` with ``--jobs 1`` and ``--jobs 2`` on the first N games of
  each table7 condition, written to disk, merged at the end.

The machine is shared; the load average before and after is printed. Overheads use the
best of ``--repeats`` CPU times (this process), speed-ups wall-clock throughput.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from nothanks.experiments import load_design, run_design
from nothanks.experiments.run import LogContext, _agents_for, play_chunk, worker_gc
from nothanks.play.runner import play_game


def subset(games: int):
    """table7 with ``games`` games per condition (same tables, seeds by position)."""
    return load_design("table7").with_options(games=games)


def simulate_only(design, traces: bool) -> None:
    """The same games with the same (cached) agents as play_chunk, nothing recorded."""
    for plan in design.plan():
        pool = _agents_for(design, plan.condition, traces)
        play_game([pool[r] for r in plan.roles], design.variant, plan.seed, plan.position,
                  record=False)


def overhead(design, traces: bool, repeats: int) -> tuple[float, float]:
    """Best CPU seconds of this process (robust on a shared machine) for simulation
    alone and for simulation with the log, measured alternately."""
    context = LogContext(design.name, design.hash)
    for condition in range(len(design.conditions)):  # agents are built once per worker
        _agents_for(design, condition, traces)
    sim, logged = [], []
    with worker_gc():  # as the runner plays (workers and --jobs 1 alike)
        for _ in range(repeats):
            start = time.process_time()
            simulate_only(design, traces)
            sim.append(time.process_time() - start)
            start = time.process_time()
            play_chunk(design, 0, design.total_games, context, traces)
            logged.append(time.process_time() - start)
    return min(sim), min(logged)


def throughput(design, jobs: int, root: Path) -> float:
    from nothanks.experiments import run as run_module
    out = root / f"jobs{jobs}"
    shutil.rmtree(out, ignore_errors=True)
    run_module._worker.__dict__.clear()  # every run builds its agents, as a fresh one does
    import resource
    before = [resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                  resource.RUSAGE_CHILDREN)]
    start = time.perf_counter()
    run_design(design, out, jobs=jobs, chunk_size=5, progress=False)
    wall = time.perf_counter() - start
    after = [resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                 resource.RUSAGE_CHILDREN)]
    cpu = sum(a.ru_utime + a.ru_stime - b.ru_utime - b.ru_stime
              for a, b in zip(after, before, strict=True))
    print(f"  {jobs} process(es): {wall:.1f} s wall, {cpu:.1f} CPU s "
          f"(= {cpu / wall:.2f} cores obtained)")
    return design.total_games / wall


def main(argv: list[str] | None = None) -> list[tuple[str, float, str]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40,
                        help="games per table7 condition for the overhead (default 40)")
    parser.add_argument("--scaling-games", type=int, default=100,
                        help="games per table7 condition for the speed-up (default 100)")
    parser.add_argument("--traced-games", type=int, default=2,
                        help="games per condition for the full-log overhead (traces are slow)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory-games", type=int, nargs="*", default=[],
                        help="also run baseline designs of these sizes (e.g. 10000 100000) "
                             "in a fresh process each and print the parent's peak memory")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()}  cores: {os.cpu_count()}")
    rows: list[tuple[str, float, str]] = []

    design = subset(args.games)
    sim, logged = overhead(design, False, args.repeats)
    share = (logged - sim) / sim
    rows.append((f"compact log overhead ({design.total_games} games)", share,
                 "PASS" if share <= 0.10 else "FAIL"))
    print(f"simulation only {sim:.2f} CPU s, with compact log {logged:.2f} CPU s: overhead "
          f"{share:+.1%}  target <= 10%  {rows[-1][2]}")

    traced = subset(args.traced_games)
    sim_t, logged_t = overhead(traced, True, args.repeats)
    share_t = (logged_t - sim_t) / sim_t
    rows.append((f"full log (traces) overhead ({traced.total_games} games)", share_t,
                 "PASS" if share_t <= 0.10 else "FAIL"))
    print(f"simulation with model traces {sim_t:.2f} CPU s, with full log {logged_t:.2f} CPU s: "
          f"overhead {share_t:+.1%}  target <= 10%  {rows[-1][2]}")
    print(f"(model-side trace recording makes simulation "
          f"{(sim_t / traced.total_games) / (sim / design.total_games):.0f}x slower per game)")

    scaling = subset(args.scaling_games)
    with tempfile.TemporaryDirectory() as tmp:
        one = throughput(scaling, 1, Path(tmp))
        two = throughput(scaling, 2, Path(tmp))
    speedup = two / one
    rows.append((f"2 processes vs 1 ({scaling.total_games} games)", speedup,
                 "PASS" if speedup >= 1.7 else "FAIL"))
    print(f"throughput 1 process {one:.1f} games/s, 2 processes {two:.1f} games/s: "
          f"speed-up {speedup:.2f}x  target >= 1.7x  {rows[-1][2]}")
    for games in args.memory_games:
        peak, seconds = peak_memory(games)
        rows.append((f"parent peak RSS, {games} baseline games (MB)", peak, ""))
        print(f"{games} games of 4 random agents in {seconds:.0f} s: parent process peak "
              f"RSS {peak:.0f} MB")
    print(f"load average after: {os.getloadavg()}")
    return rows


def peak_memory(games: int) -> tuple[float, float]:
    """Run a ``games``-game baseline design in a fresh process; its peak RSS in MB."""
    import subprocess
    import sys
    code = (
        "import resource, sys, tempfile, time\n"
        "from nothanks.experiments import Design, Table, run_design\n"
        f"d = Design(name='memory', games={games}, tables=(Table('r', ('random',) * 4),))\n"
        "t = time.perf_counter()\n"
        "with tempfile.TemporaryDirectory() as tmp:\n"
        "    run_design(d, tmp + '/m', jobs=2, progress=False)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "
        "time.perf_counter() - t)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), float(out[1])


if __name__ == "__main__":
    main()
