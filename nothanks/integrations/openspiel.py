"""No Thanks! as an OpenSpiel Python game, ``python_no_thanks``: a thin adapter over
:mod:`nothanks.rules`.

Importing this module registers the game; then::

    import pyspiel
    import nothanks.integrations.openspiel  # noqa: F401  (registers python_no_thanks)
    game = pyspiel.load_game("python_no_thanks(players=4)")

Parameters (the fields of :class:`nothanks.rules.Variant`):

- ``players``: 3 to 7 (default 4);
- ``low_card``, ``high_card``, ``removed``: the deck (default 3-35 with 9 removed unseen);
- ``starting_tokens``: tokens each seat starts with; ``-1`` (the default) takes the count
  by player count (:data:`nothanks.rules.STARTING_TOKENS`);
- ``open_tokens``: whether every seat's token count is public. The default is
  ``False``, **hidden tokens, as in the thesis**: a seat sees only its own count (some
  published engines show every count; pass ``open_tokens=True`` for that game).

The deck order is chance: first one chance node per removed card (a uniform pick among
the cards not yet removed; nobody ever observes these), then one chance node per reveal
(a uniform pick among the cards neither removed nor revealed). Chance outcome ``i`` is
the card ``low_card + i``; player actions are ``0`` = take, ``1`` = pass.

The state keeps the chance outcomes and player actions and holds a
:class:`nothanks.rules.Game` built with an explicit ``order=`` (the revealed cards, then
any not-yet-dealt cards as placeholders that are never shown): each reveal rebuilds it and
replays the player actions, so every rule (legal actions, whose turn, scores, rank
points) is the engine's. Returns are the engine's rank points (``n-1`` for first place
down to ``0``, ties sharing the mean; :func:`nothanks.rules.ranks_and_points`), ``0``
for every seat until the end.

Observers show each seat exactly what its :class:`nothanks.rules.View` shows: the face-up
card and the tokens on it, every seat's taken cards, the cards still face down, its own
token count, the others' counts only with open tokens, and (information state) the
public history; never the removed cards or a card not yet revealed.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel

from nothanks.rules import (
    Action,
    CardRevealed,
    Event,
    Game,
    GameOver,
    Passed,
    Took,
    Variant,
    View,
)

#: The game's registered short name.
SHORT_NAME = "python_no_thanks"
#: Player actions by OpenSpiel action id.
ACTIONS = (Action.TAKE, Action.PASS)
_ACTION_ID = {Action.TAKE: 0, Action.PASS: 1}

_DEFAULTS = Variant()
#: The game's parameters and their defaults (``starting_tokens=-1``: by player count).
DEFAULT_PARAMS: dict[str, Any] = {
    "players": _DEFAULTS.players,
    "low_card": _DEFAULTS.low_card,
    "high_card": _DEFAULTS.high_card,
    "removed": _DEFAULTS.removed,
    "starting_tokens": -1,
    "open_tokens": _DEFAULTS.open_tokens,
}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="No Thanks! (nothanks.rules)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=7,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


def variant_from_params(params: dict[str, Any]) -> Variant:
    """The :class:`Variant` for OpenSpiel game parameters (missing ones take
    :data:`DEFAULT_PARAMS`).

    Raises:
        nothanks.rules.VariantError: a parameter is out of range (the message says which
            and what is valid).
        ValueError: an unknown parameter.
    """
    unknown = sorted(set(params) - set(DEFAULT_PARAMS))
    if unknown:
        raise ValueError(f"{SHORT_NAME}: unknown parameter(s) {unknown}; "
                         f"valid: {sorted(DEFAULT_PARAMS)}")
    merged = {**DEFAULT_PARAMS, **params}
    tokens = merged.pop("starting_tokens")
    return Variant(**merged, starting_tokens=None if tokens == -1 else tokens)


def load_variant(variant: Variant) -> NoThanksGame:
    """``pyspiel.load_game`` of ``python_no_thanks`` for ``variant`` (the inverse of
    :func:`variant_from_params`)."""
    params = {name: getattr(variant, name) for name in DEFAULT_PARAMS}
    params["starting_tokens"] = -1 if variant.starting_tokens is None else variant.tokens
    return pyspiel.load_game(SHORT_NAME, params)


class NoThanksGame(pyspiel.Game):
    """The OpenSpiel game for one :class:`Variant` (built by ``pyspiel.load_game``)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.variant = v = variant_from_params(dict(params or {}))
        # a pass costs its player a token; a card collects at most every token in play
        passes_per_card = v.players * v.tokens
        info = pyspiel.GameInfo(
            num_distinct_actions=len(ACTIONS),
            max_chance_outcomes=v.deck_size,
            num_players=v.players,
            min_utility=0.0,
            max_utility=float(v.players - 1),
            utility_sum=v.players * (v.players - 1) / 2,
            max_game_length=v.removed + v.cards_played * (2 + passes_per_card),
        )
        super().__init__(_GAME_TYPE, info, {**DEFAULT_PARAMS, **(params or {})})

    def new_initial_state(self) -> NoThanksState:
        """The start: the first removal (or, with none removed, the first reveal)."""
        return NoThanksState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None,
        params: dict[str, Any] | None = None,
    ) -> NoThanksObserver:
        """An observer (default: the observation, without perfect recall)."""
        return NoThanksObserver(
            self.variant, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False),
            params)


class NoThanksState(pyspiel.State):
    """A state: the chance outcomes and actions so far, over a :class:`Game`."""

    def __init__(self, game: NoThanksGame) -> None:
        super().__init__(game)
        self.variant = game.variant
        self.removed: list[int] = []
        self.revealed: list[int] = []
        self.actions: list[Action] = []
        self._takes = 0
        self.game = self._rebuild()

    # --- the engine underneath ---------------------------------------------------------
    def _rebuild(self) -> Game:
        """A :class:`Game` dealt the revealed cards (then placeholders) with the player
        actions replayed."""
        v = self.variant
        dealt = set(self.removed) | set(self.revealed)
        filler = [c for c in range(v.low_card, v.high_card + 1) if c not in dealt]
        order = (*self.revealed, *filler[: v.cards_played - len(self.revealed)])
        game = Game(v, order=order)
        for action in self.actions:
            game.apply(action)
        return game

    @property
    def reveal_pending(self) -> bool:
        """Whether the face-up card is still to be drawn by chance (the engine's card is
        then a placeholder that nobody sees)."""
        return not self.game.over and len(self.revealed) <= self._takes

    def view(self, seat: int) -> View:
        """The engine's view for ``seat`` (see :func:`seen` for what chance hides)."""
        return self.game.view(seat)

    # --- the OpenSpiel API ----------------------------------------------------------
    def current_player(self) -> int:
        """The seat to move, ``CHANCE`` while a card is drawn, ``TERMINAL`` at the end."""
        if self.game.over:
            return pyspiel.PlayerId.TERMINAL
        if len(self.removed) < self.variant.removed or self.reveal_pending:
            return pyspiel.PlayerId.CHANCE
        return self.game.seat

    def _legal_actions(self, player: int) -> list[int]:
        """The engine's legal actions as ids, ascending."""
        return sorted(_ACTION_ID[a] for a in self.game.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Uniform over the cards not yet removed (removals) or not yet dealt (reveals)."""
        v = self.variant
        dealt = set(self.removed) | set(self.revealed)
        cards = [c - v.low_card for c in range(v.low_card, v.high_card + 1) if c not in dealt]
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            card = self.variant.low_card + action
            if len(self.removed) < self.variant.removed:
                self.removed.append(card)
            else:
                self.revealed.append(card)
                self.game = self._rebuild()
            return
        move = ACTIONS[action]
        self.actions.append(move)
        self.game.apply(move)
        self._takes += move is Action.TAKE

    def resample_from_infostate(self, player_id: int,
                                probability_sampler: Any) -> NoThanksState:
        """A state ``player_id`` cannot tell from this one, for OpenSpiel's IS-MCTS: the
        same reveals and player actions, the removed cards drawn afresh (uniformly, without
        replacement) among the cards not revealed.

        With perfect recall of the public history every seat knows every token count (each
        starts with the variant's tokens, a pass costs one, a take gains the card's), so
        the removed cards are the only thing hidden, and from every seat alike: the result
        has the same information state for every seat. ``probability_sampler()`` returns
        floats in [0, 1) (``pyspiel.UniformProbabilitySampler``). The C++
        ``pyspiel.ISMCTSBot`` cannot call this (docs/openspiel.md, "OpenSpiel's bots as
        agents");
        ``open_spiel.python.algorithms.ismcts`` does.
        """
        del player_id  # hidden from every seat alike
        v = self.variant
        revealed = set(self.revealed)
        pool = [c for c in range(v.low_card, v.high_card + 1) if c not in revealed]
        removed = []
        for _ in self.removed:
            pick = min(int(probability_sampler() * len(pool)), len(pool) - 1)
            removed.append(pool.pop(pick))
        later = self.history()[len(self.removed):]
        return state_with_removed(self.get_game(), removed, later)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            card = self.variant.low_card + action
            removing = len(self.removed) < self.variant.removed
            return f"{'Remove' if removing else 'Reveal'}:{card}"
        return ACTIONS[action].value

    def is_terminal(self) -> bool:
        return self.game.over

    def returns(self) -> list[float]:
        """Rank points once the game is over (the engine's ``GameOver``), else zeros."""
        if not self.game.over:
            return [0.0] * self.variant.players
        over = self.game.history[-1]
        assert isinstance(over, GameOver)
        return list(over.rank_points)

    def __str__(self) -> str:
        """The full state (debugging only): removed, revealed, actions, tokens, cards."""
        g = self.game
        moves = "".join("tp"[_ACTION_ID[a]] for a in self.actions)
        hands = [list(g.cards(seat)) for seat in range(self.variant.players)]
        return (f"removed={self.removed} revealed={self.revealed} actions={moves} "
                f"tokens={list(g.token_counts)} cards={hands}")


def public_actions(variant: Variant, events: Iterable[Event]) -> list[int]:
    """The OpenSpiel action ids of a game's public events after the removals: a reveal's
    chance outcome, ``0`` for a take, ``1`` for a pass (``GameOver`` adds none)."""
    ids = []
    for event in events:
        if isinstance(event, CardRevealed):
            ids.append(event.card - variant.low_card)
        elif isinstance(event, (Passed, Took)):
            ids.append(_ACTION_ID[Action.PASS if isinstance(event, Passed) else Action.TAKE])
    return ids


def state_with_removed(game: pyspiel.Game, removed: Sequence[int],
                       actions: Iterable[int]) -> NoThanksState:
    """The state of ``game`` whose removed cards are ``removed`` (cards, in order) and whose
    later history is ``actions`` (ids as :func:`public_actions` gives them).

    Raises:
        ValueError: ``removed`` is not the variant's number of distinct deck cards, or an
            action is not legal where it comes (the message says which and where).
    """
    state = game.new_initial_state()
    v = state.variant
    if len(removed) != v.removed or len(set(removed)) != len(removed) or not all(
            v.low_card <= c <= v.high_card for c in removed):
        raise ValueError(f"{SHORT_NAME}: removed cards {list(removed)} are not "
                         f"{v.removed} distinct cards of {v.low_card}-{v.high_card}")
    for step, action in enumerate((*(c - v.low_card for c in removed), *actions)):
        legal = (state.legal_actions() if not state.is_chance_node()
                 else [a for a, _ in state.chance_outcomes()])
        if action not in legal:
            raise ValueError(f"{SHORT_NAME}: action {action} at step {step} "
                             f"({'chance' if state.is_chance_node() else 'player'}) is not "
                             f"legal there; legal: {legal}")
        state.apply_action(action)
    return state


@dataclass(frozen=True, slots=True)
class Seen:
    """What one seat sees in a state: its :class:`View`, less what chance has not yet
    drawn (while a reveal is pending the engine's face-up card is a placeholder)."""

    seat: int
    card: int | None
    tokens_on_card: int
    own_tokens: int
    cards: tuple[tuple[int, ...], ...]
    cards_left: int
    tokens: tuple[int, ...] | None
    history: tuple[Event, ...]


def seen(state: NoThanksState, seat: int) -> Seen:
    """What ``seat`` sees in ``state``: exactly its :class:`View` (the placeholder card of
    a pending reveal removed)."""
    view = state.view(seat)
    history = view.history
    card, left = view.card, view.cards_left
    if state.reveal_pending:  # the engine turned up a placeholder: hide it
        card, left, history = None, left + 1, history[:-1]
    tokens = (tuple(view.tokens_of(s) for s in range(view.players))
              if view.variant.open_tokens else None)
    return Seen(seat, card, view.tokens_on_card, view.own_tokens, view.cards, left, tokens,
                history)


def _event_string(event: Event) -> str:
    if isinstance(event, CardRevealed):
        return f"reveal {event.card}"
    if isinstance(event, Passed):
        return f"p{event.seat} pass"
    if isinstance(event, Took):
        return f"p{event.seat} take {event.card}+{event.tokens}"
    return "over"


class NoThanksObserver:
    """Observation and information-state tensors and strings (OpenSpiel's PyObserver).

    Pieces of the flat ``tensor`` (named in ``dict``): ``player`` (one-hot seat),
    ``card`` (one-hot face-up card, by deck index), ``tokens_on_card``, ``cards`` (seats
    by deck indices, 1 = taken), ``cards_left``; with private information ``own_tokens``;
    with open tokens ``tokens`` (every seat's count); with perfect recall ``reveals``
    (one-hot card of each reveal in order) and ``passes`` (passes made on each revealed
    card), which together fix the public history.
    """

    def __init__(self, variant: Variant, iig_obs_type: pyspiel.IIGObservationType,
                 params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"{SHORT_NAME} observers take no parameters; got {params}")
        n, deck = variant.players, variant.deck_size
        self.variant = variant
        self.perfect_recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info != pyspiel.PrivateInfoType.NONE
        self.public = iig_obs_type.public_info
        pieces: list[tuple[str, tuple[int, ...]]] = [("player", (n,))]
        if self.private:
            pieces.append(("own_tokens", (1,)))
        if self.public:
            pieces += [("card", (deck,)), ("tokens_on_card", (1,)), ("cards", (n, deck)),
                       ("cards_left", (1,))]
            if variant.open_tokens:
                pieces.append(("tokens", (n,)))
            if self.perfect_recall:
                pieces += [("reveals", (variant.cards_played, deck)),
                           ("passes", (variant.cards_played,))]
        sizes = [int(np.prod(shape)) for _, shape in pieces]
        self.tensor = np.zeros(sum(sizes), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        start = 0
        for (name, shape), size in zip(pieces, sizes, strict=True):
            self.dict[name] = self.tensor[start:start + size].reshape(shape)
            start += size

    def set_from(self, state: NoThanksState, player: int) -> None:
        """Fill ``tensor`` with what ``player`` sees in ``state``."""
        s, low, d = seen(state, player), self.variant.low_card, self.dict
        self.tensor.fill(0)
        d["player"][player] = 1
        if self.private:
            d["own_tokens"][0] = s.own_tokens
        if not self.public:
            return
        if s.card is not None:
            d["card"][s.card - low] = 1
        d["tokens_on_card"][0] = s.tokens_on_card
        for seat, hand in enumerate(s.cards):
            for card in hand:
                d["cards"][seat, card - low] = 1
        d["cards_left"][0] = s.cards_left
        if s.tokens is not None:
            d["tokens"][:] = s.tokens
        if self.perfect_recall:
            slot = -1
            for event in s.history:
                if isinstance(event, CardRevealed):
                    slot += 1
                    d["reveals"][slot, event.card - low] = 1
                elif isinstance(event, Passed):
                    d["passes"][slot] += 1

    def string_from(self, state: NoThanksState, player: int) -> str:
        """What ``player`` sees in ``state``, as a string."""
        s = seen(state, player)
        parts = [f"p{player}"]
        if self.private:
            parts.append(f"own tokens {s.own_tokens}")
        if self.public:
            parts.append(f"card {'-' if s.card is None else s.card} "
                         f"tokens on card {s.tokens_on_card}")
            parts.append("cards " + " ".join(f"p{i}{list(h)}" for i, h in enumerate(s.cards)))
            parts.append(f"cards left {s.cards_left}")
            if s.tokens is not None:
                parts.append(f"tokens {list(s.tokens)}")
            if self.perfect_recall:
                parts.append("history " + ", ".join(_event_string(e) for e in s.history))
        return " | ".join(parts)


pyspiel.register_game(_GAME_TYPE, NoThanksGame)
