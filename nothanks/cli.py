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
    parser.add_argument("--players", required=True,
                        help="comma-separated agent specs, one per seat, e.g. "
                             "heuristic,heuristic,random:p=0.3,tom1")
    parser.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    parser.add_argument("--out", type=Path, default=None,
                        help="directory for games.parquet and decisions.parquet")
    parser.add_argument("--no-rotate", action="store_true", help="keep agents in fixed seats")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    _variant_arguments(parser)

    def run(args: argparse.Namespace) -> int:
        from .experiments.rows import compact_frames
        from .io import write_frame
        from .runner import play_games, summarize
        specs = [s for s in args.players.split(",") if s.strip()]
        if args.games < 1:
            raise SystemExit(f"--games must be at least 1 (got {args.games})")
        variant = _variant_from(args, len(specs))
        results = list(play_games(specs, args.games, args.seed, variant,
                                  rotate=not args.no_rotate))
        games, decisions = compact_frames(results)
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            write_frame(games, args.out / "games.parquet")
            write_frame(decisions, args.out / "decisions.parquet")
        summary = summarize(games, decisions)
        if args.json:
            print(json.dumps(summary.reset_index().to_dict(orient="records"), indent=2))
        else:
            print(summary.to_string(float_format=lambda x: f"{x:.3f}"))
        return 0
    return run


def _agents(parser: argparse.ArgumentParser) -> Runner:
    def run(args: argparse.Namespace) -> int:
        from .agents import agent_parameters, registered
        for name in registered():
            params = agent_parameters(name)
            shown = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "(no parameters)"
            print(f"{name:12s} {shown}")
        return 0
    return run


def _figures(parser: argparse.ArgumentParser) -> Runner:
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
        from .analysis import AnalysisInputError
        from .experiments import DesignError, LogError
        from .report import make_figures
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


def commands() -> dict[str, tuple[str, Configure]]:
    """Every subcommand: name -> (help line, configure function)."""
    from .experiments import cli as experiments_cli
    return {
        "simulate": ("play games between agents and write games/decisions Parquet tables",
                     _simulate),
        "agents": ("list the agent specs and their parameters", _agents),
        "run": ("run an experiment design (resumable; local processes or a Dask cluster)",
                experiments_cli.configure_run),
        "export": ("export an experiment log (or a folder of them) as CSV files",
                   experiments_cli.configure_export),
        "synthetic": ("generate the synthetic participant data set (stand-in players)",
                      experiments_cli.configure_synthetic),
        "figures": ("make the thesis figures (8-14), statistics tables and results table",
                    _figures),
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
    from .agents import AgentSpecError
    from .rules import VariantError
    parser, runners = build_parser()
    args = parser.parse_args(argv)
    try:
        return runners[args.command](args)
    except (AgentSpecError, VariantError) as exc:
        print(f"nothanks {args.command}: error: {exc}", file=sys.stderr)
        return 2
