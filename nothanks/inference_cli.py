"""``nothanks infer``: order inference on participant logs, and its validation."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .outputs import UPDATE_SHIPPED, check_output, check_shipped, replacing

#: What ``nothanks infer`` writes into --out (replaced as one set).
RESULT_FILES = ("decisions.parquet", "map.csv", "blocks.csv", "group.csv", "settings.json",
                "confusion.csv", "confusion.md", "confusion.png", "trajectories.png")
#: Defaults shown in --help (the engine, which imports the models, loads only to run).
_MODELS = "ToM0,ToM1,ToM2,random,heuristic"


def _pairs(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            from .inference import InferenceError
            raise InferenceError(f"--param {item!r} is not KEY=VALUE (e.g. project_self=false)")
        out[key] = value
    return out


def configure(parser: argparse.ArgumentParser):
    parser.add_argument("path", nargs="?", type=Path, default=None,
                        help="participant folder (or one session); with --validate: the "
                             "folder for the simulated players (made or resumed)")
    parser.add_argument("--participant", action="append", default=None,
                        help="participant id (repeatable; default: all)")
    parser.add_argument("--models", default=_MODELS, help=f"candidate models (default {_MODELS})")
    parser.add_argument("--samples", type=int, default=30,
                        help="fresh-noise re-decisions per ToM model and decision (default 30)")
    parser.add_argument("--lapse", type=float, default=0.05, help="lapse rate (default 0.05)")
    parser.add_argument("--tokens", default="memory",
                        help="what the player knows of others' tokens: memory (the model's "
                             "token memory on the public moves; default) or exact")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                        help="spec parameter for every ToM model, e.g. project_self=false")
    parser.add_argument("--seed", type=int, default=0, help="inference seed (default 0)")
    parser.add_argument("--practice", action="store_true",
                        help="include the practice block (always on with --validate)")
    parser.add_argument("--processes", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="folder for per-participant likelihood tables (Parquet)")
    parser.add_argument("--out", type=Path, required=True,
                        help="folder for the results (its earlier results are replaced as "
                             "one set)")
    parser.add_argument(UPDATE_SHIPPED, action="store_true",
                        help="--out holds committed results (e.g. figures/inference/default):"
                             " replace that whole set")
    parser.add_argument("--validate", action="store_true",
                        help="simulate players of known type (Table 6 schedule, 24 games "
                             "each) in PATH and report how well their type is recovered")
    parser.add_argument("--per-type", type=int, default=10,
                        help="--validate: simulated players per type (default 10)")
    parser.add_argument("--types", default="ToM0,ToM1,ToM2,random,heuristic",
                        help="--validate: the simulated player types (default all five)")
    parser.add_argument("--player-lapse", type=float, default=0.05,
                        help="--validate: the simulated players' lapse rate (default 0.05)")
    return run


def run(args: argparse.Namespace) -> int:
    from .inference import InferenceError
    if args.path is None:
        raise InferenceError("give the participant folder (or, with --validate, the folder "
                             "for the simulated players)")
    params = _pairs(args.param)
    models = tuple(m.strip() for m in args.models.split(",") if m.strip())
    if args.validate:  # the simulated players are written into PATH
        check_shipped(args.path, "infer", option="PATH",
                      role=" (--validate writes the simulated players there)")
    if args.cache is not None:
        check_shipped(args.cache, "infer", option="--cache")
    check_output(args.out, "infer", "the results", force=True,
                 update_shipped=args.update_shipped)
    with replacing(args.out, RESULT_FILES) as out:  # the whole set, never part of it
        _infer(args, params, models, out)
    print(f"wrote {args.out}")
    return 0


def _infer(args: argparse.Namespace, params: dict[str, str], models: tuple[str, ...],
           out: Path) -> None:
    """Simulate the players (--validate), infer their orders and write the results."""
    from .figures.inference import confusion_heatmap, posterior_trajectories
    from .inference import (
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
                                  processes=args.processes)
    result = infer_order(args.path, chosen, models=models, samples=args.samples,
                         lapse=args.lapse, tokens=args.tokens, params=params, seed=args.seed,
                         practice=args.practice or args.validate, processes=args.processes,
                         cache=args.cache)
    result.decisions.to_parquet(out / "decisions.parquet", index=False)
    result.map_orders().to_csv(out / "map.csv", index=False)
    result.blocks().to_csv(out / "blocks.csv", index=False)
    group = result.group()
    group.to_csv(out / "group.csv", index=False)
    line = settings_line(result.settings)
    (out / "settings.json").write_text(json.dumps(
        {"settings": line, "command": "nothanks " + " ".join(sys.argv[1:])}, indent=2)
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
