"""The figures pipeline: ``nothanks figures`` from an empty and from a warm cache.

Run: python benchmarks/bench_figures.py [--full] [--cache DIR] [--out DIR]
Targets: ``make figures`` from an empty cache (every simulation included)
<= 10 minutes on the 2-core machine; with a warm cache <= 60 s.

Without ``--full`` it times ``--quick`` (4 games per condition, 3 sweep values, 3
synthetic participants) so ``make bench`` stays short; ``--full`` times the real build
(table7 1,500 games, figure14 13,500 games, 30 synthetic participants unless
``data/synthetic`` exists). The cache starts empty unless ``--cache`` names an existing
one. The machine is shared: the load average before and after is printed.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from nothanks.report import make_figures as build


def timed_build(out: Path, cache: Path, quick: bool) -> tuple[float, dict[str, float]]:
    start = time.perf_counter()
    report = build(out, cache, quick=quick, progress=False)
    return time.perf_counter() - start, report.seconds


def main(argv: list[str] | None = None) -> list[tuple[str, float, str]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--full", action="store_true", help="time the real build (minutes)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="cache folder (default: a new empty temporary folder)")
    parser.add_argument("--out", type=Path, default=None, help="figures folder (default: tmp)")
    args = parser.parse_args(argv)
    quick = not args.full
    print(f"load average before: {os.getloadavg()}  cores: {os.cpu_count()}")
    root = Path(tempfile.mkdtemp(prefix="bench-figures-"))
    cache = args.cache or root / "cache"
    out = args.out or root / "figures"
    rows: list[tuple[str, float, str]] = []
    try:
        label = "quick" if quick else "full"
        cold, steps = timed_build(out, cache, quick)
        rows.append((f"{label}, cache as given (empty unless --cache)", cold,
                     ", ".join(f"{k} {v:.1f}" for k, v in steps.items())))
        warm, steps = timed_build(out, cache, quick)
        rows.append((f"{label}, warm cache", warm,
                     ", ".join(f"{k} {v:.1f}" for k, v in steps.items())))
    finally:
        if args.cache is None and args.out is None:
            shutil.rmtree(root, ignore_errors=True)
    print(f"{'build':46s} {'seconds':>8s}  steps (s)")
    for name, seconds, steps in rows:
        print(f"{name:46s} {seconds:8.1f}  {steps}")
    print(f"load average after: {os.getloadavg()}")
    return rows


if __name__ == "__main__":
    main()
