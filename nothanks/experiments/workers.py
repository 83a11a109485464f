"""A worker's job: play one chunk of a design's games and return its log tables.

Building a cognitive agent costs more than a game (it stores its ~2,000 instance
chunks), so a worker keeps the agents of recent conditions and reuses them across
chunks; this is safe because ``start()`` resets an agent completely (a game's result
depends only on its position: tests/integration/test_experiments_run.py checks it).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator

from ..agents import Agent, make_agent
from ..play.batch import batchable
from ..play.batch import enabled as batch_enabled
from ..play.runner import GameToPlay, play_planned
from .design import HUMAN, Design, DesignError
from .rows import LogContext, LogRows

try:  # the cognitive models register tom specs on import; workers need them too
    import nothanks.agents.cognitive  # noqa: F401
except ModuleNotFoundError as _exc:  # pragma: no cover - partial install
    if _exc.name is None or not "nothanks.agents.cognitive".startswith(_exc.name):
        raise


def build_agents(design: Design, condition: int) -> list[Agent]:
    """One fresh agent per role of ``condition`` (the human role gets ``design.human``);
    :class:`DesignError` when the design seats a human and gives no stand-in."""
    agents = []
    for spec in design.conditions[condition].players:
        if spec == HUMAN:
            if design.human is None:
                raise DesignError(
                    f"design {design.name!r} seats a human; play it with a "
                    "ParticipantSession, or give a stand-in (nothanks run --human SPEC, "
                    "e.g. human-standin)")
            spec = design.human
        agents.append(make_agent(spec))
    return agents


def prepare_to_fork(design: Design) -> None:
    """Load, in the process about to fork workers, what each worker would otherwise load
    for itself: when the design seats a cognitive model, its compiled ACT-R kernels.
    Forked workers inherit them, so numba's load happens once (docs/benchmarks.md).
    Designs without a cognitive model load nothing; designs seating baseline agents load
    the batch engine's kernel (:mod:`nothanks.play.batch`)."""
    agents = [make_agent(spec) for spec in design.agent_specs()]
    if any(agent.tom_order is not None for agent in agents):
        from ..actr import kernel
        from ..agents.cognitive import tom_kernel
        kernel.warm()
        tom_kernel.warm()
    if any(batchable([agent]) for agent in agents) and batch_enabled():
        from ..search import baseline_games
        baseline_games.warm()


#: Agents of recent conditions, per worker thread.
_worker = threading.local()
_CACHED_CONDITIONS = 8


def _agents_for(design: Design, condition: int) -> list[Agent]:
    cache: OrderedDict = _worker.__dict__.setdefault("agents", OrderedDict())
    key = (design.conditions[condition].players, design.human)
    if key in cache:
        cache.move_to_end(key)
    else:
        cache[key] = build_agents(design, condition)
        if len(cache) > _CACHED_CONDITIONS:
            cache.popitem(last=False)
    return cache[key]


def play_chunk(design: Design, start: int, stop: int, context: LogContext,
               traces: bool = False) -> dict[str, bytes]:
    """Play games ``start .. stop-1`` and return their log tables as Parquet bytes.

    The games are played by the one planned-games loop
    (:func:`nothanks.play.runner.play_planned`): games whose every seat is a baseline
    agent in compiled batches (the same records) unless traces are on, the game is part
    of a trial, or the reference is in force."""
    rows = LogRows(context, design, traces)
    for game, record in play_planned(_planned(design, start, stop, traces), design.variant):
        rows.add_game(game.key, record)
    return rows.to_parquet()


def _planned(design: Design, start: int, stop: int, traces: bool) -> Iterator[GameToPlay]:
    """Games ``start .. stop-1`` of ``design`` with their seated agents: the cached agents
    of their condition, or, in a trial, agents built fresh at its first game and kept to
    its end."""
    pool: list[Agent] = []
    for plan in design.plan(start, stop):
        trial = design.trial_of(plan)
        if trial is None:
            pool = _agents_for(design, plan.condition)
        elif trial[1] == 0:  # a trial starts from fresh agents and keeps them to its end
            pool = build_agents(design, plan.condition)
        elif not pool:
            raise ValueError(f"chunk {start}-{stop} of design {design.name!r} starts inside "
                             f"a trial (game {trial[1]} of trial {trial[0]}); chunks of a "
                             f"design with trials must hold whole trials of {design.trial}")
        seated = [pool[r] for r in plan.roles]
        for agent in seated:  # switched per chunk: the cache is shared by traced runs
            if agent.can_trace:
                agent.traces = traces
        yield GameToPlay(plan.position, plan.seed, seated,
                         batch=not traces and trial is None, key=plan)
