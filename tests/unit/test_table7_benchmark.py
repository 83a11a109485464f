"""benchmarks/table7_calibration.py (issue 26 §5): the pass share is read from each
decision's action, and a target is met only by a significant test in its direction."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from nothanks.play.runner import play_games
from nothanks.rules import Action

PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "table7_calibration.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("table7_calibration", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pass_shares_are_counted_from_the_actions(bench):
    chunk = bench.play_chunk("random", "heuristic", 0, 6, 3)
    summary = bench.summarize("random", "heuristic", [chunk])
    passes = decisions = 0
    for result in play_games(["random", "heuristic", "heuristic", "heuristic"], 6, 3):
        focal = result.agents.index("random")
        mine = [d for d in result.decisions if d.seat == focal]
        passes += sum(d.action == Action.PASS for d in mine)
        decisions += len(mine)
    share, low, high = summary["focal_pass_share"]
    assert share == pytest.approx(passes / decisions)
    assert 0.2 < share < 0.8  # a coin-flipping player: never the 0.000 of the old field
    assert low <= share <= high


def summary(focal_points: float, parity_t: float, parity_p: float) -> dict:
    return {"design": "tom2 vs 3xtom1", "games": 2000, "win_share": 0.26,
            "focal_points": focal_points, "opponent_points": (6 - focal_points) / 3,
            "t": parity_t * 1.15, "p": parity_p, "parity_t": parity_t, "parity_df": 1999,
            "parity_p": parity_p, "focal_tokens": 11.0, "opponent_tokens": 11.0}


def test_direction_alone_does_not_pass(bench):
    # the thesis sign: t < 0 when the focal model scores more than parity
    assert bench.verdicts([summary(1.511, -0.52, 0.6)])[0].startswith("FAIL")
    assert bench.verdicts([summary(1.58, -2.5, 0.012)])[0].startswith("PASS")
    assert bench.verdicts([summary(1.42, 2.5, 0.012)])[0].startswith("FAIL")


def test_parity_sign_follows_the_thesis(bench):
    t, df, p = bench.parity(np.array([3.0, 2.0, 3.0, 2.0, 1.0]))
    assert t < 0 and df == 4 and p < 0.2


def test_out_writes_the_tables_the_docs_quote(tmp_path):
    import os
    import subprocess
    import sys

    import pandas as pd
    root = str(PATH.parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    subprocess.run([sys.executable, str(PATH), "--games", "4", "--workers", "1",
                    "--no-heuristic", "--paired-params", "oracle_tokens=true", "--out",
                    str(tmp_path)], check=True, env=env, capture_output=True, cwd=root)
    designs = pd.read_csv(tmp_path / "designs.csv", keep_default_na=False)
    assert len(designs) == 6 and set(designs["params"]) == {"", "oracle_tokens=true"}
    assert (designs["win_ci_low"] <= designs["win_share"]).all()
    paired = pd.read_csv(tmp_path / "paired.csv")
    assert list(paired["measure"]) == ["first", "rank_points"] * 3
    assert np.allclose(paired["difference"], paired["mean"] - paired["other_mean"])
    base = designs[designs["params"] == ""].set_index("design")
    first = paired[paired["measure"] == "first"].set_index("design")
    assert np.allclose(first["mean"], base.loc[first.index, "win_share"])
