"""Experiments: declarative designs, a resumable parallel runner, the decision log,
participant sessions and the synthetic participant set.

    >>> from nothanks.experiments import run_design, load
    >>> run_design("smoke", "runs/smoke", jobs=2)   # doctest: +SKIP
    >>> log = load("runs/smoke")                    # doctest: +SKIP
"""
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
from .workers import play_chunk

__all__ = [
    "HUMAN",
    "SCHEMA_VERSION",
    "TABLES",
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
    "check_participant_id",
    "compact_frames",
    "export_csv",
    "load",
    "load_design",
    "play_chunk",
    "run_design",
    "schema_markdown",
    "shipped_designs",
]
