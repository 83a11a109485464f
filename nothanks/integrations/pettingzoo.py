"""No Thanks! as a PettingZoo AEC environment: a thin adapter over :mod:`nothanks.rules`.

The environment holds one :class:`nothanks.rules.Game`; every observation is built from the
acting seat's :class:`nothanks.rules.View` and every action goes through
:meth:`Game.apply`, so the rules, the dealing and the scoring are the suite's own.

- Agents: ``player_0`` .. ``player_{n-1}``; ``player_i`` is seat ``i`` (seat 0 acts first).
- Actions: ``Discrete(2)``: :data:`TAKE` (0) takes the face-up card, :data:`PASS` (1) pays a
  token. The observation's ``action_mask`` marks the legal ones (pass is illegal with no
  tokens); an illegal or unknown action raises :class:`nothanks.rules.IllegalActionError`
  and leaves the game unchanged.
- Observations: a dict ``{"observation": vector, "action_mask": mask}``, the vector laid out
  as :func:`observation_layout` says (seats relative to the observer: row 0 is its own).
  Opponents' token counts are part of it only with ``open_tokens=True``; the default hides
  them, as the thesis's game does.
- Rewards: 0 until the end; then every agent gets its rank points (n-1 for the lowest
  score down to 0, ties sharing, :func:`nothanks.rules.ranks_and_points`), and its ``info``
  holds its final ``score`` and ``rank``.
- Seeding: ``reset(seed=s)`` deals ``Game(variant, s)``, the same deck as the suite's
  ``Game`` with seed ``s``; a later ``reset()`` without a seed deals the game seed
  ``derive_seed(s, k)`` for its ``k``-th reset since (``reset()`` with no seed ever given
  deals from fresh entropy). The game seed dealt is :attr:`NoThanksEnv.game_seed`.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from nothanks.rules import Action, Game, GameOver, IllegalActionError, Variant, View
from nothanks.rules.seeding import derive_seed

#: Action index of taking the face-up card.
TAKE = 0
#: Action index of passing (paying one token onto the card).
PASS = 1
#: The rules' action for each action index.
ACTIONS = (Action.TAKE, Action.PASS)

_SEED_MASK = (1 << 64) - 1


def observation_layout(variant: Variant) -> dict[str, slice]:
    """Where each part of the observation vector lies, for ``variant`` (n players, a deck
    of d cards, card ``c`` at column ``c - low_card``):

    - ``cards``: n x d multi-hot, row-major; row k is the cards taken by the seat k places
      after the observer (row 0: its own);
    - ``card``: d one-hot, the face-up card (all zero once the game is over);
    - ``tokens_on_card``, ``own_tokens``, ``cards_left``: one number each;
    - ``tokens`` (only with ``open_tokens``): n - 1 numbers, the token counts of the seats
      1 .. n-1 places after the observer.
    """
    n, d = variant.players, variant.deck_size
    sizes = [("cards", n * d), ("card", d), ("tokens_on_card", 1), ("own_tokens", 1),
             ("cards_left", 1)]
    if variant.open_tokens:
        sizes.append(("tokens", n - 1))
    layout, start = {}, 0
    for name, size in sizes:
        layout[name] = slice(start, start + size)
        start += size
    return layout


def encode_view(view: View) -> np.ndarray:
    """The observation vector of ``view`` (laid out as :func:`observation_layout` says)."""
    variant = view.variant
    layout = observation_layout(variant)
    n, low, seat = variant.players, variant.low_card, view.seat
    vector = np.zeros(layout[next(reversed(layout))].stop, dtype=np.int32)
    grid = vector[layout["cards"]].reshape(n, variant.deck_size)  # a view into the vector
    for k in range(n):
        taken = view.cards[(seat + k) % n]
        grid[k, [c - low for c in taken]] = 1
    if view.card is not None:
        vector[layout["card"].start + view.card - low] = 1
    vector[layout["tokens_on_card"]] = view.tokens_on_card
    vector[layout["own_tokens"]] = view.own_tokens
    vector[layout["cards_left"]] = view.cards_left
    if variant.open_tokens:
        vector[layout["tokens"]] = [view.tokens_of((seat + k) % n) for k in range(1, n)]
    return vector


def legal_mask(view: View) -> np.ndarray:
    """The legal actions of ``view``'s seat as a 0/1 mask over (:data:`TAKE`,
    :data:`PASS`): none unless it is to move in a game not over; pass only with tokens."""
    mask = np.zeros(2, dtype=np.int8)
    if view.my_turn and view.card is not None:
        mask[TAKE] = 1
        mask[PASS] = int(view.own_tokens > 0)
    return mask


def observation(view: View) -> dict[str, np.ndarray]:
    """The environment's observation of ``view``: ``{"observation": encode_view(view),
    "action_mask": legal_mask(view)}``. An agent of the suite that decides from a view can
    call a policy trained on the environment with it (docs/pettingzoo.md)."""
    return {"observation": encode_view(view), "action_mask": legal_mask(view)}


class NoThanksEnv(AECEnv):
    """No Thanks! for ``variant.players`` agents (see the module docstring for the
    actions, observations, rewards and seeding). Build it with :func:`env` to get the
    standard PettingZoo wrappers, or directly for the bare environment.

    Args:
        variant: the rules (players 3-7, deck, removed cards, starting tokens, open
            tokens); the thesis's game when omitted.
        render_mode: ``None``, ``"ansi"`` (:meth:`render` returns a text line) or
            ``"human"`` (it prints that line).

    Raises:
        ValueError: an unknown ``render_mode``.
    """

    metadata = {"name": "no_thanks_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": False}

    def __init__(self, variant: Variant | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not supported; valid: None, "
                             + ", ".join(repr(m) for m in self.metadata["render_modes"]))
        self.variant = variant or Variant()
        self.render_mode = render_mode
        n = self.variant.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seats = {agent: i for i, agent in enumerate(self.possible_agents)}
        layout = observation_layout(self.variant)
        size = layout[next(reversed(layout))].stop
        most_tokens = max(1, n * self.variant.tokens)
        high = np.full(size, 1, dtype=np.int32)
        high[layout["tokens_on_card"]] = most_tokens
        high[layout["own_tokens"]] = most_tokens
        high[layout["cards_left"]] = self.variant.cards_played
        if self.variant.open_tokens:
            high[layout["tokens"]] = most_tokens
        observation = spaces.Dict({
            "observation": spaces.Box(0, high, dtype=np.int32),
            "action_mask": spaces.Box(0, 1, (2,), dtype=np.int8),
        })
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(2) for a in self.possible_agents}
        self.game: Game | None = None
        self.game_seed: int | None = None
        self._root_seed: int | None = None
        self._resets_since_seed = 0

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(2)``: :data:`TAKE` (0) or :data:`PASS` (1)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game (see the module docstring for which seed it is dealt with);
        ``options`` are accepted and ignored."""
        if seed is not None:
            self._root_seed, self._resets_since_seed = int(seed), 0
            self.game_seed = int(seed)
        elif self._root_seed is not None:
            self._resets_since_seed += 1
            self.game_seed = derive_seed(self._root_seed & _SEED_MASK,
                                         self._resets_since_seed)
        else:
            self.game_seed = None
        self.game = Game(self.variant, self.game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.game.seat]

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("the environment has no game yet: call reset() first")
        return self.game

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent``'s seat sees now, and its legal actions (see :func:`observation`)."""
        return observation(self._game().view(self._seats[agent]))

    def step(self, action: int | None) -> None:
        """Play ``action`` (:data:`TAKE` or :data:`PASS`) for the agent to move; after the
        end, each agent steps ``None`` once to leave.

        Raises:
            IllegalActionError: an action that is not 0 or 1, or a pass with no tokens
                (the game is unchanged).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._game()
        if not isinstance(action, int | np.integer) or action not in (TAKE, PASS):
            raise IllegalActionError(f"{agent} played action {action!r}; valid: "
                                     f"{TAKE} (take) or {PASS} (pass)")
        game.apply(ACTIONS[int(action)], self._seats[agent])
        self._cumulative_rewards[agent] = 0.0
        if game.over:
            final = game.history[-1]  # the GameOver event
            if not isinstance(final, GameOver):
                raise RuntimeError(f"the game is over but its last event is {final!r}")
            for i, name in enumerate(self.agents):
                self.rewards[name] = float(final.rank_points[i])
                self.terminations[name] = True
                self.infos[name] = {"score": final.scores[i], "rank": final.ranks[i]}
        else:
            self.rewards = {name: 0.0 for name in self.agents}
        self.agent_selection = self.agents[game.seat]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """A text line of the full state (every seat's tokens: for a spectator)."""
        game = self.game
        if self.render_mode is None or game is None:
            return None
        seats = "  ".join(f"p{i}:{game.tokens(i)}t {list(game.cards(i))}"
                          for i in range(self.variant.players))
        head = ("game over, scores " + str(list(game.scores())) if game.over else
                f"card {game.card} +{game.tokens_on_card}t, {game.cards_left} left, "
                f"player_{game.seat} to move")
        text = f"{head} | {seats}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (no window, no file)."""


def env(variant: Variant | None = None, render_mode: str | None = None,
        **options: Any) -> AECEnv:
    """The environment in PettingZoo's standard wrappers (out-of-bounds actions and calls
    out of order are refused with their errors).

    Args:
        variant: the rules; or give its fields as ``options`` instead
            (``env(players=5, open_tokens=True)``, checked by :class:`Variant`).
        render_mode: see :class:`NoThanksEnv`.

    Raises:
        ValueError: both ``variant`` and ``options``; :class:`nothanks.rules.VariantError`
            for an invalid or unknown option.
    """
    if variant is not None and options:
        raise ValueError(f"give either variant or its fields {sorted(options)}, not both")
    if variant is None:
        variant = Variant.from_options(options)
    wrapped: AECEnv = NoThanksEnv(variant, render_mode=render_mode)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
