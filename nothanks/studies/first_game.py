"""Is the instance-based learner's slope a first-game effect? A replication on fresh seeds.

Plays ``trials`` trials of ``games`` games of one learner (focal, spec index 0) against
three fixed opponents with :func:`nothanks.play.runner.play_trial` (trial *k* of root
``seed``; seats rotate as in every design, the learner carries what it learns within a
trial) and writes :func:`nothanks.analysis.learning.first_game_effect` of the learner's
rank points, plus the per-game rows it read::

    python -m nothanks.studies.first_game --out data/learning --seed 913031 --trials 200

(docs/learning.md quotes ``data/learning/first_game.csv``.)
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

#: The learner and its opponents (the ``learning`` design's ``ibl vs 3 ToM0`` table).
SPECS = ("ibl:carry=true", "tom0", "tom0", "tom0")


def play(trials: int, games: int, seed: int, specs=SPECS) -> pd.DataFrame:
    """One row per (trial, game): the focal learner's rank points."""
    from ..play.runner import play_trial, seating
    rows = []
    for trial in range(trials):
        records = play_trial(list(specs), games, seed=seed, trial=trial, record=False)
        for game, record in enumerate(records):
            seat = seating(specs, game).index(0)
            rows.append({"trial": trial, "game": game,
                         "rank_points": float(record.rank_points[seat])})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    from ..analysis.learning import first_game_effect
    from ..files import atomic_write_bytes

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="folder of the tables")
    parser.add_argument("--seed", type=int, default=913031, help="root seed (913031)")
    parser.add_argument("--trials", type=int, default=200, help="trials (200)")
    parser.add_argument("--games", type=int, default=10, help="games per trial (10)")
    args = parser.parse_args(argv)
    focal = play(args.trials, args.games, args.seed)
    table = first_game_effect(focal)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(table.to_csv(index=False, float_format="%.6g").encode(),
                       args.out / "first_game.csv")
    atomic_write_bytes((json.dumps(
        {"specs": list(SPECS), "seed": args.seed, "trials": args.trials,
         "games": args.games}, indent=1) + "\n").encode(), args.out / "first_game.json")
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
