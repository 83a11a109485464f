"""The human experiment (thesis §5.1, Table 6) for one participant, as an ipywidgets app.

The app is a screen over :class:`nothanks.experiments.ParticipantSession`, which owns the
schedule, the seating, the durable per-game log and resuming: starting the app again
with the same participant id continues at the first unplayed game. At each of the
participant's turns the opponents can be marked as having made a bad move in their last
turn (thesis Figure 7): clicking an opponent's button marks it red; the marks are logged
with the participant's action.
"""
from __future__ import annotations

import html
import time
from dataclasses import dataclass, replace
from pathlib import Path

import ipywidgets as w

from ..rules import Action, IllegalActionError, Passed, Took, View
from .pacing import Pacer, ThinkingTime
from .render import TableState, moves_since, rules_html, table_html


@dataclass(frozen=True)
class SessionMove:
    """A model turn already logged by the session, shown after its thinking pause."""

    seat: int
    action: Action
    before: View
    latency: float | None


class ExperimentSessionApp:
    """Run the human-schedule design for a participant id, game by game.

    Args:
        out_dir: folder with one session directory per participant (the experiments
            layer's log format).
        participant_id: start at once for this id (else type it and press start).
        design: the design to run (default the thesis's 24-game human schedule).
        thinking: pause before each model move (``ThinkingTime.off()`` for tests).
        show_models: show the opponents' ToM order (off: participants are blind to it).
        min_click_interval: seconds during which a second click is ignored.
        show_log_folder: name the log folder on screen (off where participants watch:
            then no message shows a file path).
        handover: seconds to wait, on start, for another process holding the participant
            to let go (a tab just closed or reloaded shuts its kernel down within
            seconds) before refusing.
    """

    def __init__(
        self,
        out_dir: str | Path,
        participant_id: str | None = None,
        *,
        design: object = "human-schedule",
        thinking: ThinkingTime | None = None,
        show_models: bool = False,
        min_click_interval: float = 0.3,
        show_log_folder: bool = True,
        handover: float = 0.0,
    ) -> None:
        self.out_dir = Path(out_dir)
        self.handover = handover
        self.design = design
        self.thinking = thinking if thinking is not None else ThinkingTime()
        self.show_models = show_models
        self.min_click_interval = min_click_interval
        self.show_log_folder = show_log_folder
        self.pacer = Pacer(self.thinking)
        self.session = None
        self._last_click = -1e9
        self.marks: set[int] = set()
        self.shown: View | None = None  # the table while a model "thinks"
        self.thinking_seat: int | None = None
        self._save_failed = False  # the message says a game could not be saved

        self.participant_input = w.Text(placeholder="e.g. P07", description="Participant")
        self.start_button = w.Button(description="Start / resume", button_style="primary")
        self.progress = w.HTML()
        self.table = w.HTML()
        self.take_button = w.Button(description="Take", button_style="success")
        self.pass_button = w.Button(description="No thanks! (pass)", button_style="warning")
        self.next_game_button = w.Button(description="Next game", button_style="primary")
        self.feedback_prompt = w.HTML(
            "Did an opponent make a <b>bad move</b> in their last turn? Click them to mark "
            "(optional), then take or pass.")
        self.mark_buttons: dict[int, w.ToggleButton] = {}
        self.mark_box = w.HBox()
        self.message = w.HTML()
        for widget, css in ((self.take_button, "nt-take"), (self.pass_button, "nt-pass"),
                            (self.next_game_button, "nt-next-game"),
                            (self.start_button, "nt-start"), (self.table, "nt-table-widget")):
            widget.add_class(css)
        self.start_button.on_click(lambda _: self.start(self.participant_input.value.strip()))
        self.take_button.on_click(lambda _: self.act(Action.TAKE))
        self.pass_button.on_click(lambda _: self.act(Action.PASS))
        self.next_game_button.on_click(lambda _: self.next_game())
        self.play_area = w.VBox([
            self.progress, self.table, w.VBox([self.feedback_prompt, self.mark_box]),
            w.HBox([self.take_button, self.pass_button, self.next_game_button]),
        ])
        self.play_area.layout.display = "none"
        rules = w.Accordion(children=[w.HTML(rules_html(self._variant()))],
                            titles=("How to play",), selected_index=None)
        #: the id box and start button (hidden when another screen chose the id)
        self.id_row = w.HBox([self.participant_input, self.start_button])
        self.widget = w.VBox([
            self.id_row, self.message,
            self.play_area, rules,
        ])
        if participant_id is not None:
            self.participant_input.value = participant_id
            self.start(participant_id)

    def _variant(self):
        from ..experiments import load_design
        return load_design(self.design).variant

    # --- flow ---------------------------------------------------------------------------
    def start(self, participant_id: str) -> bool:
        """Open (or resume) the participant's session; False with a message if invalid."""
        from ..experiments import ParticipantSession
        from ..experiments.session import SessionInUse
        self.pacer.cancel()
        try:
            self.session = ParticipantSession(participant_id, self.out_dir, self.design,
                                              wait=self.handover)
        except SessionInUse as exc:
            self._error(
                f"Participant {exc.participant_id} is already playing in another window or "
                f"tab (process {exc.holder}). Close that one first; a closed tab lets go "
                "within seconds. Then press Start again.")
            return False
        except ValueError as exc:
            self._error(str(exc))
            return False
        done = self.session.games_done
        self.message.value = (
            f"Participant <b>{html.escape(participant_id)}</b>: "
            + (f"resuming after {done} finished games." if done else "new session.")
            + self._log_folder(" Logs: "))
        self.participant_input.disabled = self.start_button.disabled = True
        self.play_area.layout.display = None
        self._begin_game()
        return True

    def moved(self) -> set[int]:
        """Opponents who have moved in this game (only they can be marked)."""
        s = self.session
        history = s.view().history
        return {e.seat for e in history if isinstance(e, (Passed, Took))} - {s.human_seat}

    def _begin_game(self) -> None:
        s = self.session
        if s.finished:
            self._render()
            return
        seats = [seat for seat in range(s.game.variant.players) if seat != s.human_seat]
        self.mark_buttons = {
            seat: w.ToggleButton(description=f"Player {seat + 1}", icon="thumbs-down")
            for seat in seats
        }
        for seat, button in self.mark_buttons.items():
            button.add_class(f"nt-mark-{seat}")
            button.observe(lambda change, seat=seat: self._toggle_mark(seat, change["new"]),
                           names="value")
        self.mark_box.children = tuple(self.mark_buttons.values())
        self.marks = set()
        self._advance()

    def _toggle_mark(self, seat: int, on: bool) -> None:
        if on and self._can_act() and seat in self.moved():
            self.marks.add(seat)
        else:
            self.marks.discard(seat)
            if on:  # not markable now: undo the toggle
                self.mark_buttons[seat].value = False
        self._render()

    def _can_act(self) -> bool:
        s = self.session
        return s is not None and not s.finished and s.human_to_move and not self.pacer.busy

    def act(self, action: Action | str) -> bool:
        """The participant's move with the current marks; False if ignored."""
        now = time.monotonic()
        if not self._can_act() or now - self._last_click < self.min_click_interval:
            return False
        try:
            self.session.human_acts(action, marks=sorted(self.marks))
        except (IllegalActionError, ValueError):
            return False
        except OSError as exc:  # the move ended the game, which could not be saved
            self._not_saved(exc)
        self._last_click = now
        self.marks = set()
        for button in self.mark_buttons.values():
            button.value = False
        self._advance()
        return True

    def next_game(self) -> bool:
        """Go on to the next game of the schedule once the current one is over."""
        s = self.session
        if s is None or s.finished or not s.game_over or self.pacer.busy:
            return False
        try:
            s.next_game()  # writes a finished game that could not be saved before
        except OSError as exc:
            self._not_saved(exc)
            return False
        if self._save_failed:  # saved now: the note is out of date
            self.message.value, self._save_failed = "", False
        self._begin_game()
        return True

    def _error(self, text: str) -> None:
        """Show ``text`` as an error (without the sessions folder's path on a page)."""
        if not self.show_log_folder:
            for folder in (str(self.out_dir.resolve()), str(self.out_dir)):  # longest first
                text = text.replace(folder, "the sessions folder")
        self.message.value = f"<span style='color:#b00'>{html.escape(text)}</span>"

    def _not_saved(self, exc: OSError) -> None:
        """The finished game could not be written (e.g. a full disk): the session keeps
        it and writes it when Next game is pressed."""
        reason = exc.strerror or type(exc).__name__
        self._save_failed = True
        self._error(f"This game could not be saved ({reason}). Nothing is lost: free disk "
                    "space (or ask the experimenter), then press Next game to save it "
                    "and go on.")

    def _advance(self) -> None:
        s = self.session

        def propose() -> SessionMove | None:
            if s.game_over or s.human_to_move:
                return None
            before = s.view()
            try:
                decision = s.step()
            except OSError as exc:  # the move ended the game, which could not be saved
                self._not_saved(exc)
                return None
            return SessionMove(decision.seat, decision.action, before, decision.latency)

        def show(move: SessionMove | None) -> None:
            self.shown = None if move is None else move.before
            self.thinking_seat = None if move is None else move.seat
            self._render()

        def done() -> None:
            self.shown, self.thinking_seat = None, None
            if s.human_to_move:
                s.restart_turn_clock()  # time the decision from when it is shown
            self._render()

        self.pacer.run(propose, lambda move: None, show, done)
        if self.pacer.busy:
            self._render()

    # --- drawing ------------------------------------------------------------------------
    def _log_folder(self, label: str) -> str:
        if not self.show_log_folder:
            return ""
        return f"{label}<code>{html.escape(str(self.session.directory))}</code>"

    def names(self) -> list[str]:
        s = self.session
        label = f" · {s.opponents}" if self.show_models else ""
        return ["You" if seat == s.human_seat else f"Player {seat + 1}{label}"
                for seat in range(s.game.variant.players)]

    def _render(self) -> None:
        s = self.session
        if s is None:
            return
        if s.finished:
            self.progress.value = (f"<b>All {s.games_total} games are done. Thank you!</b>"
                                   + self._log_folder(" The log is in: "))
            self.table.value = ""
            for b in (self.take_button, self.pass_button, self.next_game_button):
                b.disabled = True
            self.mark_box.children = ()
            self.feedback_prompt.layout.display = "none"
            return
        practice = (" <span class='nt-practice' style='background:#fde7b0;padding:1px 6px;"
                    "border-radius:4px'>practice game: not analysed</span>" if s.practice else "")
        block = f" · block {s.block}" if s.block is not None else ""
        self.progress.value = (
            f"Game <b class='nt-game-number'>{s.game_number}</b> of {s.games_total}{block}"
            f"{practice}")
        view = self.shown or s.view()
        if s.game_over:
            status = (f"Game over: you scored {s.last_result.scores[s.human_seat]} and placed "
                      f"{s.last_result.ranks[s.human_seat]}. Press Next game to continue.")
        elif self.thinking_seat is not None:
            status = f"Player {self.thinking_seat + 1} is thinking…"
        elif s.human_to_move:
            status = "Your turn: take the card or pass."
        else:
            status = f"Player {s.to_move + 1} to move."
        state = TableState.from_view(view, self.names(), status, self.marks)
        state = replace(state, notes=tuple(moves_since(view.history, self.names(),
                                                       s.human_seat)))
        if self.thinking_seat is not None:
            state = replace(state, to_move=self.thinking_seat)
        self.table.value = table_html(state)
        can_act = self._can_act()
        # the marks first, the move buttons last: a page that sees Take enabled sees
        # the marks of that turn too
        moved = self.moved() if can_act else set()
        for seat, button in self.mark_buttons.items():
            button.disabled = seat not in moved
            button.button_style = "danger" if seat in self.marks else ""
        self.feedback_prompt.layout.display = None if can_act else "none"
        self.next_game_button.disabled = not s.game_over
        self.next_game_button.layout.display = None if s.game_over else "none"
        self.pass_button.disabled = not (can_act and Action.PASS in s.game.legal_actions())
        self.take_button.disabled = not can_act

    def _ipython_display_(self) -> None:
        from IPython.display import display
        display(self.widget)
