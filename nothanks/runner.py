"""Play games between agents: one game, or many with seat rotation and derived seeds.

Every game's seed derives from the root seed and the game's index only, so a game can
be replayed alone and results do not depend on how games are split across workers.
"""
from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .agents import Agent, make_agent
from .rules import Action, Game, Variant, card_points

#: Columns of the compact decision table, in order (stable; richer logs add columns).
DECISION_COLUMNS = (
    "game_id", "turn", "seat", "agent", "card", "tokens_on_card", "tokens_before",
    "cards_before", "action", "forced",
)
#: Columns of the per-player game table, in order.
GAME_COLUMNS = (
    "game_id", "seed", "seat", "agent", "cards", "card_points", "tokens", "score", "rank",
    "rank_points",
)


def game_seed(root_seed: int, game_index: int) -> int:
    """Seed of game ``game_index`` of a run with ``root_seed`` (63-bit, position-based)."""
    state = np.random.SeedSequence([root_seed, game_index]).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


def agent_seed(seed: int, seat: int) -> int:
    """Seed for the agent in ``seat`` of the game with ``seed``."""
    state = np.random.SeedSequence([seed, 1 + seat]).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


def seating(specs: Sequence[str], game_index: int) -> list[int]:
    """Index into ``specs`` of the agent at each seat: a cyclic rotation per game.

    Over any ``len(specs)`` consecutive games every agent sits in every seat once.
    """
    n = len(specs)
    shift = game_index % n
    return [(seat + shift) % n for seat in range(n)]


@dataclass
class GameResult:
    """Outcome of one game and its decisions (compact rows, see DECISION_COLUMNS)."""

    game_id: int
    seed: int
    agents: tuple[str, ...]
    cards: tuple[tuple[int, ...], ...]
    tokens: tuple[int, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    rank_points: tuple[float, ...]
    decisions: list[tuple] = field(default_factory=list)
    decision_info: list[dict[str, object]] = field(default_factory=list)

    def game_rows(self) -> list[tuple]:
        return [
            (self.game_id, self.seed, s, self.agents[s], list(self.cards[s]),
             card_points(self.cards[s]), self.tokens[s], self.scores[s], self.ranks[s],
             self.rank_points[s])
            for s in range(len(self.agents))
        ]


def play_game(
    agents: Sequence[Agent],
    variant: Variant | None = None,
    seed: int = 0,
    game_id: int = 0,
    record: bool = True,
) -> GameResult:
    """Play one game with ``agents[seat]`` at each seat and return its result."""
    variant = variant or Variant()
    if len(agents) != variant.players:
        raise ValueError(
            f"{len(agents)} agents given for a {variant.players}-player variant; "
            "give one agent per seat"
        )
    for seat, agent in enumerate(agents):
        agent.start(seat, variant, agent_seed(seed, seat))
    listeners = [a.observe for a in agents if a.observes()]
    game = Game(variant, seed, listeners=listeners)
    if listeners:  # the first card was revealed before anyone could listen
        for listener in listeners:
            listener(game.history[0])
    decisions: list[tuple] = []
    infos: list[dict[str, object]] = []
    specs = tuple(a.spec for a in agents)
    while not game.over:
        seat = game.seat
        view = game.view(seat)
        action = agents[seat].decide(view)
        if record:
            forced = view.own_tokens == 0
            decisions.append((
                game_id, game.turn, seat, specs[seat], view.card, view.tokens_on_card,
                view.own_tokens, view.cards[seat], str(action), forced,
            ))
            infos.append(agents[seat].decision_info())
        game.apply(action, seat)
    over = game.history[-1]
    return GameResult(
        game_id, seed, specs, tuple(game.cards(s) for s in range(variant.players)),
        tuple(game.tokens(s) for s in range(variant.players)),
        over.scores, over.ranks, over.rank_points, decisions, infos,
    )


def play_games(
    specs: Sequence[str],
    games: int,
    seed: int = 0,
    variant: Variant | None = None,
    *,
    start: int = 0,
    rotate: bool = True,
    record: bool = True,
) -> Iterator[GameResult]:
    """Play games ``start .. start+games-1`` of a run; agents are built once and reused."""
    variant = variant or Variant()
    if len(specs) != variant.players:
        raise ValueError(
            f"{len(specs)} agent specs for a {variant.players}-player variant; "
            "give one spec per seat"
        )
    pool = [make_agent(s) for s in specs]
    for index in range(start, start + games):
        order = seating(specs, index) if rotate else list(range(len(specs)))
        yield play_game(
            [pool[i] for i in order], variant, game_seed(seed, index), index, record
        )


def results_to_frames(results: Sequence[GameResult]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-player game table and the compact decision table of ``results``."""
    games = pd.DataFrame(
        [row for r in results for row in r.game_rows()], columns=list(GAME_COLUMNS)
    )
    decisions = pd.DataFrame(
        [row for r in results for row in r.decisions], columns=list(DECISION_COLUMNS)
    )
    decisions["cards_before"] = decisions["cards_before"].map(list)
    infos = [info for r in results for info in r.decision_info]
    if any(infos):
        extra = pd.DataFrame(infos, index=decisions.index)
        for column in extra.columns:  # nested values (predictions, recalls) as JSON text,
            if extra[column].map(lambda v: isinstance(v, (list, dict))).any():  # Parquet-safe
                extra[column] = extra[column].map(
                    lambda v: json.dumps(v) if isinstance(v, (list, dict)) else None
                )
        decisions = pd.concat([decisions, extra], axis=1)
    return games, decisions


def summarize(games: pd.DataFrame, decisions: pd.DataFrame) -> pd.DataFrame:
    """Per agent spec: player-games, mean score, mean rank points, win share, pass share,
    decisions per game."""
    by_agent = games.groupby("agent", sort=True)
    summary = pd.DataFrame({
        "games": by_agent.size(),
        "mean_score": by_agent["score"].mean(),
        "mean_rank_points": by_agent["rank_points"].mean(),
        "win_share": by_agent["rank"].apply(lambda r: float((r == 1).mean())),
    })
    dec = decisions.groupby("agent", sort=True)
    summary["pass_share"] = dec["action"].apply(lambda a: float((a == Action.PASS).mean()))
    summary["decisions_per_game"] = dec.size() / summary["games"]
    return summary
