"""``nothanks figures``: run what is missing, then write every figure and table."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..cli import command


@command("figures", "make the thesis figures (8-14), statistics tables and results table")
def _figures(parser: argparse.ArgumentParser):
    parser.add_argument("--out", type=Path, default=Path("figures"),
                        help="folder for figures, tables/, results.md, README.md (default figures)")
    parser.add_argument("--cache", type=Path, default=Path("data/cache"),
                        help="folder of cached simulation logs (default data/cache)")
    parser.add_argument("--participants", type=Path, default=None,
                        help="folder of participant sessions (default data/synthetic, or a "
                             "synthetic set generated into the cache)")
    parser.add_argument("--games", type=int, default=None,
                        help="games per condition of table7 and figure14 (default: the "
                             "designs' 500)")
    parser.add_argument("--quick", action="store_true",
                        help="a few games per condition and 3 synthetic participants "
                             "(for tests and a quick look; not for conclusions)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="worker processes for simulations (default: all cores)")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")

    def run(args: argparse.Namespace) -> int:
        from ..analysis import AnalysisInputError
        from ..experiments import DesignError, LogError
        from ..report import make_figures
        if args.games is not None and args.games < 1:
            print(f"nothanks figures: error: --games must be at least 1 (got {args.games})",
                  file=sys.stderr)
            return 2
        options = [f"--out {args.out}", f"--cache {args.cache}"]
        options += [f"--participants {args.participants}"] if args.participants else []
        options += [f"--games {args.games}"] if args.games else []
        options += ["--quick"] if args.quick else []
        try:
            report = make_figures(args.out, args.cache, participants=args.participants,
                                  games=args.games, quick=args.quick, jobs=args.jobs,
                                  progress=not args.no_progress,
                                  command="nothanks figures " + " ".join(options))
        except (AnalysisInputError, DesignError, LogError, FileNotFoundError) as exc:
            print(f"nothanks figures: error: {exc}", file=sys.stderr)
            return 2
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in report.seconds.items())
        print(f"{report.out}: {len(report.files)} files ({steps})")
        return 0
    return run
