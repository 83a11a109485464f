"""Games between baseline agents, many per compiled call: the Python engine's records,
several times faster.

Games whose every seat is a ``random``, ``heuristic`` or ``always-pass`` agent (no
traces: they keep none) are played by :func:`nothanks.search.baseline_games.play` on the
rules kernel, and their columns turned into the :class:`~nothanks.play.match.GameRecord` and
:class:`~nothanks.play.match.DecisionRecord` values that :class:`~nothanks.play.match.Match` makes
for the same seeds, equal field for field (tests/integration/agreement/test_batch_engine.py), so
every log table written from them is identical too.

:func:`nothanks.play.runner.play_games` and a design run's workers take this path by
themselves when they can (:func:`batchable`); ``play_games(..., batch=False)`` or the
reference (``nothanks.kernels.reference_mode``, ``NOTHANKS_REFERENCE=1``) turns it off
(:func:`enabled`), and it is off without numba (the kernel's plain-Python fallback would
be slower than the engine).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice, repeat, starmap

import numpy as np

from ..agents import Agent, AlwaysPassAgent, HeuristicAgent, RandomAgent
from ..rules import Action, Variant
from ..rules.scoring import CATEGORY_BY_NEIGHBOURS
from .match import DecisionRecord, GameRecord

__all__ = ["BatchGames", "batchable", "enabled", "play_batch", "play_columns"]

#: Games played per compiled call at most (bounds the decision buffers' memory).
CALL_GAMES = 4096


def enabled() -> bool:
    """Whether the batch path may be used: the reference is not in force and the rules
    kernel is compiled (numba present)."""
    from ..kernels import mode
    if mode.reference():
        return False
    from ..search import kernel
    return kernel.COMPILED


def _kind(agent: Agent) -> tuple[int, float] | None:
    """The kernel's kind of player and parameter for ``agent``, or ``None`` if the kernel
    cannot play it (any other class, a subclass included: it may decide otherwise)."""
    from ..search import baseline_games as bg
    cls = type(agent)
    if cls is RandomAgent:
        return bg.RANDOM, float(agent.p)
    if cls is HeuristicAgent:
        return bg.HEURISTIC, float(agent.T)
    if cls is AlwaysPassAgent:
        return bg.ALWAYS_PASS, 0.0
    return None


def batchable(agents: Sequence[Agent]) -> bool:
    """Whether every agent is one the batch path plays exactly (``random``,
    ``heuristic``, ``always-pass``; not a subclass) and none keeps traces."""
    cls = (RandomAgent, HeuristicAgent, AlwaysPassAgent)
    return all(type(a) in cls and not a.traces for a in agents)


@dataclass(frozen=True)
class BatchGames:
    """The columns of a batch of played games (``G`` games, ``n`` seats, ``D`` decisions).

    ``order[g]``: the dealt cards in the order revealed; ``takers[g, i]``: the seat that
    took ``order[g, i]``; ``tokens``, ``scores``, ``ranks``, ``rank_points``: ``G x n``
    outcomes; ``decisions``: ``D`` rows of
    :data:`nothanks.search.baseline_games.DECISION_FIELDS` in play order (empty unless
    recorded); ``true_tokens``: every seat's tokens before each decision (``D x n``).
    Hands: the taker's cards after take ``i`` of game ``g`` (hand id
    ``g * cards_played + i + 1``; 0 is the empty hand) are
    ``hand_cards[hand_starts[g, i]:hand_ends[g, i]]``; the decisions' ``hand`` column
    and ``final_hands[g, seat]`` hold hand ids.
    """

    order: np.ndarray
    takers: np.ndarray
    tokens: np.ndarray
    scores: np.ndarray
    ranks: np.ndarray
    rank_points: np.ndarray
    decisions: np.ndarray
    true_tokens: np.ndarray
    hand_cards: np.ndarray
    hand_starts: np.ndarray
    hand_ends: np.ndarray
    final_hands: np.ndarray

    def hands(self) -> list[tuple[int, ...]]:
        """Every hand as a tuple, by hand id (``()`` first)."""
        cards = self.hand_cards.tolist()
        return [(), *map(tuple, map(cards.__getitem__, map(
            slice, self.hand_starts.ravel().tolist(), self.hand_ends.ravel().tolist())))]


def play_columns(seated: Sequence[Sequence[Agent]], variant: Variant, seeds: Sequence[int],
                 agent_seeds: Sequence[Sequence[int]], record: bool = True) -> BatchGames:
    """Play game ``g`` with ``seated[g][seat]`` at each seat, its deal from ``seeds[g]``
    and each agent's randomness from ``agent_seeds[g][seat]``, as :class:`Match` would.

    Raises ValueError when the lengths disagree or an agent is not :func:`batchable`.
    """
    from ..search import baseline_games as bg
    games, n = len(seated), variant.players
    if len(seeds) != games or len(agent_seeds) != games:
        raise ValueError(f"{games} seatings, {len(seeds)} seeds and {len(agent_seeds)} "
                         "agent-seed rows given; give one of each per game")
    known: dict[int, tuple[int, float]] = {}
    for g, agents in enumerate(seated):
        if len(agents) != n or len(agent_seeds[g]) != n:
            raise ValueError(f"game {g}: {len(agents)} agents and {len(agent_seeds[g])} "
                             f"agent seeds for a {n}-player variant; give one of each per "
                             "seat")
        for seat, agent in enumerate(agents):
            if id(agent) not in known:
                kind = _kind(agent)
                if kind is None or agent.traces:
                    raise ValueError(
                        f"game {g}, seat {seat}: agent {agent.spec!r} cannot be played by "
                        "the batch engine; valid: random, heuristic and always-pass "
                        "agents without traces (play it with nothanks.play.match.Match)")
                known[id(agent)] = kind
    players = np.array([known[id(a)] for agents in seated for a in agents],
                       dtype=np.float64).reshape(games, n, 2)
    kinds, params = players[:, :, 0].astype(np.int64), players[:, :, 1].copy()
    game_words = _words(seeds).reshape(games, 3)
    seat_words = _words([s for row in agent_seeds for s in row]).reshape(games, n, 3)
    played = variant.cards_played
    bound = bg.decision_bound(n, variant.tokens, played)
    hands_bound = played * (played + 1) // 2
    order = np.zeros((games, played), dtype=np.int64)
    takers = np.zeros((games, played), dtype=np.int64)
    finals = np.zeros((games, 3 * n), dtype=np.float64)
    ranks = np.zeros((games, n), dtype=np.int64)
    hand_starts = np.zeros((games, played), dtype=np.int64)
    hand_ends = np.zeros((games, played), dtype=np.int64)
    final_hands = np.zeros((games, n), dtype=np.int64)
    first_games = min(games, CALL_GAMES)
    rows = (first_games * 64 + bound) if record else 0
    decisions = np.zeros((rows, len(bg.DECISION_FIELDS)), dtype=np.int64)
    true_tokens = np.zeros((rows, n), dtype=np.int64)
    hand_cards = np.zeros(first_games * 4 * played + hands_bound, dtype=np.int64)
    counts = np.zeros(2, dtype=np.int64)
    done = 0
    while done < games:
        stop = min(games, done + CALL_GAMES)
        done = bg.play(done, variant.low_card, variant.high_card, played, variant.tokens,
                       bound, game_words[:stop], kinds[:stop], params[:stop],
                       seat_words[:stop], bg.START, record, order, takers, finals, ranks,
                       decisions, true_tokens, hand_cards, hand_starts, hand_ends, final_hands,
                       counts)
        # the next game might not fit: grow the buffer that is short
        if record and counts[0] + bound > len(decisions):
            decisions = np.concatenate([decisions, np.zeros_like(decisions)])
            true_tokens = np.concatenate([true_tokens, np.zeros_like(true_tokens)])
        if counts[1] + hands_bound > len(hand_cards):
            hand_cards = np.concatenate([hand_cards, np.zeros_like(hand_cards)])
    used = int(counts[0])
    return BatchGames(order, takers, finals[:, :n].astype(np.int64),
                      finals[:, n:2 * n].astype(np.int64), ranks, finals[:, 2 * n:],
                      decisions[:used], true_tokens[:used], hand_cards[:int(counts[1])],
                      hand_starts, hand_ends, final_hands)


def _words(seeds: Sequence[int]) -> np.ndarray:
    """Every seed as ``random.Random(seed)`` reads it: rows of (low word, high word,
    number of words), as :func:`nothanks.search.baseline_games.seed_words` (its error for
    a seed out of range)."""
    from ..search import baseline_games as bg
    if len(seeds) and not 0 <= min(seeds) <= max(seeds) < 1 << 64:
        bad = min(seeds) if min(seeds) < 0 else max(seeds)
        bg.seed_words(bad)  # raises its error
    values = np.array(seeds, dtype=np.uint64)
    high = (values >> np.uint64(32)).astype(np.int64)
    low = (values & np.uint64(0xFFFFFFFF)).astype(np.int64)
    return np.stack([low, high, np.where(high > 0, 2, 1)], axis=-1)


_ACTIONS = (Action.TAKE, Action.PASS)  # by the kernel's TAKE, PASS
#: A decision record from its fields in order, as Match makes it (tuple.__new__)
_new_decision = partial(tuple.__new__, DecisionRecord)


def play_batch(seated: Sequence[Sequence[Agent]], variant: Variant, seeds: Sequence[int],
               agent_seeds: Sequence[Sequence[int]], game_ids: Sequence[int],
               record: bool = True) -> Iterator[GameRecord]:
    """The records ``Match(seated[g], variant, seeds[g], game_id=game_ids[g],
    agent_seeds=agent_seeds[g]).run(record)`` returns, for every game ``g`` in turn: the
    games are played in one batch (:func:`play_columns`; its errors, raised at once),
    the records made as they are taken.

    The decision records are zipped from per-field columns without Python code per
    decision, and made lazily, game by game: a batch's records made all at once would
    outlive the garbage collector's young generation and make its passes several times
    dearer than the games.
    """
    if len(game_ids) != len(seated):
        raise ValueError(f"{len(seated)} seatings and {len(game_ids)} game ids given; give "
                         "one id per game")
    cols = play_columns(seated, variant, seeds, agent_seeds, record)
    return _records(cols, seated, variant.players, seeds, game_ids, record)


def _records(cols: BatchGames, seated: Sequence[Sequence[Agent]], n: int,
             seeds: Sequence[int], game_ids: Sequence[int],
             record: bool) -> Iterator[GameRecord]:
    """The game records of :func:`play_batch`, one game at a time."""
    games = len(seated)
    tokens, scores = cols.tokens.tolist(), cols.scores.tolist()
    ranks, points = cols.ranks.tolist(), cols.rank_points.tolist()
    hands = cols.hands()
    finals = [tuple(map(hands.__getitem__, row)) for row in cols.final_hands.tolist()]
    specs = [tuple([a.spec for a in agents]) for agents in seated]
    d = cols.decisions
    counts = np.bincount(d[:, 0], minlength=games).tolist()
    made: Iterator[DecisionRecord] = iter(())
    if record:
        game, seat = d[:, 0], d[:, 2]
        flat_specs = [spec for row in specs for spec in row]
        count = len(d)
        own = cols.true_tokens[np.arange(count), seat]
        # the fields of every decision in play order, as lazy columns
        made = map(_new_decision, zip(
            (np.arange(count) - np.repeat(np.cumsum([0] + counts[:-1]), counts)).tolist(),
            d[:, 1].tolist(), seat.tolist(), map(flat_specs.__getitem__,
                                                 (game * n + seat).tolist()),
            d[:, 3].tolist(), d[:, 4].tolist(), own.tolist(),
            map(hands.__getitem__, d[:, 5].tolist()), d[:, 6].tolist(),
            map(CATEGORY_BY_NEIGHBOURS.__getitem__, d[:, 7].tolist()),
            zip(*cols.true_tokens.T.tolist(), strict=True),
            map(_ACTIONS.__getitem__, d[:, 8].tolist()), (own == 0).tolist(),
            starmap(dict, repeat((), count)), repeat(None, count), repeat(None, count),
            repeat(None, count), strict=True))
    for g, agents in enumerate(seated):
        yield GameRecord(
            game_ids[g], seeds[g], specs[g], tuple([a.label for a in agents]),
            tuple([a.tom_order for a in agents]), tuple([a.kind for a in agents]), finals[g],
            tuple(tokens[g]), tuple(scores[g]), tuple(ranks[g]), tuple(points[g]),
            tuple(islice(made, counts[g])))
