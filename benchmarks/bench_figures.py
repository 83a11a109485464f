"""The two builds, ``nothanks figures`` (the thesis) and ``nothanks studies`` (the rest),
each from an empty and then from a warm cache.

Run: python benchmarks/bench_figures.py [--full] [--build figures|studies|both]
         [--studies NAME ...] [--games N] [--jobs N] [--cache DIR] [--out DIR]
Targets (2 cores, wall): ``make figures`` from an empty cache <= 8 minutes, ``make
studies`` <= 30 minutes, a warm rebuild of either <= 60 s.

Without ``--full`` it times ``--quick`` (4 games per condition, 3 sweep values, 3
synthetic participants, a grading sample of 20 per player type) so ``make bench`` stays
short; ``--full`` times the real builds. ``--studies`` times only the named studies (a
cold ``make studies`` takes most of an hour); ``--games N`` plays N games per condition
of every design instead of the designs' own (with ``--full``: the grading keeps its
full sample), and the table then adds, per study, the games it played, the games of its
full designs and a linear extrapolation of its cold seconds to them (an estimate: the
statistics do not scale with the games, the grading not at all; the thesis's designs,
already in the cache, are not counted). The thesis runs first and the studies reuse its
cache (``move-quality`` grades table7's games). The cache
starts empty unless ``--cache`` names an existing one. The machine is shared: the load
average before and after is printed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from nothanks.experiments import load_design
from nothanks.report import THESIS_DESIGNS, make_figures
from nothanks.report.studies import STUDIES, check_studies, make_studies


def timed(build: str, out: Path, cache: Path, quick: bool, games: int | None,
          jobs: int | None, names: list[str]) -> tuple[float, dict[str, float]]:
    """Wall seconds of one build and its steps' (or studies') seconds."""
    start = time.perf_counter()
    if build == "figures":
        report = make_figures(out, cache, quick=quick, games=games, jobs=jobs,
                              progress=False)
    else:
        report = make_studies(out / "studies", cache, names, quick=quick, games=games,
                              jobs=jobs, progress=False)
    return time.perf_counter() - start, report.seconds


def design_games(name: str, games: int | None) -> int:
    """Games a shipped design plays with ``games`` per condition (None: its own)."""
    design = load_design(name)
    if games is not None:
        trial = design.trial
        design = design.with_options(games=games if trial is None
                                     else -(-games // trial) * trial)
    return design.total_games


def main(argv: list[str] | None = None) -> list[tuple[str, float, str]]:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="time the real builds (minutes)")
    parser.add_argument("--build", choices=("figures", "studies", "both"), default="both")
    parser.add_argument("--studies", nargs="+", default=[], metavar="NAME",
                        help="time only these studies (default: all)")
    parser.add_argument("--games", type=int, default=None,
                        help="games per condition of every design (default: the designs')")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes")
    parser.add_argument("--cache", type=Path, default=None,
                        help="cache folder (default: a new empty temporary folder)")
    parser.add_argument("--out", type=Path, default=None, help="figures folder (default: tmp)")
    args = parser.parse_args(argv)
    quick = not args.full
    names = check_studies(args.studies)
    print(f"load average before: {os.getloadavg()}  cores: {os.cpu_count()}")
    root = Path(tempfile.mkdtemp(prefix="bench-figures-"))
    cache = args.cache or root / "cache"
    out = args.out or root / "figures"
    builds = ("figures", "studies") if args.build == "both" else (args.build,)
    rows: list[tuple[str, float, str]] = []
    cold_steps: dict[str, float] = {}
    try:
        label = "quick" if quick else "full" if args.games is None else f"{args.games} games"
        for build in builds:
            for state in ("cold (cache as given)", "warm"):
                seconds, steps = timed(build, out, cache, quick, args.games, args.jobs,
                                       names)
                cold_steps = steps if state.startswith("cold") else cold_steps
                rows.append((f"{build}, {label}, {state}", seconds,
                             ", ".join(f"{k} {v:.1f}" for k, v in steps.items())))
                print(f"{rows[-1][0]:46s} {seconds:8.1f}  {rows[-1][2]}", flush=True)
    finally:
        if args.cache is None and args.out is None:
            shutil.rmtree(root, ignore_errors=True)
    print(f"\n{'build':46s} {'seconds':>8s}  steps (s)")
    for name, seconds, steps in rows:
        print(f"{name:46s} {seconds:8.1f}  {steps}")
    if "studies" in builds and args.games is not None and not quick:
        print(f"\n{'study':24s} {'cold s':>8s} {'games':>8s} {'full games':>10s} "
              f"{'est. full s':>11s}")
        total = 0.0
        for name in names:
            own = [d for d in STUDIES[name].designs if d not in THESIS_DESIGNS]
            played = sum(design_games(d, args.games) for d in own)
            full = sum(design_games(d, None) for d in own)
            seconds = cold_steps.get(name, float("nan"))
            scaled = seconds * full / played if played else seconds
            total += scaled
            print(f"{name:24s} {seconds:8.1f} {played:8d} {full:10d} {scaled:11.0f}")
        print(f"{'all (an estimate)':24s} {'':8s} {'':8s} {'':10s} {total:11.0f}")
    print(f"load average after: {os.getloadavg()}")
    return rows


if __name__ == "__main__":
    main()
