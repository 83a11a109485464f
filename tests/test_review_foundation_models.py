"""Review of issues 2-4: acceptance points that had no test, or only one that could not fail."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
import tracemalloc
from importlib import import_module
from pathlib import Path

import pandas as pd
import pytest

from nothanks.actr import DeclarativeMemory, ExactMatch, Linear, Weber
from nothanks.agents import make_agent
from nothanks.cli import main
from nothanks.rules import Action, Passed, Took, Variant, View
from nothanks.runner import play_game

ROOT = Path(__file__).resolve().parents[1]
VARIANT = Variant()


def view_of(cards, card: int, tokens_on_card: int = 0, own_tokens: int = 11,
            seat: int = 0) -> View:
    """A hand-made view for ``seat`` (hidden tokens, 10 cards left, no history)."""
    return View(seat, VARIANT, seat, card, tokens_on_card, own_tokens,
                tuple(map(tuple, cards)), 10, (), 0, None)


# ------------------------------------------------------------------ issue 2: set-up
def test_variant_defaults_are_the_thesis_game():
    variant = Variant()
    assert (variant.players, variant.open_tokens, variant.tokens) == (4, False, 11)
    assert (variant.low_card, variant.high_card, variant.removed) == (3, 35, 9)


def test_console_command_points_at_the_cli_main():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, function = scripts["nothanks"].partition(":")
    assert getattr(import_module(module), function) is main


def _fake_venv(tmp_path: Path, python_exit: int) -> Path:
    """A copy of the Makefile next to a pyproject and a stand-in .venv/bin/python that
    exits with ``python_exit``; the install stamps are newer than pyproject.toml."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f"#!/bin/sh\nexit {python_exit}\n")
    python.chmod(0o755)
    old = (tmp_path / "pyproject.toml").stat().st_mtime - 100
    os.utime(tmp_path / "pyproject.toml", (old, old))
    for stamp in (".installed-dev", ".installed-notebooks"):
        (tmp_path / ".venv" / stamp).touch()
    return tmp_path


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_reinstalls_only_when_pyproject_changes(tmp_path):
    work = _fake_venv(tmp_path, 0)
    dry = subprocess.run(["make", "-n", "test"], cwd=work, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert "pip install" not in dry.stdout and "-m pytest" in dry.stdout
    (work / "pyproject.toml").touch()  # now newer than the stamps
    dry = subprocess.run(["make", "-n", "test"], cwd=work, capture_output=True, text=True)
    assert "pip install --quiet -e '.[dev]'" in dry.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_test_fails_when_pytest_collects_nothing(tmp_path):
    work = _fake_venv(tmp_path, 5)  # pytest's exit code for "no tests collected"
    run = subprocess.run(["make", "test"], cwd=work, capture_output=True, text=True)
    assert run.returncode != 0
    assert "set -euo pipefail" in (ROOT / ".ci" / "run").read_text()
    assert "make test" in (ROOT / ".ci" / "run").read_text()


# ------------------------------------------------------------------ issue 2: baselines
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_random_agent_takes_with_probability_p(p):
    agent = make_agent(f"random:p={p}")
    agent.start(0, VARIANT, seed=4)
    view = view_of([[], [], [], []], 30)
    takes = sum(agent.decide(view) is Action.TAKE for _ in range(4000)) / 4000
    assert takes == pytest.approx(p, abs=0.03)


@pytest.mark.parametrize(("own", "card", "on_card", "T", "expected"), [
    ((20,), 21, 0, 0, Action.TAKE),        # extends a run: gain 0 <= 0
    ((20, 22), 21, 0, 0, Action.TAKE),     # completes 20-22: gain 20 - 42 = -22
    ((5,), 30, 29, 0, Action.PASS),        # gain 30 - 29 tokens = 1 > 0
    ((5,), 30, 30, 0, Action.TAKE),        # 30 - 30 = 0
    ((5,), 30, 27, 3, Action.TAKE),        # 30 - 27 = 3 <= T = 3
    ((5,), 30, 28, -3, Action.PASS),       # 2 > -3
    ((19,), 21, 0, 0, Action.PASS),        # a gap does not make a run
])
def test_heuristic_cost_is_card_point_increase_minus_tokens(own, card, on_card, T, expected):
    agent = make_agent(f"heuristic:T={T}")
    agent.start(0, VARIANT, seed=0)
    assert agent.decide(view_of([own, [], [], []], card, on_card)) is expected


def test_always_pass_passes_whenever_allowed():
    agent = make_agent("always-pass")
    agent.start(0, VARIANT, seed=0)
    for tokens in (1, 5, 11):
        assert agent.decide(view_of([[20], [], [], []], 21, 30, own_tokens=tokens)) is Action.PASS


def test_simulate_summary_agrees_with_the_written_tables(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--players", "heuristic,heuristic,random,always-pass",
                 "--games", "12", "--seed", "3", "--out", str(out), "--json"]) == 0
    summary = {row["agent"]: row for row in json.loads(capsys.readouterr().out)}
    games = pd.read_parquet(out / "games.parquet")
    decisions = pd.read_parquet(out / "decisions.parquet")
    assert set(summary) == {"heuristic", "random", "always-pass"}
    for agent, row in summary.items():
        mine = games[games.agent == agent]
        moves = decisions[decisions.agent == agent]
        assert row["games"] == len(mine) == (24 if agent == "heuristic" else 12)
        assert row["mean_score"] == pytest.approx(mine.score.mean())
        assert row["mean_rank_points"] == pytest.approx(mine.rank_points.mean())
        assert row["win_share"] == pytest.approx((mine["rank"] == 1).mean())
        assert row["pass_share"] == pytest.approx((moves.action == "pass").mean())
        assert row["decisions_per_game"] == pytest.approx(len(moves) / len(mine))
    assert summary["always-pass"]["pass_share"] > 0.5
    # the plain-text table names every agent too
    assert main(["simulate", "--players", "heuristic,heuristic,random,always-pass",
                 "--games", "2", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert all(agent in text for agent in summary)


# ------------------------------------------------------------------ issue 3: memory
def test_retrievals_do_not_grow_memory_with_history():
    """Retrieving many times, with the clock moving, allocates nothing that stays."""
    memory = DeclarativeMemory(seed=1, mismatch={"card": Linear(32), "tokens": Weber()})
    for card in range(3, 36):
        for tokens in range(9):
            memory.add({"card": card, "tokens": tokens, "kind": "x"}, fixed_activation=0)
            memory.add({"card": card, "tokens": tokens, "kind": "y"})
    memory.advance(1.0)
    request = {"card": 20, "tokens": 4}

    def run(n: int) -> None:
        for i in range(n):
            memory.retrieve({**request, "card": 3 + i % 33})
            memory.advance(0.5)

    tracemalloc.start()
    try:
        run(3000)  # warm caches and refill the noise buffer at least once
        before = tracemalloc.get_traced_memory()[0]
        run(10_000)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # a leak of even 5 bytes a retrieval would keep 50 kB
    assert grown < 50_000, f"{grown} bytes kept after 10,000 retrievals"
    assert len(memory) == 2 * 33 * 9


# ------------------------------------------------------------------ issue 4: models
def test_tom0_retrieval_uses_the_table2_mismatch_functions():
    agent = make_agent("tom0:s=0,trace=true")
    agent.start(0, VARIANT, seed=1)
    agent.decide(view_of([[20], [], [], []], 21, tokens_on_card=3, own_tokens=6))
    record = agent.last_trace.root.retrieval
    assert dict(record.request) == {"category": "extension", "card": 21,
                                    "tokens_on_card": 3, "tokens_owned": 6}
    mp = agent.params["mp"]
    reference = {"category": ExactMatch(100), "card": Linear(32), "tokens_on_card": Weber(),
                 "tokens_owned": Weber()}
    assert len(record.candidates) == len(agent.instance_set)
    for candidate in record.candidates:
        assert candidate.base_level == 0.0 and candidate.noise == 0.0
        for slot, fn in reference.items():
            expected = mp * fn(record.request[slot], candidate.chunk[slot])
            assert candidate.mismatch[slot] == pytest.approx(expected), slot
    assert Linear(32)(21, 5) == pytest.approx(-16 / 32)
    assert ExactMatch(100)("extension", "completion") == -100


def test_observed_passes_and_takes_update_token_memory_with_time_per_turn():
    agent = make_agent("tom1:s=0,time_per_turn=1.5")
    agent.start(0, VARIANT, seed=2)
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


def _walk_predictions(node):
    for prediction in node.predictions:
        yield prediction
        for projection in prediction.projections:
            yield from _walk_predictions(projection)


def test_several_candidate_counts_project_once_each_and_pass_only_if_all_pass():
    """Long model turns make the leaf fade, so opponents are recalled by class (two
    candidate counts); each count gets its own projection and a pass needs all."""
    agent = make_agent("tom2:s=0,time_per_turn=20,trace=true")
    others = [make_agent("tom0"), make_agent("tom1"), make_agent("heuristic")]
    traces = []
    original = agent.decide

    def decide(view):
        action = original(view)
        traces.append(agent.last_trace)
        return action

    agent.decide = decide
    play_game([agent, *others], seed=0)
    mixed = 0
    for trace in traces:
        for prediction in _walk_predictions(trace.root):
            actions = [p.action for p in prediction.projections]
            assert len(actions) == len(prediction.tokens_assumed)
            assert prediction.action == (Action.PASS if all(a is Action.PASS for a in actions)
                                         else Action.TAKE)
            assert [p.tokens for p in prediction.projections] == list(prediction.tokens_assumed)
            mixed += len(set(actions)) > 1
    assert mixed > 0, "no prediction whose projections disagree: the test proves nothing"
