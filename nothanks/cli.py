"""The ``nothanks`` command line: simulate games, run designs, make figures.

Every subcommand is listed once, in :func:`commands`: a help line and a ``configure``
function that adds the subcommand's options and returns the function that runs it.
Modules are imported only when the parser is built, so ``nothanks --help`` stays fast.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .outputs import (
    UPDATE_SHIPPED,
    OutputError,
    check_output,
    check_shipped,
    fresh_folder,
    replacing,
)

Runner = Callable[[argparse.Namespace], int]
Configure = Callable[[argparse.ArgumentParser], Runner]


def _variant_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("rules variant")
    group.add_argument("--low-card", type=int, default=3, help="lowest card (default 3)")
    group.add_argument("--high-card", type=int, default=35, help="highest card (default 35)")
    group.add_argument("--removed", type=int, default=9, help="cards removed unseen (default 9)")
    group.add_argument("--starting-tokens", type=int, default=None,
                       help="tokens per player (default: 11 for 3-5 players, 9 for 6, 7 for 7)")
    group.add_argument("--open-tokens", action="store_true",
                       help="make every player's token count visible (default hidden)")


def _variant_from(args: argparse.Namespace, players: int):
    from .rules import Variant
    return Variant(players=players, low_card=args.low_card, high_card=args.high_card,
                   removed=args.removed, starting_tokens=args.starting_tokens,
                   open_tokens=args.open_tokens)


def _simulate(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("--players", required=True, action="append", metavar="SPECS",
                        help="agent specs, one per seat: 'heuristic,random:p=0.3,tom1,tom1', "
                             "or with several parameters 'tom2:rt=-1.5,s=0.2;tom0;tom0;tom0' "
                             "(';' between players); may be repeated, one player each")
    parser.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="root seed, >= 0 (default 0)")
    parser.add_argument("--out", type=Path, default=None,
                        help="new or empty directory for games.parquet and decisions.parquet "
                             "(default: write nothing, print the summary)")
    parser.add_argument("--force", action="store_true",
                        help="replace games.parquet and decisions.parquet in a non-empty --out")
    parser.add_argument("--no-rotate", action="store_true", help="keep agents in fixed seats")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    _variant_arguments(parser)

    def run(args: argparse.Namespace) -> int:
        from .agents import make_agent, split_specs
        from .experiments.rows import compact_frames
        from .io import write_frame
        from .runner import play_games, summarize
        specs = [spec for text in args.players for spec in split_specs(text)]
        if args.games < 1:
            return _fail("simulate", f"--games must be at least 1 (got {args.games})")
        if args.seed < 0:
            return _fail("simulate", f"--seed must be a non-negative integer (got {args.seed})")
        variant = _variant_from(args, len(specs))
        for seat, spec in enumerate(specs):  # every spec fails now, before a game is played
            try:
                make_agent(spec).start(seat, variant, 0)
            except ValueError as exc:
                return _fail("simulate", f"agent spec {spec!r}: {exc}")
        if args.out is not None:
            check_output(args.out, "simulate", "games.parquet and decisions.parquet",
                         force=args.force)
        results = list(play_games(specs, args.games, args.seed, variant,
                                  rotate=not args.no_rotate))
        games, decisions = compact_frames(results)
        if args.out is not None:
            write_frame(games, args.out / "games.parquet")
            write_frame(decisions, args.out / "decisions.parquet")
        summary = summarize(games, decisions)
        if args.json:
            print(json.dumps(summary.reset_index().to_dict(orient="records"), indent=2))
        else:
            print(summary.to_string(float_format=lambda x: f"{x:.3f}"))
        return 0
    return run


def _fail(command: str, message: str) -> int:
    print(f"nothanks {command}: error: {message}", file=sys.stderr)
    return 2


def _agents(parser: argparse.ArgumentParser) -> Runner:
    def run(args: argparse.Namespace) -> int:
        from .agents import agent_parameters, registered
        for name in registered():
            params = agent_parameters(name)
            shown = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "(no parameters)"
            print(f"{name:12s} {shown}")
        from .agents.cognitive.instance_sets import PERTURBATIONS, describe_sets
        print("\ninstance sets of the ToM models (instances=NAME, NAME+op=value+...+seed=N, "
              "or a path):")
        for name, size, made in describe_sets():
            print(f"{name:14s} {size:5d} instances  {made}")
        print("perturbations: " + "; ".join(f"{k}: {doc}" for k, (_, doc) in PERTURBATIONS.items()))
        return 0
    return run


#: What ``nothanks figures`` writes into its folder (replaced as one set); the folder's
#: other contents (e.g. the shipped leaderboard in figures/tournament) stay.
FIGURE_SET = ("*.png", "*.pdf", "tables", "results.md", "README.md")


def _figures(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for figures, tables/, results.md, README.md (default: "
                             "a new runs/figures-<timestamp>; the shipped figures/ needs "
                             f"{UPDATE_SHIPPED})")
    parser.add_argument(UPDATE_SHIPPED, action="store_true",
                        help="--out holds the committed figures (e.g. figures): replace "
                             "that whole set (make figures does)")
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
        from .report import make_figures
        if args.games is not None and args.games < 1:
            return _fail("figures", f"--games must be at least 1 (got {args.games})")
        if args.jobs is not None and args.jobs < 1:
            return _fail("figures", f"--jobs must be at least 1 (got {args.jobs})")
        out = args.out or fresh_folder("figures")
        check_output(out, "figures", "the figures", force=True,
                     update_shipped=args.update_shipped)
        check_shipped(args.cache, "figures", option="--cache")
        options = [f"--out {out}", f"--cache {args.cache}"]
        options += [f"--participants {args.participants}"] if args.participants else []
        options += [f"--games {args.games}"] if args.games else []
        options += ["--quick"] if args.quick else []
        options += [UPDATE_SHIPPED] if args.update_shipped else []
        with replacing(out, FIGURE_SET) as staging:  # the whole set, never part of it
            report = make_figures(staging, args.cache, participants=args.participants,
                                  games=args.games, quick=args.quick, jobs=args.jobs,
                                  progress=not args.no_progress,
                                  command="nothanks figures " + " ".join(options))
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in report.seconds.items())
        print(f"{out}: {len(report.files)} files ({steps})")
        return 0
    return run


def commands() -> dict[str, tuple[str, Configure]]:
    """Every subcommand: name -> (help line, configure function)."""
    from . import calibrate_cli, inference_cli, tournament_cli
    from .experiments import cli as experiments_cli
    return {
        "simulate": ("play games between agents and write games/decisions Parquet tables",
                     _simulate),
        "agents": ("list the agent specs and their parameters", _agents),
        "run": ("run an experiment design (resumable; local processes or a Dask cluster)",
                experiments_cli.configure_run),
        "export": ("export an experiment log (or a folder of them) as CSV files",
                   experiments_cli.configure_export),
        "verify": ("check a run or participant folder: schema, row counts, checksums, "
                   "completeness; says how to repair", experiments_cli.configure_verify),
        "synthetic": ("generate the synthetic participant data set (stand-in players)",
                      experiments_cli.configure_synthetic),
        "figures": ("make the thesis figures (8-14), statistics tables and results table",
                    _figures),
        "calibrate": ("fit free parameters to the thesis's numbers (Optuna, resumable) and "
                      "write the best as a preset", calibrate_cli.configure),
        "infer": ("which order of theory of mind does a participant use? Bayesian order "
                  "inference from logs (--validate: on simulated players)",
                  inference_cli.configure),
        "tournament": ("play every agent of a pool against every other on shared deals "
                       "and rate them (openskill and mean rank points; resumable)",
                       tournament_cli.configure),
    }


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Runner]]:
    parser = argparse.ArgumentParser(
        prog="nothanks",
        description="ACT-R theory-of-mind models playing No Thanks!: simulate, run, analyse.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    runners: dict[str, Runner] = {}
    for name, (help_text, configure) in commands().items():
        runners[name] = configure(sub.add_parser(name, help=help_text, description=help_text))
    return parser, runners


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; every expected failure is one line on stderr, exit code 2."""
    parser, runners = build_parser()
    args = parser.parse_args(argv)
    from .agents import AgentSpecError
    from .analysis import AnalysisInputError
    from .calibrate import CalibrationError
    from .experiments import DesignError, LogError
    from .experiments.run import RunError
    from .rules import VariantError
    try:
        return runners[args.command](args)
    except (AgentSpecError, VariantError, OutputError, DesignError, LogError, RunError,
            AnalysisInputError, CalibrationError) as exc:
        return _fail(args.command, str(exc))
    except OSError as exc:  # e.g. a read-only or full disk while writing results
        where = f" ({exc.filename})" if exc.filename else ""
        return _fail(args.command, f"{exc.strerror or exc}{where}")
    except KeyboardInterrupt:
        return 130
