"""benchmarks/alphazero_eval.py: the focal agent holds every seat of a shared deal, each
distinct pairing is played once, and the targets are judged on deal-clustered intervals."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from helpers import load_benchmark


def test_tasks_play_each_pairing_once_with_the_focal_agent_in_every_seat(tmp_path):
    bench = load_benchmark("alphazero_eval")
    net = Path("net.npz")
    work = bench.tasks(net, deals=3, openspiel_deals=1, seed=5)
    pairs = {(f, o) for f, o, *_ in work}
    # 8 opponents at 100 sims + sims 10/25/50/200 against heuristic (100 is shared)
    assert len(pairs) == len(bench.OPPONENTS) + len(bench.SIMS_CURVE) - 1
    openspiel = [t for t in work if t[1] == bench.OPENSPIEL_UCT]
    assert len(openspiel) == 4 and work[:4] == openspiel  # 1 deal x 4 seats, first
    assert len(work) == 4 + 4 * 3 * (len(pairs) - 1)
    rows = pd.DataFrame(bench.play(("heuristic", "random", 5, 0, 2)))  # cheap stand-ins
    assert list(rows["side"]) == ["opponent", "opponent", "focal", "opponent"]
    assert (rows["seating"] == 2).all() and rows["spec"].iloc[2] == "heuristic"
    from nothanks.search.network import NetworkConfig, init_weights, save_checkpoint
    config = NetworkConfig(players=4, hidden=8, layers=1)
    save_checkpoint(tmp_path / "net.npz", init_weights(config, 0), config, {})
    bench.warm_up(tmp_path / "net.npz")  # the workers' initializer plays one game


def test_the_targets_are_judged_on_the_intervals():
    bench = load_benchmark("alphazero_eval")
    net = Path("net.npz")
    rows = []
    played = set()
    for name, focal, opponent in bench.conditions(net):
        if (focal, opponent) in played:  # sims=100 vs heuristic: the heuristic games
            continue
        played.add((focal, opponent))
        for deal in range(6):
            for seat in range(4):
                first = name == "random" or (name == "heuristic" and deal % 2 == 0)
                for s in range(4):
                    mine = s == seat
                    rank = (1 if first else 2) if mine else (2 if first else 1)
                    rows.append({"comparison": f"{focal} vs {opponent}", "deal": deal,
                                 "seating": seat, "seat": s,
                                 "side": "focal" if mine else "opponent",
                                 "rank": rank, "rank_points": 3.0 if rank == 1 else 1.0,
                                 "cpu": 0.01, "decisions": 10})
    summary = bench.summarize(pd.DataFrame(rows), net).set_index("condition")
    assert summary.loc["random", "holds"] and summary.loc["random", "first"][0] == 1.0
    heuristic = summary.loc["heuristic"]  # half the deals won: 50% [0, 100] by deal
    assert heuristic["first"][0] == 0.5 and not heuristic["holds"]
    assert not summary.loc["UCT-100 (ours)", "holds"] and summary.loc["ToM1", "target"] == ""
    assert summary.loc["sims=100 vs heuristic", "first"] == heuristic["first"]
    text = bench.markdown(summary.reset_index(), "cmd")
    assert "| random | `random` | 6 | 24 | 100.0% [" in text and "(b) holds" in text
    from nothanks.studies.headtohead import flat_table
    flat = flat_table(summary.reset_index())  # summary.csv: each interval beside its value
    share, low, high = heuristic["first"]
    assert list(flat.columns[flat.columns.str.startswith("first")]) == [
        "first", "first_ci_low", "first_ci_high"]
    row = flat.set_index("condition").loc["heuristic"]
    assert (row["first"], row["first_ci_low"], row["first_ci_high"]) == (share, low, high)
    assert row["deals"] == 6 and row["target"] == "c"
