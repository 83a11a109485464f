"""Our IS-MCTS (``ismcts``) against OpenSpiel's (``openspiel-ismcts``), side by side.

Run: python benchmarks/openspiel_ismcts.py [--sims 25] [--deals 14] [--jobs 2] [--seed 31]
     [--calibrate-deals 2] [--out runs/openspiel-ismcts]

Four-player tables of two of ours against two of theirs, seated ABAB and BABA on every
deal (each side holds every seat once per deal; deal i is the same cards in every
comparison). Three comparisons:

- ``equal sims``: ``ismcts:iterations=N`` (our defaults: model play-outs, opponents
  inferred) against ``openspiel-ismcts:sims=N``;
- ``equal sims, random play-outs``: ``ismcts:iterations=N,rollout=random``: the same
  play-out policy as theirs, so the difference is the search itself;
- ``equal CPU``: ``ismcts:iterations=M`` with M set so that our CPU per decision
  matches theirs at N sims. M comes from a calibration run first: ours at 1,000
  iterations against theirs at N sims, in the same games (so under the same machine load),
  on ``--calibrate-deals`` other deals; M = 1,000 x (their CPU a decision) / (ours).

Every decision of every game is timed too (CPU of the deciding process; forced takes,
with no tokens, are not searched and not counted), so the table shows both absolute CPU
figures per comparison. First-place shares count ties for first; their 95% intervals
resample whole deals (``nothanks.analysis.paired.cluster_share``: the four player-games
of one side on one deal are not independent), and the difference ours - theirs is a
paired bootstrap over deals (``paired_difference``).

Writes ``games.csv`` (one row per player-game) and ``summary.md`` under ``--out``.
"""
from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from nothanks.analysis.paired import cluster_share, paired_difference
from nothanks.rules import Variant
from nothanks.studies import headtohead
from nothanks.studies.headtohead import Seating

THEIRS = "openspiel-ismcts"
OURS = "ismcts"
#: Our iterations timed in the calibration (the equal-CPU count scales from it).
CALIBRATION_ITERATIONS = 1000
SEATINGS = ("ABAB", "BABA")


def play_deal(task: tuple[str, str, str, int, int]) -> list[dict]:
    """Both seatings of one deal for one comparison; a row per player-game."""
    comparison, ours, theirs, seed, deal = task
    seatings = [Seating(tuple(ours if side == "A" else theirs for side in seating),
                        tuple("ours" if side == "A" else "theirs" for side in seating))
                for seating in SEATINGS]
    rows = headtohead.play_deal(seatings, seed, deal, comparison, Variant())
    return [{**row, "seating": SEATINGS[row["seating"]]} for row in rows]


def warm_up() -> None:
    """Load the compiled search and OpenSpiel in a worker (one untimed game), so no
    timed decision pays for it."""
    play_deal(("warm-up", f"{OURS}:iterations=10", f"{THEIRS}:sims=2", 0, 0))


def calibrate(sims: int, deals: int, seed: int, pool: ProcessPoolExecutor) -> dict:
    """CPU seconds per searched decision of ours at :data:`CALIBRATION_ITERATIONS` and
    theirs at ``sims``, playing each other (both seatings) on ``deals`` deals other than
    the measured ones (seed + 1), and the iterations that give ours their CPU."""
    ours = f"{OURS}:iterations={CALIBRATION_ITERATIONS}"
    tasks = [("calibration", ours, f"{THEIRS}:sims={sims}", seed + 1, deal)
             for deal in range(deals)]
    games = pd.DataFrame([row for rows in pool.map(play_deal, tasks) for row in rows])
    cpu = games.groupby("side")[["cpu", "decisions"]].sum()
    per = cpu["cpu"] / cpu["decisions"]
    return {"ours_1000": float(per["ours"]), "theirs": float(per["theirs"]),
            "iterations": max(1, round(CALIBRATION_ITERATIONS * per["theirs"] / per["ours"]))}


def summarize(games: pd.DataFrame) -> pd.DataFrame:
    """Per comparison and side: first-place share (deal-clustered CI), mean rank points,
    CPU per decision; and the paired difference in first-place share, ours - theirs."""
    rows = []
    games = games.assign(first=(games["rank"] == 1).astype(int))
    for comparison, part in games.groupby("comparison", sort=False):
        per_deal = part.groupby(["deal", "side"])["first"].agg(["sum", "size"]).unstack()
        out = {"comparison": comparison, "deals": len(per_deal)}
        for side in ("ours", "theirs"):
            mine = part[part["side"] == side]
            share, low, high = cluster_share(per_deal[("sum", side)].to_numpy(),
                                             per_deal[("size", side)].to_numpy())
            out[f"{side}_spec"] = mine["spec"].iloc[0]
            out[f"{side}_first"] = (share, low, high)
            out[f"{side}_rank_points"] = mine["rank_points"].mean()
            out[f"{side}_ms"] = 1000 * mine["cpu"].sum() / mine["decisions"].sum()
        diff = paired_difference(
            (per_deal[("sum", "ours")] / per_deal[("size", "ours")]).to_numpy(),
            (per_deal[("sum", "theirs")] / per_deal[("size", "theirs")]).to_numpy())
        out["difference"] = (diff["difference"], diff["boot_ci_low"], diff["boot_ci_high"])
        rows.append(out)
    return pd.DataFrame(rows)


def markdown(summary: pd.DataFrame, command: str, calibration: dict[str, float]) -> str:
    def pct(triple: tuple[float, float, float]) -> str:
        share, low, high = triple
        return f"{100 * share:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"

    lines = [f"`{command}`", "",
             f"Calibration: ours {1000 * calibration['ours_1000']:.1f} ms CPU a decision at "
             f"{CALIBRATION_ITERATIONS} iterations, theirs {1000 * calibration['theirs']:.1f} "
             f"ms; equal CPU: {calibration['iterations']} iterations.", "",
             "| comparison | ours | theirs | deals | ours first [95% CI] | theirs first "
             "[95% CI] | ours - theirs [95% CI] | rank points ours / theirs | CPU ms a "
             "decision ours / theirs |",
             "|---|---|---|---:|---|---|---|---|---|"]
    for _, r in summary.iterrows():
        d, low, high = r["difference"]
        lines.append(
            f"| {r['comparison']} | `{r['ours_spec']}` | `{r['theirs_spec']}` | {r['deals']} "
            f"| {pct(r['ours_first'])} | {pct(r['theirs_first'])} | {100 * d:+.1f} pp "
            f"[{100 * low:+.1f}, {100 * high:+.1f}] | {r['ours_rank_points']:.2f} / "
            f"{r['theirs_rank_points']:.2f} | {r['ours_ms']:.1f} / {r['theirs_ms']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=25)
    parser.add_argument("--deals", type=int, default=14)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--calibrate-deals", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("runs/openspiel-ismcts"))
    args = parser.parse_args(argv)
    if args.sims < 1 or args.deals < 2 or args.jobs < 1 or args.calibrate_deals < 1:
        parser.error("--sims, --jobs and --calibrate-deals must be >= 1, --deals >= 2")
    started = time.perf_counter()
    pool = ProcessPoolExecutor(args.jobs, initializer=warm_up)
    calibration = calibrate(args.sims, args.calibrate_deals, args.seed, pool)
    print(f"calibration: {calibration}", flush=True)
    theirs = f"{THEIRS}:sims={args.sims}"
    comparisons = [
        ("equal sims", f"{OURS}:iterations={args.sims}"),
        ("equal sims, random play-outs", f"{OURS}:iterations={args.sims},rollout=random"),
        ("equal CPU", f"{OURS}:iterations={calibration['iterations']}"),
    ]
    tasks = [(name, ours, theirs, args.seed, deal)
             for deal in range(args.deals) for name, ours in comparisons]
    rows: list[dict] = []
    with pool:
        for done, part in enumerate(pool.map(play_deal, tasks), start=1):
            rows += part
            if done % len(comparisons) == 0:
                print(f"deal {done // len(comparisons)}/{args.deals} "
                      f"({time.perf_counter() - started:.0f} s)", flush=True)
    games = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    games.to_csv(args.out / "games.csv", index=False)
    command = (f"python benchmarks/openspiel_ismcts.py --sims {args.sims} --deals "
               f"{args.deals} --jobs {args.jobs} --seed {args.seed} --calibrate-deals "
               f"{args.calibrate_deals}")
    text = markdown(summarize(games), command, calibration)
    text += f"\nWall time {time.perf_counter() - started:.0f} s.\n"
    (args.out / "summary.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
