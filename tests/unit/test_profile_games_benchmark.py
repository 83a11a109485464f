"""benchmarks/profile_games.py's summing of py-spy's raw stacks: every sample inside a game
goes to the first part whose frames it holds, samples outside games or in numba's loading
of machine code are left out, and a file without game samples is a one-line error."""
from __future__ import annotations

import pandas as pd
import pytest

from helpers import load_benchmark

GAME = "<module> (p.py:1);play_planned (nothanks/play/runner.py:70);Match.run (m.py:9)"
RAW = "\n".join([
    f"{GAME};ToMAgent.observe (t.py:1);TokenMemory.update (k.py:2);"
    "TokenMemory.recall (k.py:3) 5",
    f"{GAME};ToMAgent.decide (t.py:4);ToMAgent._beliefs (t.py:5);"
    "TokenMemory.recall (k.py:3) 3",
    f"{GAME};ToMAgent.decide (t.py:4);ToMAgent._reason_compiled (t.py:6);"
    "FastPathView.per_time_noise (f.py:7) 2",
    f"{GAME};ToMAgent.decide (t.py:4);ToMAgent._reason_compiled (t.py:6) 4",
    f"{GAME};Game.apply (g.py:1) 6",
    f"{GAME};ToMAgent.decide (t.py:4);_DispatcherBase._compile_for_args (d.py:1) 50",
    "<module> (p.py:1);import_numba (n.py:1) 70",
]) + "\n"


def test_samples_go_to_the_first_part_that_holds_them(tmp_path):
    bench = load_benchmark("profile_games")
    raw = tmp_path / "tom2x4.raw"
    raw.write_text(RAW, encoding="utf-8")
    total, parts = bench.shares(raw)
    assert total == 20
    assert parts == {"token memory: recall on an observed move (update)": 5,
                     "token memory: recall at a decision (beliefs)": 3,
                     "ToM-k decision: the instance noise draw (every instance)": 2,
                     "ToM-k decision: the compiled core's call and its glue": 4,
                     "rules engine, views, event dispatch, the rest": 6}
    out = tmp_path / "shares.csv"
    rows = bench.main(["shares", str(raw), "--out", str(out)])
    table = pd.read_csv(out)
    assert len(rows) == len(table) == len(bench.PARTS)
    assert table["samples"].sum() == 20 and table["share"].sum() == pytest.approx(1.0)


def test_a_file_without_game_samples_is_a_one_line_error(tmp_path, capsys):
    bench = load_benchmark("profile_games")
    raw = tmp_path / "idle.raw"
    raw.write_text("<module> (p.py:1);import_numba (n.py:1) 70\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        bench.main(["shares", str(raw)])
    assert "no samples inside a game (play_planned)" in capsys.readouterr().err
