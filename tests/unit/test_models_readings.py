"""Every reading switch of the models changes what it should and nothing else.

Each test plays the same seeded games with a switch at its default and changed, and
checks the games are identical where the switch cannot matter and differ where it must.
"""
from __future__ import annotations

import pytest

from nothanks.agents import AgentSpecError, make_agent
from nothanks.play.runner import play_games


def moves(specs: list[str], games: int = 4, seed: int = 3) -> list[tuple]:
    return [tuple((d.turn, d.seat, d.card, d.tokens_on_card, d.tokens_before, str(d.action))
                  for d in r.decisions) + r.scores
            for r in play_games(specs, games, seed=seed)]


def recalls(specs: list[str], games: int = 4, seed: int = 3) -> list:
    """What the models recalled about their opponents' tokens, decision by decision."""
    return [d.info.get("recalled_tokens") for r in play_games(specs, games, seed=seed)
            for d in r.decisions]


def with_switch(spec: str, switch: str) -> str:
    return spec + ("," if ":" in spec else ":") + switch


@pytest.mark.parametrize("switch", ["project_self=true", "candidate_rule=all",
                                    "thresholds=split", "token_chunks=new", "token_s="])
def test_the_defaults_are_the_switches_default_values(switch):
    specs = ["tom2", "tom1", "tom0", "heuristic"]
    assert moves([with_switch(s, switch) if s.startswith("tom") else s for s in specs]) == \
        moves(specs)


def test_project_self_leaves_tom1_alone_and_separates_tom2_from_tom1():
    # ToM1 projects opponents with ToM0, which predicts nobody: nothing to leave out
    table = ["tom1", "tom0", "tom0", "tom0"]
    off = [with_switch(s, "project_self=false") if s == "tom1" else s for s in table]
    assert moves(off, games=6) == moves(table, games=6)
    # ToM2's projected ToM1 opponents no longer predict the ToM2 model itself
    table = ["tom2", "tom1", "tom1", "tom1"]
    off = [with_switch("tom2", "project_self=false"), "tom1", "tom1", "tom1"]
    assert moves(off, games=12) != moves(table, games=12)


def test_under_the_default_reading_tom2_makes_tom1s_moves():
    as_tom2 = moves(["tom2", "tom0", "tom0", "tom0"], games=6)
    as_tom1 = moves(["tom1", "tom0", "tom0", "tom0"], games=6)
    assert as_tom2 == as_tom1


def test_candidate_rule_changes_tom1_only_through_uncertain_recalls():
    assert moves(["tom0:candidate_rule=any", "tom0", "tom0", "tom0"]) == \
        moves(["tom0"] * 4)  # ToM0 predicts nobody
    # with exact counts there is one candidate per player: any == all
    oracle = ["tom1:oracle_tokens=true", "tom0", "tom0", "tom0"]
    assert moves([with_switch(oracle[0], "candidate_rule=any"), *oracle[1:]]) == \
        moves(oracle)
    table = ["tom1:rt=-0.5", "tom0", "tom0", "tom0"]  # a high threshold: many root recalls
    assert moves([with_switch(table[0], "candidate_rule=any"), *table[1:]], games=8) != \
        moves(table, games=8)


def test_shared_threshold_uses_rt_for_the_instances():
    equal = ["tom1:rt=-6,instance_rt=-6", "tom0", "tom0", "tom0"]
    assert moves([with_switch(equal[0], "thresholds=shared"), *equal[1:]]) == moves(equal)
    agent = make_agent("tom0:thresholds=shared,rt=-1.5,instance_rt=-9")
    assert agent._instance_dm.retrieval_threshold == -1.5
    assert make_agent("tom0:rt=-1.5,instance_rt=-9")._instance_dm.retrieval_threshold == -9


def test_token_noise_is_separate_only_for_the_token_memory():
    assert moves(["tom0:token_s=0.9", "tom0", "tom0", "tom0"]) == moves(["tom0"] * 4)
    assert moves(["tom1:token_s=0.1", "tom0", "tom0", "tom0"]) == moves(["tom1"] + ["tom0"] * 3)
    agent = make_agent("tom1:s=0.2,token_s=0.6")
    agent.start(0, agent.variant, 1)
    assert agent._token_dm.noise == 0.6 and agent._instance_dm.noise == 0.2
    assert recalls(["tom1:token_s=0.6", "tom0", "tom0", "tom0"]) != \
        recalls(["tom1", "tom0", "tom0", "tom0"])


def test_merged_token_chunks_change_only_the_token_memory():
    assert moves(["tom0:token_chunks=merge", "tom0", "tom0", "tom0"]) == moves(["tom0"] * 4)
    oracle = ["tom1:oracle_tokens=true", "tom0", "tom0", "tom0"]
    assert moves([with_switch(oracle[0], "token_chunks=merge"), *oracle[1:]]) == moves(oracle)
    agent = make_agent("tom1:token_chunks=merge")
    agent.start(0, agent.variant, 1)
    for _ in range(3):  # the same count stored again merges into the same chunks
        agent.token_memory.store(1, 11)
    leaves = [c for c in agent._token_dm.chunks if c["kind"] == "leaf" and c["player"] == 1]
    assert len(leaves) == 1
    assert recalls(["tom1:token_chunks=merge", "tom0", "tom0", "tom0"]) != \
        recalls(["tom1", "tom0", "tom0", "tom0"])


@pytest.mark.parametrize("spec,message", [
    ("tom1:candidate_rule=some", "candidate_rule='some' is unknown; valid: all, any"),
    ("tom1:thresholds=both", "thresholds='both' is unknown; valid: split, shared"),
    ("tom1:token_chunks=old", "token_chunks='old' is unknown; valid: new, merge"),
    ("tom1:token_s=-1", "token_s='-1' is invalid"),
    ("tom1:token_s=abc", "could not convert"),
])
def test_bad_reading_values_say_what_is_valid(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)
