"""Take and pass valued by a policy-value network's value head, in compiled code.

The network grader of move quality (``nothanks.studies.move_quality``, ``grader=
"network"``) asks, for the player to move at a search state (its information set,
:func:`nothanks.search.root_state`): what is the take worth, and what the pass? Here:

- pass: the mover's value at the state after the pass;
- take: the mean of the mover's value over every possible next card (each unseen card,
  face down or removed, is equally likely to come next: the exact expectation under the
  network, no sampling); on the last card the take ends the game and its rank points are
  exact.

Values (rank rewards in [-1, 1]) are mapped to rank points by rp = (v + 1) / 2 * (n - 1),
n - 1 for first place down to 0. Positions are evaluated one at a time by the compiled
forward pass of :mod:`nothanks.search.puct` (single-threaded: a batched BLAS call is no
faster for a few dozen rows and contends for the cores when several processes run).
"""
from __future__ import annotations

import math

import numpy as np

from . import kernel as k
from .kernel import jit
from .network import Network
from .puct import evaluate_state


@jit
def _take_pass(state, low_card, hidden, weights, x, h, g, rotated, seat_values, out):
    """Write the take's and the pass's rank points for the mover into ``out[0:2]`` (the
    pass NaN without tokens) and return how many positions were evaluated."""
    n = state[k.PLAYERS]
    mover = state[k.TO_MOVE]
    scale = (n - 1) / 2.0
    evaluated = 0
    after = state.copy()
    k.apply_take(after)
    if after[k.OVER]:
        final = np.empty(2 * n)
        k.outcome(after, final)
        out[0] = final[n + mover]
    else:
        total = 0.0
        pool = after[k.POOL]
        for index in range(pool):
            revealed = after.copy()
            k.reveal(revealed, index)
            evaluate_state(revealed, low_card, hidden, weights, x, h, g, rotated,
                           seat_values)
            total += seat_values[mover]
            evaluated += 1
        out[0] = (total / pool + 1.0) * scale
    out[1] = math.nan
    if state[k.HEADER + mover] > 0:
        passed = state.copy()
        k.apply_pass(passed)
        evaluate_state(passed, low_card, hidden, weights, x, h, g, rotated, seat_values)
        out[1] = (seat_values[mover] + 1.0) * scale
        evaluated += 1
    return evaluated


class ValueGrader:
    """The network's take and pass values at search states (see the module docstring)."""

    def __init__(self, network: Network) -> None:
        config = network.config
        self.config = config
        self.weights = network.kernel_arrays()
        self.hidden = config.tokens == "hidden"
        self.scratch = (np.empty(config.features, np.float32),
                        np.empty(config.hidden, np.float32),
                        np.empty(config.hidden, np.float32),
                        np.empty(config.players, np.float32),
                        np.empty(config.players, np.float64))

    def values(self, state: np.ndarray) -> tuple[float, float, int]:
        """(take, pass, positions evaluated) for the player to move at ``state``, in rank
        points; pass is NaN when the mover has no tokens. ``state`` must have the
        network's players and cards (the caller checks); it is left unchanged."""
        out = np.empty(2)
        count = _take_pass(state, self.config.low_card, self.hidden, self.weights,
                           *self.scratch, out)
        return float(out[0]), float(out[1]), int(count)
