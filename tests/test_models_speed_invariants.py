"""Speed-ups must not change what the models do: the compiled kernel and the NumPy path
play the same games, and a traced decision (NumPy path, with records) makes the same
choice as an untraced one (kernel)."""
from __future__ import annotations

import numba  # noqa: F401 (a dependency: without it both paths would be NumPy)

from nothanks.actr import kernel as actr_kernel
from nothanks.runner import play_games

SPECS = ["tom2", "tom1:noise_mode=per_retrieval", "tom:k=3", "tom0"]


def _decisions(specs: list[str], compiled: bool) -> list:
    actr_kernel.use(compiled)
    try:
        return [(r.decisions, r.scores) for r in play_games(specs, 3, seed=5)]
    finally:
        actr_kernel.use(True)


def test_kernel_and_numpy_paths_play_the_same_games():
    assert _decisions(SPECS, compiled=True) == _decisions(SPECS, compiled=False)


def test_traced_decisions_match_untraced_ones_with_the_kernel_on():
    traced = [s + ("," if ":" in s else ":") + "trace=true" for s in SPECS]
    plain = _decisions(SPECS, compiled=True)
    with_traces = _decisions(traced, compiled=True)
    for (a, score_a), (b, score_b) in zip(plain, with_traces, strict=True):
        assert [d.action for d in a] == [d.action for d in b]
        assert [d.info for d in a] == [d.info for d in b] and score_a == score_b
