"""Agents: baselines and the cognitive models, all behind one protocol and spec strings."""
from .base import Agent
from .baselines import AlwaysPassAgent, HeuristicAgent, RandomAgent
from .spec import AgentSpec, AgentSpecError, agent_parameters, make_agent, parse_spec, register, registered

register("random", RandomAgent)
register("heuristic", HeuristicAgent)
register("always-pass", AlwaysPassAgent)

__all__ = [
    "Agent", "AlwaysPassAgent", "HeuristicAgent", "RandomAgent", "AgentSpec", "AgentSpecError",
    "agent_parameters", "make_agent", "parse_spec", "register", "registered",
]
from . import cognitive  # noqa: E402,F401 - registers tom0, tom1, tom2 and tom:k=N
