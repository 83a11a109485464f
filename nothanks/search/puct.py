"""PUCT search guided by the policy-value network, with chance nodes for card reveals.

Seed 004's search (section 2.2) for n players: every edge keeps its visit count and the
sum of the backed-up value *vectors* (one rank reward per seat), and at each node the
player to move picks

    argmax_a  Q(s, a)[mover] + c_puct P(s, a) sqrt(sum_b N(s, b)) / (1 + N(s, a))

(eq. 1-2; Q of an unvisited edge is 0, and at a node's first visit, where the
exploration term vanishes, the prior decides). P(take) is the network's p_take,
P(pass) = 1 - p_take; a mover with no tokens must take. A take is followed by a chance
node whose children are keyed by the card revealed, drawn uniformly from the cards still
unseen (the determinisation of :mod:`nothanks.search.mcts`: the face-down and the
removed cards are unseen alike). Each simulation walks down to a new node, evaluates it
with the network (its value vector, un-rotated to seat order, is what is backed up;
its p_take becomes its prior) or reaches the end of the game, where the rank rewards of
the final scores (:func:`rank_rewards`: 1 for first place down to -1 for last, ties
sharing) are backed up. Dirichlet noise on the root prior is for self-play only.

The whole search runs compiled (numba): the network's forward pass, the encoding, the
tree (flat arrays: at most one node per simulation) and the rules kernel.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .encoding import check_tokens, encode_into
from .kernel import (
    HEADER,
    OVER,
    PLAYERS,
    TO_MOVE,
    WIDTH,
    apply_pass,
    apply_take,
    draw,
    jit,
    outcome,
)
from .network import Network


def rank_rewards(scores: Sequence[int]) -> np.ndarray:
    """Rank rewards of final ``scores`` (lower is better): 1 for first place down to -1
    for last in equal steps; tied seats share the mean of their places' rewards."""
    scores = np.asarray(scores, dtype=np.float64)
    n = len(scores)
    if n < 2:
        raise ValueError(f"rank rewards need at least 2 scores; got {n}")
    better = (scores[None, :] < scores[:, None]).sum(axis=1)
    tied = (scores[None, :] == scores[:, None]).sum(axis=1)
    mean_place = better + (tied - 1) / 2.0  # 0-based, averaged over the tied places
    return 1.0 - 2.0 * mean_place / (n - 1)


@jit
def conv_first_layer(x, w_in, b_in, w_conv, b_conv, w_table, b_table, n, h):
    """The conv trunk's first layer before its ReLU, into ``h``: the convolution along
    each seat row's cards (zero-padded) and the table layer, both with batch
    normalization folded in (``w_conv [kernel, 2, channels]``, ``b_conv``, ``w_table``,
    ``b_table``), each through ReLU, then ``w_in``, ``b_in`` (rows: seat, card, channel,
    then the table units); ``n`` seats."""
    width = b_in.shape[0]
    kernel, channels = w_conv.shape[0], w_conv.shape[2]
    units = b_table.shape[0]
    cards = (x.shape[0] - 3) // (2 * n + 1)
    pad = kernel // 2
    for j in range(width):
        h[j] = b_in[j]
    z = np.empty(channels)
    for seat in range(n):
        row = 2 * seat * cards
        for c in range(cards):
            for o in range(channels):
                z[o] = b_conv[o]
            for d in range(kernel):
                column = c + d - pad
                if 0 <= column < cards:
                    held = x[row + 2 * column]
                    tokens = x[row + 2 * column + 1]
                    for o in range(channels):
                        z[o] += held * w_conv[d, 0, o] + tokens * w_conv[d, 1, o]
            base = (seat * cards + c) * channels
            for o in range(channels):
                if z[o] > 0.0:
                    zo = z[o]
                    for j in range(width):
                        h[j] += zo * w_in[base + o, j]
    table = 2 * n * cards
    t = np.empty(units)
    for u in range(units):
        t[u] = b_table[u]
    for i in range(table, x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for u in range(units):
                t[u] += xi * w_table[i - table, u]
    base = n * cards * channels
    for u in range(units):
        if t[u] > 0.0:
            tu = t[u]
            for j in range(width):
                h[j] += tu * w_in[base + u, j]


@jit
def forward(x, weights, h, g, values):
    """One forward pass of the network on features ``x`` laid out as
    :func:`~nothanks.search.encoding.encode_into` writes them (for the MLP trunk, each
    seat's token count repeated across its grid row); writes the rotated values into
    ``values`` and returns p_take. ``weights``: :meth:`Network.kernel_arrays` (an empty
    convolution means the MLP trunk); ``h``, ``g``: scratch of the trunk's width."""
    (w_in, b_in, w_hidden, b_hidden, w_policy, b_policy, w_value, b_value, w_tokens,
     w_conv, b_conv, w_table, b_table) = weights
    width = b_in.shape[0]
    if w_conv.shape[0] > 0:
        conv_first_layer(x, w_in, b_in, w_conv, b_conv, w_table, b_table, values.shape[0],
                         h)
    else:
        n = w_tokens.shape[0]
        cards = (x.shape[0] - 3) // (2 * n + 1)
        for j in range(width):
            h[j] = b_in[j]
        for seat in range(n):  # the grid: held cards (0 or 1), and the token count once
            row = 2 * seat * cards
            for c in range(cards):
                if x[row + 2 * c] != 0.0:
                    xi = x[row + 2 * c]
                    for j in range(width):
                        h[j] += xi * w_in[row + 2 * c, j]
            tokens = x[row + 1]
            if tokens != 0.0:
                for j in range(width):
                    h[j] += tokens * w_tokens[seat, j]
        for i in range(2 * n * cards, x.shape[0]):  # the table vector
            xi = x[i]
            if xi != 0.0:
                for j in range(width):
                    h[j] += xi * w_in[i, j]
    for j in range(width):
        h[j] = max(h[j], 0.0)
    for layer in range(w_hidden.shape[0]):
        for j in range(width):
            g[j] = b_hidden[layer, j]
        for i in range(width):
            hi = h[i]
            if hi != 0.0:
                for j in range(width):
                    g[j] += hi * w_hidden[layer, i, j]
        for j in range(width):
            h[j] = max(g[j], 0.0)
    logit = b_policy[0]
    for i in range(width):
        logit += h[i] * w_policy[i, 0]
    for k in range(values.shape[0]):
        total = b_value[k]
        for i in range(width):
            total += h[i] * w_value[i, k]
        values[k] = math.tanh(total)
    return 1.0 / (1.0 + math.exp(-logit))


@jit
def evaluate_state(s, low_card, hidden, weights, x, h, g, rotated, seat_values):
    """Encode ``s`` and evaluate it: returns p_take, writes the value of every seat (seat
    order) into ``seat_values``."""
    encode_into(s, low_card, hidden, x)
    p_take = forward(x, weights, h, g, rotated)
    n = s[PLAYERS]
    mover = s[TO_MOVE]
    for i in range(n):
        seat_values[(mover + i) % n] = rotated[i]
    return p_take


@jit
def run_simulations(state, sims, c_puct, root_prior, low_card, hidden, weights, rng):
    """Run ``sims`` simulations from ``state`` whose root prior is ``root_prior``; returns
    the root's take and pass visit counts and summed value vectors."""
    n = state[PLAYERS]
    players = n
    capacity = sims + 1
    mover = np.zeros(capacity, dtype=np.int64)
    can_pass = np.zeros(capacity, dtype=np.bool_)
    prior = np.zeros(capacity)
    n_take = np.zeros(capacity, dtype=np.int64)
    n_pass = np.zeros(capacity, dtype=np.int64)
    w_take = np.zeros((capacity, players))
    w_pass = np.zeros((capacity, players))
    pass_child = np.full(capacity, -1, dtype=np.int64)
    take_child = np.full((capacity, state[WIDTH]), -1, dtype=np.int64)
    path_node = np.zeros(capacity + 1, dtype=np.int64)
    path_take = np.zeros(capacity + 1, dtype=np.bool_)
    cards = state[WIDTH] - 2 - low_card + 1
    x = np.zeros(2 * n * cards + cards + 3, dtype=np.float32)
    h = np.zeros(weights[1].shape[0], dtype=np.float32)
    g = np.zeros(weights[1].shape[0], dtype=np.float32)
    rotated = np.zeros(players, dtype=np.float32)
    leaf = np.zeros(players)
    out = np.zeros(2 * players)
    s = state.copy()
    mover[0] = state[TO_MOVE]
    can_pass[0] = state[HEADER + mover[0]] > 0
    prior[0] = root_prior
    nodes = 1
    for _ in range(sims):
        s[:] = state
        node = 0
        depth = 0
        while True:
            if not can_pass[node]:
                take = True
            else:
                nt = n_take[node]
                npass = n_pass[node]
                total = nt + npass
                if total == 0:
                    take = prior[node] >= 0.5
                else:
                    m = mover[node]
                    root_n = math.sqrt(total)
                    q_take = w_take[node, m] / nt if nt > 0 else 0.0
                    q_pass = w_pass[node, m] / npass if npass > 0 else 0.0
                    u_take = q_take + c_puct * prior[node] * root_n / (1 + nt)
                    u_pass = q_pass + c_puct * (1.0 - prior[node]) * root_n / (1 + npass)
                    take = u_take >= u_pass
            path_node[depth] = node
            path_take[depth] = take
            depth += 1
            child = -1
            if take:
                apply_take(s)
                if s[OVER]:
                    outcome(s, out)
                    for seat in range(players):
                        leaf[seat] = 2.0 * out[players + seat] / (players - 1) - 1.0
                    break
                card = draw(s, rng)
                child = take_child[node, card]
                if child < 0:
                    take_child[node, card] = nodes
            else:
                apply_pass(s)
                child = pass_child[node]
                if child < 0:
                    pass_child[node] = nodes
            if child < 0:  # expand a new node and evaluate it
                child = nodes
                nodes += 1
                mover[child] = s[TO_MOVE]
                can_pass[child] = s[HEADER + mover[child]] > 0
                prior[child] = evaluate_state(s, low_card, hidden, weights, x, h, g,
                                              rotated, leaf)
                break
            node = child
        for d in range(depth):
            visited = path_node[d]
            if path_take[d]:
                n_take[visited] += 1
                for seat in range(players):
                    w_take[visited, seat] += leaf[seat]
            else:
                n_pass[visited] += 1
                for seat in range(players):
                    w_pass[visited, seat] += leaf[seat]
    return n_take[0], n_pass[0], w_take[0].copy(), w_pass[0].copy()


@dataclass(frozen=True)
class PUCTResult:
    """What one search found at its root.

    ``visits``: simulations through take and through pass; ``root_values``: every seat's
    mean backed-up rank reward over all simulations (seat order); ``prior``: the
    network's p_take at the root (before any noise); ``action_values``: the mover's mean
    rank reward after take and after pass (nan for an action never tried);
    ``network_values``: the network's own value estimate of the root (seat order).
    """

    visits: tuple[int, int]
    root_values: np.ndarray
    prior: float
    action_values: tuple[float, float]
    network_values: np.ndarray

    @property
    def take_share(self) -> float:
        """Share of the simulations that went through take (the policy target)."""
        return self.visits[0] / max(1, self.visits[0] + self.visits[1])

    def best_takes(self) -> bool:
        """Whether take is the most visited root move (ties: the one with the higher
        mean value for the mover; take if both are unknown)."""
        if self.visits[0] != self.visits[1]:
            return self.visits[0] > self.visits[1]
        take, passed = self.action_values
        return not take < passed


def check_search(sims: int, c_puct: float, dirichlet_alpha: float,
                 dirichlet_weight: float) -> None:
    """A ValueError naming the first bad search setting and what is valid."""
    if not isinstance(sims, int) or isinstance(sims, bool) or sims < 1:
        raise ValueError(f"sims={sims!r} is invalid; valid: an integer >= 1")
    if not (math.isfinite(c_puct) and c_puct >= 0):
        raise ValueError(f"c_puct={c_puct!r} is invalid; valid: a finite number >= 0")
    if not (math.isfinite(dirichlet_alpha) and dirichlet_alpha >= 0):
        raise ValueError(f"dirichlet_alpha={dirichlet_alpha!r} is invalid; valid: 0 (no "
                         "noise) or a finite number > 0")
    if not (math.isfinite(dirichlet_weight) and 0 <= dirichlet_weight <= 1):
        raise ValueError(f"dirichlet_weight={dirichlet_weight!r} is invalid; valid: 0 to 1")


def puct_search(s: np.ndarray, network: Network, sims: int, rng: np.random.Generator,
                c_puct: float = 1.5, dirichlet_alpha: float = 0.0,
                dirichlet_weight: float = 0.25) -> PUCTResult:
    """Search ``sims`` simulations from search state ``s`` (left unchanged).

    ``rng`` draws the card reveals' stream and the root noise, so the same generator
    state gives the same result. With ``dirichlet_alpha`` > 0 (self-play) the root prior
    becomes ``(1 - w) p + w eta`` with ``eta ~ Dirichlet(alpha, alpha)`` and ``w`` =
    ``dirichlet_weight``; not when the mover must take.
    """
    check_search(sims, c_puct, dirichlet_alpha, dirichlet_weight)
    config = network.config
    if s[OVER]:
        raise ValueError("the game is over: there is no decision to search")
    players, high = int(s[PLAYERS]), int(s[WIDTH]) - 2
    if (players, high) != (config.players, config.high_card):
        raise ValueError(f"the network is for {config.players} players and cards up to "
                         f"{config.high_card}; this state has {players} players and cards "
                         f"up to {high}")
    hidden = check_tokens(config.tokens)
    weights = network.kernel_arrays()
    x = np.zeros(config.features, dtype=np.float32)
    h = np.zeros(config.hidden, dtype=np.float32)
    g = np.zeros(config.hidden, dtype=np.float32)
    rotated = np.zeros(players, dtype=np.float32)
    network_values = np.zeros(players)
    prior = float(evaluate_state(s, config.low_card, hidden, weights, x, h, g, rotated,
                                 network_values))
    root_prior = prior
    can_pass = s[HEADER + s[TO_MOVE]] > 0
    if dirichlet_alpha > 0 and can_pass:
        eta = rng.dirichlet([dirichlet_alpha, dirichlet_alpha])
        root_prior = (1.0 - dirichlet_weight) * prior + dirichlet_weight * float(eta[0])
    stream = np.array([rng.integers(1, 2**63 - 1)], dtype=np.uint64)
    n_take, n_pass, w_take, w_pass = run_simulations(
        np.ascontiguousarray(s, dtype=np.int64), sims, float(c_puct), root_prior,
        config.low_card, hidden, weights, stream)
    n_take, n_pass = int(n_take), int(n_pass)
    mover = int(s[TO_MOVE])
    q_take = w_take[mover] / n_take if n_take else math.nan
    q_pass = w_pass[mover] / n_pass if n_pass else math.nan
    return PUCTResult((n_take, n_pass), (w_take + w_pass) / (n_take + n_pass), prior,
                      (float(q_take), float(q_pass)), network_values)
