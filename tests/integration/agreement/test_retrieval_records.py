"""Retrieval records keep their candidates as columns and build the per-candidate
components only when read: the values must be exactly those of an eager construction."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from nothanks.actr import DeclarativeMemory, ExactMatch, Linear, Weber
from nothanks.agents import make_agent
from nothanks.experiments.rows import trace_json
from nothanks.play.runner import play_game

MISMATCH = {"category": ExactMatch(100), "card": Linear(32), "tokens": Weber()}


def random_memory(seed: int, noise: float, noise_mode: str) -> DeclarativeMemory:
    """A memory with a random history: learned and fixed chunks, merges, time passing."""
    rng = np.random.default_rng(seed)
    memory = DeclarativeMemory(noise=noise, noise_mode=noise_mode, mismatch=MISMATCH,
                               retrieval_threshold=-3.0, seed=seed)
    for _ in range(int(rng.integers(20, 60))):
        slots = {"kind": str(rng.choice(["a", "b"])),
                 "category": str(rng.choice(["x", "y", "z"])),
                 "card": int(rng.integers(3, 36)), "tokens": int(rng.integers(0, 12))}
        if rng.random() < 0.2:
            del slots["tokens"]  # a chunk that is never a candidate for a tokens request
        memory.add(slots, fixed_activation=0.0 if rng.random() < 0.3 else None)
        memory.advance(float(rng.uniform(0.05, 2.0)))
    return memory


def random_request(rng: np.random.Generator) -> dict[str, object]:
    request: dict[str, object] = {"category": str(rng.choice(["x", "y", "w"])),
                                  "card": int(rng.integers(3, 36)),
                                  "tokens": int(rng.integers(0, 12))}
    draw = rng.random()
    if draw < 0.4:
        request["kind"] = str(rng.choice(["a", "b"]))  # exact match: a subset of rows
    elif draw < 0.7:
        del request["tokens"]  # only slots every chunk holds: every chunk a candidate
    return request


def eager_components(memory: DeclarativeMemory, request: dict, offset: float):
    """Every candidate's components the eager way: one ``activation`` call per chunk."""
    candidates = [chunk for chunk in memory.chunks
                  if all(slot in chunk for slot in request)
                  and all(chunk[slot] == value for slot, value in request.items()
                          if slot not in MISMATCH)]
    return tuple(memory.activation(chunk, request, offset=offset) for chunk in candidates)


def assert_frame_holds(record, expected) -> None:
    frame = record.to_frame()
    assert frame["chunk"].tolist() == [e.chunk for e in expected]
    for column in ("base_level", "offset", "noise", "activation"):
        assert frame[column].tolist() == [getattr(e, column) for e in expected], column
    for slot in MISMATCH.keys() & record.request.keys():
        assert frame[f"mismatch_{slot}"].tolist() == [e.mismatch[slot] for e in expected]
    assert frame["winner"].dtype == bool
    assert frame["winner"].tolist() == [e.chunk is record.winner for e in expected]


@pytest.mark.parametrize(("noise", "noise_mode"),
                         [(0.25, "per_time"), (0.0, "per_time"), (0.25, "per_retrieval")])
@pytest.mark.parametrize("seed", range(4))
def test_lazy_candidates_equal_the_eager_components(seed, noise, noise_mode):
    memory = random_memory(seed, noise, noise_mode)
    twin = random_memory(seed, noise, noise_mode)
    rng = np.random.default_rng(1000 + seed)
    for _ in range(3):
        request = random_request(rng)
        offset = float(rng.choice([0.0, -1.5]))
        later = random_request(rng)
        result = memory.retrieve(request, offset=offset, record=True)
        record = result.record
        expected = eager_components(memory, request, offset)
        if noise_mode == "per_retrieval":  # activation() reports no noise in this mode
            expected = tuple(replace(e, noise=c.noise, activation=c.activation)
                             for e, c in zip(expected, record.candidates, strict=True))
        # the memory moves on before anyone reads the record: its columns are copies
        memory.add({"kind": "a", "category": "x", "card": 3, "tokens": 0})
        memory.advance(1.0)
        memory.retrieve(later, record=True)

        assert record.candidates == expected and repr(record.candidates) == repr(expected)
        assert record.candidates is record.candidates  # built once
        assert all(type(c.base_level) is type(c.noise) is type(c.activation) is float
                   and all(type(m) is float for m in c.mismatch.values())
                   for c in record.candidates)
        if expected:
            assert record.best_activation == max(c.activation for c in expected)
            assert result.activation == record.best_activation
        else:
            assert record.best_activation is None and record.candidates == ()
        assert_frame_holds(record, expected)
        copy = twin.retrieve(request, offset=offset, record=True).record
        twin.add({"kind": "a", "category": "x", "card": 3, "tokens": 0})
        twin.advance(1.0)
        twin.retrieve(later, record=True)
        assert copy == record and repr(copy) == repr(record)


def test_a_record_without_candidates():
    memory = random_memory(0, 0.25, "per_time")
    record = memory.retrieve({"category": "x", "colour": "red"}, record=True).record
    assert record.candidates == () and record.best_activation is None
    assert len(record.to_frame()) == 0 and record.winner is None


def test_trace_activations_are_the_best_candidates():
    agent = make_agent("tom2:trace=true")
    play_game([agent, make_agent("tom1"), make_agent("tom0"), make_agent("tom0")], seed=3)
    trace = agent.last_trace
    nodes = json.loads(trace_json(trace))["nodes"]
    walked = list(trace.root.walk())
    assert len(nodes) == len(walked) and any(n.retrieval for _, _, n in walked)
    frame = trace.to_frame()
    for (_, _, node), logged, shown in zip(walked, nodes, frame["activation"], strict=True):
        best = (max(c.activation for c in node.retrieval.candidates)
                if node.retrieval is not None and node.retrieval.candidates else None)
        assert logged["activation"] == best
        assert (shown is None or shown != shown) if best is None else shown == best
