"""benchmarks/openspiel_ismcts.py: both sides hold every seat on a shared deal, CPU is
counted per searched decision, and first places are tallied per side and deal."""
from __future__ import annotations

import pandas as pd

from helpers import load_benchmark


def test_a_deal_seats_each_side_everywhere_and_the_summary_counts_first_places():
    bench = load_benchmark("openspiel_ismcts")
    rows = bench.play_deal(("t", "heuristic", "random:p=0.3", 3, 0))  # cheap stand-ins
    games = pd.DataFrame(rows)
    assert len(games) == 8
    seats = games.groupby("side")["seat"].apply(sorted).to_dict()
    assert seats == {"ours": [0, 1, 2, 3], "theirs": [0, 1, 2, 3]}
    assert (games["decisions"] > 0).all() and (games["cpu"] >= 0).all()
    # two more deals made up: ours first in all four player-games, then none
    made_up = pd.concat([games.assign(deal=1, rank=[1, 2] * 4),
                         games.assign(deal=2, rank=[2, 1] * 4)])
    made_up.loc[(made_up["deal"] == 1) & (made_up["side"] == "ours"), "rank"] = 1
    made_up.loc[(made_up["deal"] == 1) & (made_up["side"] == "theirs"), "rank"] = 2
    made_up.loc[(made_up["deal"] == 2) & (made_up["side"] == "ours"), "rank"] = 2
    made_up.loc[(made_up["deal"] == 2) & (made_up["side"] == "theirs"), "rank"] = 1
    summary = bench.summarize(made_up).iloc[0]
    assert summary["deals"] == 2
    assert summary["ours_first"][0] == 0.5 and summary["theirs_first"][0] == 0.5
    assert summary["difference"][0] == 0.0
    cpu = made_up[made_up["side"] == "ours"]
    assert summary["ours_ms"] == 1000 * cpu["cpu"].sum() / cpu["decisions"].sum()
    assert "| t | `heuristic` | `random:p=0.3` | 2 |" in bench.markdown(
        bench.summarize(made_up), "cmd", {"ours_1000": 0.04, "theirs": 0.2, "iterations": 5})
