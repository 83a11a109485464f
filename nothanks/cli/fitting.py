"""``nothanks fit``: each participant's parameters by maximum likelihood, the group's
model comparison, and (``--recover``) parameter and model recovery on simulated players."""
from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

from ..outputs import UPDATE_SHIPPED, check_output, check_shipped, removed_if_new, replacing
from ..outputs import typed_path as shown
from . import checks
from .base import Runner, add_likelihood_options, add_scheduler

#: What ``nothanks fit`` writes into --out (replaced as one set; the finished
#: participants' evaluations, ``evaluations/``, stay for the next run to resume).
RESULT_FILES = ("fits.csv", "fits.parquet", "evaluations.parquet", "predictions.parquet",
                "bms.csv", "evidence.csv", "settings.json", "fits.png", "fit-vs-data.png",
                "planted.csv", "recovery.csv", "correlations.csv", "confusion.csv",
                "choices.csv", "recovery.md", "recovery.png", "confusion.png")
#: Where the finished participants' evaluations are kept inside --out (resume).
RESUME_FOLDER = "evaluations"
MAX_TRIALS = 10_000
MAX_PLAYERS = 999


def _range(text: str) -> tuple[str, float, float]:
    name, sep, bounds = text.partition("=")
    low, colon, high = bounds.partition(":")
    try:
        if not (sep and colon and name):
            raise ValueError
        return name, float(low), float(high)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=LOW:HIGH (e.g. "
                                         "s=0.05:0.3)") from None


def _ranges(text: str) -> list[tuple[str, float, float]]:
    return [_range(part) for part in text.split(",") if part.strip()]


def _types(text: str) -> dict[str, int]:
    out = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, _, n = part.partition("=")
        try:
            out[name] = int(n) if n else 10
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r} is not MODEL=COUNT (e.g. ToM1=30)"
                                             ) from None
        if not 1 <= out[name] <= MAX_PLAYERS:
            raise argparse.ArgumentTypeError(f"{part!r}: valid counts 1 to {MAX_PLAYERS}")
    if not out:
        raise argparse.ArgumentTypeError(f"{text!r}: give MODEL=COUNT pairs, e.g. ToM0=15,ToM1=30")
    return out


def configure(parser: argparse.ArgumentParser) -> Runner:
    parser.add_argument("path", type=Path,
                        help="participant folder (or one session); with --recover: the "
                             "folder for the simulated players (made or resumed)")
    parser.add_argument("--participant", action="append", default=None,
                        help="participant id (repeatable; default: all)")
    parser.add_argument("--model", action="append", required=True,
                        help="model to fit: ToM0, ToM1 or ToM2 (repeatable: each with its "
                             "own --params, in the same order; two or more models add the "
                             "group comparison)")
    parser.add_argument("--params", action="append", required=True,
                        help="free parameters of the model, comma-separated (e.g. s,rt); "
                             "one --params per --model, or one for all")
    parser.add_argument("--range", action="append", default=[], type=_range,
                        metavar="NAME=LOW:HIGH",
                        help="search range of a parameter (default: the table in "
                             "docs/fitting.md, e.g. s=0.02:0.5 on a log scale)")
    parser.add_argument("--trials", type=checks.count(MAX_TRIALS), default=30,
                        help=f"likelihood evaluations per participant and model, 2 to "
                             f"{MAX_TRIALS} (default 30)")
    add_likelihood_options(parser, seed_help="seed of every random number (the same for "
                                             "every evaluation: common random numbers; "
                                             "default 0)")
    parser.add_argument("--bootstrap", type=checks.count(100_000), default=1000,
                        help="bootstrap resamples of the games for the intervals "
                             "(default 1000)")
    parser.add_argument("--processes", type=checks.jobs, default=2,
                        help="local worker processes, 1 to 4 x the cores (default 2)")
    add_scheduler(parser)
    parser.add_argument("--out", type=checks.folder_to_write, required=True,
                        help="folder for the results (replaced as one set; finished "
                             f"participants are kept in {RESUME_FOLDER}/ and skipped on "
                             "a rerun)")
    parser.add_argument(UPDATE_SHIPPED, action="store_true",
                        help="--out holds committed results (e.g. data/fitting/recovery): "
                             "replace that set")
    parser.add_argument("--recover", action="store_true",
                        help="simulate players of known model and planted parameters in "
                             "PATH (24 games each), fit them and report recovery")
    parser.add_argument("--types", type=_types, default=None,
                        help="--recover: simulated players per true model (default "
                             "ToM1=30,ToM0=15)")
    parser.add_argument("--prior", type=_ranges, default=None, metavar="NAME=LOW:HIGH,...",
                        help="--recover: uniform prior of the planted parameters (default "
                             "s=0.05:0.3,rt=-3:-1)")
    parser.add_argument("--player-lapse", type=checks.probability, default=0.05,
                        help="--recover: the simulated players' lapse rate (default 0.05)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return run


def _settings(args: argparse.Namespace) -> list:
    """One FitSettings per --model, checked before any work."""
    from ..studies.fitting import FIT_PARAMETERS, FitError, FitSettings, ParameterRange
    if len(args.params) not in (1, len(args.model)):
        raise FitError(f"{len(args.model)} --model and {len(args.params)} --params: give "
                       "one --params per --model, or one for all")
    params = args.params * len(args.model) if len(args.params) == 1 else args.params
    readings = []
    for pair in args.param:
        key, sep, value = pair.partition("=")
        if not (sep and key):
            raise FitError(f"--param {pair!r} is not KEY=VALUE (e.g. project_self=false)")
        readings.append((key, value))
    readings = tuple(sorted(dict(readings).items()))
    ranges = {name: (low, high) for name, low, high in args.range}
    out = []
    for model, names in zip(args.model, params, strict=True):
        free = tuple(n.strip() for n in names.split(",") if n.strip())
        own = tuple((n, ParameterRange(*ranges[n], log=FIT_PARAMETERS[n].log))
                    for n in free if n in ranges and n in FIT_PARAMETERS)
        out.append(FitSettings(model, free, own, args.trials, args.samples, args.lapse,
                               args.tokens, readings, args.seed, args.bootstrap))
    if unused := sorted(set(ranges) - {n for s in out for n in s.params}):
        raise FitError(f"--range {', '.join(unused)}: not a fitted parameter; valid: "
                       f"{', '.join(sorted({n for s in out for n in s.params}))}")
    if len({s.model for s in out}) != len(out):
        raise FitError(f"--model {', '.join(args.model)}: each model once")
    return out


def fit_command(args: argparse.Namespace) -> str:
    """The ``nothanks fit`` command line of these results, every setting named."""
    words = ["nothanks", "fit", shown(args.path)]
    for participant in args.participant or ():
        words += ["--participant", participant]
    params = args.params * len(args.model) if len(args.params) == 1 else args.params
    for model, names in zip(args.model, params, strict=True):
        words += ["--model", model, "--params", names]
    for name, low, high in args.range:
        words += ["--range", f"{name}={low:g}:{high:g}"]
    for name in ("trials", "samples", "lapse", "tokens", "seed", "bootstrap", "processes"):
        words += [f"--{name}", str(getattr(args, name))]
    for pair in args.param:
        words += ["--param", pair]
    if args.recover:
        words += ["--recover", "--types", ",".join(f"{k}={v}" for k, v in args.types.items()),
                  "--prior", ",".join(f"{k}={lo:g}:{hi:g}" for k, (lo, hi) in
                                      _prior(args).items()),
                  "--player-lapse", str(args.player_lapse)]
    words += ["--out", shown(args.out)] + [UPDATE_SHIPPED] * args.update_shipped
    return shlex.join(words)


def _prior(args: argparse.Namespace) -> dict[str, tuple[float, float]]:
    from ..studies.recovery import DEFAULT_PRIOR
    if args.prior is None:
        return dict(DEFAULT_PRIOR)
    return {name: (low, high) for name, low, high in args.prior}


def run(args: argparse.Namespace) -> int:
    from ..studies.fitting import FitError
    from ..studies.recovery import DEFAULT_TYPES, plant_players
    settings = _settings(args)
    planted = None
    if not args.recover and (args.types is not None or args.prior is not None):
        raise FitError("--types and --prior are for --recover (simulated players); add "
                       "--recover or leave them out")
    if args.recover and args.types is None:
        args.types = dict(DEFAULT_TYPES)
    if args.recover:
        check_shipped(args.path, "fit", option="PATH",
                      role=" (--recover writes the simulated players there)")
        if args.participant:
            raise FitError("--participant and --recover: the simulated players are all fitted")
        planted = plant_players(args.types, _prior(args), args.seed, dict(
            (k, v) for k, v in settings[0].readings))
    elif not args.path.is_dir():
        raise FitError(f"PATH {args.path} is not a folder of participant sessions")
    with removed_if_new(args.out):
        check_output(args.out, "fit", "the results", force=True,
                     update_shipped=args.update_shipped)
        with replacing(args.out, RESULT_FILES) as staging:
            _fit(args, settings, planted, staging)
    print(f"wrote {', '.join(n for n in RESULT_FILES if (args.out / n).exists())} to "
          f"{args.out}")
    return 0


def _fit(args: argparse.Namespace, settings: list, planted, out: Path) -> None:
    import pandas as pd

    from ..analysis.bms import group_bms
    from ..experiments.log import load
    from ..figures.fitting import confusion_plot, fit_estimates, fit_vs_data, recovery_scatter
    from ..studies.fitting import evidence_table, fit_participants
    from ..studies.recovery import (
        fitted_correlations,
        model_confusion,
        parameter_recovery,
        recovery_markdown,
        simulate_planted,
    )
    progress = not args.no_progress
    if planted is not None:
        simulate_planted(args.path, planted, args.player_lapse, processes=args.processes,
                         progress=progress)
        planted.to_csv(out / "planted.csv", index=False)
    log = load(args.path)
    chosen = list(planted["participant"]) if planted is not None else args.participant
    results = [fit_participants(log, chosen, s, folder=args.out / RESUME_FOLDER,
                                processes=args.processes, scheduler=args.scheduler,
                                progress=progress) for s in settings]
    tables = [r.table() for r in results]
    fits = pd.concat(tables, ignore_index=True)
    fits.to_csv(out / "fits.csv", index=False)
    fits.to_parquet(out / "fits.parquet", index=False)
    pd.concat([r.evaluations() for r in results], ignore_index=True).to_parquet(
        out / "evaluations.parquet", index=False)
    predictions = pd.concat([r.predictions() for r in results], ignore_index=True)
    predictions.to_parquet(out / "predictions.parquet", index=False)
    fit_estimates(fits).savefig(out / "fits.png")
    first = predictions[predictions["model"] == settings[0].model]
    fit_vs_data(first, list(dict.fromkeys(first["participant"]))[:30]).savefig(
        out / "fit-vs-data.png")
    evidence = None
    if len(settings) > 1:
        evidence = evidence_table(tables)
        evidence.to_csv(out / "evidence.csv")
        group_bms(evidence).table().assign(source=results[0].source).to_csv(
            out / "bms.csv", index=False)
    if planted is not None:
        plain = planted.drop(columns="source")
        merged = fits.merge(plain, on="participant")
        recovery = parameter_recovery(fits, plain)
        correlations = fitted_correlations(merged)
        recovery.to_csv(out / "recovery.csv", index=False)
        correlations.to_csv(out / "correlations.csv", index=False)
        recovery_scatter(merged).savefig(out / "recovery.png")
        confusion = None
        if evidence is not None:
            confusion = model_confusion(evidence, plain)
            confusion.matrix.to_csv(out / "confusion.csv", index=False)
            confusion.choices.to_csv(out / "choices.csv", index=False)
            confusion_plot(confusion.matrix, list(evidence.columns)).savefig(
                out / "confusion.png")
        text = recovery_markdown(recovery, correlations, confusion, _prior(args))
        (out / "recovery.md").write_text(text)
        print(text)
    else:
        print(fits[["participant", "model", "parameter", "estimate", "ci_low", "ci_high",
                    "loglik"]].to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    (out / "settings.json").write_text(json.dumps(
        {"settings": [s.describe() for s in settings], "command": fit_command(args)},
        indent=2) + "\n")
