"""Interactive apps (ipywidgets): play against the models, run the human experiment
(and serve it in the lab behind an experimenter start screen), step through a
model-only game or a logged one (a participant's or a run's). Notebooks only import and
display these; games are played by the one driver, :class:`nothanks.play.match.Match`.

Names are imported from their modules on first use, so a page that needs only the lab
session (``make session``) does not load the explorer's plotting (matplotlib).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

#: Each public name and the submodule defining it.
_HOME = {
    "ExperimentSessionApp": "session",
    "LabSessionApp": "lab",
    "LoggedGame": "logged",
    "LoggedGameExplorer": "logged",
    "PlayApp": "play",
    "StepExplorer": "explorer",
    "TableState": "render",
    "ThinkingTime": "pacing",
    "explore_logged": "logged",
    "memory_figure": "explorer",
    "memory_frame": "explorer",
    "opponent_choices": "pacing",
    "rules_html": "render",
    "runs": "render",
    "table_html": "render",
}

__all__ = [
    "ExperimentSessionApp",
    "LabSessionApp",
    "LoggedGame",
    "LoggedGameExplorer",
    "PlayApp",
    "StepExplorer",
    "TableState",
    "ThinkingTime",
    "explore_logged",
    "memory_figure",
    "memory_frame",
    "opponent_choices",
    "rules_html",
    "runs",
    "table_html",
]

if TYPE_CHECKING:
    from .explorer import StepExplorer, memory_figure, memory_frame
    from .lab import LabSessionApp
    from .logged import LoggedGame, LoggedGameExplorer, explore_logged
    from .pacing import ThinkingTime, opponent_choices
    from .play import PlayApp
    from .render import TableState, rules_html, runs, table_html
    from .session import ExperimentSessionApp


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
