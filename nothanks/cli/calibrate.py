"""``nothanks calibrate``: the command-line face of :mod:`nothanks.studies.calibration`.

Kept apart from the study code so that building the parser imports nothing heavy
(``nothanks --help`` stays fast; Optuna is imported only when a study runs).
"""
from __future__ import annotations

import argparse
import logging
import math
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..outputs import UPDATE_SHIPPED, check_shipped, fresh_folder, replacing
from . import checks
from .base import Runner

if TYPE_CHECKING:
    from ..studies.calibration import Parameter

#: Most trials one study may be asked for (the shipped studies have 16 to 40).
MAX_TRIALS = 10_000


def configure(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("--out", type=checks.folder_to_write, default=None,
                        help="study folder: study.db, trials/, summary.md, plots, the preset "
                             "(created, or resumed and extended; default: a new "
                             "runs/calibrate-<timestamp>; a shipped study in data/calibration "
                             f"needs {UPDATE_SHIPPED})")
    parser.add_argument(UPDATE_SHIPPED, action="store_true",
                        help="--out holds a committed study (e.g. data/calibration/thesis-fit):"
                             " fit a new study and replace that study's whole set with it "
                             "(an interrupted update resumes from --out/.staging)")
    parser.add_argument("--params", default=None,
                        help="free parameters, comma-separated (default: every model "
                             "parameter; 'standin' for the human stand-in's); see --list")
    parser.add_argument("--targets", default=None,
                        help="fitted targets, comma-separated (default tom1_share,"
                             "older_chunk_rate; 'standin' for the stand-in targets)")
    parser.add_argument("--heldout", default=None,
                        help="targets only reported, comma-separated (default: ToM2 rows, "
                             "Welch t's, Figure 14 slope)")
    trials, games = 20, 2000
    parser.add_argument("--trials", type=checks.count(MAX_TRIALS), default=trials,
                        help="finished trials the study should have (resumes and extends; "
                             f"default {trials}). The default study, {trials} trials of "
                             f"{games} games (one table, ToM1 vs 3 x ToM0, --jobs 1), takes "
                             "about 10 minutes: about 32 s of one core per complete trial, "
                             "less for a pruned one (docs/calibration.md, Cost)")
    parser.add_argument("--games", type=checks.games, default=games,
                        help=f"games per condition per trial (default {games})")
    parser.add_argument("--seed", type=checks.seed, default=2018,
                        help="root seed of the fit (stage i plays the deals of seed + i; "
                             "default 2018)")
    parser.add_argument("--stages", default="0.25,1",
                        help="fractions of the games after which a trial may be pruned")
    parser.add_argument("--storage", type=_storage, default=None,
                        help="Optuna storage URL (default sqlite:///OUT/study.db)")
    parser.add_argument("--study-name", default="thesis-fit",
                        help="study (and preset) name (default thesis-fit)")
    parser.add_argument("--model-preset", type=_model_preset, default=None,
                        help="preset of the ToM seats (e.g. thesis-fit when fitting "
                             "stand-ins; default: none, the models' own defaults)")
    parser.add_argument("--start", default=None,
                        help="NAME=VALUE,... of free parameters a new study tries first; "
                             "several points separated by ';' are tried in order (default: "
                             "none, the sampler chooses every point)")
    parser.add_argument("--fixed", default=None,
                        help="NAME=VALUE,... of parameters held at these values (not free; "
                             "the others not free keep their defaults; default: none)")
    parser.add_argument("--weights", default=None,
                        help="NAME=WEIGHT,... of fitted targets whose loss term counts more "
                             "(or less) than 1, e.g. human_vs_tom0=2 (default: every "
                             "weight 1)")
    parser.add_argument("--check-seed", type=checks.seed, default=None,
                        help="after the study, evaluate defaults and the best trial on this "
                             "unseen seed (writes heldout.md; default: no check)")
    parser.add_argument("--check-games", type=checks.games, default=None,
                        help="games per condition of the check (default --games)")
    parser.add_argument("--jobs", type=checks.jobs, default=1,
                        help="worker processes per trial, 1 to 4 x the cores (default 1)")
    parser.add_argument("--scheduler", default=None,
                        help="Dask scheduler address to play the trials' games on "
                             "(default: local processes, --jobs)")
    parser.add_argument("--list", action="store_true",
                        help="list the free parameters and targets, and exit")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    def run(args: argparse.Namespace) -> int:
        from ..studies import calibration as cal
        from ..studies.calibration import CalibrationError
        from ..studies.calibration.outputs import STUDY_FILES
        from ..studies.calibration.space import (
            MODEL_PARAMETERS,
            STANDIN_PARAMETERS,
            split_names,
        )
        from ..studies.calibration.targets import STANDIN_TARGETS
        if args.list:
            print(cal.describe())
            return 0
        standin = args.params == "standin"
        params = (STANDIN_PARAMETERS if standin else MODEL_PARAMETERS
                  if args.params is None else split_names(args.params))
        targets = (STANDIN_TARGETS if args.targets == "standin" or
                   (standin and args.targets is None) else cal.DEFAULT_FIT
                   if args.targets is None else split_names(args.targets))
        heldout = (() if standin and args.heldout is None else cal.DEFAULT_HELDOUT
                   if args.heldout is None else split_names(args.heldout))
        try:
            stages = [float(x) for x in split_names(args.stages)]
        except ValueError:
            stages = []
        if not stages or not all(0 < f <= 1 for f in stages):
            raise CalibrationError(
                f"--stages {args.stages!r}: give fractions in (0, 1] like 0.25,1")
        _preflight(args, params, targets, heldout, stages)
        _quiet_failed_trials()
        command = "nothanks calibrate " + shlex.join(sys.argv[2:] if argv_is_cli() else [])
        out = args.out or fresh_folder("calibrate")
        if args.out is None:  # the preset's provenance names the folder it was fitted in
            command += " " + shlex.join(["--out", str(out)])
        if check_shipped(out, "calibrate", update_shipped=args.update_shipped):
            if args.storage is not None:
                raise CalibrationError(
                    f"--storage {args.storage} with {UPDATE_SHIPPED}: the update replaces "
                    f"the study in --out {out}, not one kept elsewhere; drop --storage")
            members = [name.format(name=args.study_name) for name in STUDY_FILES]
            with replacing(out, members, keep_staging=True) as staging:
                _study(args, staging, params, targets, heldout, stages, command)
            print(f"replaced the study in {out}: {_written(out, args.study_name)}")
            return 0
        _study(args, out, params, targets, heldout, stages, command)
        print(f"wrote the study to {out}: {_written(out, args.study_name)}")
        return 0
    return run


def _written(out: Path, study_name: str) -> str:
    """The study's files and folders in ``out``, named (for the command's last line)."""
    from ..studies.calibration.outputs import STUDY_FILES
    names = [name.format(name=study_name) for name in STUDY_FILES]
    return ", ".join(name for name in names if (out / name).exists())


def _study(args: argparse.Namespace, out: Path, params: list[str], targets: list[str],
           heldout: list[str], stages: list[float], command: str) -> None:
    """Run (or resume) the study into ``out``, then its held-out check if asked."""
    from ..studies import calibration as cal
    from ..studies.calibration import CalibrationError
    from ..studies.calibration.space import parse_fixed, parse_start, parse_weights
    result = cal.calibrate(
        out, params=params, targets=targets, heldout=heldout, trials=args.trials,
        games=args.games, seed=args.seed, stages=stages, storage=args.storage,
        study_name=args.study_name, model_preset=args.model_preset, jobs=args.jobs,
        client=args.scheduler, progress=not args.no_progress, command=command.strip(),
        start=parse_start(args.start), fixed=parse_fixed(args.fixed),
        weights=parse_weights(args.weights),
        options={k: v for k, v in (("check_seed", args.check_seed),
                                   ("check_games", args.check_games)) if v is not None})
    if not any(t.state.name == "COMPLETE" for t in result.study.trials):
        raise CalibrationError(f"{result.out}: every trial was pruned or failed; run "
                               "more trials (--trials) or fewer stages (--stages 1)")
    print(f"{result.out}: {len(result.study.trials)} trials, best loss "
          f"{result.study.best_value:.4g}, {result.seconds_per_trial:.1f} s per trial")
    if args.check_seed is not None:
        path = cal.heldout_check(
            out, result.best_params, targets, heldout,
            games=args.check_games or args.games, seed=args.check_seed,
            fit_seeds=[args.seed + i for i in range(len(stages))], jobs=args.jobs,
            client=args.scheduler, model_preset=args.model_preset,
            label=args.study_name, progress=not args.no_progress)
        print(path.read_text())


def _storage(text: str) -> str:
    """``--storage``: a database URL Optuna can open (SQLAlchemy's form), checked before
    a study is made."""
    try:
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import SQLAlchemyError
    except ModuleNotFoundError:  # no Optuna either: calibrate() says how to install it
        return text
    try:
        make_url(text).get_dialect()
    except (SQLAlchemyError, ValueError) as exc:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a database URL Optuna can open ({exc}); valid: e.g. "
            "sqlite:///path/study.db or postgresql://user@host/db") from None
    return text


def _model_preset(text: str) -> str:
    """``--model-preset``: a shipped preset for the ToM models."""
    from ..agents import AgentSpecError, load_preset, presets
    try:
        preset = load_preset(text)
    except AgentSpecError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if preset.agents and not any(a.startswith("tom") for a in preset.agents):
        usable = [n for n in presets() if any(a.startswith("tom")
                                              for a in load_preset(n).agents or ("tom",))]
        raise argparse.ArgumentTypeError(
            f"preset {text!r} is for {', '.join(preset.agents)}, not the ToM seats; valid: "
            f"{', '.join(usable) or 'none'}")
    return text


def _preflight(args: argparse.Namespace, params: Sequence[str], targets: Sequence[str],
               heldout: Sequence[str], stages: Sequence[float]) -> None:
    """Check every study option before anything is written: the names, the ``--fixed``
    and ``--start`` values (numbers finite, start points inside the search ranges, and
    every agent a trial would build from them valid), the model preset, and that the
    held-out check's seed is not one of the fit's."""
    from ..experiments import DesignError
    from ..studies import calibration as cal
    from ..studies.calibration import CalibrationError
    from ..studies.calibration.space import parse_fixed, parse_start
    for option, names, table in (("--params", params, cal.PARAMETERS),
                                 ("--targets", targets, cal.TARGETS),
                                 ("--heldout", heldout, cal.TARGETS)):
        if unknown := [n for n in names if n not in table]:
            raise CalibrationError(f"{option}: unknown {', '.join(map(repr, unknown))}; "
                                   f"valid: {', '.join(table)}")
    fixed, points = parse_fixed(args.fixed), parse_start(args.start)
    for name, value in fixed.items():
        if name not in cal.PARAMETERS:
            raise CalibrationError(f"--fixed {name}={value}: unknown parameter {name!r}; "
                                   f"valid: {', '.join(cal.PARAMETERS)}")
        if name in params:
            raise CalibrationError(f"--fixed {name}={value}: {name} is also free (--params);"
                                   " give each once")
        _finite(f"--fixed {name}={value}", value)
    for point in points:
        for name, value in point.items():
            where = f"--start {name}={value}"
            if name not in params:
                raise CalibrationError(f"{where}: {name!r} is not a free parameter; valid: "
                                       f"{', '.join(params)}")
            _finite(where, value)
            _in_range(where, cal.PARAMETERS[name], value)
    last_seed = args.seed + len(stages) - 1  # stage i plays the deals of seed + i
    if last_seed > checks.MAX_SEED:
        raise CalibrationError(
            f"--seed {args.seed}: with {len(stages)} stages the fit plays seeds {args.seed} to "
            f"{last_seed}, beyond {checks.MAX_SEED} (2**63 - 1); valid: --seed 0 to "
            f"{checks.MAX_SEED - len(stages) + 1}")
    if args.check_seed is not None and args.seed <= args.check_seed < args.seed + len(stages):
        raise CalibrationError(
            f"--check-seed {args.check_seed} is a seed of the fit (--seed {args.seed}, "
            f"{len(stages)} stages: seeds {args.seed} to {args.seed + len(stages) - 1}); "
            "give another")
    defaults = {n: cal.PARAMETERS[n].default for n in params}
    cases = [("--model-preset " + str(args.model_preset), {})] if args.model_preset else []
    cases += [(f"--fixed {args.fixed}", fixed)] if fixed else []
    cases += [(f"--start {args.start}", fixed | point) for point in points]
    with tempfile.TemporaryDirectory(prefix="nothanks-calibrate-check-") as scratch:
        for option, values in cases:  # build every agent a trial would, as the run does
            try:
                design = cal.trial_design(defaults | values, targets, Path(scratch), 1,
                                          args.seed, args.study_name, args.model_preset)
                design.validate_agents()
            except (DesignError, ValueError, TypeError) as exc:
                raise CalibrationError(f"{option}: {exc}") from None


def _finite(where: str, value: object) -> None:
    from ..studies.calibration import CalibrationError
    if isinstance(value, float) and not math.isfinite(value):
        raise CalibrationError(f"{where}: give a finite number")


def _in_range(where: str, parameter: Parameter, value: object) -> None:
    """A start point lies in the parameter's search space (its choices or range)."""
    from ..studies.calibration import CalibrationError
    if parameter.choices:
        if value not in parameter.choices:
            raise CalibrationError(f"{where}: valid: {', '.join(parameter.choices)}")
        return
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if (not number or not parameter.low <= value <= parameter.high
            or (parameter.integer and not float(value).is_integer())):
        kind = "a whole number" if parameter.integer else "a number"
        raise CalibrationError(f"{where}: valid: {kind} from {parameter.low:g} to "
                               f"{parameter.high:g} (the search range; --fixed takes "
                               "values outside it)")


class _FailedTrials(logging.Filter):
    """Drops Optuna's report of a failed trial: the command stops on it and prints the
    error itself, in one line (a Ctrl-C, too)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (message.startswith("Trial ") and " failed " in message)


def _quiet_failed_trials() -> None:
    logger = logging.getLogger("optuna.study._optimize")
    if not any(isinstance(f, _FailedTrials) for f in logger.filters):
        logger.addFilter(_FailedTrials())


def argv_is_cli() -> bool:
    """Whether this process was started as the ``nothanks`` command (for provenance)."""
    return len(sys.argv) > 1 and sys.argv[1] == "calibrate"


