"""Experiments: declarative designs, a resumable parallel runner, the decision log,
participant sessions, the synthetic participant set, rated tournaments, the cache that makes sure a
design's log exists, and the model tables shown beside the statistics.

    >>> from nothanks.experiments import run_design, load
    >>> run_design("smoke", "runs/smoke", jobs=2)   # doctest: +SKIP
    >>> log = load("runs/smoke")                    # doctest: +SKIP

The names below are imported on first use (PEP 562), so importing the package — as the
command line does to build its parser — loads neither pandas nor the models.
"""
from __future__ import annotations

import importlib
import sys
import types

#: Public name -> the submodule that defines it.
_SOURCES = {
    # .cache
    "PARTICIPANTS": "cache",
    "QUICK_GAMES": "cache",
    "QUICK_PARTICIPANTS": "cache",
    "QUICK_SWEEP_VALUES": "cache",
    "ensure_design": "cache",
    "ensure_participants": "cache",
    "is_complete": "cache",
    "load_cached": "cache",
    # .design
    "HUMAN": "design",
    "Condition": "design",
    "Design": "design",
    "DesignError": "design",
    "PlannedGame": "design",
    "Schedule": "design",
    "Sweep": "design",
    "Table": "design",
    "load_design": "design",
    "shipped_designs": "design",
    # .log
    "Log": "log",
    "export_csv": "log",
    "load": "log",
    # .rows
    "LogContext": "rows",
    "LogRows": "rows",
    "compact_frames": "rows",
    # .run
    "RunSummary": "run",
    "run_design": "run",
    # .schema
    "SCHEMA_VERSION": "schema",
    "TABLES": "schema",
    "LogError": "schema",
    "schema_markdown": "schema",
    # .session
    "ParticipantSession": "session",
    "SessionError": "session",
    "check_participant_id": "session",
    # .showcase
    "TRACE_PLAYERS": "showcase",
    "TRACE_SEED": "showcase",
    "instance_table": "showcase",
    "token_memory_history": "showcase",
    # .tournament
    "Tournament": "tournament",
    "TournamentError": "tournament",
    "load_tournament": "tournament",
    "plan_tables": "tournament",
    "run_tournament": "tournament",
    "shipped_tournaments": "tournament",
    # .verify
    "VerifyReport": "verify",
    "verify": "verify",
    # .workers
    "play_chunk": "workers",
}

__all__ = sorted(_SOURCES, key=lambda name: (not name.isupper(), not name[0].isupper(), name))


def __getattr__(name: str) -> object:
    try:
        module = _SOURCES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SOURCES))


class _Package(types.ModuleType):
    """The import system binds a submodule to its package when it is first imported;
    where a public name is also a submodule's name (``verify``), the name stays the
    public function, as an eager ``from .verify import verify`` would have left it."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and name in _SOURCES:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
