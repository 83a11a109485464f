"""``nothanks tournament``: run a rated tournament and write its leaderboard.

Ties the layers together as ``nothanks figures`` does: the tournament's games are an
ordinary resumable design run (:mod:`nothanks.studies.tournament`), the ratings are
computed from its log (:mod:`nothanks.analysis.ratings`) and drawn
(:mod:`nothanks.figures.tournament`). Kept apart from those modules so that building
the parser imports nothing heavy.
"""
from __future__ import annotations

import argparse
import importlib.util
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

from ..outputs import UPDATE_SHIPPED, check_shipped, fresh_folder, typed_path
from . import checks
from .base import Runner

#: Files written into the leaderboard folder.
LEADERBOARD_FILES = ("leaderboard.csv", "leaderboard.md", "tournament.png")


def _tables(text: str) -> int | str:
    if text == "all":
        return text
    try:
        return checks.count(checks.MAX_GAMES)(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, or 'all'") from None


def _rating_model(text: str) -> str:
    """``--model``: an openskill model the ratings know."""
    from ..analysis.ratings import MODELS
    if text not in MODELS:
        raise argparse.ArgumentTypeError(f"rating model {text!r} is unknown; valid: "
                                         f"{', '.join(MODELS)}")
    return text


def shipped_default() -> dict:
    """The shipped ``default`` tournament's file (for the defaults --help shows), read
    without the tournament code and its imports."""
    import tomllib
    from importlib.resources import files
    return tomllib.loads(files("nothanks.studies").joinpath("tournaments", "default.toml")
                         .read_text())


def configure(parser: argparse.ArgumentParser) -> Runner:
    default = shipped_default()
    parser.add_argument("tournament", nargs="?", default="default",
                        help="shipped tournament name (see --list) or a .toml file "
                             "(default: default)")
    parser.add_argument("--out", type=checks.folder_to_write, default=None,
                        help="experiment directory of the games (created or resumed; "
                             "default: a new runs/tournament-<timestamp>)")
    parser.add_argument("--leaderboard", type=checks.folder_to_write, default=None,
                        help="folder for leaderboard.csv, leaderboard.md and tournament.png "
                             "(default: --out; the shipped figures/tournament needs "
                             f"{UPDATE_SHIPPED})")
    parser.add_argument(UPDATE_SHIPPED, action="store_true",
                        help="--leaderboard holds the committed leaderboard (figures/"
                             "tournament): replace that whole set")
    parser.add_argument("--pool", default=None,
                        help="agent specs instead of the tournament's pool, ';' between "
                             "agents: 'random;heuristic:T=-3;tom1;tom2' (plays all its "
                             "tables unless --tables is given; default: the tournament's "
                             "pool)")
    parser.add_argument("--deals", type=checks.games, default=None,
                        help="deals per table, each played in every seat rotation "
                             f"(default: the tournament's; {default['deals']} for default)")
    parser.add_argument("--tables", type=_tables, default=None, metavar="N|all",
                        help="a balanced sample of N tables, or 'all' subsets of the pool "
                             f"(default: the tournament's; {default.get('tables', 'all')} for "
                             "default)")
    parser.add_argument("--seed", type=checks.seed, default=None,
                        help=f"root seed of the deals, 0 to {checks.MAX_SEED} (default: "
                             f"the tournament's; {default['seed']} for default)")
    parser.add_argument("--model", type=_rating_model, default=None,
                        help="openskill model (default bradley-terry-full; also plackett-"
                             "luce, thurstone-mosteller-full, ...-part)")
    parser.add_argument("--tau", type=checks.non_negative_float, default=0.0,
                        help="openskill per-game skill drift, a finite number >= 0 (default 0: "
                             "agents do not learn)")
    parser.add_argument("--jobs", type=checks.jobs, default=None,
                        help="local worker processes, 1 to 4 x the cores (default: all cores)")
    parser.add_argument("--dask", "--scheduler", dest="dask", metavar="ADDRESS", default=None,
                        help="run on a Dask cluster, e.g. tcp://scheduler:8786 (default: "
                             "local processes, --jobs)")
    parser.add_argument("--plan", action="store_true",
                        help="print the tables and game count, check the agents, and exit")
    parser.add_argument("--list", action="store_true", help="list the shipped tournaments")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    def run(args: argparse.Namespace) -> int:
        from ..analysis import AnalysisInputError
        from ..studies.tournament import load_tournament, pool_from_text, shipped_tournaments
        if args.list:
            for name, path in shipped_tournaments().items():
                t = load_tournament(path)
                print(f"{name:12s} {t.describe()}")
            return 0
        tournament = load_tournament(args.tournament)
        changes = {k: v for k, v in (("deals", args.deals), ("seed", args.seed)) if v is not None}
        if args.pool is not None:  # a new pool plays all its tables unless --tables says
            changes["pool"] = pool_from_text(args.pool)
            changes["tables"] = None
        if args.tables is not None:
            changes["tables"] = None if args.tables == "all" else args.tables
        if changes:
            tournament = tournament.with_options(**changes)
        print(tournament.describe())
        if args.plan:
            tournament.design.validate_agents()
            for number, lineup in enumerate(tournament.lineups):
                print(f"table {number:3d}: " + " | ".join(tournament.pool[i] for i in lineup))
            return 0
        out = args.out or fresh_folder("tournament")
        check_shipped(out, "tournament")  # the games never go into committed results
        board = args.leaderboard or out
        if args.leaderboard is not None:
            check_shipped(board, "tournament", update_shipped=args.update_shipped,
                          option="--leaderboard")
        if importlib.util.find_spec("openskill") is None:  # rated after every game is played
            raise AnalysisInputError("the ratings need the openskill package: pip install "
                                     "'nothanks[tournament]' (or pip install openskill)")
        args.out = out  # the provenance line names the folders used
        made = play_and_rate(tournament, out, board, model=args.model,
                             tau=args.tau, jobs=args.jobs, client=args.dask,
                             progress=not args.no_progress,
                             command="nothanks tournament " + shlex.join(_given(args)),
                             provenance="nothanks tournament " + shlex.join(
                                 _given(args, typed=True)))
        print(f"{made.run.directory}: {made.run.games} games ({made.run.played} played now, "
              f"{made.run.skipped} already done) in {made.run.seconds:.1f} s")
        print(made.markdown)
        print("wrote " + ", ".join(str(p) for p in made.files))
        return 0
    return run


def _given(args: argparse.Namespace, typed: bool = False) -> list[str]:
    """The options as given (for the run's manifest), or with ``typed`` their paths as a
    user would type them in the repository (:func:`nothanks.outputs.typed_path`; for the
    leaderboard's provenance line)."""
    shown = typed_path if typed else str
    words = [] if args.tournament == "default" else [shown(args.tournament)]
    for flag in ("out", "leaderboard", "pool", "deals", "seed", "model", "jobs", "dask"):
        value = getattr(args, flag)
        if value is not None:
            words += [f"--{flag}", shown(value) if flag in ("out", "leaderboard") else
                      str(value)]
    if args.tables is not None:
        words += ["--tables", str(args.tables)]
    if args.tau:
        words += ["--tau", str(args.tau)]
    if args.update_shipped:
        words.append(UPDATE_SHIPPED)
    return words


@dataclass
class TournamentReport:
    """What :func:`play_and_rate` did: the run, the leaderboard and the files."""

    run: object
    board: object
    markdown: str
    files: list[Path]


def play_and_rate(tournament, out: Path, leaderboard_dir: Path | None, *,
                  model: str | None = None, tau: float = 0.0, jobs: int | None = None,
                  client=None, progress: bool = True,
                  command: str = "nothanks tournament", provenance: str | None = None
                  ) -> TournamentReport:
    """Run (or resume) ``tournament`` into ``out``, rate it and, unless
    ``leaderboard_dir`` is None, write the leaderboard CSV, Markdown and figure there
    (the three replaced together: :func:`nothanks.outputs.replacing`). ``command`` is
    recorded in the run (it resumes ``out``); the leaderboard names ``provenance``, the
    command as typed in the repository (default: ``command``)."""
    from ..analysis.ratings import DEFAULT_MODEL, GAME_ORDER, leaderboard, leaderboard_markdown
    from ..experiments.log import load
    from ..studies.tournament import load_tournament, run_tournament
    tournament = load_tournament(tournament)
    model = model or DEFAULT_MODEL
    begun = time.perf_counter()
    summary = run_tournament(tournament, out, jobs=jobs, client=client, progress=progress,
                             command=command)
    log = load(summary.directory)
    board = leaderboard(log.games, log.conditions, model=model, tau=tau)
    table = leaderboard_markdown(board)
    seconds = time.perf_counter() - begun
    text = (f"# Leaderboard: {tournament.name}\n\n{tournament.describe()}.\n\n"
            f"Command: `{provenance or command}` ({summary.played} games played in this run, "
            f"{seconds:.0f} s wall time including rating).\n\n"
            f"Ratings: openskill `{model}`, tau = {tau:g}, games in the order "
            f"{', '.join(GAME_ORDER)}; ordinal = μ − 3σ. Mean rank points (3/2/1/0, ties "
            "share the mean) with a Student-t 95% CI over matches (one table on one deal, "
            "rotations averaged); first-place share (ties count) with a Wilson 95% CI.\n\n"
            + table)
    files: list[Path] = []
    if leaderboard_dir is not None:
        from ..figures.tournament import tournament_ratings
        from ..files import atomic_write_bytes
        from ..outputs import replacing
        with replacing(leaderboard_dir, LEADERBOARD_FILES) as staging:
            csv, md, png = (staging / name for name in LEADERBOARD_FILES)
            atomic_write_bytes(board.to_csv(index=False, float_format="%.6g").encode(), csv)
            atomic_write_bytes(text.encode(), md)
            title = (f"Rated tournament {tournament.name!r}: {len(tournament.pool)} agents, "
                     f"{len(tournament.lineups)} tables, {tournament.games} games")
            fig = tournament_ratings(board, title=title, players=tournament.seats)
            fig.savefig(png, metadata={"Software": "nothanks"})
        files = [leaderboard_dir / name for name in LEADERBOARD_FILES]
    return TournamentReport(summary, board, text, files)
