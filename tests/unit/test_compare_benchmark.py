"""benchmarks/compare.py's driver: a worker that fails (a tree caught mid-edit) is reported
and left out, and the other rounds and measures still give their medians and ratios."""
from __future__ import annotations

from pathlib import Path

from helpers import load_benchmark

compare = load_benchmark("compare")


def test_a_failing_worker_is_reported_and_the_run_goes_on(monkeypatch, capsys):
    calls = []

    def worker(tree: Path, measure: str, quick: bool) -> dict:
        calls.append((tree.name, measure))
        if measure == "tom2x4" and tree.name == "new" and len(calls) > 4:
            raise RuntimeError(f"{measure} failed in {tree}:\nTypingError: mid-edit")
        value = {"baseline": 30.0, "new": 10.0}[tree.name]
        return {"value": value + len(calls) % 2, "note": "a note"}

    monkeypatch.setattr(compare, "run_worker", worker)
    compare.compare(Path("baseline"), Path("new"), ["tom2x4", "tom1_vs_tom0"], 2, True)
    out = capsys.readouterr().out
    assert len(calls) == 8  # every round of every measure on both sides was tried
    assert "round 2 tom2x4             new      FAILED: TypingError: mid-edit" in out
    assert "[a note]" in out
    label = compare.MEASURES["tom2x4"][3]
    assert f"{label:62s} 1 run(s) failed; medians of 2 baseline and 1 new round(s)" in out
    # the medians of the rounds that ran and their ratio; a round's own ratio needs
    # both sides of that round (tom2x4 has one such round, so no range)
    assert f"{label:62s}      30.5 ms        10 ms     3.05x\n" in out
    other = compare.MEASURES["tom1_vs_tom0"][3]
    assert f"{other:62s}      30.5 ms      10.5 ms     2.90x (rounds 2.73-3.10x)" in out
