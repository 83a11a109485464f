"""Self-play: one game of the network's PUCT search against itself, as training samples.

Every seat searches with the same network (:func:`~nothanks.search.puct.puct_search`,
with Dirichlet noise at the root). For the first ``temperature_moves`` decisions of the
game the move is drawn in proportion to the root visit counts, after that the most
visited move is played (ties: the one whose mean value is higher for the mover). A
mover without tokens takes without a search. Every decision, forced or not, becomes a
sample: the encoding of the state (:mod:`nothanks.search.encoding`), the search's visit
share of take (1 for a forced take), and the game's rank rewards rotated to that
sample's mover (seed 004's ``(s_t, pi_t, z_t)``).

The deal and every random choice come from one ``np.random.Generator`` seeded with
``seed``, so the same seed gives the same samples bit for bit.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules import Variant
from .encoding import encode
from .kernel import HEADER, LEFT, OVER, POOL, TO_MOVE, apply_pass, apply_take, new_state, outcome
from .kernel import reveal as reveal_card
from .network import Network
from .puct import check_search, puct_search, rank_rewards

__all__ = ["GameSamples", "deal_state", "rank_rewards", "self_play_game"]


@dataclass(frozen=True)
class GameSamples:
    """One self-played game's training samples and final scores.

    ``features [T, F]`` float32, ``policy [T]`` float32 (visit share of take),
    ``outcome [T, players]`` float32 (rank rewards, column 0 the sample's mover, then
    the others in turn order), ``scores [players]`` (seat order, lower is better).
    """

    features: np.ndarray
    policy: np.ndarray
    outcome: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return len(self.policy)


def deal_state(variant: Variant, rng: np.random.Generator) -> np.ndarray:
    """The search state of a new game of ``variant``: every seat holds its starting
    tokens, seat 0 is to move, and the first card is drawn from the whole deck by ``rng``
    (the removed cards stay in the unseen pool, never revealed)."""
    s = new_state(variant.players, variant.high_card, variant.deck_size)
    n = variant.players
    s[HEADER:HEADER + n] = variant.tokens
    start = HEADER + n + n * (variant.high_card + 2)
    s[start:start + variant.deck_size] = np.arange(variant.low_card, variant.high_card + 1)
    s[POOL] = variant.deck_size
    s[LEFT] = variant.cards_played
    reveal_card(s, int(rng.integers(variant.deck_size)))
    return s


def self_play_game(network: Network, players: int, sims: int, seed: int, *,
                   temperature_moves: int = 10, dirichlet_alpha: float = 1.0,
                   dirichlet_weight: float = 0.25, c_puct: float = 1.5) -> GameSamples:
    """Play one game of ``players`` seats, all searching ``sims`` simulations per decision
    with ``network``; returns its samples (see :class:`GameSamples`)."""
    config = network.config
    if players != config.players:
        raise ValueError(f"the network is for {config.players} players, not {players}")
    check_search(sims, c_puct, dirichlet_alpha, dirichlet_weight)
    if not isinstance(temperature_moves, int) or temperature_moves < 0:
        raise ValueError(f"temperature_moves={temperature_moves!r} is invalid; valid: an "
                         "integer >= 0")
    variant = Variant(players=players, low_card=config.low_card, high_card=config.high_card)
    rng = np.random.default_rng(seed)
    s = deal_state(variant, rng)
    features, policy, movers = [], [], []
    while not s[OVER]:
        mover = int(s[TO_MOVE])
        features.append(encode(s, config.tokens, config.low_card))
        movers.append(mover)
        if s[HEADER + mover] == 0:
            share, take = 1.0, True
        else:
            result = puct_search(s, network, sims, rng, c_puct=c_puct,
                                 dirichlet_alpha=dirichlet_alpha,
                                 dirichlet_weight=dirichlet_weight)
            share = result.take_share
            if len(policy) < temperature_moves:
                take = bool(rng.random() < share)
            else:
                take = result.best_takes()
        policy.append(share)
        if take:
            apply_take(s)
            if not s[OVER]:
                reveal_card(s, int(rng.integers(s[POOL])))
        else:
            apply_pass(s)
    out = np.zeros(2 * players)
    outcome(s, out)
    scores = out[:players].astype(np.int64)
    rewards = rank_rewards(scores)
    turn = np.arange(players)
    rotated = np.stack([rewards[(mover + turn) % players] for mover in movers])
    return GameSamples(np.stack(features), np.asarray(policy, dtype=np.float32),
                       rotated.astype(np.float32), scores)

