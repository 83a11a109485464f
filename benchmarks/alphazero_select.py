"""Pick the self-play snapshot to ship, on deals the training never evaluated on.

Self-play alone drifts: a network that plays well against itself can play worse against
players unlike itself (docs/alphazero.md, "Training"). The trainer keeps every evaluated
network as ``snapshots/alphazero-<iteration>.npz`` and scores it in ``curve.csv`` against
3 heuristic players on the run's own evaluation deals. Choosing the best of many by those
same games would flatter it (the maximum of noisy scores), so this script takes the
``--candidates`` best by the curve's mean rank points against the heuristic, replays each
against 3 x ``--opponent`` at ``--sims`` simulations on fresh deals (``--seed``, shared by
all candidates, every seat rotation), and copies the best by mean rank points to
``--ship``. The final claim about the shipped network comes from a third set of deals
(``benchmarks/alphazero_eval.py`` with another seed).

    python benchmarks/alphazero_select.py --run data/selfplay --candidates 5 --deals 60 \
        --seed 7 --ship data/selfplay/alphazero.npz
"""
from __future__ import annotations

import argparse
import shutil
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from nothanks.studies.headtohead import focal_seatings, interval, percent, play_deal, side_summary


def candidates(run: Path, count: int) -> list[tuple[int, Path, float]]:
    """The ``count`` snapshots with the highest mean rank points against the heuristic in
    the run's curve: (iteration, path, curve points)."""
    curve = pd.read_csv(run / "curve.csv")
    scored = curve.dropna(subset=["points_vs_heuristic"])
    if scored.empty:
        raise SystemExit(f"{run / 'curve.csv'} has no evaluation rows (train with --eval-every)")
    best = scored.sort_values(["points_vs_heuristic", "iteration"],
                              ascending=[False, True]).head(count)
    out = []
    for row in best.itertuples():
        path = run / "snapshots" / f"alphazero-{int(row.iteration):06d}.npz"
        if not path.is_file():
            raise SystemExit(f"snapshot {path} named by curve.csv is missing")
        out.append((int(row.iteration), path, float(row.points_vs_heuristic)))
    return out


def _play(task: tuple[str, str, int, int]) -> list[dict]:
    focal, opponent, seed, deal = task
    return play_deal(focal_seatings(focal, opponent), seed, deal, comparison=focal)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=Path("data/selfplay"))
    parser.add_argument("--candidates", type=int, default=5)
    parser.add_argument("--deals", type=int, default=60)
    parser.add_argument("--sims", type=int, default=100)
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--ship", type=Path, default=None,
                        help="copy the chosen snapshot here (default: only report)")
    args = parser.parse_args(argv)
    if args.candidates < 1 or args.deals < 2 or args.sims < 1 or args.jobs < 1:
        parser.error("--candidates, --sims and --jobs must be >= 1 and --deals >= 2")
    started = time.perf_counter()
    chosen = candidates(args.run, args.candidates)
    specs = {it: f"alphazero:sims={args.sims},checkpoint={path}" for it, path, _ in chosen}
    work = [(spec, args.opponent, args.seed, deal) for spec in specs.values()
            for deal in range(args.deals)]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = [row for part in pool.map(_play, work) for row in part]
    games = pd.DataFrame(rows)
    lines = ["| iteration | curve points | first place, fresh deals | rank points, fresh deals |",
             "| --- | --- | --- | --- |"]
    results = []
    for iteration, _path, curve_points in chosen:
        summary = side_summary(games[games["comparison"] == specs[iteration]], "focal")
        results.append((summary["rank_points"][0], iteration))
        lines.append(f"| {iteration} | {curve_points:.2f} | {percent(summary['first'])} | "
                     f"{interval(summary['rank_points'])} |")
    best_points, best = max(results)
    text = (f"Candidates against 3 x {args.opponent} at {args.sims} simulations, {args.deals} "
            f"deals (seed {args.seed}) x 4 seatings; 95% intervals clustered by deal.\n\n"
            + "\n".join(lines) + f"\n\nChosen: iteration {best} ({best_points:.2f} rank "
            f"points). Wall {time.perf_counter() - started:.0f} s.\n")
    print(text)
    if args.ship is not None:
        source = dict((it, path) for it, path, _ in chosen)[best]
        shutil.copyfile(source, args.ship)
        print(f"copied {source} to {args.ship}")


if __name__ == "__main__":
    main()
