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


def test_an_instance_file_is_read_again_once_it_changed(tmp_path):
    """Parsed instance sets are kept per file, but only while the file is unchanged."""
    import os

    from nothanks.agents.cognitive import DEFAULT_INSTANCES, load_instances

    path = tmp_path / "instances.csv"
    text = DEFAULT_INSTANCES.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    first = load_instances(path)
    assert load_instances(path) is first  # unchanged: not parsed again
    lines = text.splitlines(keepends=True)
    shorter = "".join(line for line in lines if not line.startswith("none,35,"))
    path.write_text(shorter, encoding="utf-8")
    os.utime(path, ns=(1, 1))  # even with an old time stamp the size differs
    second = load_instances(path)
    assert second is not first and len(second) < len(first)
