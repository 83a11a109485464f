"""ToMAgent's shortcuts (a ToM0 decision without a trace, ToM1 projections as ToM0
retrievals) decide and log exactly as its general reasoning, in every reading."""
from __future__ import annotations

import pytest

from nothanks.agents.cognitive.tom import ToMAgent
from nothanks.match import Match
from nothanks.rules import Variant

SMALL = Variant(removed=14)  # 19 cards: short games
ORDERS = (0, 1, 2, 1)


class _General(ToMAgent):
    """A ToMAgent with its own ``_reason`` (the same): a subclass may reason differently
    about opponents, so the shortcuts are off and every decision takes the general path."""

    def _reason(self, *args, **kwargs):
        return super()._reason(*args, **kwargs)


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
