"""benchmarks/bench_pyactup.py (issue 29): the retrieval it times is the same in our ACT-R
core and in pyactup (same chunks, parameters and mismatch functions), shown on noise-free
retrievals, where the two must agree on every outcome and activation."""
from __future__ import annotations

import pytest

from helpers import load_benchmark

pytest.importorskip("pyactup")
bench = load_benchmark("bench_pyactup")


def test_noise_free_retrievals_agree_with_pyactup():
    outcome = bench.check_noise_free(count=60)
    assert sum(outcome.values()) == 60
    # both kinds of outcome are exercised: retrievals that succeed and ones below τ
    assert outcome["same"] + outcome["tie"] > 0 and outcome["failed"] > 0


def test_the_agreement_check_catches_a_different_mismatch_penalty(monkeypatch):
    build = bench.theirs

    def other_penalty(memory, seed=1):
        other = build(memory, seed)
        other.mismatch = 4.0
        return other

    monkeypatch.setattr(bench, "theirs", other_penalty)
    with pytest.raises(AssertionError, match="best activation"):
        bench.check_noise_free(count=60)
