"""Play games between agents: one game, or many with seat rotation and derived seeds.

Every game's seed derives from the root seed and the game's index only, so a game can
be replayed alone and results do not depend on how games are split across workers.
Games are played by the one driver, :class:`nothanks.play.match.Match`; this module adds
seating and seeding for runs of many games.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import pandas as pd

from ..agents import Agent, make_agent
from ..rules import Action, Variant
from ..rules.seeding import agent_seed, derive_seeds, game_seed
from .batch import batchable, play_batch
from .batch import enabled as batch_enabled
from .match import GameRecord, Match

__all__ = ["agent_seed", "game_seed", "play_game", "play_games", "play_trial", "seating",
           "summarize"]

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
    batch: bool = True,
) -> Iterator[GameRecord]:
    """Play games ``start .. start+games-1`` of a run; agents are built once and reused.

    When every agent is a baseline the batch engine plays (:func:`nothanks.play.batch.batchable`)
    and ``batch`` is true, the games are played in compiled batches with the same records
    (``batch=False`` or the reference, ``nothanks.kernels.reference_mode``: one
:class:`Match` per game).
    """
    variant = variant or Variant()
    if len(specs) != variant.players:
        raise ValueError(
            f"{len(specs)} agent specs for a {variant.players}-player variant; "
            "give one spec per seat"
        )
    pool = [make_agent(s) for s in specs]
    players = range(len(specs))
    batched = batch and batchable(pool) and batch_enabled()
    for first in range(start, start + games, _SEED_BATCH):
        # the seeds of game_seed and agent_seed, derived for a batch of games at once
        indices = range(first, min(first + _SEED_BATCH, start + games))
        seeds = derive_seeds([(seed, index) for index in indices])
        per_seat = derive_seeds([(s, 1 + seat) for s in seeds for seat in players])
        if batched:
            seated = [[pool[i] for i in (seating(specs, index) if rotate else players)]
                      for index in indices]
            width = len(players)
            yield from play_batch(seated, variant, seeds,
                                  [per_seat[k:k + width] for k in range(0, len(per_seat), width)],
                                  indices, record)
            continue
        for offset, index in enumerate(indices):
            order = seating(specs, index) if rotate else list(players)
            agent_seeds = per_seat[offset * len(players):(offset + 1) * len(players)]
            yield Match([pool[i] for i in order], variant, seeds[offset], game_id=index,
                        agent_seeds=agent_seeds).run(record)


def play_trial(
    agents: Sequence[Agent | str],
    games: int,
    seed: int = 0,
    variant: Variant | None = None,
    *,
    trial: int = 0,
    rotate: bool = True,
    record: bool = True,
) -> list[GameRecord]:
    """Play one *trial*: ``games`` games in a row with the same agent objects, so an agent
    that learns across games (e.g. ``utility:carry=true``) carries what it learned.

    Contract:

    - ``agents``: one per seat; agent objects are used as they are (their state going in
      is the trial's start), specs are built once; one object may not sit at two seats.
    - Seeds and seating: trial ``k`` of ``games`` games is deals ``k*games ..
      (k+1)*games - 1`` of a run with root ``seed``: its game ``g`` is game
      ``i = k*games + g`` of :func:`play_games` (``game_id`` ``i``, seed ``game_seed(seed,
      i)``, agents ``agent_seed(game seed, seat)``, seating ``seating(agents, i)``), and
      so trial ``k`` of a design with ``trial = games`` and the same seed (one table:
      tests/test_utility_agent.py). Trials ``0, 1, ...`` of one ``seed`` are thus
      independent and reproducible, and a control trial given the same ``seed`` and
      ``trial`` plays the same deals.
    - Seating without ``rotate``: agent ``i`` always sits at seat ``i``.
    - Returns the games' records in play order (without decision records if ``record``
      is false). A ValueError for ``games < 1`` or a wrong number of agents.
    """
    variant = variant or Variant()
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games={games!r}: a trial needs a whole number of games >= 1")
    if len(agents) != variant.players:
        raise ValueError(f"{len(agents)} agents given for a {variant.players}-player variant; "
                         "give one agent or spec per seat")
    pool = [a if isinstance(a, Agent) else make_agent(a) for a in agents]
    for i, agent in enumerate(pool):
        for j in range(i):
            if pool[j] is agent:
                raise ValueError(f"the same agent object is given for seats {j} and {i}; "
                                 "give each seat its own agent")
    first = trial * games
    indices = range(first, first + games)
    seeds = derive_seeds([(seed, index) for index in indices])
    players = range(len(pool))
    out = []
    for index, game in zip(indices, seeds, strict=True):
        order = seating(pool, index) if rotate else list(players)
        out.append(Match([pool[i] for i in order], variant, game, game_id=index).run(record))
    return out


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
