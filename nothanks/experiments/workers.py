"""A worker's job: play one chunk of a design's games and return its log tables.

Building a cognitive agent costs more than a game (it stores its ~2,000 instance
chunks), so a worker keeps the agents of recent conditions and reuses them across
chunks; this is safe because ``start()`` resets an agent completely (a game's result
depends only on its position: tests/test_experiments_run.py checks it).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from ..agents import Agent, make_agent
from ..play.batch import batchable, play_batch
from ..play.batch import enabled as batch_enabled
from ..play.match import Match
from ..rules.seeding import derive_seeds
from .design import HUMAN, Design, DesignError, PlannedGame
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
    """Play games ``start .. stop-1`` and return their log tables as Parquet bytes."""
    rows = LogRows(context, design, traces)
    pool: list[Agent] = []
    # games whose every seat is a baseline agent, gathered and played in compiled batches
    # (nothanks.play.batch: the same records) unless traces are on or the reference is
    pending: list[tuple[PlannedGame, list[Agent]]] = []
    for plan in design.plan(start, stop):
        trial = design.trial_of(plan)
        if not traces and trial is None:
            seated = [_agents_for(design, plan.condition)[r] for r in plan.roles]
            if batchable(seated) and batch_enabled():
                pending.append((plan, seated))
                continue
        _add_batch(rows, design, pending)
        pending = []
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
    _add_batch(rows, design, pending)
    return rows.to_parquet()


def _add_batch(rows: LogRows, design: Design,
               pending: Sequence[tuple[PlannedGame, list[Agent]]]) -> None:
    """Play the baseline games of ``pending`` in one batch and add their rows, in order."""
    if not pending:
        return
    n = design.variant.players
    seeds = [plan.seed for plan, _ in pending]
    per_seat = derive_seeds([(seed, 1 + seat) for seed in seeds for seat in range(n)])
    records = play_batch([seated for _, seated in pending], design.variant, seeds,
                         [per_seat[k:k + n] for k in range(0, len(per_seat), n)],
                         [plan.position for plan, _ in pending])
    for (plan, _), record in zip(pending, records, strict=True):
        rows.add_game(plan, record)
