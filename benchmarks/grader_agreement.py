"""The network grader against IS-MCTS grading (issue 32, "Fast grader"), side by side.

Run: python benchmarks/grader_agreement.py [--log data/synthetic] [--games 40]
     [--checkpoint data/selfplay/alphazero.npz] [--iterations 1000] [--seed 32]
     [--out runs/grader-agreement]

On a held-out sample of logged decisions (``--games`` games drawn reproducibly from
``--log``; default the shipped synthetic participant sessions, which ``make figures``
grades in full and which no self-play game has seen), every decision is graded twice by
:func:`nothanks.studies.move_quality.move_quality`: by IS-MCTS with ``make figures``'
settings (``--iterations`` split evenly between take and pass, heuristic play-outs) and
by the value network of ``--checkpoint``. Reported on the free (unforced) decisions:

- Spearman's rank correlation of the two graders' EV losses (rank points), and of the
  signed gaps (chosen minus other move), each with a 95% bootstrap interval that
  resamples whole games (decisions of one game are not independent);
- how often the two graders name the same better move;
- the same for IS-MCTS with another seed (the ceiling: how well the reference agrees
  with itself at this budget) and for an untrained network of the checkpoint's shape
  (``init_weights``): the floor that the shape alone reaches (most free moves have zero
  EV loss by both graders, which lifts the rank correlation of EV losses even without
  any knowledge);
- CPU ms per decision, measured alternately game by game in one process (the same
  machine load for both): end to end (``move_quality`` on one game, replay included)
  and the grader alone (the search, or the network's evaluation, on the same states).

The bar, set in advance: ``make figures`` may switch to the network grader
(``nothanks.studies.move_quality.QUALITY_GRADER``) only if Spearman on EV loss is >= 0.8; the cost
target is the network >= 50x cheaper per decision.

Writes ``decisions.csv`` (both graders' estimates per decision), ``summary.md`` and
``summary.csv`` (:func:`agreement_table`) under ``--out``; prints the markdown table.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from nothanks.analysis.frames import condition_variants, game_key
from nothanks.analysis.move_quality import GAME_COLUMNS
from nothanks.analysis.paired import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from nothanks.experiments import load
from nothanks.play.replay import logged_moves, replay_logged_game
from nothanks.search import root_state, search
from nothanks.studies.move_quality import DEFAULT_CHECKPOINT, NetworkGrader, move_quality

#: The bar for letting the network grade in make figures (set before any measurement).
SPEARMAN_BAR = 0.8
#: The cost target: the network grader this many times cheaper per decision.
COST_TARGET = 50.0
#: IS-MCTS settings of make studies (nothanks.studies.move_quality.QUALITY_ITERATIONS,
#: heuristic, c 0.7).
ISMCTS = {"c": 0.7, "rollout": "heuristic", "seed": 0}


def game_frames(log, games: int, seed: int) -> list[pd.DataFrame]:
    """``games`` games of the log's decisions, drawn reproducibly from ``seed``."""
    grouped = [part for _, part in log.decisions.groupby(game_key(log.decisions),
                                                         dropna=False, sort=True)]
    if games > len(grouped):
        raise SystemExit(f"--games {games}: the log has only {len(grouped)} games")
    pick = np.random.default_rng(seed).permutation(len(grouped))[:games]
    return [grouped[i].sort_values("turn") for i in sorted(pick)]


def views(log, frame: pd.DataFrame):
    """The decision-maker's view at each decision of one game (the log replayed)."""
    first = frame.iloc[0]
    variant = condition_variants(log.conditions)[(first.get("design_hash"),
                                                  int(first["condition"]))]
    moves = logged_moves(frame.to_dict("records"))
    for step in replay_logged_game(moves, variant, int(first["seed"]),
                                   where=f"game {first['game_id']}"):
        yield step.view


def grader_only(log, frame: pd.DataFrame, grader: NetworkGrader, iterations: int
                ) -> tuple[float, float, int]:
    """CPU seconds of the search and of the network on the free decisions of one game
    (the same states, alternating decision by decision), and how many there were."""
    ismcts = network = 0.0
    count = 0
    for view in views(log, frame):
        if view.own_tokens == 0:
            continue
        state = root_state(view)
        before = time.process_time()
        search(state, iterations=iterations, root="even", **ISMCTS)
        middle = time.process_time()
        grader.estimates(state)
        ismcts += middle - before
        network += time.process_time() - middle
        count += 1
    return ismcts, network, count


def untrained_twin(checkpoint: Path, folder: Path) -> Path:
    """An untrained network of the checkpoint's shape (``init_weights``, seed 0), written
    into ``folder``: the floor of agreement that the network's shape alone gives."""
    from nothanks.search.network import init_weights, load_checkpoint, save_checkpoint

    _, config, _ = load_checkpoint(checkpoint)
    path = folder / "untrained.npz"
    save_checkpoint(path, init_weights(config, 0), config, {"untrained": True})
    return path


#: The graders compared with IS-MCTS (seed 0), by column suffix: the network, IS-MCTS
#: with another seed (the ceiling: how well IS-MCTS agrees with itself), and the untrained
#: twin (the floor).
OTHERS = ("network", "reseeded", "untrained")


def grade(log, frames: list[pd.DataFrame], checkpoint: Path, iterations: int,
          untrained: Path) -> tuple[pd.DataFrame, dict[str, float]]:
    """Every grader's estimates joined per decision (columns suffixed ``_ismcts`` and
    ``_<name>`` for :data:`OTHERS`) and the CPU seconds IS-MCTS and the network took."""
    grader = NetworkGrader(checkpoint)
    state = root_state(next(views(log, frames[0])))
    grader.estimates(state)  # warm-up: the compiled kernels load untimed
    search(state, iterations=10)
    cpu = dict.fromkeys(("ismcts", "network", "ismcts_alone", "network_alone"), 0.0)
    cpu["alone_decisions"] = 0
    estimates = ["take_rp", "pass_rp", "best", "gap_rp", "loss_rp"]
    parts = []
    for number, frame in enumerate(frames, start=1):
        before = time.process_time()
        by_search = move_quality(log, decisions=frame, iterations=iterations, **ISMCTS)
        middle = time.process_time()
        by_network = move_quality(log, decisions=frame, grader="network",
                                  checkpoint=checkpoint)
        cpu["ismcts"] += middle - before
        cpu["network"] += time.process_time() - middle
        others = {"network": by_network,
                  "reseeded": move_quality(log, decisions=frame, iterations=iterations,
                                           **{**ISMCTS, "seed": ISMCTS["seed"] + 1}),
                  "untrained": move_quality(log, decisions=frame, grader="network",
                                            checkpoint=untrained)}
        alone = grader_only(log, frame, grader, iterations)
        cpu["ismcts_alone"] += alone[0]
        cpu["network_alone"] += alone[1]
        cpu["alone_decisions"] += alone[2]
        keys = [c for c in (*GAME_COLUMNS, "turn") if c in by_search.columns]
        joined = by_search.rename(columns={c: f"{c}_ismcts" for c in estimates})
        for name, graded in others.items():
            joined = joined.merge(graded[[*keys, *estimates]].rename(
                columns={c: f"{c}_{name}" for c in estimates}), on=keys,
                validate="one_to_one")
        parts.append(joined)
        print(f"game {number}/{len(frames)}: {len(frame)} decisions", flush=True)
    return pd.concat(parts, ignore_index=True), cpu


def spearman_by_games(a: np.ndarray, b: np.ndarray, games: np.ndarray,
                      resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
                      ) -> tuple[float, float, float]:
    """Spearman's rho of ``a`` and ``b`` with a 95% percentile bootstrap interval that
    resamples whole games (``games`` labels each value's game)."""
    rho = float(stats.spearmanr(a, b).statistic)
    labels = np.unique(games)
    members = [np.flatnonzero(games == g) for g in labels]
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(resamples):
        index = np.concatenate([members[i] for i in rng.integers(0, len(labels),
                                                                 len(labels))])
        value = stats.spearmanr(a[index], b[index]).statistic
        if np.isfinite(value):
            draws.append(value)
    low, high = np.quantile(draws, [0.025, 0.975]) if draws else (np.nan, np.nan)
    return rho, float(low), float(high)


def summarize(table: pd.DataFrame, cpu: dict[str, float], resamples: int = 1000) -> dict:
    """Agreement with IS-MCTS on the free decisions, per grader of :data:`OTHERS` (the
    intervals from ``resamples`` game resamples), and cost per decision (see the module
    docstring)."""
    free = table[~table["forced"].fillna(False).astype(bool)]
    games = free.groupby([c for c in GAME_COLUMNS if c in free.columns],
                         dropna=False).ngroup().to_numpy()

    def rho(column: str, name: str) -> tuple[float, float, float]:
        return spearman_by_games(free[f"{column}_ismcts"].to_numpy(float),
                                 free[f"{column}_{name}"].to_numpy(float), games,
                                 resamples=resamples)

    agreement = {name: {"loss": rho("loss_rp", name), "gap": rho("gap_rp", name),
                        "same_best": float((free["best_ismcts"]
                                            == free[f"best_{name}"]).mean())}
                 for name in OTHERS}
    decisions = len(table)
    ms = {name: 1000 * cpu[name] / decisions for name in ("ismcts", "network")}
    alone = max(int(cpu["alone_decisions"]), 1)
    ms_alone = {name: 1000 * cpu[f"{name}_alone"] / alone for name in ("ismcts", "network")}
    return {"games": int(games.max() + 1), "decisions": decisions, "free": len(free),
            "agreement": agreement,
            "zero_loss": (float((free["loss_rp_ismcts"] == 0).mean()),
                          float((free["loss_rp_network"] == 0).mean())),
            "mean_loss": (float(free["loss_rp_ismcts"].mean()),
                          float(free["loss_rp_network"].mean())),
            "ms": ms, "ms_alone": ms_alone, "alone_decisions": alone}


def agreement_table(s: dict) -> pd.DataFrame:
    """:func:`summarize`'s agreement as a table: one row per grader of :data:`OTHERS`
    and measure (Spearman of the EV losses, of the signed gaps, with their intervals
    beside them; the same-better-move share), the table docs/alphazero.md quotes."""
    rows = []
    for name in OTHERS:
        agree = s["agreement"][name]
        for measure in ("loss", "gap"):
            value, low, high = agree[measure]
            rows.append({"grader": name, "measure": f"spearman_{measure}", "value": value,
                         "ci_low": low, "ci_high": high})
        rows.append({"grader": name, "measure": "same_best", "value": agree["same_best"],
                     "ci_low": float("nan"), "ci_high": float("nan")})
    return pd.DataFrame(rows).assign(games=s["games"], free=s["free"])


def markdown(s: dict, command: str, checkpoint: Path, digest: str) -> str:
    def rho(triple: tuple[float, float, float]) -> str:
        return f"{triple[0]:.3f} [{triple[1]:.3f}, {triple[2]:.3f}]"

    ratio = s["ms"]["ismcts"] / s["ms"]["network"]
    ratio_alone = s["ms_alone"]["ismcts"] / s["ms_alone"]["network"]
    agree = s["agreement"]
    bar = "met" if agree["network"]["loss"][0] >= SPEARMAN_BAR else "not met"
    cost = "met" if ratio_alone >= COST_TARGET else "not met"
    lines = [f"`{command}`", "",
             f"Checkpoint `{checkpoint}` (sha256 {digest[:12]}); {s['games']} games, "
             f"{s['decisions']} decisions ({s['free']} free).", "",
             "| measure | IS-MCTS | network |", "|---|---:|---:|",
             f"| mean EV loss, free decisions (rank points) | {s['mean_loss'][0]:.3f} | "
             f"{s['mean_loss'][1]:.3f} |",
             f"| CPU ms a decision, end to end (replay + grading) | {s['ms']['ismcts']:.2f} | "
             f"{s['ms']['network']:.3f} |",
             f"| CPU ms a free decision, grader alone | {s['ms_alone']['ismcts']:.2f} | "
             f"{s['ms_alone']['network']:.3f} |",
             f"| free decisions with zero EV loss | {100 * s['zero_loss'][0]:.1f}% | "
             f"{100 * s['zero_loss'][1]:.1f}% |", "",
             "| agreement with IS-MCTS, seed 0 (free decisions; 95% CI, games resampled) "
             "| network | IS-MCTS, seed 1 (ceiling) | untrained twin (floor) |",
             "|---|---|---|---|",
             "| Spearman, EV loss | " + " | ".join(rho(agree[n]["loss"]) for n in OTHERS)
             + " |",
             "| Spearman, gap chosen - other | "
             + " | ".join(rho(agree[n]["gap"]) for n in OTHERS) + " |",
             "| same better move | "
             + " | ".join(f"{100 * agree[n]['same_best']:.1f}%" for n in OTHERS) + " |", "",
             f"Cost ratio IS-MCTS / network: {ratio:.0f}x end to end, {ratio_alone:.0f}x "
             "for the grader alone.", "",
             f"Bar for make figures (Spearman on EV loss >= {SPEARMAN_BAR}): **{bar}**. "
             f"Cost target (network >= {COST_TARGET:.0f}x cheaper, grader alone): "
             f"**{cost}**."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    from nothanks.studies.move_quality import file_sha256

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, default=Path("data/synthetic"))
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--out", type=Path, default=Path("runs/grader-agreement"))
    args = parser.parse_args(argv)
    if args.games < 3 or args.iterations < 2:
        parser.error("--games must be >= 3 and --iterations >= 2")
    if not args.checkpoint.is_file():
        parser.error(f"--checkpoint {args.checkpoint} is not a file (train one with "
                     "`nothanks train`)")
    started = time.perf_counter()
    log = load(args.log)
    frames = game_frames(log, args.games, args.seed)
    with tempfile.TemporaryDirectory() as folder:
        untrained = untrained_twin(args.checkpoint, Path(folder))
        table, cpu = grade(log, frames, args.checkpoint, args.iterations, untrained)
    summary = summarize(table, cpu)
    command = (f"python benchmarks/grader_agreement.py --log {args.log} --games {args.games} "
               f"--checkpoint {args.checkpoint} --iterations {args.iterations} "
               f"--seed {args.seed}")
    text = markdown(summary, command, args.checkpoint, file_sha256(args.checkpoint))
    text += f"\nWall time {time.perf_counter() - started:.0f} s.\n"
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "decisions.csv", index=False)
    (args.out / "summary.md").write_text(text)
    agreement_table(summary).to_csv(args.out / "summary.csv", index=False,
                                    float_format="%.6g")
    print(text)


if __name__ == "__main__":
    main()
