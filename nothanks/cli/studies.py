"""``nothanks studies`` (``make studies``): the studies beyond the thesis, all or by name.

Each study (:data:`nothanks.report.studies.STUDIES`) is built into its own folder
``--out/<study>`` and replaces only that folder, so ``nothanks studies readings`` rebuilds
the readings study and leaves the others; its designs are run (or resumed) into the
``--cache`` folder, locally or on a Dask cluster (``--scheduler``). Kept apart from the
build itself so that building the parser imports nothing heavy.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..outputs import (
    UPDATE_SHIPPED,
    check_output,
    check_shipped,
    fresh_folder,
    removed_if_new,
    typed_path,
)
from . import checks
from .base import Runner, add_scheduler

#: Where ``make studies`` writes (inside the shipped figures folder).
STUDIES_OUT = Path("figures/studies")


def configure(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="studies to build (default: all): extras, "
                             "figure14-instance-sets, higher-orders, learning, readings, "
                             "instance-sets, move-quality, fits")
    parser.add_argument("--out", type=checks.folder_to_write, default=None,
                        help="folder of the study folders (default: runs/studies-<timestamp>;"
                             f" the shipped {STUDIES_OUT} needs {UPDATE_SHIPPED})")
    parser.add_argument(UPDATE_SHIPPED, action="store_true",
                        help="--out holds committed studies (e.g. figures/studies): replace "
                             "the named studies' folders there (make studies does)")
    parser.add_argument("--cache", type=checks.folder_to_write, default=Path("data/cache"),
                        help="folder of cached simulation logs and move grades (default "
                             "data/cache)")
    parser.add_argument("--participants", type=checks.folder_to_read, default=None,
                        metavar="DIR",
                        help="existing folder of participant sessions for move quality "
                             "(default data/synthetic, or a synthetic set generated into "
                             "the cache)")
    parser.add_argument("--games", type=checks.games, default=None,
                        help="games per condition of every design (default: each design's "
                             "own)")
    parser.add_argument("--quick", action="store_true",
                        help="a few games per condition, thinned sweeps, a small grading "
                             "sample (for tests and a quick look; not for conclusions)")
    parser.add_argument("--jobs", type=checks.jobs, default=None,
                        help="worker processes for simulations and move grading, 1 to 4 x "
                             "the cores (default: all cores)")
    add_scheduler(parser)
    parser.add_argument("--grade", choices=("sample", "all"), default="sample",
                        help="move quality: grade a seeded sample of decisions per player "
                             "type (default; the size is stated in its results.md) or every "
                             "decision (hours)")
    parser.add_argument("--grader", choices=("ismcts", "network"), default=None,
                        help="who grades move quality: information-set MCTS or the "
                             "self-play value network of --checkpoint (default: "
                             "QUALITY_GRADER of nothanks.studies.move_quality, ismcts; see "
                             "docs/alphazero.md)")
    parser.add_argument("--checkpoint", type=Path, default=None,
                        help="self-play checkpoint for --grader network (default "
                             "data/selfplay/alphazero.npz)")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")

    def run(args: argparse.Namespace) -> int:
        from ..report.studies import check_studies, make_studies
        from ..studies.move_quality import QUALITY_GRADER, check_grader
        names = check_studies(args.names)  # before any work: an unknown name fails now
        grader = args.grader or QUALITY_GRADER
        if args.checkpoint is not None and grader != "network":
            print("nothanks studies: error: --checkpoint is for --grader network; add "
                  "--grader network or leave --checkpoint out", file=sys.stderr)
            return 2
        check_grader(grader, args.checkpoint)  # before hours of work
        out = args.out or fresh_folder("studies")
        check_shipped(args.cache, "studies", option="--cache")
        options = [*args.names, f"--out {typed_path(out)}", f"--cache {typed_path(args.cache)}"]
        options += ([f"--participants {typed_path(args.participants)}"] if args.participants
                    else [])
        options += [f"--games {args.games}"] if args.games else []
        options += ["--quick"] if args.quick else []
        options += [f"--grade {args.grade}"] if args.grade != "sample" else []
        options += [f"--grader {args.grader}"] if args.grader else []
        options += [f"--checkpoint {typed_path(args.checkpoint)}"] if args.checkpoint else []
        options += [UPDATE_SHIPPED] if args.update_shipped else []
        with removed_if_new(out):  # a refused or failed build leaves no new folder
            check_output(out, "studies", "the named studies' folders", force=True,
                         update_shipped=args.update_shipped)
            report = make_studies(out, args.cache, names, participants=args.participants,
                                  games=args.games, quick=args.quick, jobs=args.jobs,
                                  scheduler=args.scheduler, progress=not args.no_progress,
                                  grade=args.grade, grader=args.grader,
                                  checkpoint=args.checkpoint,
                                  command="nothanks studies " + " ".join(options))
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in report.seconds.items())
        print(f"{out}: {len(report.files)} files ({steps})")
        return 0
    return run
