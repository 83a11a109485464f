"""Pools of games between identical players, for the placebo calibration of our tests.

A *placebo* table seats four copies of one agent spec and calls one seat the focal
model: every difference a test finds there is a false positive. This module plays such
tables and keeps only what the tests read (every seat's rank points and place), so
:mod:`nothanks.analysis.placebo` can run each reported test on many sets of the
thesis's size and count how often it rejects at 5%.

Game *i* of a pool is game *i* of ``play_games([spec] * 4, seed=seed)``: its deal and its
seating (the focal seat, spec index 0, rotates over the seats as in every design) come
from the root seed and *i* only. A *replay* pool plays the same deals with the same
seating but other agent seeds (``agent_seed(deal seed, seat, offset=101)``). A
*focal-key* replay (``--focal-keys``) changes only the focal seat's seed and keeps every
other seat's: the placebo of the paired-deals test in the case it is used in, two arms
on the same deals and opponents that differ only where the focal model's moves differ
(:func:`nothanks.analysis.placebo.paired_placebo_table`). ``--opponents`` seats another
spec in the three other seats (ToM1 against three ToM0, as in the instance-set study).

Pools are written in chunks of :data:`CHUNK` games (``chunk_00000.npz``, ...) and a
rerun resumes at the first missing chunk. The whole plan (:data:`PLAN`: random, ToM0
and ToM1-vs-ToM0 pools and their focal-key replays) and its tables::

    python -m nothanks.studies.placebo --plan --out data/cache/placebo
    python -m nothanks.studies.placebo --summarize data/cache/placebo/tom0-seed2026 \\
        --name tom0 --out data/placebo
    python -m nothanks.studies.placebo --summarize-paired data/cache/placebo \\
        --out data/placebo

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


#: What a pool's agent seeds are: ``pool`` the run's own (``agent_seed(deal, seat)``),
#: ``replay`` every seat's from :data:`REPLAY_OFFSET`, ``focal`` only the focal seat's
#: from :data:`REPLAY_OFFSET` (every other seat keeps the pool's: the paired-deals
#: placebo of the instance-set comparisons, whose arms differ only in the focal model).
KEYS = ("pool", "replay", "focal")


def seat_specs(spec: str, opponents: str | None = None) -> list[str]:
    """The four specs of a pool: ``spec`` (index 0, the focal model) and three
    ``opponents`` (default: ``spec`` again, a table of identical players)."""
    return [spec] + [opponents or spec] * 3


def play_chunk(spec: str, start: int, games: int, seed: int, replay: bool = False, *,
               opponents: str | None = None, keys: str | None = None
               ) -> dict[str, np.ndarray]:
    """Games ``start .. start+games-1``: rank points x 2 and places per seat (int8),
    the focal seat, and the deal seed of each game. ``keys`` (default ``replay`` when
    ``replay`` else ``pool``): whose agent seeds are the pool's (:data:`KEYS`)."""
    from ..agents import make_agent
    from ..play.batch import batchable, play_batch
    from ..play.batch import enabled as batch_enabled
    from ..play.match import Match
    from ..play.runner import play_games, seating
    from ..rules import Variant
    from ..rules.seeding import derive_seeds

    keys = keys or ("replay" if replay else "pool")
    if keys not in KEYS:
        raise ValueError(f"keys {keys!r}: give one of {', '.join(KEYS)}")
    specs = seat_specs(spec, opponents)
    points = np.empty((games, 4), np.int8)
    ranks = np.empty((games, 4), np.int8)
    deals = np.empty(games, np.uint64)
    focal = focal_seats(start, games)
    if keys == "pool":
        records = play_games(specs, games, seed, start=start, record=False)
    else:
        variant = Variant()
        pool = [make_agent(s) for s in specs]
        indices = range(start, start + games)
        seeds = derive_seeds([(seed, i) for i in indices])
        own = derive_seeds([(s, 1 + seat) for s in seeds for seat in range(4)])
        other = derive_seeds([(s, REPLAY_OFFSET + seat) for s in seeds for seat in range(4)])
        agent_seeds = []
        for k in range(games):
            row = other[4 * k:4 * k + 4] if keys == "replay" else own[4 * k:4 * k + 4]
            row = list(row)
            row[focal[k]] = other[4 * k + focal[k]]
            agent_seeds.append(row)
        seated = [[pool[i] for i in seating(specs, index)] for index in indices]
        if batchable(pool) and batch_enabled():
            records = play_batch(seated, variant, seeds, agent_seeds, list(indices), False)
        else:
            records = (Match(seated[k], variant, s, game_id=start + k,
                             agent_seeds=agent_seeds[k]).run(False)
                       for k, s in enumerate(seeds))
    for k, record in enumerate(records):
        doubled = np.rint(2 * np.asarray(record.rank_points, float))
        if not np.allclose(doubled, 2 * np.asarray(record.rank_points, float)):
            raise ValueError(f"game {start + k}: rank points {record.rank_points} are not "
                             "multiples of 0.5")
        points[k] = doubled
        ranks[k] = record.ranks
        deals[k] = record.seed
    return {"points2": points, "ranks": ranks, "focal": focal.astype(np.int8), "deal": deals}


def play_pool(spec: str, games: int, out: Path, seed: int, replay: bool = False,
              progress: bool = True, *, opponents: str | None = None,
              keys: str | None = None) -> Path:
    """Play (or resume) a pool of ``games`` games into ``out``; see the module docstring."""
    keys = keys or ("replay" if replay else "pool")
    out.mkdir(parents=True, exist_ok=True)
    meta = out / "pool.txt"
    text = f"spec={spec}\nseed={seed}\nreplay={keys == 'replay'}\nchunk={CHUNK}\n"
    if opponents and opponents != spec:
        text += f"opponents={opponents}\n"
    if keys == "focal":
        text += "keys=focal\n"
    if meta.exists() and meta.read_text() != text:
        raise ValueError(f"{out}: a pool of other settings is there:\n{meta.read_text()}")
    meta.write_text(text)
    began = time.perf_counter()
    for number, start in enumerate(range(0, games, CHUNK)):
        path = out / f"chunk_{number:05d}.npz"
        if path.exists():
            continue
        chunk = play_chunk(spec, start, min(CHUNK, games - start), seed,
                           opponents=opponents, keys=keys)
        partial = path.with_suffix(".tmp.npz")
        np.savez_compressed(partial, **chunk)
        partial.rename(path)
        if progress:
            print(f"{out.name}: {start + len(chunk['focal'])} games, "
                  f"{time.perf_counter() - began:.0f} s", flush=True)
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
    written to ``out/<name>.csv`` with what was played in ``out/<name>.json`` (the files
    ``make figures`` reads for results.md's placebo table) and the rates in
    ``out/<name>_rates.csv`` (the table the docs quote)."""
    import json

    from ..analysis.placebo import placebo_rates, placebo_table

    games = load_pool(pool)
    again = load_pool(replay) if replay is not None else None
    table = placebo_table(games, set_games, again)
    settings = dict(line.split("=", 1) for line in (pool / "pool.txt").read_text().split())
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / f"{name}.csv", index=False, float_format="%.6g")
    rates = placebo_rates(table).drop(columns=["name", "used"])
    rates.to_csv(out / f"{name}_rates.csv", index=False, float_format="%.6g")
    meta = {"spec": settings["spec"], "seed": int(settings["seed"]), "set_games": set_games,
            "sets": len(table), "games": int(len(table) * set_games),
            "replay_sets": int(table["p_paired_deals"].notna().sum())
            if "p_paired_deals" in table else 0, "note": note}
    (out / f"{name}.json").write_text(json.dumps(meta, indent=1) + "\n")
    return out / f"{name}.csv"


#: The focal models of the paired-deals placebo: name -> (focal spec, opponents' spec).
#: ToM1 sits against three ToM0, as in the instance-set comparisons' ``vs 3 x ToM0``.
FOCAL_MODELS = {"random": ("random", None), "tom0": ("tom0", None),
                "tom1-vs-tom0": ("tom1", "tom0")}
#: The staged plan of :func:`run_plan`: (pool name, games in the pool, games in its
#: focal-key replay), in order; each stage resumes where the chunks stop, so a killed
#: run loses at most one chunk per pool.
PLAN = (("random", 1_000_000, 100_000),
        ("tom0", 40_000, 40_000), ("tom1-vs-tom0", 40_000, 40_000),
        ("tom0", 100_000, 100_000), ("tom1-vs-tom0", 100_000, 100_000),
        ("tom0", 500_000, 0))


def pool_folder(cache: Path, name: str, seed: int, keys: str = "pool") -> Path:
    """Where :func:`run_plan` keeps pool ``name``: ``<cache>/<name>-seed<seed>`` and
    ``...-focal`` for its focal-key replay."""
    return cache / (f"{name}-seed{seed}" + ("-focal" if keys == "focal" else ""))


def run_plan(cache: Path, seed: int = 2026, plan=PLAN, progress: bool = True) -> None:
    """Play every stage of ``plan`` (:data:`PLAN`) into ``cache``: the placebo pools the
    ``--summarize-all`` tables read. Resumable: rerun the same command after a kill."""
    for name, games, focal_games in plan:
        spec, opponents = FOCAL_MODELS[name]
        play_pool(spec, games, pool_folder(cache, name, seed), seed, progress=progress,
                  opponents=opponents)
        if focal_games:
            play_pool(spec, focal_games, pool_folder(cache, name, seed, "focal"), seed,
                      progress=progress, opponents=opponents, keys="focal")


def summarize_paired(cache: Path, out: Path, seed: int = 2026, note: str = "") -> Path:
    """The paired-deals placebo of every focal model of :data:`FOCAL_MODELS` whose pool
    and focal-key replay are in ``cache`` (:func:`run_plan`): every set's p-values in
    ``out/paired_deals.csv``, the rates in ``out/paired_deals_rates.csv`` and what was
    played in ``out/paired_deals.json``."""
    import json

    import pandas as pd

    from ..analysis.placebo import (
        focal_and_opponents,
        paired_differences,
        paired_placebo_rates,
        paired_placebo_table,
    )

    tables, rates, meta = [], [], {"seed": seed, "note": note, "models": {}}
    for name, (spec, opponents) in FOCAL_MODELS.items():
        pool, focal = (pool_folder(cache, name, seed, keys) for keys in ("pool", "focal"))
        if not (any(pool.glob("chunk_[0-9]*.npz")) and any(focal.glob("chunk_[0-9]*.npz"))):
            continue
        games, again = load_pool(pool), load_pool(focal)
        differences = paired_differences(games, again)
        arm, _ = focal_and_opponents(games["rank_points"][:len(differences)],
                                     games["focal"][:len(differences)])
        table = paired_placebo_table(differences)
        table.insert(0, "model", name)
        tables.append(table)
        rates.append(paired_placebo_rates(table).assign(model=name))
        meta["models"][name] = {"spec": spec, "opponents": opponents or spec,
                                "paired_deals": int(len(differences)),
                                "arms_correlation": round(float(np.corrcoef(
                                    arm, arm + differences)[0, 1]), 3)}
    if not tables:
        raise FileNotFoundError(f"{cache}: no focal-key replay pools")
    out.mkdir(parents=True, exist_ok=True)
    pd.concat(tables).to_csv(out / "paired_deals.csv", index=False, float_format="%.6g")
    columns = ["model", *[c for c in rates[0].columns if c != "model"]]
    pd.concat(rates)[columns].to_csv(out / "paired_deals_rates.csv", index=False,
                                     float_format="%.6g")
    (out / "paired_deals.json").write_text(json.dumps(meta, indent=1) + "\n")
    return out / "paired_deals_rates.csv"


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
    parser.add_argument("--opponents", help="the agent in the three other seats "
                        "(default: --spec again)")
    parser.add_argument("--focal-keys", action="store_true",
                        help="replay with other seeds for the focal seat only")
    parser.add_argument("--summarize-paired", type=Path, metavar="CACHE",
                        help="the paired-deals placebo of the plan's pools in CACHE, "
                        "into --out (data/placebo)")
    parser.add_argument("--plan", action="store_true",
                        help="play every pool of the staged plan (PLAN) into --out "
                        "(data/cache/placebo); resumable")
    args = parser.parse_args(argv)
    if args.plan:
        run_plan(args.out, args.seed)
        return
    if args.summarize_paired:
        print(summarize_paired(args.summarize_paired, args.out, args.seed, args.note))
        return
    if args.summarize:
        print(summarize(args.summarize, args.out, args.name or args.summarize.name,
                        args.replay_pool, note=args.note))
        return
    if args.games is None:
        parser.error("--games is required to play a pool")
    play_pool(args.spec, args.games, args.out, args.seed, args.replay,
              opponents=args.opponents, keys="focal" if args.focal_keys else None)


if __name__ == "__main__":
    main()
