"""Pools of games between identical players, for the placebo calibration of our tests.

A *placebo* table seats four copies of one agent spec and calls one seat the focal
model: every difference a test finds there is a false positive. This module plays such
tables and keeps only what the tests read (every seat's rank points and place), so
:mod:`nothanks.analysis.placebo` can run each reported test on many sets of the
thesis's size and count how often it rejects at 5%.

Game *i* of a pool is game *i* of ``play_games([spec] * 4, seed=seed)``: its deal and its
seating (the focal seat, spec index 0, rotates over the seats as in every design) come
from the root seed and *i* only. A *replay* pool plays the same deals with the same
seating but other agent seeds (``agent_seed(deal seed, seat, offset=101)``), so the focal seat
of game *i* in the pool and in its replay is a pair on a shared deal: the placebo of
the paired-deals test, where two conditions differ only in the agents' noise.

Pools are written in chunks of :data:`CHUNK` games (``chunk_00000.npz``, ...) and a
rerun resumes at the first missing chunk::

    python -m nothanks.studies.placebo --spec tom0 --games 500000 \\
        --out data/cache/placebo/tom0-seed2026 --seed 2026
    python -m nothanks.studies.placebo --spec tom0 --games 100000 --replay \\
        --out data/cache/placebo/tom0-seed2026-replay --seed 2026
    python -m nothanks.studies.placebo --summarize data/cache/placebo/tom0-seed2026 \\
        --replay-pool data/cache/placebo/tom0-seed2026-replay --name tom0 --out data/placebo

One process, by design (the shared machine's other work keeps the second core).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

#: Games per chunk file.
CHUNK = 5_000
#: Seat offset of a replay's agent seeds (the pool's own are 1 + seat).
REPLAY_OFFSET = 101


def focal_seats(start: int, games: int, players: int = 4) -> np.ndarray:
    """The seat of spec index 0 (the focal model) in games ``start ..`` of a rotating run
    (:func:`nothanks.play.runner.seating`: seat s holds spec (s + i) mod n)."""
    index = np.arange(start, start + games)
    return (-index) % players


def play_chunk(spec: str, start: int, games: int, seed: int, replay: bool = False
               ) -> dict[str, np.ndarray]:
    """Games ``start .. start+games-1``: rank points x 2 and places per seat (int8),
    the focal seat, and the deal seed of each game."""
    from ..agents import make_agent
    from ..play.runner import GameToPlay, play_games, play_planned
    from ..rules import Variant
    from ..rules.seeding import derive_seeds

    points = np.empty((games, 4), np.int8)
    ranks = np.empty((games, 4), np.int8)
    deals = np.empty(games, np.uint64)
    if not replay:
        records = play_games([spec] * 4, games, seed, start=start, record=False)
    else:
        variant = Variant()
        pool = [make_agent(spec) for _ in range(4)]
        seeds = derive_seeds([(seed, i) for i in range(start, start + games)])
        planned = (GameToPlay(start + k, s, pool) for k, s in enumerate(seeds))
        records = (record for _, record in play_planned(planned, variant, record=False,
                                                        seat_offset=REPLAY_OFFSET))
    for k, record in enumerate(records):
        doubled = np.rint(2 * np.asarray(record.rank_points, float))
        if not np.allclose(doubled, 2 * np.asarray(record.rank_points, float)):
            raise ValueError(f"game {start + k}: rank points {record.rank_points} are not "
                             "multiples of 0.5")
        points[k] = doubled
        ranks[k] = record.ranks
        deals[k] = record.seed
    return {"points2": points, "ranks": ranks, "focal": focal_seats(start, games).astype(np.int8),
            "deal": deals}


def play_pool(spec: str, games: int, out: Path, seed: int, replay: bool = False,
              progress: bool = True) -> Path:
    """Play (or resume) a pool of ``games`` games into ``out``; see the module docstring."""
    out.mkdir(parents=True, exist_ok=True)
    meta = out / "pool.txt"
    text = f"spec={spec}\nseed={seed}\nreplay={replay}\nchunk={CHUNK}\n"
    if meta.exists() and meta.read_text() != text:
        raise ValueError(f"{out}: a pool of other settings is there:\n{meta.read_text()}")
    meta.write_text(text)
    began = time.perf_counter()
    for number, start in enumerate(range(0, games, CHUNK)):
        path = out / f"chunk_{number:05d}.npz"
        if path.exists():
            continue
        chunk = play_chunk(spec, start, min(CHUNK, games - start), seed, replay)
        partial = path.with_suffix(".tmp.npz")
        np.savez_compressed(partial, **chunk)
        partial.rename(path)
        if progress:
            print(f"{start + len(chunk['focal'])} games, {time.perf_counter() - began:.0f} s",
                  flush=True)
    return out


def load_pool(directory: Path) -> dict[str, np.ndarray]:
    """Every chunk of a pool, in game order: ``rank_points`` (games x 4, float),
    ``ranks``, ``focal`` (seat) and ``deal``."""
    paths = sorted(Path(directory).glob("chunk_[0-9]*.npz"))
    paths = [p for p in paths if not p.name.endswith(".tmp.npz")]
    if not paths:
        raise FileNotFoundError(f"{directory}: no pool chunks")
    parts = [np.load(p) for p in paths]
    return {"rank_points": np.concatenate([p["points2"] for p in parts]).astype(float) / 2,
            "ranks": np.concatenate([p["ranks"] for p in parts]).astype(np.int64),
            "focal": np.concatenate([p["focal"] for p in parts]).astype(np.int64),
            "deal": np.concatenate([p["deal"] for p in parts])}


def summarize(pool: Path, out: Path, name: str, replay: Path | None = None,
              set_games: int = 500, note: str = "") -> Path:
    """Every test on every set of a pool (:func:`nothanks.analysis.placebo.placebo_table`),
    written to ``out/<name>.csv`` with what was played in ``out/<name>.json``: the files
    ``make figures`` reads for results.md's placebo table."""
    import json

    from ..analysis.placebo import placebo_table

    games = load_pool(pool)
    again = load_pool(replay) if replay is not None else None
    table = placebo_table(games, set_games, again)
    settings = dict(line.split("=", 1) for line in (pool / "pool.txt").read_text().split())
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / f"{name}.csv", index=False, float_format="%.6g")
    meta = {"spec": settings["spec"], "seed": int(settings["seed"]), "set_games": set_games,
            "sets": len(table), "games": int(len(table) * set_games),
            "replay_sets": int(table["p_paired_deals"].notna().sum())
            if "p_paired_deals" in table else 0, "note": note}
    (out / f"{name}.json").write_text(json.dumps(meta, indent=1) + "\n")
    return out / f"{name}.csv"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spec", default="tom0", help="the agent in every seat (tom0)")
    parser.add_argument("--games", type=int, help="games in the pool")
    parser.add_argument("--out", type=Path, required=True,
                        help="pool folder (with --summarize: the folder of the tables)")
    parser.add_argument("--seed", type=int, default=2026, help="root seed (2026)")
    parser.add_argument("--replay", action="store_true",
                        help="the same deals and seating with other agent seeds")
    parser.add_argument("--summarize", type=Path, metavar="POOL",
                        help="run every test on the sets of POOL instead of playing")
    parser.add_argument("--replay-pool", type=Path, help="with --summarize: its replay")
    parser.add_argument("--name", help="with --summarize: the tables' file name")
    parser.add_argument("--note", default="", help="with --summarize: how it was made")
    args = parser.parse_args(argv)
    if args.summarize:
        print(summarize(args.summarize, args.out, args.name or args.summarize.name,
                        args.replay_pool, note=args.note))
        return
    if args.games is None:
        parser.error("--games is required to play a pool")
    play_pool(args.spec, args.games, args.out, args.seed, args.replay)


if __name__ == "__main__":
    main()
