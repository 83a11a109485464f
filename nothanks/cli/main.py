"""The ``nothanks`` command line: simulate games, run designs, make figures.

Every subcommand is listed once, in :func:`commands`: a help line and a ``configure``
function that adds the subcommand's options and returns the function that runs it.
Modules are imported only when the parser is built, so ``nothanks --help`` stays fast.
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ..outputs import (
    UPDATE_SHIPPED,
    OutputError,
    check_output,
    check_shipped,
    fresh_folder,
    removed_if_new,
    replacing,
    typed_path,
)
from . import checks
from .base import Configure, Runner, add_scheduler


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
    parser.add_argument("--json", action="store_true",
                        help="print the summary as JSON (the line saying what was written "
                             "goes to stderr)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    _variant_arguments(parser)

    def run(args: argparse.Namespace) -> int:
        from ..agents import AgentSpecError, make_agent, split_specs
        from ..experiments.rows import compact_frames
        from ..files import write_frame
        from ..play.runner import play_games, summarize
        from ..progress import progress_bar
        specs = [spec for text in args.players for spec in split_specs(text)]
        variant = _variant_from(args, len(specs))
        for seat, spec in enumerate(specs):  # every spec fails now, before a game is played
            try:
                make_agent(spec).start(seat, variant, 0)
            except AgentSpecError:
                raise  # names the spec itself
            except ValueError as exc:  # e.g. an instance file that does not fit the deck
                return _fail("simulate", f"agent spec {spec!r}: {exc}")
        def played() -> tuple:
            results = []
            with progress_bar(args.games, unit="game", desc="simulate",
                              enabled=not args.no_progress) as bar:
                for result in play_games(specs, args.games, args.seed, variant,
                                         rotate=not args.no_rotate):
                    results.append(result)
                    bar.update()
            return compact_frames(results)

        if args.out is None:
            games, decisions = played()
        else:
            from ..experiments.store import RECEIPT, write_receipt
            from ..experiments.verify import SIMULATE_TABLES
            with removed_if_new(args.out):  # a refused or failed run leaves no new folder
                check_output(args.out, "simulate", "games.parquet and decisions.parquet",
                             force=args.force)
                games, decisions = played()
                # the tables and their receipt are published together, or not at all (a
                # full disk leaves the folder as it was): --force replaces the whole set
                with replacing(args.out, (*SIMULATE_TABLES, RECEIPT)) as staging:
                    for name, frame in zip(SIMULATE_TABLES, (games, decisions), strict=True):
                        write_frame(frame, staging / name)
                    write_receipt(staging, list(SIMULATE_TABLES),
                                  _simulate_command(args, specs))
        summary = summarize(games, decisions)
        if args.json:
            print(json.dumps(summary.reset_index().to_dict(orient="records"), indent=2))
        else:
            print(f"{args.games} games, per agent spec ({SUMMARY_KEY}):")
            print(summary.to_string(float_format=lambda x: f"{x:.3f}"))
        wrote = (f"wrote {args.games} games to {args.out / 'games.parquet'} and their "
                 f"decisions to {args.out / 'decisions.parquet'}" if args.out is not None
                 else "wrote nothing (give --out DIR to keep the games)")
        print(wrote, file=sys.stderr if args.json else sys.stdout)
        return 0
    return run


#: What the columns of ``nothanks simulate``'s table mean, printed above it.
SUMMARY_KEY = ("mean_score: card points minus tokens, lower is better; mean_rank_points: "
               "3 for first to 0 for last, higher is better; win_share: share of first "
               "places")


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
        from ..agents.spec import parameter_meanings
        print("agents (spec NAME:KEY=VALUE,...; each parameter with its default and meaning):")
        for name in registered():
            params, meanings = agent_parameters(name), parameter_meanings(name)
            print(name + ("" if params else "  (no parameters)"))
            for key, default in params.items():
                print(f"  {f'{key}={default!r}':26s} {meanings.get(key, '')}".rstrip())
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
    add_scheduler(parser)
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")

    def run(args: argparse.Namespace) -> int:
        out = args.out or fresh_folder("figures")
        check_shipped(args.cache, "figures", option="--cache")
        with removed_if_new(out):  # a refused or failed build leaves no new folder
            report = _build_figures(args, out)
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in report.seconds.items())
        print(f"{out}: {len(report.files)} files ({steps})")
        return 0
    return run


def _build_figures(args: argparse.Namespace, out: Path):
    """Make the figure set of ``nothanks figures`` in a staging folder and swap it into
    ``out`` whole; its :class:`~nothanks.report.FigureReport`."""
    from ..report import make_figures
    check_output(out, "figures", "the figures", force=True, update_shipped=args.update_shipped)
    options = [f"--out {typed_path(out)}", f"--cache {typed_path(args.cache)}"]
    options += ([f"--participants {typed_path(args.participants)}"] if args.participants
                else [])
    options += [f"--games {args.games}"] if args.games else []
    options += ["--quick"] if args.quick else []
    options += [UPDATE_SHIPPED] if args.update_shipped else []
    with replacing(out, FIGURE_SET) as staging:  # the whole set, never part of it
        return make_figures(staging, args.cache, participants=args.participants,
                            games=args.games, quick=args.quick, jobs=args.jobs,
                            progress=not args.no_progress, scheduler=args.scheduler,
                            command="nothanks figures " + " ".join(options))


def commands() -> dict[str, tuple[str, Configure]]:
    """Every subcommand: name -> (help line, configure function)."""
    from . import calibrate as calibrate_cli
    from . import experiments as experiments_cli
    from . import fitting as fitting_cli
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
        "fit": ("each participant's parameters by maximum likelihood, the group's model "
                "comparison (random-effects BMS) and --recover: parameter and model "
                "recovery (resumable)", fitting_cli.configure),
        "tournament": ("play every agent of a pool against every other on shared deals "
                       "and rate them (openskill and mean rank points; resumable)",
                       tournament_cli.configure),
        "train": ("train the AlphaZero-style agent by self-play: checkpoints, training curve "
                  "(resumable, exactly)", train_cli.configure),
    }


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Runner]]:
    from .. import __version__
    parser = checks.Parser(
        prog="nothanks",
        description="ACT-R theory-of-mind models playing No Thanks!: simulate, run, analyse.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    runners: dict[str, Runner] = {}
    for name, (help_text, configure) in commands().items():
        runners[name] = configure(sub.add_parser(name, help=help_text, description=help_text))
    return parser, runners


#: Commands that keep what they finished when stopped, and go on from there when re-run:
#: command -> the units of work it keeps.
RESUMABLE = {"run": "games", "tournament": "games", "calibrate": "trials",
             "fit": "participants' fits",
             "train": "iterations", "figures": "simulation chunks",
             "studies": "studies and simulation chunks"}


def _stopped_hint(command: str) -> str:
    """What a stopped command kept, and how to go on."""
    if command in RESUMABLE:
        return (f"finished {RESUMABLE[command]} are saved; re-run the same command to go on "
                "from there")
    return "re-run the same command to start again"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; every expected failure is one line on stderr, exit code 2
    (argparse's usage errors, checked before any command code runs, exit with 2 too);
    Ctrl-C is one line and exit code 130; a reader that closes the output early
    (``| head``) ends the command quietly, exit code 0."""
    try:  # the one engine switch, read from the environment when first imported
        from ..kernels import mode  # noqa: F401
    except ValueError as exc:
        print(f"nothanks: error: {exc}", file=sys.stderr)
        return 2
    parser, runners = build_parser()
    args = parser.parse_args(argv)
    from ..compiled_cache import announce_compiling
    announce_compiling()  # a first run's compiling takes seconds: say so
    from ..agents import AgentSpecError
    from ..analysis import AnalysisInputError
    from ..experiments import DesignError, LogError
    from ..experiments.run import RunError
    from ..rules import VariantError
    from ..studies.calibration import CalibrationError
    from ..studies.selfplay import TrainError
    try:
        code = runners[args.command](args)
        sys.stdout.flush()  # a closed pipe fails here, not at exit
        return code
    except BrokenPipeError:  # the reader went away (``nothanks agents | head -1``)
        _silence_stdout()
        return 0
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


def _silence_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's last flush at
    exit does not fail on the closed pipe again (the Python documentation's recipe)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _interrupted(command: str, what: str = "") -> int:
    """One line for a Ctrl-C: what the work said it kept (``what``), or what it keeps."""
    print(f"nothanks {command}: {what or 'interrupted (Ctrl-C); ' + _stopped_hint(command)}",
          file=sys.stderr)
    return 130
