"""The ``nothanks`` command line: simulate games, run designs, make figures."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

#: Subcommands register here: name -> (help, configure(parser), run(args) -> exit code).
Command = tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]
COMMANDS: dict[str, Command] = {}


def command(name: str, help: str):
    """Decorator pair: ``@command(name, help)`` on a configure function whose ``run`` follows."""
    def wrap(configure: Callable[[argparse.ArgumentParser], Callable[[argparse.Namespace], int]]):
        COMMANDS[name] = (help, configure, None)  # type: ignore[assignment]
        return configure
    return wrap


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


@command("simulate", "play games between agents and write games/decisions Parquet tables")
def _simulate(parser: argparse.ArgumentParser):
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


@command("agents", "list the agent specs and their parameters")
def _agents(parser: argparse.ArgumentParser):
    def run(args: argparse.Namespace) -> int:
        from .agents import agent_parameters, registered
        for name in registered():
            params = agent_parameters(name)
            shown = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "(no parameters)"
            print(f"{name:12s} {shown}")
        return 0
    return run


def _load_plugins() -> None:
    """Import modules that add subcommands (they may be absent in a partial install)."""
    import importlib
    for module in ("nothanks.agents.cognitive", "nothanks.experiments.cli",
                   "nothanks.figures.cli"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module.startswith(exc.name):
                raise


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Callable]]:
    _load_plugins()
    parser = argparse.ArgumentParser(
        prog="nothanks",
        description="ACT-R theory-of-mind models playing No Thanks!: simulate, run, analyse.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    runners: dict[str, Callable] = {}
    for name, (help_text, configure, _) in COMMANDS.items():
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
