"""``nothanks run``, ``export``, ``verify`` and ``synthetic``: each ``configure_*``
function adds its options to a parser and returns the function that runs the command
(registered in :mod:`nothanks.cli`)."""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..outputs import (
    UPDATE_SHIPPED,
    OutputError,
    check_output,
    check_shipped,
    fresh_folder,
    replacing,
)
from . import checks
from .base import Runner

#: Most synthetic participants one ``nothanks synthetic`` makes (ids are numbered
#: ``synthetic-NN``; the thesis had 30).
MAX_PARTICIPANTS = 999

def configure_run(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("design", nargs="?",
                        help="shipped design name (see --list) or path to a .toml design "
                             "(required, except with --list)")
    parser.add_argument("--out", type=checks.folder_to_write,
                        help="experiment directory (created or resumed; required, except "
                             "with --list)")
    parser.add_argument("--list", action="store_true", help="list the shipped designs")
    parser.add_argument("--jobs", type=checks.jobs, default=None,
                        help="local worker processes, 1 to 4 x the cores (default: all cores)")
    parser.add_argument("--dask", metavar="ADDRESS", default=None,
                        help="run on a Dask cluster, e.g. tcp://scheduler:8786 (default: "
                             "local processes, --jobs)")
    parser.add_argument("--traces", action="store_true",
                        help="also log every model decision's full reasoning trace (large)")
    parser.add_argument("--human", metavar="SPEC", default=None,
                        help="agent spec that plays a design's human seat (e.g. human-standin)"
                             "; the rows are marked synthetic (default: the design's own; a "
                             "design without a human seat refuses it)")
    parser.add_argument("--games", type=checks.games, default=None,
                        help="override games per condition (changes the design hash; "
                             "default: the design's)")
    parser.add_argument("--seed", type=checks.seed, default=None,
                        help=f"override the root seed, 0 to {checks.MAX_SEED} (changes the "
                             "design hash; default: the design's)")
    parser.add_argument("--chunk-size", type=checks.games, default=None,
                        help="games per part file (default about 50; fixed by the first run)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    def run(args: argparse.Namespace) -> int:
        from ..experiments.design import HUMAN, DesignError, load_design, shipped_designs
        from ..experiments.run import run_design
        if args.list:
            for name, path in shipped_designs().items():
                d = load_design(path)
                print(f"{name:16s} {d.total_games:7d} games  {len(d.conditions):3d} "
                      f"conditions  {first_sentence(d.description)}")
            return 0
        if args.design is None or args.out is None:
            print("nothanks run: error: give DESIGN and --out DIR (or --list)", file=sys.stderr)
            return 2
        check_shipped(args.out, "run")  # a run never writes into committed results
        design = load_design(args.design)
        if args.human is not None and not design.has_human:
            raise DesignError(f"--human {args.human}: design {design.name!r} has no human seat"
                              " for it to play; leave --human out, or give a design whose "
                              f"tables seat a {HUMAN!r} player")
        changes = {k: v for k, v in (("games", args.games), ("seed", args.seed),
                                     ("human", args.human)) if v is not None}
        if changes:
            design = design.with_options(**changes)
        summary = run_design(design, args.out, jobs=args.jobs, client=args.dask,
                             chunk_size=args.chunk_size, traces=args.traces,
                             progress=not args.no_progress, command=run_command(args))
        print(f"{summary.directory}: {summary.games} games ({summary.played} played now, "
              f"{summary.skipped} already done) in {summary.seconds:.1f} s")
        return 0
    return run


#: A sentence's end: a full stop before a space and a capital, not part of an ellipsis
#: or of an abbreviation (e.g., i.e., vs.).
_SENTENCE_END = re.compile(r"(?<!\.)(?<!e\.g)(?<!i\.e)(?<!\bvs)\.(?=\s+[A-Z])")


def run_command(args: argparse.Namespace) -> str:
    """The ``nothanks run`` command line that resumes ``args.out`` (the options that fix
    the design, and --traces), for ``nothanks verify`` to name."""
    import shlex
    words = ["nothanks", "run", str(args.design)]
    for option in ("games", "seed", "human"):
        if getattr(args, option) is not None:
            words += [f"--{option}", str(getattr(args, option))]
    if args.traces:
        words.append("--traces")
    return shlex.join([*words, "--out", str(args.out)])


def first_sentence(text: str) -> str:
    """The first sentence of a description, on one line (for listings): it ends at a
    full stop followed by a capital, so "k = 1 ... 5" and "e.g. ToM0" do not end it."""
    flat = " ".join(text.split())
    end = _SENTENCE_END.search(flat)
    return flat if end is None else flat[:end.end()]


def configure_export(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("directory", type=Path, help="experiment directory (or a folder of them)")
    parser.add_argument("--out", "--csv", dest="csv", type=Path, required=True, metavar="OUT",
                        help="folder for <table>.csv files (--csv is the same option)")
    parser.add_argument("--allow-incomplete", action="store_true",
                        help="export an interrupted run's finished games")

    def run(args: argparse.Namespace) -> int:
        from ..experiments.log import export_csv
        from ..experiments.schema import LogError
        if args.csv.exists() and not args.csv.is_dir():
            raise OutputError(f"--out {args.csv} is a file; give a directory for the CSV files")
        check_shipped(args.csv, "export")  # exports never go into committed results
        try:
            written = export_csv(args.directory, args.csv, allow_incomplete=args.allow_incomplete)
        except LogError as exc:
            if "are missing" in str(exc) and not args.allow_incomplete:
                raise LogError(f"{exc}. To export the finished games anyway: nothanks export "
                               f"{args.directory} --out {args.csv} --allow-incomplete") from None
            raise
        for path in written:
            print(path)
        return 0
    return run


def configure_verify(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("directory", type=Path,
                        help="any folder nothanks writes (run, tournament, participant "
                             "session, calibration study, simulate output) or a folder of them")
    parser.add_argument("--repair", action="store_true",
                        help="do what a re-run would: write conditions/experiments again, "
                             "record missing checksums, replay damaged or missing games from "
                             "the design in each manifest; then verify again")

    def run(args: argparse.Namespace) -> int:
        from ..experiments.verify import repair, verify
        reports = repair(args.directory) if args.repair else verify(args.directory)
        for report in reports:
            print(report.render())
        return 0 if all(r.ok for r in reports) else 1
    return run


def configure_synthetic(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("--out", type=checks.folder_to_write, default=None,
                        help="new or empty folder for one session directory per participant "
                             "(default: a new runs/synthetic-<timestamp>; the shipped "
                             f"data/synthetic needs {UPDATE_SHIPPED})")
    parser.add_argument("--participants", type=checks.count(MAX_PARTICIPANTS), default=30,
                        metavar="N", help="number of synthetic participants (stand-ins, 24 "
                        f"games each) to generate, 1 to {MAX_PARTICIPANTS} (default 30)")
    parser.add_argument("--seed", type=checks.seed, default=2018,
                        help="seed of the stand-ins' personal parameters, 0 to "
                             f"{checks.MAX_SEED} (default 2018)")
    parser.add_argument("--force", action="store_true",
                        help="replace the synthetic set (every synthetic-NN session) in a "
                             "non-empty --out")
    parser.add_argument(UPDATE_SHIPPED, action="store_true",
                        help="--out holds the committed synthetic set (data/synthetic): "
                             "replace that whole set")

    def run(args: argparse.Namespace) -> int:
        from ..experiments.synthetic import ID_PREFIX, generate
        out = args.out or fresh_folder("synthetic")
        check_output(out, "synthetic", f"the synthetic set (every {ID_PREFIX}NN session)",
                     force=args.force, update_shipped=args.update_shipped)
        with replacing(out, (f"{ID_PREFIX}*",)) as staging:  # the whole set, never part
            for session in generate(staging, args.participants, seed=args.seed):
                print(f"{out / session.directory.name}: {session.games_done} games")
        print(f"wrote {args.participants} participant session folder"
              f"{'s' * (args.participants != 1)} ({ID_PREFIX}NN) to {out}")
        return 0
    return run
