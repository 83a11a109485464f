"""Participant sessions: one person plays the human-schedule design against models.

The session is pure logic for a user interface to drive: it holds the current game
(a :class:`nothanks.play.match.Match` with the three model agents), says whose turn it is,
advances model turns one at a time (so the UI can pause between them), takes the
participant's actions with their bad-move marks, and times each human decision on a
wall clock. Every completed game is written atomically before the next begins, so a
session restarted with the same participant id resumes at the next unplayed game.

Only the experimenter-chosen id is stored; never a name or other personal data.
"""
from __future__ import annotations

import operator
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from ..agents import Agent, make_agent
from ..files import claim_lock, release_lock
from ..play.match import DecisionRecord, GameRecord, HumanSeat, Match
from ..rules import Action, Event, Game, IllegalActionError, View
from ..rules.seeding import game_seed, text_seed
from .design import HUMAN, Design, DesignError, PlannedGame, load_design
from .rows import LogContext, LogRows
from .store import ExperimentDir

#: Participant ids: short codes such as P07 or synthetic-12 (letters, digits, - and _).
PARTICIPANT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,23}")


class SessionError(RuntimeError):
    """An action that does not fit the session's state (e.g. acting out of turn)."""


class SessionInUse(SessionError, ValueError):
    """The participant's session is open in another live process (e.g. a second browser
    tab): two writers would play and log the same games twice.

    ``participant_id`` and ``holder`` (the other process's id) let a page word the
    refusal without the lock file's path."""

    def __init__(self, message: str, participant_id: str, holder: str) -> None:
        super().__init__(message)
        self.participant_id = participant_id
        self.holder = holder


class ParticipantIdClash(ValueError):
    """The id differs from an existing participant's only in letter case (``p01`` after
    ``P01``): a typo, and one folder on a case-insensitive file system."""


def _participant_ids(out_dir: Path) -> set[str]:
    """Ids with a session folder or a lock in ``out_dir``."""
    ids = set()
    for entry in out_dir.iterdir():
        name = entry.name
        if name.startswith(".") and name.endswith(".lock"):
            ids.add(name[1:-len(".lock")])
        elif entry.is_dir():
            ids.add(name)
    return ids


def claim_participant(out_dir: Path, participant_id: str, *, wait: float = 0.0) -> Path:
    """Mark ``participant_id``'s session as run by this process; the lock file's path.

    The lock (``.<id>.lock`` beside the session folder, holding the process id) is
    refused while another live process holds it (:class:`SessionInUse`, after ``wait``
    seconds of trying: a session whose page was just closed lets go within seconds); a
    lock left by a dead process (a crash) is taken over, and the same process may reopen
    its own session (resume). An id that matches another participant's but for letter
    case is refused (:class:`ParticipantIdClash`), even when both start at once.
    """
    lock = out_dir / f".{participant_id}.lock"
    lock = claim_lock(lock, lambda holder: SessionInUse(
        f"participant {participant_id!r} is already being run by process "
        f"{holder} (lock {lock}); finish or close that session (e.g. the other "
        "browser tab) first, or delete the lock file if no session is running",
        participant_id, holder), wait=wait)
    twins = sorted(other for other in _participant_ids(out_dir)
                   if other != participant_id and other.casefold() == participant_id.casefold())
    if twins:
        release_lock(lock)
        raise ParticipantIdClash(
            f"participant id {participant_id!r} differs from the existing participant "
            f"{twins[0]!r} only in letter case: use {twins[0]!r} to resume that participant, "
            "or a different code for a new one (ids that differ only in case would share "
            "one folder on a case-insensitive file system)")
    return lock


def check_participant_id(participant_id: str) -> str:
    """Return the id if valid; otherwise say what a valid id looks like."""
    if not isinstance(participant_id, str) or not PARTICIPANT_ID.fullmatch(participant_id):
        raise ValueError(
            f"participant id {participant_id!r} is invalid: use 1-24 letters, digits, '-' or "
            "'_' starting with a letter or digit, no spaces (a code such as P07, never a name)")
    return participant_id


def _seat_number(mark: object) -> int:
    try:
        return operator.index(mark)  # ints, numpy ints; not floats or strings
    except TypeError:
        raise ValueError(f"mark {mark!r} is not a seat number") from None


def participant_seed(root_seed: int, participant_id: str) -> int:
    """Root seed of one participant's games: differs between participants, stable per id."""
    return game_seed(root_seed, text_seed(participant_id))


class ParticipantSession:
    """The human-schedule design (or another design with a human seat) for one participant.

    Args:
        participant_id: the experimenter's code for the participant (validated).
        out_dir: folder holding one session directory per participant.
        design: a design with a ``human`` player at every table.
        human: the agent spec logged for the human seat: ``"human"`` for a person, the
            stand-in's spec for synthetic data (which also sets ``synthetic``).
        clock: seconds, for decision times (a simulated clock for synthetic data).
        wait: seconds to keep trying while another live process holds the participant
            (a page closed a moment ago is still letting go) before refusing.
    """

    def __init__(self, participant_id: str, out_dir: str | Path,
                 design: str | Path | Design = "human-schedule", *, human: str = HUMAN,
                 clock: Callable[[], float] = time.monotonic, wait: float = 0.0) -> None:
        self.participant_id = check_participant_id(participant_id)
        base = load_design(design)
        if not all(HUMAN in t.players for t in base.tables):
            raise DesignError(f"design {base.name!r} has tables without a {HUMAN!r} player; "
                              "a participant session needs one at every table")
        self.synthetic = human != HUMAN
        self.design = base.with_options(
            seed=participant_seed(base.seed, participant_id),
            human=human if self.synthetic else None)
        self.design.validate_agents()
        self.clock = clock
        self.directory = Path(out_dir) / participant_id
        #: held while this process runs the session; released by :meth:`close` or when
        #: the last game is saved
        self.lock: Path | None = claim_participant(Path(out_dir), participant_id,
                                                   wait=wait)
        try:
            self._store = ExperimentDir.open(self.directory, self.design, 1,
                                             participant=participant_id, synthetic=self.synthetic)
            #: files found damaged and set aside when the session was opened (the games
            #: they held are played again); a damaged merged table stops the session instead
            self.repaired = self._store.repair(replay_merged=False)
        except BaseException:
            self.close()
            raise
        self._store.begin_run(backend="session")
        self._context = LogContext(self.design.name, self.design.hash, participant_id,
                                   self.synthetic)
        #: the agent playing the participant's part in synthetic sessions (else None): the
        #: match starts it with the seat's seed and it observes every event
        self.standin: Agent | None = make_agent(human) if self.synthetic else None
        self._listeners: list[Callable[[Event], None]] = []
        self.match: Match | None = None
        self.last_result: GameRecord | None = None
        #: a finished game whose write failed (e.g. a full disk): written by next_game()
        self._unsaved: tuple[PlannedGame, GameRecord] | None = None
        self._pools: dict[int, list[Agent]] = {}
        self.next_game()

    # ------------------------------------------------------------------ state
    @property
    def games_total(self) -> int:
        return self.design.total_games

    @property
    def games_done(self) -> int:
        return self.games_total - len(self._store.missing_chunks())

    @property
    def finished(self) -> bool:
        return self.match is None

    @property
    def game(self) -> Game | None:
        """The current game's rules state (``None`` once the session is finished)."""
        return None if self.match is None else self.match.game

    @property
    def agents(self) -> dict[int, Agent]:
        """The models at the current table, by seat."""
        match = self._require_match()
        return {s: a for s, a in enumerate(match.agents) if s != self.human_seat}

    @property
    def game_number(self) -> int:
        """1-based number of the current game in the schedule."""
        return self.plan.position + 1

    @property
    def block(self) -> int | None:
        return self.plan.block

    @property
    def practice(self) -> bool:
        return self.plan.practice

    @property
    def opponents(self) -> str:
        """The current table's label (e.g. ``ToM1``: three ToM1 models)."""
        return self.design.conditions[self.plan.condition].table

    @property
    def game_over(self) -> bool:
        return self._require_match().over

    @property
    def to_move(self) -> int:
        """Seat whose turn it is."""
        return self._require_match().to_move

    @property
    def human_to_move(self) -> bool:
        return self._require_match().human_turn

    def view(self) -> View:
        """What the participant may see now."""
        return self._require_match().game.view(self.human_seat)

    def watch(self, listener: Callable[[Event], None]) -> None:
        """Call ``listener`` with every event of the current game (replayed so far) and of
        every later game."""
        self._listeners.append(listener)
        if self.match is not None:
            for event in self.match.game.history:
                listener(event)
            self.match.watch(listener)

    def restart_turn_clock(self) -> None:
        """Start timing the human's decision now (call when the turn is shown)."""
        self._turn_started = self.clock()

    # ------------------------------------------------------------------ acting
    def step(self) -> DecisionRecord:
        """Play one model turn and return its record; :class:`SessionError` when the game
        is over or it is the participant's turn."""
        match = self._require_match()
        if match.over:
            raise SessionError("the game is over; call next_game()")
        if match.to_move == self.human_seat:
            raise SessionError(f"it is the participant's turn (seat {self.human_seat}); "
                               "call human_acts(action, marks)")
        return self._after(match.step())

    def run_models(self) -> list[DecisionRecord]:
        """Play model turns until the participant must act or the game ends."""
        moves = []
        while not self.game_over and not self.human_to_move:
            moves.append(self.step())
        return moves

    def human_acts(self, action: Action | str, marks: Iterable[int] = ()) -> DecisionRecord:
        """The participant takes or passes; ``marks`` are the opponent seats whose last
        move they mark as bad at this turn. Raises :class:`SessionError` when it is not
        their turn, ``IllegalActionError`` for a pass without tokens and ``ValueError``
        for an unknown action or a mark that is not an opponent seat that has moved."""
        match = self._require_match()
        game = match.game
        if not self.human_to_move:
            raise SessionError(f"it is not the participant's turn (seat {game.seat} is to "
                               f"move{', the game is over' if game.over else ''})")
        action = Action(str(action))
        if action not in game.legal_actions():
            raise IllegalActionError(f"the participant cannot {action} on card {game.card}: "
                                     "no tokens left, must take")
        marks = tuple(sorted({_seat_number(m) for m in marks}))
        moved = {d.seat for d in match.decisions}
        for seat in marks:
            if seat == self.human_seat or not 0 <= seat < game.variant.players:
                others = [s for s in range(game.variant.players) if s != self.human_seat]
                raise ValueError(f"mark {seat!r} is not an opponent seat; valid: {others}")
            if seat not in moved:
                raise ValueError(f"seat {seat} has not moved yet in this game; it cannot be "
                                 "marked")
        elapsed = self.clock() - self._turn_started
        return self._after(match.human_acts(action, decision_time=elapsed, marks=marks))

    def next_game(self) -> bool:
        """Begin the next unplayed game; False once every game is done.

        A finished game whose write failed (an ``OSError`` such as a full disk, raised by
        the move that ended it) is written first; while that still fails, the error is
        raised again and the session stays at the finished game, so no game is lost or
        played twice.
        """
        if self.match is not None and not self.match.over:
            raise SessionError(f"game {self.game_number} is still being played")
        if self._unsaved is not None:
            self._write_unsaved()
        missing = self._store.missing_chunks()
        if not missing:
            if not self._store.manifest["compacted"]:  # the machine died while merging
                self._store.finish()
            self.match = None
            self.close()
            return False
        self.plan = self.design.game(missing[0][0])
        players = self.design.conditions[self.plan.condition].players
        self.human_seat = self.plan.roles.index(players.index(HUMAN))
        if self.plan.condition not in self._pools:  # reused: start() resets an agent
            self._pools[self.plan.condition] = [
                (self.standin or HumanSeat()) if spec == HUMAN else make_agent(spec)
                for spec in players]
        pool = self._pools[self.plan.condition]
        self.match = Match([pool[role] for role in self.plan.roles], self.design.variant,
                           self.plan.seed, human_seat=self.human_seat,
                           game_id=self.plan.position, listeners=self._listeners)
        self._turn_started = self.clock()
        return True

    def close(self) -> None:
        """Release the participant's lock (another process may then resume the session)."""
        release_lock(self.lock)
        self.lock = None

    # ------------------------------------------------------------------ internals
    def _require_match(self) -> Match:
        if self.match is None:
            raise SessionError(f"the session of {self.participant_id} is finished "
                               f"({self.games_total} games)")
        return self.match

    def _after(self, decision: DecisionRecord) -> DecisionRecord:
        """Save a finished game, or start the human's clock when it is their turn."""
        match = self._require_match()
        if match.over:
            self._save()
        elif match.human_turn:
            self._turn_started = self.clock()
        return decision

    def _save(self) -> None:
        """Write the finished game durably (the session resumes after it); if the write
        fails, the game is kept until :meth:`next_game` writes it."""
        self.last_result = self._require_match().record()
        self._unsaved = (self.plan, self.last_result)
        self._write_unsaved()

    def _write_unsaved(self) -> None:
        plan, record = self._unsaved
        rows = LogRows(self._context, self.design)
        rows.add_game(plan, record)
        self._store.write_chunk(plan.position, plan.position + 1, rows.to_parquet())
        self._unsaved = None
        if not self._store.missing_chunks():  # the last game: merge the parts now
            self._store.finish()
            self.close()
