"""Move quality on a sample against the full grading: does each sampled estimate's 95% CI
hold the full grading's value?

Run: python benchmarks/quality_sample.py [--cache data/cache] [--jobs 2] [--write]
     python benchmarks/quality_sample.py --cost GAMES

The reference is the last full grading the single ``make figures`` build made (1,000
IS-MCTS iterations, heuristic rollouts, seed 0; every free decision of 200 table7 games
and of the 30 synthetic participants: 109,609 free decisions), kept in
``data/move-quality/full-grading-<source>.csv``. This script grades the sample
``nothanks studies move-quality`` grades (:data:`nothanks.studies.move_quality.QUALITY_SAMPLE`
free decisions per player type, seeded, of the same decisions), at the same settings,
into ``--cache`` (so the study then reuses every estimate), and prints per source and
label: the full grading's mean EV loss (rank points) and share of moves losing more than
0.1, the sample's with its 95% CI (cluster bootstrap over games: the sampling of
decisions is inside it), and whether the CI holds the full value. ``--write`` writes the
table to ``data/move-quality/sample-check.csv`` (checked by tests/integration/test_move_quality.py).
``--cost GAMES`` instead measures the grader's cost: it grades every decision of GAMES
participant games (drawn with seed 0; no cache) in this one process at the study's
settings and prints the CPU ms per graded decision (replaying the game included). It
needs table7's full log in the cache (``make figures`` plays it) and the shipped
participant set. The sample's searches use new seeds where a decision's key changed
(table7's design hash changed with its control table), so their search noise is new
too, and inside the CI.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pandas as pd

from nothanks import experiments as ex
from nothanks.analysis import ev_loss_table
from nothanks.studies.move_quality import (
    QUALITY_ITERATIONS,
    QUALITY_SAMPLE,
    grade_moves,
    move_quality,
)

REFERENCE = Path("data/move-quality")
#: The per-label summaries compared, as (column, its CI columns).
MEASURES = (("loss_rp", "loss_rp_ci_low", "loss_rp_ci_high"),
            ("costly_share", "costly_ci_low", "costly_ci_high"))


def check_table(sampled: dict[str, pd.DataFrame], reference: Path = REFERENCE
                ) -> pd.DataFrame:
    """One row per source, label and measure: the full grading's value (from
    ``reference/full-grading-<source>.csv``) beside the sample's with its CI and
    ``inside`` (whether the CI holds the full value)."""
    rows = []
    for source, graded in sampled.items():
        full = pd.read_csv(reference / f"full-grading-{source}.csv").set_index("agent_label")
        sample = ev_loss_table(graded, "agent_label").set_index("agent_label")
        for label in full.index:
            for measure, low, high in MEASURES:
                value = float(full.loc[label, measure])
                s = sample.loc[label]
                rows.append({"source": source, "label": label, "measure": measure,
                             "full_decisions": int(full.loc[label, "decisions"]),
                             "full_value": value, "sample_decisions": int(s["decisions"]),
                             "sample_value": float(s[measure]), "ci_low": float(s[low]),
                             "ci_high": float(s[high]),
                             "full_ci_low": float(full.loc[label, low]),
                             "full_ci_high": float(full.loc[label, high]),
                             "inside": bool(s[low] <= value <= s[high])})
    return pd.DataFrame(rows)


def cost(games: int) -> pd.DataFrame:
    """CPU ms per decision of the study's grading (one process, no cache) on ``games``
    participant games; printed, and returned as a one-row table."""
    people = ex.load_cached(ex.ensure_participants(None, Path("data/cache")))
    move_quality(people, games=1, iterations=QUALITY_ITERATIONS)  # numba compiles here
    start = time.process_time()
    graded = move_quality(people, games=games, iterations=QUALITY_ITERATIONS)
    seconds = time.process_time() - start
    row = pd.DataFrame([{"games": games, "decisions": len(graded),
                         "cpu_s": seconds, "cpu_ms_per_decision": 1000 * seconds / len(graded),
                         "iterations": QUALITY_ITERATIONS}])
    print(row.to_string(index=False))
    print(f"load average after: {os.getloadavg()}")
    return row


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=Path("data/cache"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--write", action="store_true",
                        help=f"write {REFERENCE}/sample-check.csv")
    parser.add_argument("--cost", type=int, default=None, metavar="GAMES",
                        help="measure the CPU per graded decision on GAMES participant games")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()}  cores: {os.cpu_count()}")
    if args.cost is not None:
        return cost(args.cost)
    table7 = ex.load_cached(ex.ensure_design("table7", args.cache, progress=False,
                                             jobs=args.jobs))
    people = ex.load_cached(ex.ensure_participants(None, args.cache))
    start = time.perf_counter()
    graded = grade_moves(table7, people, args.cache, jobs=args.jobs)
    seconds = time.perf_counter() - start
    searched = sum(int(g["graded"].sum()) for g in graded.values())
    table = check_table(graded)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    print(f"sample: {QUALITY_SAMPLE} free decisions per label; {searched} decisions graded "
          f"in {seconds:.0f} s on {args.jobs} processes (cached ones are not searched "
          f"again); every CI holds the full value: {bool(table['inside'].all())}")
    print(f"load average after: {os.getloadavg()}")
    if args.write:
        table.to_csv(REFERENCE / "sample-check.csv", index=False, float_format="%.6g")
    return table


if __name__ == "__main__":
    main()
