"""The No Thanks! game state and its transitions (thesis §2.1).

A :class:`Game` is mutable and fast; it knows nothing of agents. Players see it only
through :meth:`Game.view`, and everything else learns of it through events.
"""
from __future__ import annotations

from bisect import insort
from collections.abc import Callable

from .events import Action, CardRevealed, Event, GameOver, Passed, Took
from .scoring import ranks_and_points, score
from .seeding import seeded
from .variant import Variant
from .view import View

Listener = Callable[[Event], None]

_TAKE, _PASS = Action.TAKE, Action.PASS
#: Builds an event from its fields in order, as its class would, without the keyword
#: handling of the named tuple's ``__new__`` (some 70 events per game).
_new = tuple.__new__


class IllegalActionError(ValueError):
    """An action that the rules forbid; the game state is left unchanged."""


def _shuffle_draws(size: int) -> tuple[tuple[int, int, int], ...]:
    """The draws of :meth:`random.Random.shuffle` on ``size`` items, last position first:
    (position, how many positions to choose from, bits drawn per try)."""
    return tuple((i, i + 1, (i + 1).bit_length()) for i in reversed(range(1, size)))


#: Shuffle draws by deck size, made once per size.
_DRAWS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def deal(variant: Variant, seed: int | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Shuffle the deck: (cards in the order they will be revealed, removed cards).

    The deck is shuffled exactly as ``random.Random(seed).shuffle(deck)`` does (the
    Fisher-Yates swaps of CPython's ``shuffle``, each index drawn by rejection from
    ``getrandbits`` like its ``_randbelow``), with the loop written out here: the same
    order from the same random numbers, without a method call per card
    (tests/integration/agreement/test_engine.py compares the two on many seeds and decks).
    """
    rng = seeded(seed)
    deck = list(range(variant.low_card, variant.high_card + 1))
    size = len(deck)
    draws = _DRAWS.get(size) or _DRAWS.setdefault(size, _shuffle_draws(size))
    bits = rng.getrandbits
    for i, choices, k in draws:
        j = bits(k)
        while j >= choices:
            j = bits(k)
        deck[i], deck[j] = deck[j], deck[i]
    played = variant.cards_played
    return tuple(deck[:played]), tuple(sorted(deck[played:]))


class Game:
    """One game: deck, face-up card, tokens and cards of every seat, whose turn it is.

    Seat 0 acts first; the turn passes to ``(seat + 1) % players`` after a pass, and
    stays with the taker after a take. The game ends when the last dealt card is taken.
    """

    __slots__ = (
        "variant", "seed", "_order", "_removed", "_next", "card", "tokens_on_card",
        "_tokens", "_cards", "seat", "turn", "over", "history", "_listeners",
        "_players", "_dealt", "_open_tokens",
    )

    def __init__(
        self,
        variant: Variant | None = None,
        seed: int | None = None,
        *,
        order: tuple[int, ...] | None = None,
        listeners: list[Listener] | None = None,
    ) -> None:
        self.variant = variant or Variant()
        self.seed = seed
        if order is None:
            self._order, self._removed = deal(self.variant, seed)
        else:  # an explicit deck order, for tests and exact analysis
            self._check_order(order)
            self._order = tuple(order)
            all_cards = set(range(self.variant.low_card, self.variant.high_card + 1))
            self._removed = tuple(sorted(all_cards - set(order)))
        self._dealt = len(self._order)
        self._players = n = self.variant.players
        self._open_tokens = self.variant.open_tokens
        self._tokens = [self.variant.tokens] * n
        self._cards: list[tuple[int, ...]] = [()] * n
        self.seat = 0
        self.turn = 0
        self.over = False
        self.history: list[Event] = []
        self._listeners: list[Listener] = list(listeners or [])
        self._next = 0
        self.card = 0
        self.tokens_on_card = 0
        self._notify((self._reveal(),))

    def _check_order(self, order: tuple[int, ...]) -> None:
        v = self.variant
        if len(order) != v.cards_played or len(set(order)) != len(order) or any(
            not v.low_card <= c <= v.high_card for c in order
        ):
            raise ValueError(
                f"order must be {v.cards_played} distinct cards from {v.low_card}-{v.high_card}"
            )

    # --- observers -------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(event)`` for every later event."""
        self._listeners.append(listener)

    def _notify(self, events: tuple[Event, ...]) -> None:
        """Deliver committed events to every listener, in order.

        Called only once the transition is complete, so a listener sees a consistent
        game. A listener that raises neither corrupts the game nor keeps the event from
        the others; the first error is raised after every listener had its events.
        """
        failure: Exception | None = None
        for event in events:
            for listener in self._listeners:
                try:
                    listener(event)
                except Exception as exc:  # re-raised below, after the others were told
                    failure = failure or exc
        if failure is not None:
            raise failure

    # --- state queries ---------------------------------------------------------------
    @property
    def cards_left(self) -> int:
        """Cards still face down (not counting the face-up card)."""
        return self._dealt - self._next

    def tokens(self, seat: int) -> int:
        """True token count of ``seat`` (full state; agents use views instead)."""
        return self._tokens[seat]

    @property
    def token_counts(self) -> tuple[int, ...]:
        """True token counts of every seat (full state; agents use views instead)."""
        return tuple(self._tokens)

    def cards(self, seat: int) -> tuple[int, ...]:
        """Cards taken by ``seat``, ascending (public)."""
        return self._cards[seat]

    @property
    def removed_cards(self) -> tuple[int, ...]:
        """The cards removed unseen (never part of any view)."""
        return self._removed

    def to_move(self) -> tuple[int, int, int, int, tuple[int, ...], tuple[int, ...], int]:
        """The state the player to move decides in, true token counts included (for
        drivers and records; agents see a :class:`View`), as one immutable plain tuple:
        ``(turn, seat, card, tokens_on_card, token_counts, cards, cards_left)``, where
        ``seat`` is the player to move, ``token_counts`` every seat's count and ``cards``
        the player to move's cards (a plain tuple: the cheapest to build, see
        docs/benchmarks.md).

        Raises:
            IllegalActionError: the game is over (nobody is to move).
        """
        if self.over:
            raise IllegalActionError(f"the game is over (all {self._dealt} cards have been "
                                     "taken): nobody is to move")
        seat = self.seat
        return (self.turn, seat, self.card, self.tokens_on_card, tuple(self._tokens),
                self._cards[seat], self._dealt - self._next)

    def legal_actions(self) -> tuple[Action, ...]:
        """Actions the player to move may take; empty once the game is over."""
        if self.over:
            return ()
        if self._tokens[self.seat] == 0:
            return (Action.TAKE,)
        return (Action.TAKE, Action.PASS)

    def view(self, seat: int) -> View:
        """What ``seat`` may see now (see :class:`View`)."""
        if not 0 <= seat < self._players:
            raise ValueError(f"seat {seat} does not exist; valid: 0 to {self._players - 1}")
        history, tokens = self.history, self._tokens
        # the fields of View(...) in order, without its __new__'s call
        return _new(View, (
            seat, self.variant, self.seat, None if self.over else self.card,
            self.tokens_on_card, tokens[seat], tuple(self._cards),
            self._dealt - self._next, history, len(history),
            tuple(tokens) if self._open_tokens else None,
        ))

    def scores(self) -> tuple[int, ...]:
        """Current scores of every seat (final once the game is over)."""
        return tuple(score(c, t) for c, t in zip(self._cards, self._tokens, strict=True))

    # --- transitions -----------------------------------------------------------------
    def apply(self, action: Action | str, seat: int | None = None) -> None:
        """Apply ``action`` for the player to move (``seat``, if given, must be that player).

        Raises :class:`IllegalActionError`, leaving the state unchanged, for a pass with no
        tokens, acting out of turn, a seat that does not exist, acting after the end, or
        an unknown action. The transition is atomic: the new state (tokens, cards,
        history, next card, whose turn) is committed before any listener hears of it.
        """
        actor = self.seat if seat is None else seat
        if self.over or actor != self.seat:
            self._refuse_actor(action, actor)
        if action is not _TAKE and action is not _PASS:  # e.g. the string "pass"
            action = self._parse(action, actor)
        tokens = self._tokens
        if action is _PASS:
            if tokens[actor] == 0:
                raise IllegalActionError(
                    f"player {actor} cannot pass on card {self.card}: it has no tokens left "
                    "and must take"
                )
            tokens[actor] -= 1
            self.tokens_on_card = on_card = self.tokens_on_card + 1
            passed = _new(Passed, (self.turn, actor, self.card, on_card))
            self.history.append(passed)
            self.seat = (actor + 1) % self._players
            self.turn += 1
            if self._listeners:
                self._notify((passed,))
        else:
            card, on_card = self.card, self.tokens_on_card
            tokens[actor] += on_card
            hand = list(self._cards[actor])
            insort(hand, card)  # hands stay ascending
            self._cards[actor] = tuple(hand)
            self.tokens_on_card = 0
            took = _new(Took, (self.turn, actor, card, on_card))
            self.history.append(took)
            self.turn += 1
            after = self._reveal() if self._next < self._dealt else self._finish()
            if self._listeners:
                self._notify((took, after))

    def _refuse_actor(self, action: Action | str, actor: int) -> None:
        """Raise the error for a move by the wrong seat, or after the end (checked in
        this order: a seat that does not exist, the game over, not that seat's turn)."""
        players = self._players
        if not 0 <= actor < players:
            raise IllegalActionError(
                f"seat {actor} does not exist; valid: 0 to {players - 1}")
        if self.over:
            raise IllegalActionError(
                f"player {actor} cannot {action!s}: the game is over (all "
                f"{self._dealt} cards have been taken)"
            )
        raise IllegalActionError(
            f"player {actor} cannot {action!s}: it is player {self.seat}'s turn"
        )

    @staticmethod
    def _parse(action: object, actor: int) -> Action:
        """The action member equal to ``action`` (a plain string, say), or an error."""
        if action == _PASS:
            return _PASS
        if action == _TAKE:
            return _TAKE
        raise IllegalActionError(
            f"player {actor} tried unknown action {action!r}; valid: 'take', 'pass'"
        )

    def _reveal(self) -> Event:
        """Turn up the next card (state and history); the caller notifies."""
        self.card = card = self._order[self._next]
        self._next += 1
        event = _new(CardRevealed, (self.turn, card, self._dealt - self._next))
        self.history.append(event)
        return event

    def _finish(self) -> Event:
        """End the game (state and history); the caller notifies."""
        self.over = True
        final = self.scores()
        ranks, points = ranks_and_points(final)
        event = GameOver(self.turn, final, ranks, points)
        self.history.append(event)
        return event
