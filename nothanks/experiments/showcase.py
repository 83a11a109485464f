"""Single-game and model tables shown beside the statistics (they need the models).

Analysis and figures never import the cognitive models; what only the models can tell
(the shipped instance set, one model's token memory over one game) is produced here as
a plain table and handed on.
"""
from __future__ import annotations

import pandas as pd

#: Seed of the single game whose token memory the trace figure shows.
TRACE_SEED = 11
#: Who plays that game: one ToM2 model (seat 0, whose memory is shown) against three ToM1.
TRACE_PLAYERS = ("tom2", "tom1", "tom1", "tom1")


def instance_table() -> pd.DataFrame:
    """The shipped ToM0 instance set as a table (the models' own loader)."""
    from ..agents.cognitive import load_instances
    return pd.DataFrame([i.slots() for i in load_instances().instances])


def token_memory_history(players: tuple[str, ...] = TRACE_PLAYERS,
                         seed: int = TRACE_SEED) -> pd.DataFrame:
    """The token-memory history of the model in seat 0 over one game of ``players``."""
    from ..agents import make_agent
    from ..play.runner import play_game
    agents = [make_agent(spec) for spec in players]
    play_game(agents, seed=seed, record=False)
    return agents[0].token_memory.history_frame()
