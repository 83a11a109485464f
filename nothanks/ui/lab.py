"""The experiment as a lab tool: an experimenter start screen in front of the session app.

The page served by ``make session`` shows only this: the experimenter types the
participant's id and presses Start; the screen then gives way to the game for that
participant (:class:`~nothanks.ui.session.ExperimentSessionApp`), which resumes at the
first unplayed game when the id has played before. Nothing on the page names another
participant or a file path, so the participant can be left alone with it.

Settings come from the environment, so one command serves the thesis schedule in the
lab and a short design in rehearsals and tests:

``NOTHANKS_SESSIONS``
    folder holding one log folder per participant (default ``data/participants`` in
    the project, which git ignores).
``NOTHANKS_SESSION_DESIGN``
    design name or TOML file (default ``human-schedule``, thesis Table 6).
``NOTHANKS_THINKING``
    models' thinking pause per second of retrieval latency (``0``: no pause).
"""
from __future__ import annotations

import html
import os
from collections.abc import Mapping
from pathlib import Path

import ipywidgets as w

from .pacing import ThinkingTime
from .session import ExperimentSessionApp

#: The project checkout holding the package (the default sessions folder lives in it).
PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SESSIONS = PROJECT_ROOT / "data" / "participants"
DEFAULT_DESIGN = "human-schedule"
#: Seconds Start waits for a just-closed or reloaded tab of the same participant to let go.
HANDOVER_SECONDS = 8.0


def sessions_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where participant sessions are stored: ``NOTHANKS_SESSIONS`` or the default."""
    environ = os.environ if environ is None else environ
    value = environ.get("NOTHANKS_SESSIONS", "").strip()
    return Path(value).expanduser() if value else DEFAULT_SESSIONS


def _error(text: str) -> str:
    return f"<span class='nt-lab-error' style='color:#b00'>{html.escape(text)}</span>"


class LabSessionApp:
    """Experimenter start screen (participant id + Start), then that participant's game.

    Args:
        sessions: folder with one log folder per participant (default: ``NOTHANKS_SESSIONS``
            or ``data/participants`` in the project).
        design: design name, file or object; loaded now so a wrong setting shows when the
            page opens, before a participant sits down.
        thinking: pause before each model move (``ThinkingTime.off()`` for tests).
        min_click_interval: seconds during which a second click on take/pass is ignored.
        handover: seconds Start waits for the participant's just-closed or reloaded tab
            to let go of the session before refusing (its kernel shuts down within
            seconds).
    """

    def __init__(
        self,
        sessions: str | Path | None = None,
        *,
        design: object = DEFAULT_DESIGN,
        thinking: ThinkingTime | None = None,
        min_click_interval: float = 0.3,
        handover: float = HANDOVER_SECONDS,
    ) -> None:
        from ..experiments import load_design
        self.handover = handover
        self.sessions = Path(sessions) if sessions is not None else sessions_dir()
        self.design = load_design(design)
        self.thinking = thinking if thinking is not None else ThinkingTime()
        self.min_click_interval = min_click_interval
        #: the game app once a participant has started (None on the start screen)
        self.app: ExperimentSessionApp | None = None

        self.participant_input = w.Text(placeholder="e.g. P07", description="Participant id",
                                        style={"description_width": "initial"})
        self.start_button = w.Button(description="Start", button_style="primary")
        self.message = w.HTML()
        self.participant_input.add_class("nt-lab-id")
        self.start_button.add_class("nt-lab-start")
        self.message.add_class("nt-lab-message")
        self.start_button.on_click(lambda _: self.start(self.participant_input.value))
        self.start_screen = w.VBox([
            w.HTML("<b>Experimenter:</b> enter the participant's code (never a name) and "
                   "press Start. A code that has played before resumes at its next game."),
            w.HBox([self.participant_input, self.start_button]),
            self.message,
        ])
        self.start_screen.add_class("nt-lab-start-screen")
        self.game_area = w.VBox()
        self.widget = w.VBox([self.start_screen, self.game_area])

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **kwargs) -> LabSessionApp:
        """The app as ``make session`` serves it, set by the environment: the sessions
        folder ``NOTHANKS_SESSIONS``, the design ``NOTHANKS_SESSION_DESIGN`` (default
        ``human-schedule``) and the thinking pause scale ``NOTHANKS_THINKING`` (0: none)."""
        environ = os.environ if environ is None else environ
        scale = float(environ.get("NOTHANKS_THINKING", "0.5") or 0)
        thinking = ThinkingTime(scale=scale) if scale > 0 else ThinkingTime.off()
        design = environ.get("NOTHANKS_SESSION_DESIGN", "").strip() or DEFAULT_DESIGN
        return cls(sessions_dir(environ), design=design, thinking=thinking, **kwargs)

    def start(self, participant_id: str) -> bool:
        """Open (or resume) the participant's session in place of the start screen.

        False, with the reason on the start screen, for an invalid id or a session that
        has no game left.
        """
        from ..experiments import check_participant_id
        if self.app is not None:
            return False
        participant_id = participant_id.strip()
        try:
            check_participant_id(participant_id)
        except ValueError as exc:
            self.message.value = _error(str(exc))
            return False
        self.message.value = "Opening the session…"
        app = ExperimentSessionApp(
            self.sessions, design=self.design, thinking=self.thinking,
            min_click_interval=self.min_click_interval, show_log_folder=False,
            handover=self.handover)
        if not app.start(participant_id):
            self.message.value = app.message.value
            return False
        if app.session.finished:
            self.message.value = _error(
                f"Participant {participant_id} has already played all "
                f"{app.session.games_total} games: there is nothing left to play. "
                "Check the code, or use a new one for a new participant.")
            return False
        app.id_row.layout.display = "none"
        self.app = app
        self.start_screen.layout.display = "none"
        self.game_area.children = (app.widget,)
        return True

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(self.widget)
