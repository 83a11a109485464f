"""Experiments: declarative designs, a resumable parallel runner, the decision log,
participant sessions, the synthetic participant set, the cache that makes sure a design's
log exists, and the model tables shown beside the statistics.

    >>> from nothanks.experiments import run_design, load
    >>> run_design("smoke", "runs/smoke", jobs=2)   # doctest: +SKIP
    >>> log = load("runs/smoke")                    # doctest: +SKIP

Importing the package imports pandas, Arrow and the models; the command line imports
its submodules only when a command runs, so ``nothanks --help`` stays light.
"""
from __future__ import annotations

from .cache import (
    PARTICIPANTS,
    QUICK_GAMES,
    QUICK_PARTICIPANTS,
    QUICK_SWEEP_VALUES,
    check_participants,
    ensure_design,
    ensure_participants,
    is_complete,
    load_cached,
)
from .design import (
    HUMAN,
    Condition,
    Design,
    DesignError,
    PlannedGame,
    Schedule,
    Sweep,
    Table,
    load_design,
    shipped_designs,
)
from .log import Log, export_csv, load
from .rows import LogContext, LogRows, compact_frames
from .run import RunSummary, run_design
from .schema import SCHEMA_VERSION, TABLES, LogError, schema_markdown
from .session import ParticipantSession, SessionError, check_participant_id
from .showcase import TRACE_PLAYERS, TRACE_SEED, instance_table, token_memory_history
from .verify import VerifyReport, verify
from .workers import play_chunk

__all__ = [
    "HUMAN",
    "PARTICIPANTS",
    "QUICK_GAMES",
    "QUICK_PARTICIPANTS",
    "QUICK_SWEEP_VALUES",
    "SCHEMA_VERSION",
    "TABLES",
    "TRACE_PLAYERS",
    "TRACE_SEED",
    "Condition",
    "Design",
    "DesignError",
    "Log",
    "LogContext",
    "LogError",
    "LogRows",
    "ParticipantSession",
    "PlannedGame",
    "RunSummary",
    "Schedule",
    "SessionError",
    "Sweep",
    "Table",
    "VerifyReport",
    "check_participant_id",
    "check_participants",
    "compact_frames",
    "ensure_design",
    "ensure_participants",
    "export_csv",
    "instance_table",
    "is_complete",
    "load",
    "load_cached",
    "load_design",
    "play_chunk",
    "run_design",
    "schema_markdown",
    "shipped_designs",
    "token_memory_history",
    "verify",
]
