"""Agents: baselines and the cognitive models, all behind one protocol and spec strings."""
from .alphazero import AlphaZeroAgent
from .base import Agent
from .baselines import AlwaysPassAgent, HeuristicAgent, RandomAgent
from .outside import OpenSpielISMCTSAgent, OpenSpielMCTSAgent
from .search import ISMCTSAgent
from .spec import (
    AgentSpec,
    AgentSpecError,
    Preset,
    agent_parameters,
    load_preset,
    make_agent,
    parse_spec,
    presets,
    register,
    registered,
    split_specs,
    unregister,
)
from .standin import HumanStandIn

register("random", RandomAgent)
register("heuristic", HeuristicAgent)
register("always-pass", AlwaysPassAgent)
register(HumanStandIn.name, HumanStandIn)
register(ISMCTSAgent.name, ISMCTSAgent)
register(AlphaZeroAgent.name, AlphaZeroAgent)
register(OpenSpielMCTSAgent.name, OpenSpielMCTSAgent)
register(OpenSpielISMCTSAgent.name, OpenSpielISMCTSAgent)

__all__ = [
    "Agent",
    "AgentSpec",
    "AgentSpecError",
    "AlwaysPassAgent",
    "HeuristicAgent",
    "HumanStandIn",
    "Preset",
    "RandomAgent",
    "agent_parameters",
    "load_preset",
    "make_agent",
    "parse_spec",
    "presets",
    "register",
    "registered",
    "split_specs",
    "unregister",
]
# last: the models register tom0, tom1, tom2 and tom:k=N with the registry filled above
from . import cognitive  # noqa: E402, F401
