"""``nothanks calibrate``: the command-line face of :mod:`nothanks.calibrate`.

Kept apart from the study code so that building the parser imports nothing heavy
(``nothanks --help`` stays fast; Optuna is imported only when a study runs).
"""
from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from .outputs import UPDATE_SHIPPED, check_shipped, fresh_folder, replacing

Runner = Callable[[argparse.Namespace], int]


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def configure(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("--out", type=Path, default=None,
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
    parser.add_argument("--trials", type=int, default=20,
                        help="finished trials the study should have (resumes and extends)")
    parser.add_argument("--games", type=int, default=2000,
                        help="games per condition per trial (default 2000)")
    parser.add_argument("--seed", type=int, default=2018, help="root seed of the fit")
    parser.add_argument("--stages", default="0.25,1",
                        help="fractions of the games after which a trial may be pruned")
    parser.add_argument("--storage", default=None,
                        help="Optuna storage URL (default sqlite:///OUT/study.db)")
    parser.add_argument("--study-name", default="thesis-fit",
                        help="study (and preset) name (default thesis-fit)")
    parser.add_argument("--model-preset", default=None,
                        help="preset of the ToM seats (e.g. thesis-fit when fitting stand-ins)")
    parser.add_argument("--start", default=None,
                        help="NAME=VALUE,... of free parameters a new study tries first; "
                             "several points separated by ';' are tried in order")
    parser.add_argument("--fixed", default=None,
                        help="NAME=VALUE,... of parameters held at these values (not free; "
                             "the others not free keep their defaults)")
    parser.add_argument("--weights", default=None,
                        help="NAME=WEIGHT,... of fitted targets whose loss term counts more "
                             "(or less) than 1, e.g. human_vs_tom0=2")
    parser.add_argument("--check-seed", type=int, default=None,
                        help="after the study, evaluate defaults and the best trial on this "
                             "unseen seed (writes heldout.md)")
    parser.add_argument("--check-games", type=int, default=None,
                        help="games per condition of the check (default --games)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="worker processes per trial (default 1)")
    parser.add_argument("--scheduler", default=None,
                        help="Dask scheduler address to play the trials' games on")
    parser.add_argument("--list", action="store_true",
                        help="list the free parameters and targets, and exit")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    def run(args: argparse.Namespace) -> int:
        from . import calibrate as cal
        from .calibrate import CalibrationError
        if args.list:
            print(cal.describe())
            return 0
        standin = args.params == "standin"
        params = (cal.STANDIN_PARAMETERS if standin else cal.MODEL_PARAMETERS
                  if args.params is None else _names(args.params))
        targets = (cal.STANDIN_TARGETS if args.targets == "standin" or
                   (standin and args.targets is None) else cal.DEFAULT_FIT
                   if args.targets is None else _names(args.targets))
        heldout = (() if standin and args.heldout is None else cal.DEFAULT_HELDOUT
                   if args.heldout is None else _names(args.heldout))
        try:
            stages = [float(x) for x in _names(args.stages)]
        except ValueError:
            raise CalibrationError(
                f"--stages {args.stages!r}: give fractions like 0.25,1") from None
        command = "nothanks calibrate " + shlex.join(sys.argv[2:] if argv_is_cli() else [])
        out = args.out or fresh_folder("calibrate")
        if args.out is None:  # the preset's provenance names the folder it was fitted in
            command += " " + shlex.join(["--out", str(out)])
        if check_shipped(out, "calibrate", update_shipped=args.update_shipped):
            if args.storage is not None:
                raise CalibrationError(
                    f"--storage {args.storage} with {UPDATE_SHIPPED}: the update replaces "
                    f"the study in --out {out}, not one kept elsewhere; drop --storage")
            members = [name.format(name=args.study_name) for name in cal.STUDY_FILES]
            with replacing(out, members, keep_staging=True) as staging:
                _study(args, staging, params, targets, heldout, stages, command)
            print(f"replaced the study in {out}")
            return 0
        _study(args, out, params, targets, heldout, stages, command)
        return 0
    return run


def _study(args: argparse.Namespace, out: Path, params: list[str], targets: list[str],
           heldout: list[str], stages: list[float], command: str) -> None:
    """Run (or resume) the study into ``out``, then its held-out check if asked."""
    from . import calibrate as cal
    from .calibrate import CalibrationError
    result = cal.calibrate(
        out, params=params, targets=targets, heldout=heldout, trials=args.trials,
        games=args.games, seed=args.seed, stages=stages, storage=args.storage,
        study_name=args.study_name, model_preset=args.model_preset, jobs=args.jobs,
        client=args.scheduler, progress=not args.no_progress, command=command.strip(),
        start=_start(args.start), fixed=_fixed(args.fixed), weights=_weights(args.weights))
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


def _start(text: str | None) -> list[dict[str, object]]:
    """``--start "T=-1,low=3;T=0,low=2"`` as parameter values (numbers where they parse)."""
    from .calibrate import CalibrationError, _typed
    points = []
    for part in (text or "").split(";"):
        values = {}
        for item in _names(part):
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                raise CalibrationError(
                    f"--start {item!r}: give NAME=VALUE pairs, e.g. T=-1,low=3")
            values[name.strip()] = _typed(value.strip())
        if values:
            points.append(values)
    return points


def _fixed(text: str | None) -> dict[str, object]:
    """``--fixed "greed=0.43,low=3"`` as parameter values (one point, no ';')."""
    from .calibrate import CalibrationError
    if text and ";" in text:
        raise CalibrationError(f"--fixed {text!r}: give one set of NAME=VALUE pairs, no ';'")
    points = _start(text)
    return points[0] if points else {}


def _weights(text: str | None) -> dict[str, float]:
    """``--weights "human_vs_tom0=2"`` as target weights (positive numbers)."""
    from .calibrate import CalibrationError
    weights = {}
    for name, value in _fixed(text).items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise CalibrationError(f"--weights {name}={value!r}: give a positive number, "
                                   "e.g. human_vs_tom0=2")
        weights[name] = float(value)
    return weights


def argv_is_cli() -> bool:
    """Whether this process was started as the ``nothanks`` command (for provenance)."""
    return len(sys.argv) > 1 and sys.argv[1] == "calibrate"


