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
from .log import SCHEMA_VERSION, TABLES, Log, LogError, export_csv, load, schema_markdown
from .run import RunSummary, play_chunk, run_design
from .session import ParticipantSession, SessionError, check_participant_id
from .synthetic import HumanStandIn  # registers the ``human-standin`` agent spec

__all__ = [
    "HUMAN",
    "SCHEMA_VERSION",
    "TABLES",
    "Condition",
    "Design",
    "DesignError",
    "HumanStandIn",
    "Log",
    "LogError",
    "ParticipantSession",
    "PlannedGame",
    "RunSummary",
    "Schedule",
    "SessionError",
    "Sweep",
    "Table",
    "check_participant_id",
    "export_csv",
    "load",
    "load_design",
    "play_chunk",
    "run_design",
    "schema_markdown",
    "shipped_designs",
]
