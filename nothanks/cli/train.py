"""``nothanks train``: self-play training of the AlphaZero-style agent
(:mod:`nothanks.studies.selfplay.train`; docs/alphazero.md, "Training").

Kept apart from the training code so that building the parser imports nothing heavy
(JAX is imported only when a run starts).
"""
from __future__ import annotations

import argparse
import dataclasses
import os

from ..outputs import UPDATE_SHIPPED, check_shipped, fresh_folder
from . import checks
from .base import Runner

#: Most iterations one run may be asked for.
MAX_ITERATIONS = 1_000_000
def configure(parser: argparse.ArgumentParser) -> Runner:
    from ..studies.selfplay.settings import TrainSettings  # no numpy: the defaults only
    d = {f.name: f.default for f in dataclasses.fields(TrainSettings)}
    parser.add_argument("--out", type=checks.folder_to_write, default=None,
                        help="run folder: training.npz (the training state), alphazero.npz "
                             "(the play checkpoint), curve.csv, curve.png; rerun the same "
                             "command on it to resume (default: a new runs/train-<timestamp>)")
    parser.add_argument(UPDATE_SHIPPED, action="store_true",
                        help="--out holds committed results (a shipped checkpoint): train "
                             "there and replace them")
    budget = parser.add_argument_group(
        "budget (required: --iterations, --hours or both; the run stops at the first one "
        "reached; both count the run's iterations and hours in all, resumes included)")
    budget.add_argument("--iterations", type=checks.count(MAX_ITERATIONS), default=None,
                        help="iterations the run should have (default: no limit; --hours "
                             "then required)")
    budget.add_argument("--hours", type=checks.positive_float, default=None,
                        help="hours of training the run should have (an iteration starts "
                             "only if the last one's duration still fits; default: no "
                             "limit; --iterations then required)")
    group = parser.add_argument_group("settings (a run resumes only with the same ones)")
    group.add_argument("--players", type=checks.count(7, "No Thanks! seats", lower=3),
                       default=d["players"], help=f"seats, 3 to 7 (default {d['players']})")
    group.add_argument("--games-per-iteration", type=checks.count(100_000),
                       default=d["games_per_iteration"],
                       help=f"self-play games per iteration (default {d['games_per_iteration']})")
    group.add_argument("--sims", type=checks.count(100_000), default=d["sims"],
                       help=f"PUCT simulations per move, in self-play and the evaluation "
                            f"(default {d['sims']})")
    group.add_argument("--steps-per-iteration", type=checks.count(1_000_000),
                       default=d["steps_per_iteration"],
                       help=f"optimiser steps per iteration (default {d['steps_per_iteration']})")
    group.add_argument("--batch-size", type=checks.count(1_000_000), default=d["batch_size"],
                       help=f"samples per minibatch (default {d['batch_size']})")
    group.add_argument("--buffer", type=checks.count(10_000_000), default=d["buffer"],
                       help=f"replay buffer capacity in samples (decisions), oldest games "
                            f"dropped first (default {d['buffer']:,})")
    group.add_argument("--seed", type=checks.seed, default=d["seed"],
                       help=f"root seed of the run (default {d['seed']})")
    group.add_argument("--tokens", default=d["tokens"], metavar="public|hidden",
                       help="what the network sees of the others' tokens: their counts "
                            "(public) or an estimate, as a seat's view shows (hidden; "
                            f"default {d['tokens']})")
    group.add_argument("--hidden", type=checks.count(4096), default=d["hidden"],
                       help=f"units per hidden layer (default {d['hidden']})")
    group.add_argument("--layers", type=checks.count(16), default=d["layers"],
                       help=f"hidden layers (default {d['layers']})")
    group.add_argument("--trunk", choices=("mlp", "conv"), default=d["trunk"],
                       help="the network's trunk: fully connected layers on the encoding "
                            "(mlp), or seed 004's convolution along each seat's cards plus "
                            "a dense table branch, with batch normalization, before them "
                            f"(conv; default {d['trunk']}; docs/alphazero.md, \"Network\")")
    group.add_argument("--conv-channels", type=checks.count(256), default=d["conv_channels"],
                       help=f"conv trunk: channels of the convolution (default "
                            f"{d['conv_channels']})")
    group.add_argument("--conv-kernel", type=checks.count(33), default=d["conv_kernel"],
                       help=f"conv trunk: the convolution's width in cards, odd (default "
                            f"{d['conv_kernel']})")
    group.add_argument("--table-units", type=checks.count(4096), default=d["table_units"],
                       help=f"conv trunk: units of the table branch (default "
                            f"{d['table_units']})")
    group.add_argument("--learning-rate", type=checks.positive_float,
                       default=d["learning_rate"],
                       help=f"Adam(W) learning rate (default {d['learning_rate']:g})")
    group.add_argument("--eval-every", type=checks.count(MAX_ITERATIONS, lower=0),
                       default=d["eval_every"],
                       help="evaluate against the panel (and gate, with a league) every N "
                            f"iterations (0: never; default {d['eval_every']})")
    group.add_argument("--eval-deals", type=checks.count(10_000), default=d["eval_deals"],
                       help="shared deals per opponent in an evaluation without --panel, "
                            f"each played in every seat rotation (default {d['eval_deals']})")
    group.add_argument("--panel", default=d["panel"], metavar="'DEALS*SPEC; ...'",
                       help="the evaluation panel: fixed opponents with their deals, e.g. "
                            "'25*heuristic; 25*tom1; 10*ismcts:iterations=200' (default: "
                            "random and heuristic at --eval-deals; docs/alphazero.md)")
    group.add_argument("--league", default=d["league"], metavar="'WEIGHT*ENTRY; ...'",
                       help="train against a league: the mixture of the other seats, entries "
                            "self, past (snapshots that passed the gate) or an agent spec, "
                            "e.g. '0.4*self; 0.2*past; 0.2*heuristic; 0.1*tom0; 0.1*tom1' "
                            "(default: pure self-play)")
    group.add_argument("--gate-deals", type=checks.count(10_000), default=d["gate_deals"],
                       help="deals (each in every seat rotation) of the gate a snapshot "
                            f"passes to join the league (default {d['gate_deals']})")
    group.add_argument("--gate-margin", type=float, default=d["gate_margin"],
                       help="first-place share over 1/players a snapshot needs to join the "
                            f"league (default {d['gate_margin']:g})")
    parser.add_argument("--jobs", type=checks.jobs, default=None,
                        help="local worker processes for the games (default: all cores)")
    parser.add_argument("--dask", "--scheduler", dest="dask", metavar="ADDRESS", default=None,
                        help="play the self-play games on a Dask cluster, e.g. "
                             "tcp://scheduler:8786 (default: local processes, --jobs)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    def run(args: argparse.Namespace) -> int:
        from ..studies.selfplay.league import parse_panel
        from ..studies.selfplay.settings import check_budget
        from ..studies.selfplay.train import (
            FIGURE_FILE,
            check_folder,
            curve_frame,
            train,
        )
        check_budget(args.iterations, args.hours)
        settings = TrainSettings(**{name: getattr(args, name) for name in d})
        out = args.out or fresh_folder("train")
        check_shipped(out, "train", update_shipped=args.update_shipped)
        check_folder(out)
        client = None
        if args.dask is not None:
            from ..experiments.run import connect
            client = connect(args.dask)

        def draw(rows: list[dict], folder) -> None:
            from ..figures.selfplay import save_training_curve
            save_training_curve(curve_frame(rows, settings), settings.players, folder / FIGURE_FILE,
                                title=f"Self-play training, {settings.players} players, "
                                      f"{settings.sims} sims")

        try:
            report = train(settings, out, iterations=args.iterations, hours=args.hours,
                           jobs=args.jobs or os.cpu_count() or 1, client=client,
                           progress=not args.no_progress, on_curve=draw)
        finally:
            if client is not None:
                client.close()
        how = (f"resumed at iteration {report.resumed_at}" if report.resumed_at
               else "started afresh")
        print(f"{out}: {report.iteration} iteration{'s' * (report.iteration != 1)} "
              f"({report.iterations_now} now, {how}), "
              f"{report.games} games, {report.samples} samples in the buffer, "
              f"{report.seconds:.1f} s of training")
        if report.curve:
            last = report.curve[-1]
            print(f"last iteration: loss {last['loss']:.4f} (policy {last['policy_loss']:.4f}"
                  f", value {last['value_loss']:.4f})")
        panel = [e.who for e in parse_panel(settings.panel, settings.eval_deals)]
        evaluated = [row for row in report.curve if row.get(f"n_vs_{panel[0]}")]
        if evaluated:
            row = evaluated[-1]
            shares = ", ".join(
                f"{row[f'first_vs_{o}']:.3f} [{row[f'first_low_vs_{o}']:.3f}, "
                f"{row[f'first_high_vs_{o}']:.3f}] vs {o} ({row[f'n_vs_{o}']} games)"
                for o in panel)
            print(f"last evaluation (iteration {row['iteration']}), first-place share: {shares}")
        print("wrote " + ", ".join(str(p) for p in [*report.files, out / FIGURE_FILE]))
        return 0
    return run
