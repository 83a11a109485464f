"""Interactive apps (ipywidgets): play against the models, run the human experiment,
step through a model-only game. Notebooks only import and display these."""
from .explorer import StepExplorer, memory_figure, memory_frame
from .match import Decision, HumanSeat, Match, replay
from .pacing import ThinkingTime, opponent_choices
from .play import PlayApp
from .session import ExperimentSessionApp
from .render import TableState, rules_html, runs, table_html

__all__ = [
    "StepExplorer", "memory_figure", "memory_frame", "Decision", "HumanSeat", "Match", "replay", "ThinkingTime", "opponent_choices", "PlayApp", "ExperimentSessionApp",
    "TableState", "rules_html", "runs", "table_html",
]
