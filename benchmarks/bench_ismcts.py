"""The ismcts search opponent: CPU time per decision and playing strength.

Run: python benchmarks/bench_ismcts.py [--part speed|strength|sweep|probe|all] [--games 1000]
     [--sweep-games 200] [--sweep-values 250 1000 4000] [--sweep-opponents tom2 heuristic]
     [--jobs 2] [--out data/bench/ismcts]
     [--probe-specs ismcts ismcts:ratio=0.3 ...] [--probe-games 200] [--probe-seed 99]

Targets: at the default budget, <= 200 ms CPU per decision on one core; with 4 players,
1,000 games on paired deals, a first-place share >= 50% against 3 x heuristic and
>= 45% against 3 x tom2 (parity 25%).

- speed: plays ``--speed-games`` games of the default ismcts against 3 x heuristic in
  this process and times every decision it searches (``time.process_time``: CPU of this
  single-threaded process; forced takes are not searched and not counted; one untimed
  decision first loads the compiled rules and builds the model table, which takes a
  second or so once per process).
- strength: one design (``run_design``, common random numbers: game i of every table
  is the same deal and seating) with ismcts in the focal seat against 3 x heuristic and
  3 x tom2, and for a paired baseline 4 x heuristic (a heuristic in the focal seat;
  tom2's own baseline is left out to save time: parity is 25% plus ties). First-place share of
  the focal player (ties for first count, as in the log's ``rank``) with a Wilson 95%
  interval, and the per-deal difference to the baseline with a bootstrap interval.
- sweep: the same two tables with the focal ismcts's ``iterations`` swept (fewer games).
- probe: for tuning on deals other than the strength run's (seed 2026): each of
  ``--probe-specs`` against 3 x ``--probe-opponent`` in this process (``play_games``,
  rotated seats, the same deals for every spec); not part of ``all``.

Run directories are resumable: re-running with the same --out continues or just reports.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import pandas as pd

from nothanks.agents import make_agent
from nothanks.analysis.paired import focal_by_deal, paired_conditions, wilson_interval
from nothanks.experiments.design import Design
from nothanks.experiments.log import load
from nothanks.experiments.run import run_design
from nothanks.play.runner import game_seed, play_game, play_games, seating
from nothanks.rules import Game, Variant

SPEC = "ismcts"
#: Opponents (tom2 first: a run cut short has its games first) and first-place targets.
TARGETS = {"tom2": 0.45, "heuristic": 0.50}
OPPONENTS = tuple(TARGETS)
SWEEP = (250, 1000, 4000)


def speed(games: int, spec: str = SPEC, seed: int = 11) -> dict[str, float]:
    """CPU milliseconds per searched decision of ``spec`` against 3 x heuristic (after
    one untimed decision that loads the compiled rules and builds any tables)."""
    warm, game = make_agent(spec), Game(Variant(), seed)
    warm.start(0, game.variant, seed)
    for event in game.history:
        warm.observe(event)
    warm.decide(game.view(0))
    agent = make_agent(spec)
    decide = agent.decide
    times: list[float] = []

    def timed(view):
        start = time.process_time()
        action = decide(view)
        if view.own_tokens:
            times.append(1000 * (time.process_time() - start))
        return action

    agent.decide = timed
    specs = [spec, "heuristic", "heuristic", "heuristic"]
    for index in range(games):
        order = seating(specs, index)
        players = [agent if i == 0 else make_agent("heuristic") for i in order]
        play_game(players, Variant(), game_seed(seed, index), index)
    times.sort()
    return {"decisions": len(times), "mean_ms": statistics.fmean(times),
            "median_ms": statistics.median(times),
            "p95_ms": times[int(0.95 * (len(times) - 1))], "max_ms": times[-1]}


def tables(spec: str, baseline: bool, opponents: tuple[str, ...] = OPPONENTS) -> list[dict]:
    """Each opponent with ``spec`` in the focal seat, and (``baseline``) 4 x heuristic."""
    out = []
    for opponent in opponents:
        focal = [spec] + ([opponent] if baseline and opponent == "heuristic" else [])
        for player in focal:
            out.append({"label": f"{player} vs {opponent}",
                        "players": [opponent] * 3 + [player], "focal": 3})
    return out


def strength_design(games: int, seed: int = 2026) -> Design:
    return Design.from_dict({"name": "bench-ismcts", "seed": seed, "games": games,
                             "rotate": True, "tables": tables(SPEC, baseline=True)})


def sweep_design(games: int, values: tuple[int, ...] = SWEEP,
                 opponents: tuple[str, ...] = OPPONENTS, seed: int = 2027) -> Design:
    return Design.from_dict({
        "name": "bench-ismcts-sweep", "seed": seed, "games": games, "rotate": True,
        "tables": tables(SPEC, baseline=False, opponents=opponents),
        "sweeps": [{"parameter": "iterations", "values": list(values), "agents": "focal"}]})


def probe(spec: str, opponent: str, games: int, seed: int) -> dict[str, float]:
    """First-place share (Wilson 95%) and mean rank points of ``spec`` against
    3 x ``opponent`` in ``games`` games of ``play_games`` with ``seed``."""
    wins, points = 0, 0.0
    for record in play_games([spec, opponent, opponent, opponent], games, seed=seed,
                             record=False):
        seat = next(i for i, agent in enumerate(record.agents) if agent == spec)
        wins += record.ranks[seat] == 1
        points += record.rank_points[seat]
    low, high = wilson_interval(wins, games)
    return {"first": wins / games, "ci_low": low, "ci_high": high,
            "rank_points": points / games}


def first_place(games: pd.DataFrame, conditions: pd.DataFrame) -> pd.DataFrame:
    """Per condition: focal first-place share with its Wilson 95% interval."""
    rows = []
    for condition, label in conditions[["condition", "label"]].itertuples(index=False):
        focal = focal_by_deal(games, condition)
        wins, n = int(focal["win"].sum()), len(focal)
        low, high = wilson_interval(wins, n)
        rows.append({"condition": condition, "table": label, "games": n,
                     "first": wins / n, "ci_low": low, "ci_high": high,
                     "rank_points": focal["rank_points"].mean()})
    return pd.DataFrame(rows)


def run(design: Design, out: Path, jobs: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    started = time.perf_counter()
    summary = run_design(design, out, jobs=jobs, progress=False)
    print(f"{design.name}: {summary.played} games played, {summary.skipped} already there, "
          f"{time.perf_counter() - started:.0f} s wall with {jobs} processes", flush=True)
    log = load(out)
    return log.games, log.conditions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("speed", "strength", "sweep", "probe", "all"),
                        default="all")
    parser.add_argument("--speed-games", type=int, default=10)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--sweep-games", type=int, default=200)
    parser.add_argument("--sweep-values", type=int, nargs="+", default=list(SWEEP))
    parser.add_argument("--sweep-opponents", nargs="+", default=list(OPPONENTS),
                        choices=OPPONENTS)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("data/bench/ismcts"))
    parser.add_argument("--probe-specs", nargs="+", default=[SPEC])
    parser.add_argument("--probe-opponent", default="tom2")
    parser.add_argument("--probe-games", type=int, default=200)
    parser.add_argument("--probe-seed", type=int, default=99)
    args = parser.parse_args(argv)
    pd.set_option("display.width", 140)
    if args.part in ("speed", "all"):
        result = speed(args.speed_games)
        print(f"speed ({SPEC}, {args.speed_games} games vs 3 x heuristic): "
              + ", ".join(f"{k} {v:.1f}" for k, v in result.items())
              + f"  (target mean <= 200 ms: {'met' if result['mean_ms'] <= 200 else 'MISSED'})")
    if args.part in ("strength", "all"):
        games, conditions = run(strength_design(args.games), args.out / "strength", args.jobs)
        table = first_place(games, conditions)
        print(table.to_string(index=False, float_format="{:.3f}".format))
        index = dict(zip(table["table"], table["condition"], strict=True))
        for opponent, target in TARGETS.items():
            searched = index[f"{SPEC} vs {opponent}"]
            share = table.loc[table["condition"] == searched, "first"].item()
            text = (f"vs 3 x {opponent}: first {share:.3f} (target >= {target:.2f}: "
                    f"{'met' if share >= target else 'MISSED'})")
            baseline = index.get(f"{opponent} vs {opponent}")
            if baseline is not None:
                paired = paired_conditions(games, searched, baseline)
                text += (f"; paired on {paired['deals']} deals, minus {opponent} in the "
                         f"same seat: {paired['win_difference']:+.3f} "
                         f"[{paired['win_ci_low']:+.3f}, {paired['win_ci_high']:+.3f}]")
            print(text)
    if args.part in ("sweep", "all"):
        design = sweep_design(args.sweep_games, tuple(args.sweep_values),
                              tuple(args.sweep_opponents))
        games, conditions = run(design, args.out / "sweep", args.jobs)
        print(first_place(games, conditions).to_string(index=False,
                                                       float_format="{:.3f}".format))

    if args.part == "probe":
        for spec in args.probe_specs:
            result = probe(spec, args.probe_opponent, args.probe_games, args.probe_seed)
            print(f"{spec} vs 3 x {args.probe_opponent} ({args.probe_games} games, seed "
                  f"{args.probe_seed}): first {result['first']:.3f} [{result['ci_low']:.3f}, "
                  f"{result['ci_high']:.3f}], rank points {result['rank_points']:.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
