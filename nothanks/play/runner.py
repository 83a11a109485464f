"""Play games between agents: one game, or many with seat rotation and derived seeds.

Every game's seed derives from the root seed and the game's index only, so a game can
be replayed alone and results do not depend on how games are split across workers.

:func:`play_planned` is the one loop that plays planned games (each with its id, seed
and seated agents): :func:`play_games` (the command line's ``nothanks play``),
:func:`play_trial`, the experiment workers
(:func:`nothanks.experiments.workers.play_chunk`) and the placebo pools all play through
it. It derives the agents' seeds in batches (:func:`nothanks.rules.seeding.agent_seeds`)
and plays each game with the one driver, :class:`nothanks.play.match.Match`, or, when
every seat is a baseline the batch engine plays, in compiled batches with the same
records (:mod:`nothanks.play.batch`).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, NamedTuple

import pandas as pd

from ..agents import Agent, make_agent
from ..rules import Action, Variant
from ..rules.seeding import AGENT_SEAT_OFFSET, agent_seed, agent_seeds, derive_seeds, game_seed
from .batch import batchable, play_batch
from .batch import enabled as batch_enabled
from .match import GameRecord, Match

__all__ = ["GameToPlay", "agent_seed", "game_seed", "play_game", "play_games", "play_planned",
           "play_trial", "seating", "summarize"]

#: Games whose seeds are derived together (a lazy run derives them a batch ahead).
_SEED_BATCH = 256


class GameToPlay(NamedTuple):
    """One planned game: its id, its seed and the agent at each seat.

    ``batch``: whether it may be played in a compiled batch (when every seat is an
    agent the batch engine plays); ``key``: whatever the caller planned it as (a
    design's ``PlannedGame``), handed back with the record.
    """

    game_id: int
    seed: int
    agents: Sequence[Agent]
    batch: bool = True
    key: Any = None


def play_planned(games: Iterable[GameToPlay], variant: Variant, *, record: bool = True,
                 batch: bool = True, seat_offset: int = AGENT_SEAT_OFFSET
                 ) -> Iterator[tuple[GameToPlay, GameRecord]]:
    """Play ``games`` in order; yield each with its record.

    Contract: game ``g`` is ``Match(g.agents, variant, g.seed, game_id=g.game_id,
    agent_seeds=...).run(record)``, its agents' seeds being ``agent_seed(g.seed, seat,
    seat_offset)``. Games whose every seat the batch engine plays
    (:func:`nothanks.play.batch.batchable`), with ``g.batch`` and ``batch`` true and the
    engine enabled, are gathered and played in compiled batches with the same records.
    ``games`` is read at most :data:`_SEED_BATCH` games ahead of the game played (the
    agents of a planned game are used only when it is played, in order).
    """
    batched = batch and batch_enabled()
    planned = iter(games)
    while chunk := list(islice(planned, _SEED_BATCH)):
        seeds = agent_seeds([game.seed for game in chunk], variant.players, seat_offset)
        pending: list[tuple[GameToPlay, list[int]]] = []
        for game, per_seat in zip(chunk, seeds, strict=True):
            if batched and game.batch and batchable(game.agents):
                pending.append((game, per_seat))
                continue
            yield from _play_batch(pending, variant, record)
            pending = []
            yield game, Match(game.agents, variant, game.seed, game_id=game.game_id,
                              agent_seeds=per_seat).run(record)
        yield from _play_batch(pending, variant, record)


def _play_batch(pending: Sequence[tuple[GameToPlay, list[int]]], variant: Variant,
                record: bool) -> Iterator[tuple[GameToPlay, GameRecord]]:
    """The games of ``pending`` (with their agents' seeds) played in one batch."""
    if not pending:
        return
    games = [game for game, _ in pending]
    records = play_batch([game.agents for game in games], variant,
                         [game.seed for game in games], [seeds for _, seeds in pending],
                         [game.game_id for game in games], record)
    yield from zip(games, records, strict=True)


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

    The games are played by :func:`play_planned`: when every agent is a baseline the
    batch engine plays (:func:`nothanks.play.batch.batchable`) and ``batch`` is true, in
    compiled batches with the same records (``batch=False`` or the reference,
    ``nothanks.kernels.reference_mode``: one :class:`Match` per game).
    """
    variant = variant or Variant()
    if len(specs) != variant.players:
        raise ValueError(
            f"{len(specs)} agent specs for a {variant.players}-player variant; "
            "give one spec per seat"
        )
    pool = [make_agent(s) for s in specs]
    players = list(range(len(specs)))

    def planned() -> Iterator[GameToPlay]:
        for first in range(start, start + games, _SEED_BATCH):
            indices = range(first, min(first + _SEED_BATCH, start + games))
            seeds = derive_seeds([(seed, index) for index in indices])  # game_seed's
            for index, game in zip(indices, seeds, strict=True):
                order = seating(specs, index) if rotate else players
                yield GameToPlay(index, game, [pool[i] for i in order])

    for _, played in play_planned(planned(), variant, record=record, batch=batch):
        yield played


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
      tests/unit/test_utility_agent.py). Trials ``0, 1, ...`` of one ``seed`` are thus
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
    seeds = derive_seeds([(seed, index) for index in indices])  # game_seed's
    players = list(range(len(pool)))
    planned = (GameToPlay(index, game, [pool[i] for i in (seating(pool, index) if rotate
                                                         else players)])
               for index, game in zip(indices, seeds, strict=True))
    return [played for _, played in play_planned(planned, variant, record=record)]


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
