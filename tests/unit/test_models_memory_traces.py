"""Token memory recall and fallbacks (Table 5), and reasoning traces."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from nothanks.actr import DeclarativeMemory
from nothanks.agents import make_agent
from nothanks.agents.cognitive import TOKEN_CLASSES, TokenMemory, token_class
from nothanks.agents.cognitive.token_memory import NO_RECALL_VALUES
from nothanks.play.runner import play_game, play_games
from nothanks.rules import Passed, Took, Variant


def token_memory(leaf_penalty: float = 0.5) -> TokenMemory:
    return TokenMemory(DeclarativeMemory(noise=0.0, retrieval_threshold=-2.0, seed=0),
                       leaf_penalty=leaf_penalty)


def test_table5_classes():
    assert [(c.name, c.prediction_values, c.default) for c in TOKEN_CLASSES] == [
        ("low", (2, 5), 3), ("sufficient", (6, 10), 8), ("many", (11, 16), 11)]
    assert [token_class(n).name for n in (0, 5, 6, 10, 11, 40)] == [
        "low", "low", "sufficient", "sufficient", "many", "many"]
    assert NO_RECALL_VALUES == (3, 8, 11)


def test_leaf_then_root_then_default_as_time_passes():
    memory = token_memory()
    memory.store(1, 7)
    memory.store(2, 12)
    memory.memory.advance(1.0)
    # leaf: -0.5 ln 1 - 0.5 = -0.5 > -2
    recall = memory.recall(1)
    assert (recall.source, recall.candidates) == ("leaf", (7,))
    assert math.isclose(recall.leaf_activation, -0.5)
    # leaf fails once -0.5 ln t - 0.5 < -2 (t > e^3 = 20.1); root lasts until t > e^4 = 54.6
    memory.memory.advance(29.0)
    recall = memory.recall(1)
    assert (recall.source, recall.candidates, recall.value) == ("root", (6, 10), 8)
    assert memory.recall(2).candidates == (11, 16)
    memory.memory.advance(70.0)
    recall = memory.recall(1)
    assert (recall.source, recall.candidates, recall.value) == ("default", (3, 8, 11), 8)


def test_updates_store_the_changed_count_and_are_recalled_exactly():
    memory = token_memory()
    memory.store(3, 11)
    memory.memory.advance(2.0)
    memory.update(3, -1)
    memory.memory.advance(2.0)
    memory.update(3, +4)
    memory.memory.advance(2.0)
    assert memory.recall(3).candidates == (14,)
    # a root-only recall updates from the class default; nothing recalled assumes 8
    memory.memory.advance(40.0)
    assert memory.update(3, -1).source == "root"  # "many": 11 - 1 = 10 stored
    memory.memory.advance(1.0)
    assert memory.recall(3).candidates == (10,)
    memory.memory.advance(500.0)
    assert memory.update(3, +2).source == "default"  # 8 + 2
    memory.memory.advance(1.0)
    assert memory.recall(3).candidates == (10,)


def test_players_are_never_confused():
    memory = token_memory()
    memory.store(1, 2)
    memory.memory.advance(30.0)
    memory.store(2, 15)  # much more active than player 1's chunks
    memory.memory.advance(1.0)
    assert memory.recall(1).candidates == (2, 5)  # player 1's own root, never player 2's


def test_history_frame_logs_recalls_with_truth():
    agent = make_agent("tom1")
    play_game([agent, make_agent("tom0"), make_agent("tom0"), make_agent("tom0")], seed=2)
    frame = agent.token_memory.history_frame()
    assert list(frame.columns) == ["time", "seat", "purpose", "source", "recalled", "value",
                                   "leaf_activation", "root_activation", "threshold",
                                   "latency", "true_tokens"]
    assert set(frame["seat"]) == {1, 2, 3}
    assert set(frame["purpose"]) == {"decide", "update"}
    assert frame["time"].is_monotonic_increasing
    # the recalled count is often right (docs/models.md: ~30% of decisions with s = 0.1;
    # one game's share ranges from ~0.07 to ~0.6, so the share is pooled over 4 games)
    frames = [frame]
    for seed in (3, 4, 5):
        agent = make_agent("tom1")
        play_game([agent, make_agent("tom0"), make_agent("tom0"), make_agent("tom0")],
                  seed=seed)
        frames.append(agent.token_memory.history_frame())
    leaves = pd.concat(frames)
    leaves = leaves[leaves["source"] == "leaf"]
    assert (leaves["value"] == leaves["true_tokens"]).mean() > 0.2
    # the first recall of each opponent is the public starting count
    assert (frame.groupby("seat")["true_tokens"].first() == 11).all()


def test_truth_callback_is_for_logging_only():
    specs = ["tom2", "tom1", "tom0", "tom1"]
    plain = next(play_games(specs, 1, seed=4))
    agents = [make_agent(s) for s in specs]
    for agent in agents:
        agent.token_memory.truth = lambda seat: -99
    logged = play_game(agents, seed=plain.seed)
    assert logged.decisions == plain.decisions
    assert set(agents[0].token_memory.history_frame()["true_tokens"]) == {-99}


@pytest.mark.parametrize("noise_mode", ["per_time", "per_retrieval"])
def test_traces_do_not_change_decisions(noise_mode):
    specs = [f"tom2:noise_mode={noise_mode}", "tom1", "tom:k=3", "tom0"]
    plain = list(play_games(specs, 2, seed=21))
    traced = list(play_games([s + ("," if ":" in s else ":") + "trace=true" for s in specs],
                             2, seed=21))
    for a, b in zip(plain, traced, strict=True):
        assert [d.action for d in a.decisions] == [d.action for d in b.decisions]
        assert [d.info for d in a.decisions] == [d.info for d in b.decisions]
        assert all(d.trace is None for d in a.decisions)
        assert all(d.trace is not None for d in b.decisions)  # every seat is a model


def test_trace_tree_render_and_frames():
    agent = make_agent("tom2:trace=true")
    others = [make_agent("tom1"), make_agent("tom0"), make_agent("heuristic")]
    play_game([agent, *others], seed=8)
    trace = agent.last_trace
    assert trace is not None and trace.seat == 0
    text = trace.render()
    assert text.startswith("player 0 at t=") and "ToM2 as player 0" in text
    frame = trace.to_frame()
    assert frame.loc[0, "path"] == "0" and frame.loc[0, "level"] == 2
    assert frame.loc[0, "source"] == "exact-own"
    assert set(frame["source"]) <= {"exact-own", "leaf", "root", "default"}
    retrievals = trace.retrievals_frame()
    for column in ("path", "base_level", "mismatch_category", "mismatch_card",
                   "mismatch_tokens_on_card", "mismatch_tokens_owned", "noise", "activation"):
        assert column in retrievals.columns
    # every candidate instance is in the record, the winner is flagged once per retrieval
    assert retrievals.groupby("path")["winner"].sum().max() == 1
    assert len(retrievals[retrievals["path"] == "0"]) == len(agent.instance_set)


def test_trace_reports_recalls_and_the_reason():
    agent = make_agent("tom1:s=0,trace=true")
    agent.start(0, __import__("nothanks").rules.Variant(), seed=1)
    from nothanks.rules import View
    view = View(0, agent.variant, 0, 21, 0, 11, ((20,), (5,), (10,), (30,)), 10, (), 0, None)
    agent.decide(view)
    trace = agent.last_trace
    assert [(r.seat, r.source, r.candidates) for r in trace.recalls] == [
        (1, "leaf", (11,)), (2, "leaf", (11,)), (3, "leaf", (11,))]
    assert "all 3 opponents predicted to pass -> pass" in trace.render()


# ------------------------------------------------------------------ observed moves
def test_observed_passes_and_takes_update_token_memory_with_time_per_turn():
    agent = make_agent("tom1:s=0,time_per_turn=1.5")
    agent.start(0, Variant(), seed=2)
    start = agent.token_memory.memory.time
    agent.observe(Passed(turn=1, seat=1, card=30, tokens_on_card=0))
    agent.observe(Passed(turn=2, seat=2, card=30, tokens_on_card=1))
    agent.observe(Took(turn=3, seat=3, card=30, tokens=2))
    assert agent.token_memory.memory.time == pytest.approx(start + 3 * 1.5)
    recalled = {seat: agent.token_memory.recall(seat).candidates for seat in (1, 2, 3)}
    assert recalled == {1: (10,), 2: (10,), 3: (13,)}
    # its own moves are not stored in the token memory, but time still passes
    agent.observe(Passed(turn=4, seat=0, card=31, tokens_on_card=0))
    assert agent.token_memory.memory.time == pytest.approx(start + 4 * 1.5)
    assert not any(r.seat == 0 for r in agent.token_memory.history)
