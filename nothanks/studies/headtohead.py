"""Head-to-head matches on shared deals: who sits where, CPU per decision, first places.

The evaluation benchmarks (``benchmarks/alphazero_eval.py``,
``benchmarks/openspiel_ismcts.py``) play small fixed line-ups on the same deals: deal
*i* is the same cards (and the same per-seat agent seeds) in every comparison, and each
deal is played once per *seating* (e.g. a focal agent in every seat against three
copies of an opponent: :func:`focal_seatings`), so every side holds every seat once
per deal. Each searched decision is timed (CPU of the deciding process; forced takes,
with no tokens, are neither searched nor counted). First-place shares count ties for
first; their 95% intervals resample whole deals (the player-games of one deal are not
independent: :func:`~nothanks.analysis.paired.cluster_share`), as do the intervals of
mean rank points (:func:`side_summary`).
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..agents import Agent, make_agent
from ..analysis.frames import AnalysisInputError, require_columns
from ..analysis.paired import bootstrap_interval, cluster_share
from ..play.match import Match
from ..rules import Action, Event, Variant, View
from ..rules.seeding import agent_seed, game_seed


class TimedAgent(Agent):
    """An agent built from ``spec`` that times each of its searched decisions (CPU
    seconds of this process, in :attr:`cpu`; forced takes are not timed)."""

    def __init__(self, spec: str) -> None:
        super().__init__()
        self.inner = make_agent(spec)
        self.spec = self.inner.spec
        self.name = self.inner.name  # type: ignore[misc]
        self.cpu: list[float] = []

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        super().start(seat, variant, seed)
        self.inner.start(seat, variant, seed)

    def observe(self, event: Event) -> None:
        self.inner.observe(event)

    def decide(self, view: View) -> Action:
        before = time.process_time()
        action = self.inner.decide(view)
        if view.own_tokens > 0:
            self.cpu.append(time.process_time() - before)
        return action


@dataclass(frozen=True)
class Seating:
    """One table: the agent spec and the side (a label such as ``focal``) of each seat."""

    specs: tuple[str, ...]
    sides: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.specs) != len(self.sides) or len(self.specs) < 2:
            raise ValueError(f"a seating needs one side per spec and at least 2 seats; got "
                             f"specs {self.specs} and sides {self.sides}")


def focal_seatings(focal: str, opponent: str, seats: int = 4) -> tuple[Seating, ...]:
    """``focal`` against ``seats - 1`` copies of ``opponent``, once in every seat."""
    return tuple(Seating(tuple(focal if s == r else opponent for s in range(seats)),
                         tuple("focal" if s == r else "opponent" for s in range(seats)))
                 for r in range(seats))


def play_deal(seatings: Sequence[Seating], seed: int, deal: int,
              comparison: str = "", variant: Variant | None = None) -> list[dict]:
    """Every seating of deal ``deal`` (the cards and agent seeds of
    ``game_seed(seed, deal)``); one row per player-game: comparison, deal, seating
    (index), seat, side, spec, rank, rank_points, score, decisions timed, cpu (s)."""
    rows = []
    deal_seed = game_seed(seed, deal)
    for index, seating in enumerate(seatings):
        agents = [TimedAgent(spec) for spec in seating.specs]
        seats = len(agents)
        rules = variant if variant is not None else Variant(players=seats)
        record = Match(agents, rules, deal_seed, game_id=deal,
                       agent_seeds=[agent_seed(deal_seed, s) for s in range(seats)]).run(False)
        for seat, side in enumerate(seating.sides):
            rows.append({
                "comparison": comparison, "deal": deal, "seating": index, "seat": seat,
                "side": side, "spec": agents[seat].spec, "rank": record.ranks[seat],
                "rank_points": record.rank_points[seat], "score": record.scores[seat],
                "decisions": len(agents[seat].cpu), "cpu": sum(agents[seat].cpu)})
    return rows


def side_summary(games: pd.DataFrame, side: str) -> dict:
    """One side's results in ``games`` (rows of :func:`play_deal`): deals, player-games,
    first-place share and mean rank points, each as (value, low, high) with a 95%
    interval clustered by deal, and CPU milliseconds per timed decision."""
    require_columns(games, ["deal", "side", "rank", "rank_points", "cpu", "decisions"],
                    "head-to-head games")
    mine = games[games["side"] == side]
    if mine.empty:
        raise AnalysisInputError(f"head-to-head games: no rows of side {side!r}; sides: "
                                 f"{sorted(games['side'].unique())}")
    per_deal = mine.assign(first=(mine["rank"] == 1).astype(int)).groupby("deal").agg(
        first=("first", "sum"), games=("first", "size"), points=("rank_points", "mean"))
    points = per_deal["points"].to_numpy(float)
    mean = float(mine["rank_points"].mean())
    if len(points) > 1 and np.ptp(points) > 0:
        low, high = bootstrap_interval(points)
    else:
        low = high = mean
    decisions = int(mine["decisions"].sum())
    return {"deals": len(per_deal), "games": len(mine),
            "first": cluster_share(per_deal["first"].to_numpy(), per_deal["games"].to_numpy()),
            "rank_points": (mean, low, high),
            "ms": 1000 * float(mine["cpu"].sum()) / decisions if decisions else float("nan")}


def flat_table(summary: pd.DataFrame) -> pd.DataFrame:
    """``summary`` with each column of (value, low, high) triples (``first``,
    ``rank_points``, ...) split into ``<name>``, ``<name>_ci_low`` and
    ``<name>_ci_high``: a table a CSV holds, each interval beside its value."""
    out = {}
    for name, column in summary.items():
        if len(column) and all(isinstance(v, tuple) and len(v) == 3 for v in column):
            for suffix, part in zip(("", "_ci_low", "_ci_high"), zip(*column, strict=True),
                                    strict=True):
                out[f"{name}{suffix}"] = list(part)
        else:
            out[name] = column.to_list()
    return pd.DataFrame(out, index=summary.index)


def percent(triple: tuple[float, float, float]) -> str:
    """``37.5% [20.0, 55.0]`` for a (share, low, high) triple."""
    share, low, high = triple
    return f"{100 * share:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def interval(triple: tuple[float, float, float], digits: int = 2) -> str:
    """``1.62 [1.40, 1.85]`` for a (value, low, high) triple."""
    value, low, high = triple
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
