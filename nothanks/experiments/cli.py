"""``nothanks run``, ``nothanks export`` and ``nothanks synthetic``: each ``configure_*``
function adds its options to a parser and returns the function that runs the command
(registered in :mod:`nothanks.cli`)."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

Runner = Callable[[argparse.Namespace], int]



def configure_run(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("design", nargs="?",
                        help="shipped design name (see --list) or path to a .toml design")
    parser.add_argument("--out", type=Path, help="experiment directory (created or resumed)")
    parser.add_argument("--list", action="store_true", help="list the shipped designs")
    parser.add_argument("--jobs", type=int, default=None,
                        help="local worker processes (default: all cores)")
    parser.add_argument("--dask", metavar="ADDRESS", default=None,
                        help="run on a Dask cluster, e.g. tcp://scheduler:8786")
    parser.add_argument("--traces", action="store_true",
                        help="also log every model decision's full reasoning trace (large)")
    parser.add_argument("--human", metavar="SPEC", default=None,
                        help="agent spec that plays a design's human seat (e.g. human-standin)"
                             "; the rows are marked synthetic")
    parser.add_argument("--games", type=int, default=None,
                        help="override games per condition (changes the design hash)")
    parser.add_argument("--seed", type=int, default=None,
                        help="override the root seed (changes the design hash)")
    parser.add_argument("--chunk-size", type=int, default=None,
                        help="games per part file (default about 50; fixed by the first run)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    def run(args: argparse.Namespace) -> int:
        from .design import DesignError, load_design, shipped_designs
        from .run import run_design
        from .schema import LogError
        if args.list:
            for name, path in shipped_designs().items():
                d = load_design(path)
                first = d.description.splitlines()[0] if d.description else ""
                print(f"{name:16s} {d.total_games:7d} games  {len(d.conditions):3d} "
                      f"conditions  {first}")
            return 0
        if args.design is None or args.out is None:
            print("nothanks run: error: give DESIGN and --out DIR (or --list)", file=sys.stderr)
            return 2
        try:
            design = load_design(args.design)
            changes = {k: v for k, v in (("games", args.games), ("seed", args.seed),
                                         ("human", args.human)) if v is not None}
            if changes:
                design = design.with_options(**changes)
            summary = run_design(design, args.out, jobs=args.jobs, client=args.dask,
                                 chunk_size=args.chunk_size, traces=args.traces,
                                 progress=not args.no_progress)
        except (DesignError, LogError) as exc:
            print(f"nothanks run: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            return 130
        print(f"{summary.directory}: {summary.games} games ({summary.played} played now, "
              f"{summary.skipped} already done) in {summary.seconds:.1f} s")
        return 0
    return run


def configure_export(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("directory", type=Path, help="experiment directory (or a folder of them)")
    parser.add_argument("--csv", type=Path, required=True, metavar="OUT",
                        help="folder for <table>.csv files")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="export an interrupted run's finished games")

    def run(args: argparse.Namespace) -> int:
        from .log import export_csv
        from .schema import LogError
        try:
            written = export_csv(args.directory, args.csv, allow_incomplete=args.allow_incomplete)
        except LogError as exc:
            print(f"nothanks export: error: {exc}", file=sys.stderr)
            return 2
        for path in written:
            print(path)
        return 0
    return run


def configure_synthetic(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("--out", type=Path, default=Path("data/synthetic"),
                        help="folder for one session directory per participant")
    parser.add_argument("--participants", type=int, default=30)
    parser.add_argument("--seed", type=int, default=2018,
                        help="seed of the stand-ins' personal parameters")

    def run(args: argparse.Namespace) -> int:
        from .synthetic import generate
        for session in generate(args.out, args.participants, seed=args.seed):
            print(f"{session.directory}: {session.games_done} games")
        return 0
    return run
