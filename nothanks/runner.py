"""Play games between agents: one game, or many with seat rotation and derived seeds.

Every game's seed derives from the root seed and the game's index only, so a game can
be replayed alone and results do not depend on how games are split across workers.
Games are played by the one driver, :class:`nothanks.match.Match`; this module adds
seating and seeding for runs of many games.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import pandas as pd

from .agents import Agent, make_agent
from .match import GameRecord, Match
from .rules import Action, Variant
from .rules.seeding import agent_seed, derive_seeds, game_seed

__all__ = ["agent_seed", "game_seed", "play_game", "play_games", "seating", "summarize"]

#: Games whose seeds are derived together (a lazy run derives them a batch ahead).
_SEED_BATCH = 256


def seating(specs: Sequence[str], game_index: int) -> list[int]:
    """Index into ``specs`` of the agent at each seat: a cyclic rotation per game.

    Over any ``len(specs)`` consecutive games every agent sits in every seat once.
    """
    n = len(specs)
    shift = game_index % n
    return [(seat + shift) % n for seat in range(n)]


def play_game(
    agents: Sequence[Agent],
    variant: Variant | None = None,
    seed: int = 0,
    game_id: int = 0,
    record: bool = True,
) -> GameRecord:
    """Play one game with ``agents[seat]`` at each seat and return its record (without
    decision records if ``record`` is false)."""
    variant = variant or Variant()
    if len(agents) != variant.players:
        raise ValueError(
            f"{len(agents)} agents given for a {variant.players}-player variant; "
            "give one agent per seat"
        )
    return Match(agents, variant, seed, game_id=game_id).run(record)


def play_games(
    specs: Sequence[str],
    games: int,
    seed: int = 0,
    variant: Variant | None = None,
    *,
    start: int = 0,
    rotate: bool = True,
    record: bool = True,
) -> Iterator[GameRecord]:
    """Play games ``start .. start+games-1`` of a run; agents are built once and reused."""
    variant = variant or Variant()
    if len(specs) != variant.players:
        raise ValueError(
            f"{len(specs)} agent specs for a {variant.players}-player variant; "
            "give one spec per seat"
        )
    pool = [make_agent(s) for s in specs]
    players = range(len(specs))
    for first in range(start, start + games, _SEED_BATCH):
        # the seeds of game_seed and agent_seed, derived for a batch of games at once
        indices = range(first, min(first + _SEED_BATCH, start + games))
        seeds = derive_seeds([(seed, index) for index in indices])
        per_seat = derive_seeds([(s, 1 + seat) for s in seeds for seat in players])
        for offset, index in enumerate(indices):
            order = seating(specs, index) if rotate else list(players)
            agent_seeds = per_seat[offset * len(players):(offset + 1) * len(players)]
            yield Match([pool[i] for i in order], variant, seeds[offset], game_id=index,
                        agent_seeds=agent_seeds).run(record)


def summarize(games: pd.DataFrame, decisions: pd.DataFrame) -> pd.DataFrame:
    """Per agent spec: player-games (games times the seats it held), mean score, mean rank
    points, win share, pass share, decisions per game it played."""
    by_agent = games.groupby("agent", sort=True)
    summary = pd.DataFrame({
        "player_games": by_agent.size(),
        "mean_score": by_agent["score"].mean(),
        "mean_rank_points": by_agent["rank_points"].mean(),
        "win_share": by_agent["rank"].apply(lambda r: float((r == 1).mean())),
    })
    dec = decisions.groupby("agent", sort=True)
    summary["pass_share"] = dec["action"].apply(lambda a: float((a == Action.PASS).mean()))
    summary["decisions_per_game"] = dec.size() / summary["player_games"]
    return summary
