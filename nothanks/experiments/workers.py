"""A worker's job: play one chunk of a design's games and return its log tables.

Building a cognitive agent costs more than a game (it stores its ~2,000 instance
chunks), so a worker keeps the agents of recent conditions and reuses them across
chunks; this is safe because ``start()`` resets an agent completely (a game's result
depends only on its position: tests/test_experiments_run.py checks it).
"""
from __future__ import annotations

import threading
from collections import OrderedDict

from ..agents import Agent, make_agent
from ..match import Match
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
    Designs without a cognitive model load nothing."""
    if any(make_agent(spec).tom_order is not None for spec in design.agent_specs()):
        from ..actr import kernel
        from ..agents.cognitive import tom_kernel
        kernel.warm()
        tom_kernel.warm()


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
    """Play games ``start .. stop-1`` and return their log tables as Parquet bytes."""
    rows = LogRows(context, design, traces)
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
        for agent in seated:  # switched per game: the cache is shared by traced runs
            if agent.can_trace:
                agent.traces = traces
        rows.add_game(plan, Match(seated, design.variant, plan.seed,
                                  game_id=plan.position).run())
    return rows.to_parquet()
