"""Monte Carlo tree search over the public game tree, with chance nodes for card reveals.

Each iteration starts from the root information set (:func:`~nothanks.search.infoset.
root_state`), walks the tree choosing moves by UCT (every seat maximises its own rank
points), draws each newly revealed card uniformly from the cards still unseen (the
determinisation: which unseen cards were removed and in what order the rest come is
settled one draw at a time, so every iteration samples a fresh deal consistent with
everything seen), adds one node, plays the rest of the game out with the rollout
policy, and credits every move on the path with its mover's rank points.

A take is followed by a chance node whose children are keyed by the card revealed; a
pass leads straight to the next player's node. Tree nodes are public states, which is
exactly each player's information set under perfect recall (see ``infoset``), so the
opponents' choices in the tree are made from the information they really have.

Randomness comes from one seeded generator per search, so a search is reproducible
from its seed (unless a time limit cuts it short).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..rules import Action
from ..rules.seeding import state_words

ROLLOUTS = ("heuristic", "random", "model")
ROOT_MODES = ("uct", "even")
#: How the other seats choose at tree nodes: by UCT for their own rank points, or as the
#: play-outs' ToM-k model (``rollout=model`` only).
OPPONENT_MODES = ("search", "model")


class Node:
    """A decision node: its mover, whether it may pass, and take/pass edge statistics."""

    __slots__ = ("mover", "can_pass", "n_take", "w_take", "n_pass", "w_pass",
                 "pass_child", "take_children")

    def __init__(self, mover: int, can_pass: bool) -> None:
        self.mover = mover
        self.can_pass = can_pass
        self.n_take = 0
        self.w_take = 0.0
        self.n_pass = 0
        self.w_pass = 0.0
        self.pass_child: Node | None = None
        self.take_children: dict[int, Node] = {}


@dataclass(frozen=True, slots=True)
class ActionValue:
    """What the search learned of one root action, for the player to move.

    ``rank_points`` and ``score`` are means over the iterations that began with the
    action (rank points: n-1 for first place down to 0; score: lower is better), each
    with its standard error over those iterations.
    """

    action: str
    visits: int
    rank_points: float
    rank_points_se: float
    score: float
    score_se: float


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The chosen action and the value of every legal root action."""

    action: Action
    values: dict[str, ActionValue]
    iterations: int
    seconds: float = 0.0

    def __eq__(self, other: object) -> bool:
        """Equal when the move, values and iterations are (the time taken may differ)."""
        return isinstance(other, SearchResult) and (
            (self.action, self.values, self.iterations)
            == (other.action, other.values, other.iterations))

    def __hash__(self) -> int:
        return hash((self.action, self.iterations))

    def value(self, action: str) -> ActionValue | None:
        return self.values.get(str(action))


def check_budget(iterations: int, c: float, rollout: str, seconds: float, root: str) -> None:
    """Check the search's budget settings; a ValueError names the bad one and what is
    valid."""
    if not isinstance(iterations, int) or iterations < 1:
        raise ValueError(f"iterations={iterations!r} is invalid; valid: an integer >= 1")
    if not (math.isfinite(c) and c >= 0):
        raise ValueError(f"c={c!r} is invalid; valid: a finite number >= 0 (e.g. 0.7)")
    if rollout not in ROLLOUTS:
        raise ValueError(f"rollout={rollout!r} is unknown; valid: {', '.join(ROLLOUTS)}")
    if not (math.isfinite(seconds) and seconds >= 0):
        raise ValueError(f"seconds={seconds!r} is invalid; valid: 0 (no time limit) or > 0")
    if root not in ROOT_MODES:
        raise ValueError(f"root={root!r} is unknown; valid: {', '.join(ROOT_MODES)}")


def check_policy(ratio: float, spread: float) -> None:
    """Check the play-out policy's settings (a ValueError names the bad one)."""
    if not (math.isfinite(ratio) and ratio >= 0):
        raise ValueError(f"ratio={ratio!r} is invalid; valid: a finite number >= 0 (e.g. 0.4)")
    if not (math.isfinite(spread) and spread >= 0):
        raise ValueError(f"spread={spread!r} is invalid; valid: a finite number >= 0 "
                         "(0: every play-out decision uses ratio itself)")


def check_model_settings(rollout: str, order: int, opponents: str) -> None:
    """Check the model settings that do not depend on the game (agents check at once)."""
    if opponents not in OPPONENT_MODES:
        raise ValueError(f"opponents={opponents!r} is unknown; valid: "
                         f"{', '.join(OPPONENT_MODES)}")
    if not isinstance(order, int) or isinstance(order, bool) or not 0 <= order <= 4:
        raise ValueError(f"order={order!r} is invalid; valid: a ToM order 0 to 4")
    if rollout != "model" and opponents == "model":
        raise ValueError("opponents='model' needs rollout='model' (the model is the "
                         "play-outs' model of the players)")


def _check_model(rollout: str, table: np.ndarray | None, order: int, opponents: str,
                 state: np.ndarray) -> bool:
    """Check the model play-out settings; True when ``rollout`` is ``model``."""
    check_model_settings(rollout, order, opponents)
    if rollout != "model":
        return False
    from . import kernel as k

    width = int(state[k.WIDTH])
    if table is None or table.ndim != 4 or table.shape[:2] != (3, width):
        raise ValueError("rollout='model' needs the ToM0 table of this game's variant "
                         "(nothanks.agents.population.tom0_take_table(variant))")
    return True


def _kind_weights(kinds: np.ndarray | None, thresholds: np.ndarray | None,
                  weights: np.ndarray | None, players: int) -> np.ndarray | None:
    """Cumulative ``weights`` per seat (None: every seat is the model), after checks."""
    if kinds is None and thresholds is None and weights is None:
        return None
    if kinds is None or thresholds is None or weights is None:
        raise ValueError("kinds, thresholds and weights go together: give all or none")
    count = len(kinds)
    weights = np.asarray(weights, dtype=np.float64)
    if len(thresholds) != count or weights.shape != (players, count):
        raise ValueError(f"{count} kinds need {count} thresholds and weights of shape "
                         f"({players}, {count}); got {len(thresholds)} and {weights.shape}")
    if not (np.all(weights >= 0) and np.allclose(weights.sum(axis=1), 1.0)):
        raise ValueError("weights: each seat's row must be probabilities summing to 1")
    cumulative = np.cumsum(weights, axis=1)
    cumulative[:, -1] = 1.0
    return cumulative


def rng_state(seed: int) -> np.ndarray:
    """The generator state for ``seed`` (any integer; never the all-zero state)."""
    value = state_words(abs(int(seed)), dtype=np.uint64)
    return value if value[0] else np.array([0x9E3779B97F4A7C15], dtype=np.uint64)


def search(state: np.ndarray, *, iterations: int = 1000, c: float = 0.7,
           rollout: str = "heuristic", seed: int = 0, seconds: float = 0.0,
           root: str = "uct", threshold: int = 0, ratio: float = 1.0,
           spread: float = 0.0, table: np.ndarray | None = None, order: int = 2,
           opponents: str = "search", kinds: np.ndarray | None = None,
           thresholds: np.ndarray | None = None,
           weights: np.ndarray | None = None) -> SearchResult:
    """Search from ``state`` (left unchanged) and return the move to make and its values.

    Args:
        iterations: number of iterations (the budget).
        c: UCT exploration constant, on rewards scaled to [0, 1] (rank points / (n-1)).
        rollout: ``heuristic`` (take iff point gain - tokens on card <= ``threshold``)
            or ``random`` (take with probability 1/2); both take when out of tokens.
        seed: seeds the card draws and random rollouts.
        seconds: stop after this much wall time even if iterations remain (0: no limit).
        root: ``uct`` to choose root moves by UCT (playing strength), ``even`` to give
            each legal root move the same number of iterations (comparable standard
            errors, for grading moves).
        threshold, ratio, spread: the heuristic play-outs' taking rule (see
            :func:`nothanks.search.kernel.rollout`); ``spread`` 0 uses no random numbers.
        table, order: for ``rollout="model"``: every seat in the play-outs acts as a
            ToM-``order`` model whose ToM0 takes with the probabilities of ``table``
            (:func:`nothanks.agents.population.tom0_take_table`).
        opponents: ``search`` (the other seats choose by UCT at tree nodes) or ``model``
            (they act as the play-outs' model there too; ``rollout="model"`` only).
        kinds, thresholds, weights: with ``rollout="model"``, the kinds of player the
            play-outs (and ``opponents="model"``) may assume for a seat: ``kinds[j]`` is
            ``kernel.MODEL`` or ``kernel.HEURISTIC`` (taking iff point gain - tokens on
            card <= ``thresholds[j]``), and each iteration draws seat ``i``'s kind with
            probability ``weights[i, j]`` (rows sum to 1). Default: the model for all.
    """
    from . import kernel as k  # numba is loaded with the first search, not on import

    check_budget(iterations, c, rollout, seconds, root)
    check_policy(ratio, spread)
    modelled = _check_model(rollout, table, order, opponents, state)
    if state[k.OVER]:
        raise ValueError("the game is over: there is no decision to search")
    policy = k.HEURISTIC if rollout == "heuristic" else k.RANDOM
    players = int(state[k.PLAYERS])
    scratch = np.zeros((order + 1, players), dtype=np.int64)
    seat_kinds = np.full(players, k.MODEL, dtype=np.int64)
    seat_thresholds = np.zeros(players)
    cumulative = _kind_weights(kinds, thresholds, weights, players)
    if cumulative is not None:
        kinds = np.asarray(kinds, dtype=np.int64)
        thresholds = np.asarray(thresholds, dtype=np.float64)
    sample_kinds = k.sample_kinds
    player_takes, model_rollout = k.player_takes, k.model_rollout
    if modelled:
        def play_out(s, policy, threshold, ratio, rng, out, spread):
            model_rollout(s, seat_kinds, seat_thresholds, table, order, rng, out, scratch)
    else:
        play_out = k.rollout
    opponent_model = opponents == "model"
    rng = rng_state(seed)
    scale = 1.0 / (players - 1)
    out = np.empty(2 * players)
    apply_pass, apply_take, draw, outcome = k.apply_pass, k.apply_take, k.draw, k.outcome
    to_move, over, header = k.TO_MOVE, k.OVER, k.HEADER
    me = int(state[to_move])
    top = Node(me, bool(state[header + me] > 0))
    sums = np.zeros((2, 5))  # per root action: count, Σrp, Σrp², Σscore, Σscore²
    even = root == "even"
    log, sqrt = math.log, math.sqrt
    started = time.perf_counter()
    done = 0
    for done in range(1, iterations + 1):  # noqa: B007 (the count is reported)
        s = state.copy()
        if cumulative is not None:  # this iteration's guess of who is which kind
            sample_kinds(cumulative, kinds, thresholds, rng, seat_kinds, seat_thresholds)
        node = top
        path = []
        while True:
            if not node.can_pass:
                take = True
            elif node is top and even:
                take = node.n_take <= node.n_pass
            elif opponent_model and node.mover != me:
                take = bool(player_takes(s, seat_kinds, seat_thresholds, table, order, rng,
                                         scratch))
            elif node.n_take == 0:
                take = True
            elif node.n_pass == 0:
                take = False
            else:
                explore = c * sqrt(log(node.n_take + node.n_pass))
                take = (node.w_take / node.n_take + explore / sqrt(node.n_take)
                        >= node.w_pass / node.n_pass + explore / sqrt(node.n_pass))
            path.append((node, take))
            if take:
                apply_take(s)
                if s[over]:
                    outcome(s, out)
                    break
                card = int(draw(s, rng))
                child = node.take_children.get(card)
                if child is None:
                    mover = int(s[to_move])
                    node.take_children[card] = Node(mover, bool(s[header + mover] > 0))
                    play_out(s, policy, threshold, ratio, rng, out, spread)
                    break
            else:
                apply_pass(s)
                child = node.pass_child
                if child is None:
                    mover = int(s[to_move])
                    node.pass_child = Node(mover, bool(s[header + mover] > 0))
                    play_out(s, policy, threshold, ratio, rng, out, spread)
                    break
            node = child
        for visited, took in path:
            reward = out[players + visited.mover] * scale
            if took:
                visited.n_take += 1
                visited.w_take += reward
            else:
                visited.n_pass += 1
                visited.w_pass += reward
        points, final = out[players + me], out[me]
        row = sums[0 if path[0][1] else 1]
        row += (1.0, points, points * points, final, final * final)
        if seconds and done % 32 == 0 and time.perf_counter() - started >= seconds:
            break
    elapsed = time.perf_counter() - started
    values = {}
    for index, action in enumerate((Action.TAKE, Action.PASS)):
        count, rp, rp2, sc, sc2 = sums[index]
        if count:
            values[str(action)] = ActionValue(
                str(action), int(count), float(rp / count), _se(rp, rp2, count),
                float(sc / count), _se(sc, sc2, count))
    if even:
        best = max(values.values(), key=lambda v: v.rank_points)
    else:
        best = max(values.values(), key=lambda v: (v.visits, v.rank_points))
    return SearchResult(Action(best.action), values, done, elapsed)


def _se(total: float, squares: float, count: float) -> float:
    """Standard error of a mean from its sums (nan with a single observation)."""
    if count < 2:
        return math.nan
    variance = max(squares - total * total / count, 0.0) / (count - 1)
    return float(math.sqrt(variance / count))
