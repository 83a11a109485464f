"""Interactive apps (ipywidgets): play against the models, run the human experiment
(and serve it in the lab behind an experimenter start screen), step through a
model-only game or a logged one (a participant's or a run's). Notebooks only import and
display these; games are played by the one driver, :class:`nothanks.match.Match`."""
from .explorer import StepExplorer, memory_figure, memory_frame
from .lab import LabSessionApp
from .logged import LoggedGame, LoggedGameExplorer, explore_logged
from .pacing import ThinkingTime, opponent_choices
from .play import PlayApp
from .render import TableState, rules_html, runs, table_html
from .session import ExperimentSessionApp

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
