"""``nothanks infer``: order inference on participant logs, and its validation."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..outputs import (
    UPDATE_SHIPPED,
    check_output,
    check_shipped,
    removed_if_new,
    replacing,
    typed_path,
)
from . import checks
from .base import add_likelihood_options

#: What ``nothanks infer`` writes into --out (replaced as one set).
RESULT_FILES = ("decisions.parquet", "map.csv", "blocks.csv", "group.csv", "settings.json",
                "confusion.csv", "confusion.md", "confusion.png", "trajectories.png")
#: Most simulated players per type one call may ask.
MAX_PER_TYPE = 999
#: Defaults shown in --help (the engine, which imports the models, loads only to run).
_MODELS = "ToM0,ToM1,ToM2,random,heuristic"


def _pairs(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            from ..studies.inference import InferenceError
            raise InferenceError(f"--param {item!r} is not KEY=VALUE (e.g. project_self=false)")
        out[key] = value
    return out


def configure(parser: argparse.ArgumentParser):
    parser.add_argument("path", nargs="?", type=Path, default=None,
                        help="participant folder (or one session); with --validate: the "
                             "folder for the simulated players (made or resumed); required")
    parser.add_argument("--participant", action="append", default=None,
                        help="participant id (repeatable; default: all)")
    parser.add_argument("--models", default=_MODELS, help=f"candidate models (default {_MODELS})")
    add_likelihood_options(parser, seed_help=f"inference seed, 0 to {checks.MAX_SEED} "
                                             "(default 0)")
    parser.add_argument("--practice", action="store_true",
                        help="include the practice block (always on with --validate)")
    parser.add_argument("--processes", type=checks.jobs, default=2,
                        help="worker processes, 1 to 4 x the cores (default 2)")
    parser.add_argument("--cache", type=checks.folder_to_write, default=None,
                        help="folder for per-participant likelihood tables (Parquet; "
                             "default: none, nothing is cached)")
    parser.add_argument("--out", type=checks.folder_to_write, required=True,
                        help="folder for the results (its earlier results are replaced as "
                             "one set)")
    parser.add_argument(UPDATE_SHIPPED, action="store_true",
                        help="--out holds committed results (e.g. figures/inference/default):"
                             " replace that whole set")
    parser.add_argument("--validate", action="store_true",
                        help="simulate players of known type (Table 6 schedule, 24 games "
                             "each) in PATH and report how well their type is recovered")
    parser.add_argument("--per-type", type=checks.count(MAX_PER_TYPE), default=10,
                        help=f"--validate: simulated players per type, 1 to {MAX_PER_TYPE} "
                             "(default 10)")
    parser.add_argument("--types", default="ToM0,ToM1,ToM2,random,heuristic",
                        help="--validate: the simulated player types (default all five)")
    parser.add_argument("--player-lapse", type=checks.probability, default=0.05,
                        help="--validate: the simulated players' lapse rate, 0 to 1 "
                             "(default 0.05)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bars")
    return run


def run(args: argparse.Namespace) -> int:
    from ..studies.inference import InferenceError
    if args.path is None:
        raise InferenceError("give the participant folder (or, with --validate, the folder "
                             "for the simulated players)")
    params = _pairs(args.param)
    models = tuple(m.strip() for m in args.models.split(",") if m.strip())
    log = _preflight(args, params, models)
    if args.validate:  # the simulated players are written into PATH
        check_shipped(args.path, "infer", option="PATH",
                      role=" (--validate writes the simulated players there)")
    if args.cache is not None:
        check_shipped(args.cache, "infer", option="--cache")
    with removed_if_new(args.out):  # a failed call leaves no empty --out behind
        check_output(args.out, "infer", "the results", force=True,
                     update_shipped=args.update_shipped)
        with replacing(args.out, RESULT_FILES) as out:  # the whole set, never part of it
            _infer(args, params, models, out, log)
    written = [name for name in RESULT_FILES if (args.out / name).exists()]
    print(f"wrote {', '.join(written)} to {args.out}")
    return 0


def infer_command(args: argparse.Namespace) -> str:
    """The ``nothanks infer`` command line that computes these results, every setting
    named, as a user would type it in the repository (its folders by
    :func:`nothanks.outputs.typed_path`; for settings.json)."""
    import shlex
    words = ["nothanks", "infer", typed_path(args.path)]
    for participant in args.participant or ():
        words += ["--participant", participant]
    names = ["models", "samples", "lapse", "tokens", "seed", "processes"]
    names += ["per_type", "types", "player_lapse"] if args.validate else []
    for name in names:
        words += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    for pair in args.param:
        words += ["--param", pair]
    words += ["--practice"] * args.practice + ["--validate"] * args.validate
    if args.cache is not None:
        words += ["--cache", typed_path(args.cache)]
    words += ["--out", typed_path(args.out)] + [UPDATE_SHIPPED] * args.update_shipped
    return shlex.join(words)


def _preflight(args: argparse.Namespace, params: dict[str, str], models: tuple[str, ...]):
    """Check every setting before anything is written: the inference settings and the
    candidates they build, the player types (--validate) or the participant folder and
    ids (returns that log, loaded once; None with --validate)."""
    from ..agents import make_agent
    from ..studies.inference import PLAYER_TYPES, InferenceError, InferenceSettings
    settings = InferenceSettings(models, args.samples, args.lapse, args.tokens,
                                 tuple(sorted(params.items())), args.seed)
    for model in settings.models:  # a bad --param fails now, naming the model
        try:
            make_agent(settings.spec(model))
        except ValueError as exc:
            raise InferenceError(f"--param with candidate {model}: {exc}") from None
    if args.validate:
        types = [t.strip() for t in args.types.split(",") if t.strip()]
        if not types or any(t not in PLAYER_TYPES for t in types):
            raise InferenceError(f"--types {args.types!r}: valid: names from "
                                 f"{', '.join(PLAYER_TYPES)}")
        if args.path.exists() and not args.path.is_dir():
            raise InferenceError(f"PATH {args.path} is a file; give a folder for the "
                                 "simulated players")
        return None
    if not args.path.is_dir():
        raise InferenceError(f"PATH {args.path} is not a folder of participant sessions")
    from ..experiments.log import load
    log = load(args.path)
    known = sorted(log.decisions["participant"].dropna().unique())
    if not known:
        raise InferenceError(f"PATH {args.path} holds no participant sessions")
    if missing := [p for p in args.participant or () if p not in known]:
        raise InferenceError(f"--participant {', '.join(missing)}: not in {args.path}; "
                             f"valid: {', '.join(known[:10])}{' ...' if len(known) > 10 else ''}")
    return log


def _infer(args: argparse.Namespace, params: dict[str, str], models: tuple[str, ...],
           out: Path, log=None) -> None:
    """Simulate the players (--validate), infer their orders and write the results."""
    from ..figures.inference import confusion_heatmap, posterior_trajectories
    from ..studies.inference import (
        confusion_matrix,
        infer_order,
        matrix_markdown,
        settings_line,
        simulate_players,
        zero_vs_higher,
    )
    chosen = args.participant
    if args.validate:
        types = [t.strip() for t in args.types.split(",") if t.strip()]
        chosen = simulate_players(args.path, types=types, per_type=args.per_type,
                                  lapse=args.player_lapse, params=params,
                                  processes=args.processes, progress=not args.no_progress)
    result = infer_order(args.path if log is None else log, chosen, models=models,
                         samples=args.samples,
                         lapse=args.lapse, tokens=args.tokens, params=params, seed=args.seed,
                         practice=args.practice or args.validate, processes=args.processes,
                         cache=args.cache, progress=not args.no_progress)
    result.decisions.to_parquet(out / "decisions.parquet", index=False)
    result.map_orders().to_csv(out / "map.csv", index=False)
    result.blocks().to_csv(out / "blocks.csv", index=False)
    group = result.group()
    group.to_csv(out / "group.csv", index=False)
    line = settings_line(result.settings)
    (out / "settings.json").write_text(json.dumps(
        {"settings": line, "command": infer_command(args)}, indent=2)
        + "\n")
    if args.validate:
        table = confusion_matrix(result)
        table.to_csv(out / "confusion.csv", index=False)
        binary = zero_vs_higher(result)
        title = f"Recovery of simulated players ({line})"
        text = matrix_markdown(table, result.models, title)
        text += (f"\n\nToM0 vs ToM≥1 recovered for {binary['correct']}/{binary['players']} "
                 f"ToM players = {binary['share']:.2f} (95% Wilson CI "
                 f"[{binary['ci_low']:.2f}, {binary['ci_high']:.2f}]).\n")
        (out / "confusion.md").write_text(text)
        fig = confusion_heatmap(table, result.models, f"Order recovery ({line})")
        fig.savefig(out / "confusion.png")
        print(text)
    else:
        print(group.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    shown = list(dict.fromkeys(result.decisions["participant"]))[:6]
    posterior_trajectories(result.decisions, shown).savefig(out / "trajectories.png")
