"""The ``nothanks`` command line: simulate games, run designs, make figures.

Every subcommand is listed once, in :func:`commands`: a help line and a ``configure``
function that adds the subcommand's options and returns the function that runs it.
Modules are imported only when the parser is built, so ``nothanks --help`` stays fast.
"""
from __future__ import annotations

import argparse
import errno
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import cli_checks as checks
from ..outputs import (
    UPDATE_SHIPPED,
    OutputError,
    check_output,
    check_shipped,
    fresh_folder,
    replacing,
)
from .base import Configure, Runner


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
    from ..rules import Variant
    return Variant(players=players, low_card=args.low_card, high_card=args.high_card,
                   removed=args.removed, starting_tokens=args.starting_tokens,
                   open_tokens=args.open_tokens)


def _simulate(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("--players", required=True, action="append", metavar="SPECS",
                        help="agent specs, one per seat: 'heuristic,random:p=0.3,tom1,tom1', "
                             "or with several parameters 'tom2:rt=-1.5,s=0.2;tom0;tom0;tom0' "
                             "(';' between players); may be repeated, one player each")
    parser.add_argument("--games", type=checks.games, default=100,
                        help=f"number of games, 1 to {checks.MAX_GAMES:,} (default 100)")
    parser.add_argument("--seed", type=checks.seed, default=0,
                        help=f"root seed, 0 to {checks.MAX_SEED} (default 0)")
    parser.add_argument("--out", type=checks.folder_to_write, default=None,
                        help="new or empty directory for games.parquet and decisions.parquet "
                             "(default: write nothing, print the summary)")
    parser.add_argument("--force", action="store_true",
                        help="replace games.parquet and decisions.parquet in a non-empty --out")
    parser.add_argument("--no-rotate", action="store_true", help="keep agents in fixed seats")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    _variant_arguments(parser)

    def run(args: argparse.Namespace) -> int:
        from ..agents import AgentSpecError, make_agent, split_specs
        from ..experiments.rows import compact_frames
        from ..files import write_frame
        from ..runner import play_games, summarize
        specs = [spec for text in args.players for spec in split_specs(text)]
        variant = _variant_from(args, len(specs))
        for seat, spec in enumerate(specs):  # every spec fails now, before a game is played
            try:
                make_agent(spec).start(seat, variant, 0)
            except AgentSpecError:
                raise  # names the spec itself
            except ValueError as exc:  # e.g. an instance file that does not fit the deck
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
            from ..experiments.store import write_receipt  # last: marks the output complete
            write_receipt(args.out, ["games.parquet", "decisions.parquet"],
                          _simulate_command(args, specs))
        summary = summarize(games, decisions)
        if args.json:
            print(json.dumps(summary.reset_index().to_dict(orient="records"), indent=2))
        else:
            print(summary.to_string(float_format=lambda x: f"{x:.3f}"))
        return 0
    return run


def _simulate_command(args: argparse.Namespace, specs: list[str]) -> str:
    """The ``nothanks simulate`` command line that writes the same tables (for the
    receipt that ``nothanks verify`` reads)."""
    import shlex
    words = ["nothanks", "simulate", "--players", ";".join(specs), "--games", str(args.games),
             "--seed", str(args.seed), "--low-card", str(args.low_card), "--high-card",
             str(args.high_card), "--removed", str(args.removed)]
    if args.starting_tokens is not None:
        words += ["--starting-tokens", str(args.starting_tokens)]
    words += ["--open-tokens"] * args.open_tokens + ["--no-rotate"] * args.no_rotate
    return shlex.join([*words, "--out", str(args.out)])


def _fail(command: str, message: str) -> int:
    print(f"nothanks {command}: error: {message}", file=sys.stderr)
    return 2


def _agents(parser: argparse.ArgumentParser) -> Runner:
    def run(args: argparse.Namespace) -> int:
        from ..agents import agent_parameters, registered
        for name in registered():
            params = agent_parameters(name)
            shown = ", ".join(f"{k}={v!r}" for k, v in params.items()) or "(no parameters)"
            print(f"{name:12s} {shown}")
        from ..agents.spec import PRESET_KEY, load_preset, presets
        print(f"\npresets (every agent spec also takes {PRESET_KEY}=NAME; the spec's own "
              "parameters override the preset's):")
        for name in presets():
            preset = load_preset(name)
            shown = ", ".join(f"{k}={v}" for k, v in preset.params.items()
                              if len(v) < 40) or "(no parameters)"
            print(f"{name:14s} for {', '.join(preset.agents) or 'every agent'}: {shown}")
        from ..agents.cognitive.instance_sets import PERTURBATIONS, describe_sets
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
    parser.add_argument("--out", type=checks.folder_to_write, default=None,
                        help="folder for figures, tables/, results.md, README.md (default: "
                             "a new runs/figures-<timestamp>; the shipped figures/ needs "
                             f"{UPDATE_SHIPPED})")
    parser.add_argument(UPDATE_SHIPPED, action="store_true",
                        help="--out holds the committed figures (e.g. figures): replace "
                             "that whole set (make figures does)")
    parser.add_argument("--cache", type=checks.folder_to_write, default=Path("data/cache"),
                        help="folder of cached simulation logs (default data/cache)")
    parser.add_argument("--participants", type=checks.folder_to_read, default=None,
                        metavar="DIR",
                        help="existing folder of participant sessions (default data/synthetic,"
                             " or a synthetic set generated into the cache)")
    parser.add_argument("--games", type=checks.games, default=None,
                        help="games per condition of table7 and figure14 (default: each "
                             "design's own, 2,000 and 500)")
    parser.add_argument("--quick", action="store_true",
                        help="a few games per condition and 3 synthetic participants "
                             "(for tests and a quick look; not for conclusions)")
    parser.add_argument("--jobs", type=checks.jobs, default=None,
                        help="worker processes for simulations, 1 to 4 x the cores "
                             "(default: all cores)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="simulate on the Dask cluster of this scheduler (e.g. "
                             "tcp://host:8786) instead of local processes")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")

    def run(args: argparse.Namespace) -> int:
        from ..report import make_figures
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
                                  progress=not args.no_progress, scheduler=args.scheduler,
                                  command="nothanks figures " + " ".join(options))
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in report.seconds.items())
        print(f"{out}: {len(report.files)} files ({steps})")
        return 0
    return run


def commands() -> dict[str, tuple[str, Configure]]:
    """Every subcommand: name -> (help line, configure function)."""
    from . import calibrate as calibrate_cli
    from . import experiments as experiments_cli
    from . import inference as inference_cli
    from . import studies as studies_cli
    from . import tournament as tournament_cli
    from . import train as train_cli
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
        "figures": ("make the thesis: Figures 8-14, Table 7, their statistics tables and "
                    "results table (minutes; resumable)", _figures),
        "studies": ("make the studies beyond the thesis (readings, higher orders, instance "
                    "sets, learning, move quality, ...), all or by name (resumable)",
                    studies_cli.configure),
        "calibrate": ("fit free parameters to the thesis's numbers (Optuna, resumable) and "
                      "write the best as a preset", calibrate_cli.configure),
        "infer": ("which order of theory of mind does a participant use? Bayesian order "
                  "inference from logs (--validate: on simulated players)",
                  inference_cli.configure),
        "tournament": ("play every agent of a pool against every other on shared deals "
                       "and rate them (openskill and mean rank points; resumable)",
                       tournament_cli.configure),
        "train": ("train the AlphaZero-style agent by self-play: checkpoints, training curve "
                  "(resumable, exactly)", train_cli.configure),
    }


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Runner]]:
    parser = checks.Parser(
        prog="nothanks",
        description="ACT-R theory-of-mind models playing No Thanks!: simulate, run, analyse.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    runners: dict[str, Runner] = {}
    for name, (help_text, configure) in commands().items():
        runners[name] = configure(sub.add_parser(name, help=help_text, description=help_text))
    return parser, runners


#: Commands that keep what they finished when stopped, and go on from there when re-run.
RESUMABLE = frozenset({"run", "tournament", "calibrate", "train", "figures", "studies"})


def _stopped_hint(command: str) -> str:
    """What a stopped command kept, and how to go on."""
    if command in RESUMABLE:
        return "finished games are saved; re-run the same command to go on from there"
    return "re-run the same command to start again"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; every expected failure is one line on stderr, exit code 2
    (argparse's usage errors, checked before any command code runs, exit with 2 too);
    Ctrl-C is one line and exit code 130."""
    parser, runners = build_parser()
    args = parser.parse_args(argv)
    from ..agents import AgentSpecError
    from ..analysis import AnalysisInputError
    from ..experiments import DesignError, LogError
    from ..experiments.run import RunError
    from ..rules import VariantError
    from ..studies.calibration import CalibrationError
    from ..studies.selfplay import TrainError
    try:
        return runners[args.command](args)
    except (AgentSpecError, VariantError, OutputError, DesignError, LogError, RunError,
            AnalysisInputError, CalibrationError, TrainError) as exc:
        return _fail(args.command, str(exc))
    except OSError as exc:  # e.g. a read-only or full disk while writing results
        where = f" ({exc.filename})" if exc.filename else ""
        hint = (f"; free some space: {_stopped_hint(args.command)}"
                if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "")
        return _fail(args.command, f"{exc.strerror or exc}{where}{hint}")
    except KeyboardInterrupt as exc:
        return _interrupted(args.command, str(exc))
    except SystemError as exc:  # Ctrl-C inside compiled (numba) code surfaces as this
        if isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt):
            return _interrupted(args.command)
        raise


def _interrupted(command: str, what: str = "") -> int:
    """One line for a Ctrl-C: what the work said it kept (``what``), or what it keeps."""
    print(f"nothanks {command}: {what or 'interrupted (Ctrl-C); ' + _stopped_hint(command)}",
          file=sys.stderr)
    return 130
