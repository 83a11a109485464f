"""learning-tom: a ToM-k model whose ToM0 instances come from its opponents' moves
(docs/models.md, "learning-tom")."""
from __future__ import annotations

import json
import types

import pytest

from nothanks.agents import AgentSpecError, make_agent
from nothanks.agents.cognitive import LearningToMAgent, load_instances, tom_kernel
from nothanks.agents.cognitive.instances import InstanceFileError
from nothanks.agents.cognitive.token_memory import NO_RECALL_DEFAULT
from nothanks.experiments import load, run_design
from nothanks.experiments.design import Design, Table
from nothanks.kernels import reference_mode
from nothanks.play.match import Match
from nothanks.rules import Variant

VARIANT = Variant(players=4)


def play_trial(spec: str, games: int, seed: int = 0, opponents: str = "tom0"):
    """One agent of ``spec`` plays ``games`` games in order against fixed opponents;
    returns it and its moves per game."""
    agent = make_agent(spec)
    others = [make_agent(opponents) for _ in range(VARIANT.players - 1)]
    moves = []
    for game in range(games):
        record = Match([agent, *others], VARIANT, seed=seed + game).run()
        moves.append([(d.seat, d.card, d.tokens_on_card, d.action, d.info.get("latency"))
                      for d in record.decisions])
    return agent, moves


@pytest.fixture(scope="module")
def held_out():
    """ToM0 players' own (non-forced) decisions in games the learner never sees:
    (category, card, tokens on the card, their true count, action)."""
    rows = []
    for game in range(2):
        record = Match(["tom0"] * 4, VARIANT, seed=90_000 + game).run()
        rows += [(d.sequence_category, d.card, d.tokens_on_card, d.tokens_before, d.action)
                 for d in record.decisions if not d.forced]
    return rows


def accuracy(agent: LearningToMAgent, rows) -> float:
    return sum(agent.tom0_action(*row[:4]) is row[4] for row in rows) / len(rows)


def test_learns_its_opponents_moves_and_predicts_them_better(held_out):
    """Falsifiable: with carry the set grows every game, and its ToM0 predicts unseen
    ToM0 players' moves better after a trial than at the start (empty: always pass)."""
    agent = make_agent("learning-tom:k=1,carry=true")
    others = [make_agent("tom0") for _ in range(3)]
    agent.start(0, VARIANT, 0)
    before = accuracy(agent, held_out)
    counts = []
    for game in range(4):
        record = Match([agent, *others], VARIANT, seed=game).run()
        own = [d.info["learning"] for d in record.decisions if d.seat == 0]
        # games begun with this experience (the start before the trial is one of them)
        assert [s["games"] for s in own] == [game + 2] * len(own)
        counts.append(agent.learning_state()["instances"])
    after = accuracy(agent, held_out)
    assert counts == sorted(counts) and counts[0] > 30 and counts[-1] > 3 * counts[0] // 2
    state = agent.learning_state()
    assert state["presentations"] > state["instances"]  # some situations seen again
    assert after >= before + 0.05, (before, after)


def test_a_repeated_situation_is_another_presentation_of_one_chunk():
    agent, _ = play_trial("learning-tom:k=1,carry=true", 3)
    memory = agent.instance_memory
    repeated = [c for c in memory.chunks if len(memory.references(c)) > 1]
    assert repeated  # the same chunk, referenced again: its base level grows
    assert len(memory) == agent.learning_state()["instances"]


def test_without_carry_every_game_starts_from_the_starting_set():
    start = load_instances("monotone")
    agent, _ = play_trial("learning-tom:k=1,start=monotone", 2)
    assert len(agent.instance_memory) > len(start)  # it learned during the game
    agent.start(0, VARIANT, 5)
    assert len(agent.instance_memory) == len(start)
    assert agent.learning_state()["presentations"] == 0
    carrying, _ = play_trial("learning-tom:k=1,carry=true", 2)
    learned = carrying.learning_state()["instances"]
    carrying.start(0, VARIANT, 5)
    assert len(carrying.instance_memory) == learned  # kept into the next game


def test_seeded_and_the_compiled_path_sees_the_learned_instances(monkeypatch):
    """The same seeds give the same moves; the compiled recursion decides with the
    learned chunks (it is called) and its moves and latencies are the Python path's."""
    spec = "learning-tom:k=2,carry=true"
    _, first = play_trial(spec, 3)
    calls = []
    compiled = tom_kernel.compiled()
    if compiled is not None:
        def counting(*args):
            calls.append(1)
            return compiled.decide(*args)
        monkeypatch.setattr(tom_kernel, "compiled",
                            lambda: types.SimpleNamespace(decide=counting,
                                                          decide_tom0=compiled.decide_tom0,
                                                          window=compiled.window))
    _, again = play_trial(spec, 3)
    assert again == first
    monkeypatch.undo()
    assert compiled is None or calls
    with reference_mode():
        _, python = play_trial(spec, 3)
    assert python == first


def test_stored_counts_are_what_its_memory_recalls_not_the_true_counts():
    """No hidden count is read: with a threshold no token chunk reaches, every recall
    fails and every stored opponent count is the no-recall default, whatever the players
    hold; with the oracle switch the counts are the exact tallies."""
    agent, _ = play_trial("learning-tom:k=1,rt=50", 1)
    owned = {i.tokens_owned for i in agent.learned_instances()}
    assert owned == {NO_RECALL_DEFAULT}
    oracle, _ = play_trial("learning-tom:k=1,oracle_tokens=true", 1)
    assert len({i.tokens_owned for i in oracle.learned_instances()}) > 3


def test_exported_set_loads_back_and_a_tom2_plays_with_it(tmp_path):
    agent, _ = play_trial("learning-tom:k=1,carry=true", 3)
    path = agent.export_instances(tmp_path / "learned.csv", command="pytest")
    text = path.read_text(encoding="utf-8")
    assert "export version 1" in text and "learning-tom:k=1,carry=true" in text
    assert "Command: pytest" in text
    loaded = load_instances(str(path))
    assert list(loaded.instances) == agent.learned_instances()
    record = Match([f"tom2:instances={path}", "tom0", "tom0", "tom0"], VARIANT, seed=1).run()
    assert record.scores and any(d.seat == 0 for d in record.decisions)


def test_an_export_that_could_not_load_is_refused_and_not_written(tmp_path):
    agent = make_agent("learning-tom")
    agent.start(0, VARIANT, 0)
    with pytest.raises(InstanceFileError, match="the set is empty"):
        agent.export_instances(tmp_path / "nothing.csv")
    assert not (tmp_path / "nothing.csv").exists()


def test_bad_keys_say_what_is_valid():
    with pytest.raises(AgentSpecError, match="start='nosuchset'.*valid names"):
        make_agent("learning-tom:start=nosuchset")
    with pytest.raises(AgentSpecError, match="no parameter 'instances'"):
        make_agent("learning-tom:instances=monotone")
    with pytest.raises(AgentSpecError, match="carry"):
        make_agent("learning-tom:carry=maybe")


def test_a_trial_design_logs_its_learning_state(tmp_path):
    design = Design(name="learning-tom", seed=2, games=2, trial=2, tables=(
        Table("learner", ("learning-tom:k=1,carry=true", "tom0", "tom0", "tom0"), focal=0),))
    run_design(design, tmp_path / "run", jobs=1, progress=False)
    rows = load(tmp_path / "run").learning
    states = [json.loads(s) for s in rows["state"]]
    assert states and {s["games"] for s in states} == {1, 2}
    last_of_first = max(s["instances"] for s in states if s["games"] == 1)
    assert min(s["instances"] for s in states if s["games"] == 2) >= last_of_first
    assert all(s["stored_this_game"] <= s["presentations"] for s in states)


def test_label_keeps_it_apart_from_the_fixed_models():
    agent = make_agent("learning-tom:k=2")
    assert agent.label == "learning-ToM2" and agent.tom_order == 2 and agent.learns
