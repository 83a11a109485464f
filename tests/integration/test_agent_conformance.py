"""Agent conformance: every registered agent spec, checked the same way by the public
check (:func:`nothanks.testing.check_agent`), check by check; and the check itself
catches the faults it names (agents broken on purpose).

A new agent registered with :func:`nothanks.agents.register` is covered automatically.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import nothanks.agents.cognitive  # noqa: F401  (registers the cognitive models)
from nothanks.agents import Agent, make_agent
from nothanks.agents.baselines import HeuristicAgent
from nothanks.agents.spec import registered
from nothanks.rules import Action, Game
from nothanks.search.network import NetworkConfig, init_weights, save_checkpoint
from nothanks.testing import CHECKS, AgentCheckError, check_agent

#: Stands for the folder of :func:`agent_files` in a spec (replaced when a test runs).
FILES = "<files>"
#: Parameters that keep an agent's games short in a test (every other agent: defaults).
CHEAP = {"ismcts": "iterations=12", "openspiel-mcts": "sims=2", "openspiel-ismcts": "sims=2",
         "alphazero": f"sims=6,checkpoint={FILES}/alphazero-{{players}}.npz"}


def spec_of(name: str) -> str:
    return f"{name}:{CHEAP[name]}" if name in CHEAP else name


SPECS = [spec_of(name) for name in registered()]


@pytest.fixture(scope="module")
def agent_files(tmp_path_factory) -> Path:
    """The files agents load: untrained (small) alphazero networks for 3-7 players."""
    folder = tmp_path_factory.mktemp("agent-files")
    for players in range(3, 8):
        config = NetworkConfig(players=players, hidden=16)
        save_checkpoint(folder / f"alphazero-{players}.npz", init_weights(config, players),
                        config, {})
    return folder


@pytest.fixture
def spec(request, agent_files) -> str:
    """The spec under test, with :data:`FILES` pointing at :func:`agent_files`."""
    return request.param.replace(FILES, str(agent_files))


def test_the_registry_is_what_this_suite_covers():
    """Guards the parametrisation: the cognitive models registered, so did the rest."""
    assert {"random", "heuristic", "tom0", "tom1", "tom2", "ismcts"} <= set(registered())


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("spec", SPECS, indirect=True)
def test_every_registered_agent_passes_the_public_check(spec, check):
    assert check_agent(spec, checks=[check]) == (check,)


# Agents broken on purpose: each fails the check that names its fault.

class PeekingAgent(HeuristicAgent):
    """Reads the removed cards from the game driving it (found on the call stack), which
    its View does not show."""

    name = "peeking"

    def decide(self, view):
        frame = sys._getframe(1)
        while frame is not None and not isinstance(frame.f_locals.get("game"), Game):
            frame = frame.f_back
        if frame is None or view.own_tokens == 0:
            return super().decide(view)
        below = sum(card < view.card for card in frame.f_locals["game"]._removed)
        return Action.TAKE if below % 2 else Action.PASS


class UnseededAgent(Agent):
    """Draws from a generator it never reseeds: not reproducible from its seed."""

    name = "unseeded"

    def __init__(self) -> None:
        super().__init__()
        import random
        self.rng = random.Random()

    def decide(self, view):
        if view.own_tokens == 0:
            return Action.TAKE
        return Action.TAKE if self.rng.random() < 0.3 else Action.PASS


class ChattyAgent(HeuristicAgent):
    """Reports a decision-info key no log column keeps and nobody declared."""

    name = "chatty"

    def decision_info(self):
        return {"mood": "fine"}


def test_the_check_passes_an_outside_agent_and_says_which_checks_ran():
    assert check_agent(HeuristicAgent) == tuple(c for c in CHECKS if c != "one_line_errors")
    assert check_agent("heuristic:T=-2") == CHECKS


@pytest.mark.parametrize("factory, check, said", [
    (PeekingAgent, "view_only", "does not show"),
    (UnseededAgent, "seed_determinism", "seed 5 again"),
    (ChattyAgent, "log_round_trip", "['mood']"),
])
def test_the_check_catches_a_broken_agent_in_one_line(factory, check, said):
    with pytest.raises(AgentCheckError) as failed:
        check_agent(factory, checks=[check])
    message = str(failed.value)
    assert "\n" not in message and f"check {check!r} failed" in message and said in message


def test_the_check_refuses_an_agent_object_and_unknown_checks():
    with pytest.raises(TypeError, match="give its class|function making"):
        check_agent(make_agent("random"))
    with pytest.raises(ValueError, match="unknown check"):
        check_agent("random", checks=["no_such_check"])


@pytest.mark.parametrize("spec", SPECS, indirect=True)
def test_an_agent_pickles_and_deep_copies_mid_life(spec):
    """After a game (with traces: the last trace is kept), a pickled and a deep-copied
    agent play the next game exactly as the original does (issue 45: agents travel to
    Dask workers and are cloned in notebooks)."""
    import copy
    import pickle

    from nothanks.play.match import Match
    from nothanks.rules import Variant

    variant = Variant(players=3)
    agent = make_agent(spec)
    Match([agent, "random", "heuristic"], variant, seed=21, traces=True).run()
    copies = [pickle.loads(pickle.dumps(agent)), copy.deepcopy(agent)]
    moves = [[(d.seat, d.card, d.action) for d in
              Match([a, "random", "heuristic"], variant, seed=22).run().decisions]
             for a in (*copies, agent)]
    assert moves[0] == moves[1] == moves[2]
