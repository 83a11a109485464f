"""Thesis Table 7: one focal model against three models of another order (4 players).

Run: python benchmarks/table7_calibration.py [--games 500] [--games-tom2-tom1 2000]
     [--workers 2] [--params rt=-1.5] [--no-heuristic]

Per design it prints the focal model's win share, its rank distribution, mean rank
points of focal and opponents with a Welch t-test (focal: one value per game;
opponents: three per game, as the thesis's t(909.8) implies), mean tokens held at the
end, and pass shares. Seats rotate (nothanks.runner.play_games). Targets:
ToM1 and ToM2 win >= 40% of games against 3 x ToM0 with p < 0.005; ToM2's mean rank
points exceed 3 x ToM1's over 2,000 games; mean tokens at the end between 8 and 12.
"""
from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy import stats

from nothanks.runner import play_games

THESIS_DESIGNS = (("tom1", "tom0"), ("tom2", "tom0"), ("tom2", "tom1"))
HEURISTIC_DESIGNS = (("tom0", "heuristic"), ("tom1", "heuristic"), ("tom2", "heuristic"))


def with_params(spec: str, params: str) -> str:
    """Append spec parameters to a cognitive model's spec (baselines are left alone)."""
    if not params or not spec.startswith("tom"):
        return spec
    return spec + ("," if ":" in spec else ":") + params


def play_chunk(focal: str, opponent: str, start: int, games: int, seed: int) -> dict:
    """Games ``start .. start+games-1`` of one design, reduced to per-game numbers."""
    specs = [focal, opponent, opponent, opponent]
    out = {key: [] for key in ("focal_rank", "focal_points", "focal_tokens",
                               "opponent_points", "opponent_tokens")}
    passes = {"focal": [0, 0], "opponent": [0, 0]}  # passes, decisions
    began = time.process_time()
    for result in play_games(specs, games, seed, start=start):
        focal_seat = result.agents.index(focal)
        for seat in range(4):
            if seat == focal_seat:
                out["focal_rank"].append(result.ranks[seat])
                out["focal_points"].append(result.rank_points[seat])
                out["focal_tokens"].append(result.tokens[seat])
            else:
                out["opponent_points"].append(result.rank_points[seat])
                out["opponent_tokens"].append(result.tokens[seat])
        for decision in result.decisions:
            who = "focal" if decision[2] == focal_seat else "opponent"
            passes[who][0] += decision[8] == "pass"
            passes[who][1] += 1
    out["passes"] = passes
    out["cpu_seconds"] = time.process_time() - began
    return out


def welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Welch's t-test of a vs b: t, Welch-Satterthwaite df, two-sided p."""
    test = stats.ttest_ind(a, b, equal_var=False)
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    return float(test.statistic), float(df), float(test.pvalue)


def summarize(focal: str, opponent: str, chunks: list[dict]) -> dict:
    merged = {k: np.concatenate([np.asarray(c[k], float) for c in chunks])
              for k in chunks[0] if k not in ("passes", "cpu_seconds")}
    passes = {who: np.sum([c["passes"][who] for c in chunks], axis=0) for who in
              ("focal", "opponent")}
    ranks = merged["focal_rank"]
    t, df, p = welch(merged["focal_points"], merged["opponent_points"])
    return {
        "design": f"{focal} vs 3x{opponent}", "games": len(ranks),
        "win_share": float(np.mean(ranks == 1)),
        "rank_shares": [float(np.mean(ranks == r)) for r in (1, 2, 3, 4)],
        "focal_points": float(merged["focal_points"].mean()),
        "opponent_points": float(merged["opponent_points"].mean()),
        "t": t, "df": df, "p": p,
        "focal_tokens": float(merged["focal_tokens"].mean()),
        "opponent_tokens": float(merged["opponent_tokens"].mean()),
        "focal_pass_share": passes["focal"][0] / passes["focal"][1],
        "opponent_pass_share": passes["opponent"][0] / passes["opponent"][1],
        "cpu_seconds": float(sum(c["cpu_seconds"] for c in chunks)),
    }


def run(designs: list[tuple[str, str, int]], workers: int, seed: int,
        chunk: int = 50) -> list[dict]:
    """Play every design (focal, opponent, games) over ``workers`` processes."""
    jobs = [(focal, opponent, start, min(chunk, games - start), seed)
            for focal, opponent, games in designs for start in range(0, games, chunk)]
    jobs.sort(key=lambda job: -job[3])
    with ProcessPoolExecutor(workers) as pool:
        futures = [(job, pool.submit(play_chunk, *job)) for job in jobs]
        results = [(job, future.result()) for job, future in futures]
    summaries = []
    for focal, opponent, _ in designs:
        parts = [r for (f, o, *_), r in results if (f, o) == (focal, opponent)]
        summaries.append(summarize(focal, opponent, parts))
    return summaries


def report(summary: dict) -> str:
    s = summary
    ranks = " ".join(f"{share:.3f}" for share in s["rank_shares"])
    return (f"{s['design']:40s} n={s['games']:5d}  win {s['win_share']:.3f}  ranks 1-4 "
            f"[{ranks}]  rank points {s['focal_points']:.3f} vs {s['opponent_points']:.3f}  "
            f"t({s['df']:.1f}) = {s['t']:.2f}, p = {s['p']:.2g}  tokens at end "
            f"{s['focal_tokens']:.1f} vs {s['opponent_tokens']:.1f}  pass share "
            f"{s['focal_pass_share']:.3f} vs {s['opponent_pass_share']:.3f}")


def verdicts(summaries: list[dict]) -> list[str]:
    """The issue's targets, checked against the thesis designs."""
    lines = []
    for s in summaries:
        design = s["design"]
        focal, opponent = design.split(" vs 3x")
        if opponent.startswith("tom0") and focal.startswith(("tom1", "tom2")):
            ok = s["win_share"] >= 0.40 and s["p"] < 0.005 and s["t"] > 0
            lines.append(f"{'PASS' if ok else 'FAIL'}  {design}: win share "
                         f"{s['win_share']:.3f} >= 0.40 and p {s['p']:.2g} < 0.005")
        elif opponent.startswith("tom1") and focal.startswith("tom2"):
            ok = s["focal_points"] > s["opponent_points"]
            lines.append(f"{'PASS' if ok else 'FAIL'}  {design}: rank points "
                         f"{s['focal_points']:.3f} > {s['opponent_points']:.3f} "
                         f"(t = {s['t']:.2f}, p = {s['p']:.2g}, n = {s['games']})")
        if not opponent.startswith("heuristic"):
            for who in ("focal", "opponent"):
                tokens = s[f"{who}_tokens"]
                ok = 8 <= tokens <= 12
                lines.append(f"{'PASS' if ok else 'FAIL'}  {design}: {who} mean tokens at "
                             f"end {tokens:.1f} in [8, 12]")
    return lines


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=500, help="games per design (500)")
    parser.add_argument("--games-tom2-tom1", type=int, default=None,
                        help="games for ToM2 vs 3 x ToM1 (default: --games)")
    parser.add_argument("--workers", type=int, default=2, help="processes (2)")
    parser.add_argument("--seed", type=int, default=0, help="root seed (0)")
    parser.add_argument("--params", default="",
                        help="spec parameters for every model, e.g. rt=-1.5,s=0.2")
    parser.add_argument("--no-heuristic", action="store_true",
                        help="skip the ToM models against three heuristic agents")
    args = parser.parse_args(argv)
    designs = []
    for focal, opponent in THESIS_DESIGNS + (() if args.no_heuristic else HEURISTIC_DESIGNS):
        games = args.games
        if (focal, opponent) == ("tom2", "tom1") and args.games_tom2_tom1:
            games = args.games_tom2_tom1
        designs.append((with_params(focal, args.params), with_params(opponent, args.params),
                        games))
    began = time.perf_counter()
    summaries = run(designs, args.workers, args.seed)
    elapsed = time.perf_counter() - began
    for summary in summaries:
        print(report(summary))
    for line in verdicts(summaries):
        print(line)
    cpu = sum(s["cpu_seconds"] for s in summaries)
    print(f"{sum(g for *_, g in designs)} games in {elapsed:.1f} s on {args.workers} "
          f"processes ({cpu:.1f} CPU seconds in the workers; load average "
          f"{os.getloadavg()[0]:.2f})")
    return summaries


if __name__ == "__main__":
    main()
