"""Games per second of the rules engine with baseline agents, on one core.

Run: python benchmarks/bench_engine.py [--games N] [--parts]
Targets: >= 2,000 games/s for four random agents.

``--parts`` also prints where a game of four random agents (decisions recorded) spends
its CPU time: the seeds, the generators' seeding, the deal, the agents' start, the
decisions, the game's record and freeing the finished game, each timed over the same games.
"""
from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from nothanks.agents import make_agent
from nothanks.play.match import Match
from nothanks.play.runner import play_games
from nothanks.rules import Variant, deal, reseed
from nothanks.rules.seeding import derive_seeds

TARGET_RANDOM = 2000.0


def games_per_second(specs: list[str], games: int, record: bool) -> float:
    """Best of three runs, CPU time (the machine is shared; the best run is the least
    disturbed, and CPU time is disturbed less than wall time)."""
    best = float("inf")
    for repeat in range(3):
        start = time.process_time()
        for _ in play_games(specs, games, seed=repeat, record=record):
            pass
        best = min(best, time.process_time() - start)
    return games / best


def _cpu_us(work: Callable[[], object], games: int) -> float:
    """Best of three CPU times of ``work`` (covering ``games`` games), µs per game."""
    best = float("inf")
    for _ in range(3):
        began = time.process_time()
        work()
        best = min(best, time.process_time() - began)
    return 1e6 * best / games


def parts(games: int) -> list[tuple[str, float]]:
    """CPU µs per game of each part of a four-random-agent game, decisions recorded.

    The games are played one after the other as ``play_games`` plays them (each match
    dropped when done: thousands of live matches would make the garbage collector's
    passes, and so every part, slower), with the clock read between the parts.
    """
    variant, pool = Variant(), [make_agent("random") for _ in range(4)]
    seeds = derive_seeds([(0, index) for index in range(games)])
    per_seat = derive_seeds([(seed, 1 + seat) for seed in seeds for seat in range(4)])
    rng = random.Random(0)
    clock = time.process_time_ns
    best = [float("inf")] * 4
    decisions = 0
    for _ in range(3):
        spent = [0, 0, 0, 0]
        decisions = 0
        match = None
        for index, seed in enumerate(seeds):
            began = clock()
            match = None  # the previous game's objects freed
            freed = clock()
            match = Match(pool, variant, seed, game_id=index,
                          agent_seeds=per_seat[4 * index:4 * index + 4])
            ready = clock()
            match.run()
            played = clock()
            match.record()
            spent[0] += ready - freed
            spent[1] += played - ready
            spent[2] += clock() - played
            spent[3] += freed - began
            decisions += len(match.decisions)
        best = [min(b, s / 1000 / games) for b, s in zip(best, spent, strict=True)]
    rows = [
        ("game and agent seeds (derive_seeds, 5 per game)", _cpu_us(
            lambda: derive_seeds([(s, 1 + k) for s in seeds for k in range(-1, 4)]), games)),
        ("generator seeding alone, 5 per game (C, random.Random)", _cpu_us(
            lambda: [reseed(rng, seed) for seed in per_seat + seeds], games)),
        ("deal alone (its seeding included)", _cpu_us(
            lambda: [deal(variant, seed) for seed in seeds], games)),
        ("match set-up: 4 agent starts and the deal (5 seedings)", best[0]),
        (f"play: {decisions / games:.1f} decisions, recorded, and the game record",
         best[1]),
        ("of which the game record", best[2]),
        ("freeing a finished game (its events, views, records)", best[3]),
    ]
    for name, value in rows:
        print(f"  {name:62s} {value:8.1f} µs per game")
    return rows


def main(argv: list[str] | None = None) -> list[tuple[str, float, str]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--parts", action="store_true",
                        help="also time the parts of a random-agent game")
    args = parser.parse_args(argv)
    rows = []
    for label, specs in (("random x4", ["random"] * 4), ("heuristic x4", ["heuristic"] * 4)):
        for record in (False, True):
            rate = games_per_second(specs, args.games, record)
            target = TARGET_RANDOM if label.startswith("random") else None
            verdict = "" if target is None else ("PASS" if rate >= target else "FAIL")
            name = f"{label}, decisions {'recorded' if record else 'not recorded'}"
            rows.append((name, rate, verdict))
            print(f"{name:42s} {rate:10,.0f} games/s   "
                  f"{f'target >= {int(target)} ' if target else ''}{verdict}")
    if args.parts:
        print("where a game of four random agents goes (CPU, best of 3):")
        parts(args.games)
    return rows


if __name__ == "__main__":
    main()
