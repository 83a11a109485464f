"""ToMAgent's shortcuts (a ToM0 decision without a trace, ToM1 projections as ToM0
retrievals) decide and log exactly as its general reasoning, in every reading.

Speed-ups must not change what the models do: the compiled kernel and the NumPy path
play the same games, and a traced decision (NumPy path, with records) makes the same
choice as an untraced one (kernel)."""
from __future__ import annotations

import numba  # noqa: F401 (a dependency: without it both paths would be NumPy)
import pytest

from nothanks.actr import kernel as actr_kernel
from nothanks.agents.cognitive.tom import ToMAgent
from nothanks.match import Match
from nothanks.rules import Variant
from nothanks.runner import play_games

SMALL = Variant(removed=14)  # 19 cards: short games
ORDERS = (0, 1, 2, 1)


class _General(ToMAgent):
    """A ToMAgent with an opponent model that is the plain recursion itself (the same
    predictions): with an opponent model the shortcuts are off and every decision takes
    the general path."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.opponent_model = self.reason_plainly


def _play(kind: type[ToMAgent], params: dict, seed: int) -> tuple[list, list]:
    agents = [kind(k, **params) for k in ORDERS]
    record = Match(agents, SMALL, seed).run()
    decisions = [(d.seat, d.action, dict(d.info)) for d in record.decisions]
    ends = [(a.instance_failures, a._instance_dm.time, a._token_dm.time,
             list(a.token_memory.history)) for a in agents]
    assert [a._plain for a in agents] == [kind is ToMAgent] * len(agents)
    return decisions, ends


@pytest.mark.parametrize("params", [
    {},
    {"noise_mode": "per_retrieval"},
    {"candidate_rule": "any", "project_self": False, "token_s": "0.3", "rt": -1.0},
    {"thresholds": "shared", "token_chunks": "merge", "token_s": "0.3", "rt": -1.0},
    {"oracle_tokens": True},
    {"s": 0.0},
    {"instance_rt": -0.5, "noise_mode": "per_retrieval"},
], ids=lambda params: ",".join(f"{k}={v}" for k, v in params.items()) or "defaults")
def test_shortcuts_decide_and_log_as_the_general_path(params):
    for seed in (1, 2):
        fast, general = _play(ToMAgent, params, seed), _play(_General, params, seed)
        assert fast == general
        decisions = fast[0]
        assert len(decisions) > 20
        assert {info["tom_order"] for _, _, info in decisions} == set(ORDERS)


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
