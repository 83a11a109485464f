"""The logged-game replay: a game of a log played again from its seed, move by move.

Every tool that looks at logged decisions in their game (order inference, move quality,
the logged-game explorer) replays them here: the game is rebuilt from its logged seed
and rules variant through the one driver (:class:`~nothanks.play.match.Match`), each seat
playing its logged moves in turn order, and every replayed decision is checked against
the log before its move is applied. A log that does not replay raises
:class:`ReplayError`, which names the game, the turn and the fields that differ.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..agents.baselines import ScriptedAgent
from ..rules import Event, IllegalActionError, Variant, View
from .match import DecisionRecord, Match

__all__ = ["LoggedMove", "ReplayError", "ReplayStep", "logged_moves", "replay_logged_game"]


class ReplayError(ValueError):
    """A logged game does not replay from its seed and variant: the message names the
    game, the turn and each field whose logged value differs from the replayed one."""


@dataclass(frozen=True)
class LoggedMove:
    """One logged decision: who moved on which table, and the move made.

    ``cards_before`` (the mover's cards) is checked when given; logs always have it, a
    hand-made list of moves may leave it out.
    """

    turn: int
    seat: int
    card: int
    tokens_on_card: int
    tokens_before: int
    action: str
    cards_before: tuple[int, ...] | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> LoggedMove:
        """The move of one row of a decisions table (a mapping of its columns)."""
        cards = row.get("cards_before")
        return cls(int(row["turn"]), int(row["seat"]), int(row["card"]),
                   int(row["tokens_on_card"]), int(row["tokens_before"]), str(row["action"]),
                   None if cards is None else tuple(int(c) for c in cards))


def logged_moves(rows: Iterable[Mapping[str, Any]]) -> list[LoggedMove]:
    """The moves of one game's decision rows (e.g. ``frame.to_dict("records")``), in turn
    order."""
    return sorted((LoggedMove.from_row(row) for row in rows), key=lambda m: m.turn)


@dataclass(frozen=True)
class ReplayStep:
    """One replayed decision, before its move is applied: its position in the game's
    moves, the logged move, the mover's :class:`~nothanks.rules.View` and the decision's
    record (the driver's, equal to the log's in every checked field)."""

    index: int
    move: LoggedMove
    view: View
    record: DecisionRecord


#: The fields checked at every decision: (name, the logged value, the replayed value).
_CHECKS: tuple[tuple[str, Callable[[LoggedMove], Any], Callable[[DecisionRecord], Any]],
               ...] = (
    ("turn", lambda m: m.turn, lambda r: r.turn),
    ("seat", lambda m: m.seat, lambda r: r.seat),
    ("card", lambda m: m.card, lambda r: r.card),
    ("tokens on card", lambda m: m.tokens_on_card, lambda r: r.tokens_on_card),
    ("own tokens", lambda m: m.tokens_before, lambda r: r.tokens_before),
)


def _differences(move: LoggedMove, record: DecisionRecord) -> list[str]:
    found = [f"{name}: logged {logged(move)}, replayed {replayed(record)}"
             for name, logged, replayed in _CHECKS if logged(move) != replayed(record)]
    if move.cards_before is not None and move.cards_before != tuple(record.cards_before):
        found.append(f"own cards: logged {list(move.cards_before)}, replayed "
                     f"{list(record.cards_before)}")
    return found


def replay_logged_game(moves: Sequence[LoggedMove], variant: Variant, seed: int, *, where: str,
           game_id: int = 0, specs: Sequence[str] | None = None,
           listeners: Sequence[Callable[[Event], None]] = ()) -> Iterator[ReplayStep]:
    """Replay a logged game: yield each decision before its move is applied.

    Args:
        moves: the game's logged moves in turn order (every decision of every seat).
        variant, seed: the game's logged rules variant and seed.
        where: how messages name the game (e.g. ``"participant 'P01' game 3"``).
        game_id: the game's id in the records.
        specs: the agent spec each seat's records carry (default ``"human"``).
        listeners: called with every event of the game as it happens (e.g. models that
            watch the game; they see a move only after its step was yielded).

    Raises:
        ReplayError: a replayed decision differs from the logged one (the game, turn and
            fields are named), a logged move is illegal where it was made, or the log
            holds more or fewer moves than the game.
    """
    by_seat: dict[int, list[str]] = {seat: [] for seat in range(variant.players)}
    for move in moves:
        if move.seat not in by_seat:
            raise ReplayError(f"{where} turn {move.turn}: seat {move.seat} does not exist; "
                              f"valid: 0 to {variant.players - 1}")
        by_seat[move.seat].append(move.action)
    seats = [ScriptedAgent(by_seat[seat], spec="human" if specs is None else specs[seat])
             for seat in range(variant.players)]
    match = Match(seats, variant, seed, game_id=game_id, listeners=listeners)
    for index, move in enumerate(moves):
        if match.over:
            raise ReplayError(f"{where} turn {move.turn}: the replayed game is over but the "
                              f"log has {len(moves) - index} more decisions")
        view = match.game.view(match.to_move)
        try:
            record = match.propose()
        except IndexError:  # the seat to move has no logged move left
            raise ReplayError(
                f"{where} turn {move.turn}: the replay asks seat {match.to_move} to move, "
                f"the log has seat {move.seat}; the log does not come from this seed and "
                "variant, or its moves are out of order") from None
        differences = _differences(move, record)
        if differences:
            raise ReplayError(
                f"{where} turn {move.turn}: {'; '.join(differences)}. The log does not come "
                "from this seed and variant, or its moves are out of order")
        yield ReplayStep(index, move, view, record)
        try:
            match.commit()
        except IllegalActionError as exc:
            raise ReplayError(f"{where} turn {move.turn}: the logged move {move.action!r} is "
                              f"illegal there ({exc})") from None
    if not match.over:
        raise ReplayError(f"{where}: the logged moves end before the game does")
