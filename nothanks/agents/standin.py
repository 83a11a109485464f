"""A human stand-in: a noisy mixture of simple rules with personal parameters.

It stands in for participants until real people have played, so the participant
analysis can run end to end (see ``nothanks.experiments.synthetic``). It is not a model
of human play. It uses only what a person at the table sees: its own cards and tokens,
everyone's cards, the face-up card, the tokens on it, the cards still face down and the
moves so far — never the others' hidden token counts or the deck.

Besides the base rules (a value rule, a greedy rule, lapses) it has optional habits of
stronger players, each off by default (the defaults play exactly as the base rules):

* *token value* (``token_value``): a token on the card counts as more than one point,
  because tokens buy future passes; near the end (``endgame``: at most that many cards
  face down) a token is worth one point again;
* *gaps* (``near``): a card two away from one of its own (a gap a later card may fill)
  looks ``near`` points cheaper;
* *let it go round* (``collect``): a card it would take now is passed, with probability
  ``collect``, while it looks safe — no opponent has a neighbouring card and even after
  a full round of passes its tokens stay below ``collect_safe`` × card — and it holds
  more than ``reserve`` tokens, so the card comes back with more tokens on it;
* *counting tokens* (``poor``): token counts are hidden, but every pass and take is
  public, so a person can keep a rough tally of each opponent's tokens (each counted
  move is off by one with probability ``slip``). With the tally, "safe" is judged per
  opponent: the k-th opponent after it sees k more tokens, and one counted at fewer than
  ``poor`` tokens takes a card that much more cheaply (at none: it must take it);
* *deny* (``deny``): a card next to an opponent's card looks ``deny`` points cheaper —
  taken before the opponent gets it for free.
"""
from __future__ import annotations

import math
import random

from ..rules import Action, Event, Passed, Took, Variant, View, sequence_gain
from ..rules.seeding import stream_seeds
from .base import Agent


class HumanStandIn(Agent):
    """A noisy mixture of strategies standing in for a participant (see module doc).

    Args:
        T: value-rule threshold: take iff points gained − tokens on card ≤ T.
        greed: greedy rule: take iff tokens on card ≥ greed × card.
        w_greedy: probability of deciding by the greedy rule.
        lapse: probability of a coin-flip decision.
        low: own-token count below which T rises by 2 per missing token.
        speed: median decision time in seconds.
        critic: probability of marking a clearly bad opponent take.
        token_value: points a token on the card is worth to the value rule (1: face value).
        endgame: cards face down at or below which a token is worth one point again
            (0: never).
        near: points the value rule takes off a card two away from one of its own.
        collect: probability of letting a card it would take go round once more.
        collect_safe: a card is safe to let go round while tokens on it + one round of
            passes < collect_safe × card (and no opponent has a neighbouring card).
        reserve: it lets cards go round only while holding more than this many tokens.
        poor: with a token tally (``poor`` >= 0), an opponent counted at t < poor tokens
            takes at t / poor of the usual tokens, at 0 tokens at once (-1: no tally).
        slip: probability that a counted token move is off by one (with the tally).
        deny: points the value rule takes off a card next to an opponent's card.
    """

    name = "human-standin"
    kind = "human"

    def __init__(self, T: float = -4.0, greed: float = 0.45, w_greedy: float = 0.2,
                 lapse: float = 0.05, low: int = 3, speed: float = 3.0,
                 critic: float = 0.3, token_value: float = 1.0, endgame: int = 0,
                 near: float = 0.0, collect: float = 0.0, collect_safe: float = 0.35,
                 reserve: int = 3, poor: int = -1, slip: float = 0.1,
                 deny: float = 0.0) -> None:
        super().__init__()
        for key, value in (("greed", greed), ("speed", speed), ("token_value", token_value),
                           ("collect_safe", collect_safe)):
            if not value > 0:
                raise ValueError(f"{key}={value} is invalid; valid: > 0")
        for key, value in (("w_greedy", w_greedy), ("lapse", lapse), ("critic", critic),
                           ("collect", collect), ("slip", slip)):
            if not 0 <= value <= 1:
                raise ValueError(f"{key}={value} is not a probability; valid: 0 to 1")
        for key, value in (("endgame", endgame), ("reserve", reserve)):
            if value < 0:
                raise ValueError(f"{key}={value} is invalid; valid: a count >= 0")
        if poor < -1:
            raise ValueError(f"poor={poor} is invalid; valid: -1 (no tally) or a count >= 0")
        if w_greedy + lapse > 1:
            raise ValueError(f"w_greedy + lapse = {w_greedy + lapse} exceeds 1")
        self.T, self.greed, self.w_greedy, self.lapse = T, greed, w_greedy, lapse
        self.low, self.speed, self.critic = low, speed, critic
        self.token_value, self.endgame, self.near = token_value, int(endgame), near
        self.collect, self.collect_safe, self.reserve = collect, collect_safe, int(reserve)
        self.poor, self.slip, self.deny = int(poor), slip, deny
        self._rng = random.Random(0)
        self._side = random.Random(0)
        self._count = random.Random(0)
        self.think_time = 0.0
        self._cards: list[tuple[int, ...]] = []
        self._tally: list[int] = []
        self._last_move: dict[int, tuple[str, int]] = {}

    def start(self, seat: int, variant: Variant, seed: int) -> None:
        super().start(seat, variant, seed)
        # three streams; the tally's own, so counting leaves the decisions' draws alone
        decide, side, count = stream_seeds(seed, 3)
        self._rng = random.Random(decide)
        self._side = random.Random(side)
        self._count = random.Random(count)
        self._cards = [()] * variant.players
        self._tally = [variant.tokens] * variant.players
        self._last_move = {}
        self.think_time = 0.0

    def observe(self, event: Event) -> None:
        """Remember each player's cards and last move (to judge it when marking), and
        with the tally on, count each opponent's tokens from the public moves."""
        if isinstance(event, Took):
            cost = sequence_gain(self._cards[event.seat], event.card) - event.tokens
            self._cards[event.seat] = tuple(sorted(self._cards[event.seat] + (event.card,)))
            self._last_move[event.seat] = ("take", cost)
            self._count_move(event.seat, event.tokens)
        elif isinstance(event, Passed):
            self._last_move[event.seat] = ("pass", 0)
            self._count_move(event.seat, -1)

    def _count_move(self, seat: int, tokens: int) -> None:
        if self.poor < 0 or seat == self.seat:
            return
        if self._count.random() < self.slip:
            tokens += self._count.choice((-1, 1))
        self._tally[seat] = max(0, self._tally[seat] + tokens)

    def tally(self, seat: int) -> int:
        """The tokens this stand-in has counted for ``seat`` (its own: exact)."""
        return self._tally[seat]

    def value_cost(self, view: View) -> float:
        """What the value rule weighs: points gained − tokens at their worth − gap bonus."""
        own = view.own_cards
        worth = 1.0 if view.cards_left <= self.endgame else self.token_value
        cost = sequence_gain(own, view.card) - worth * view.tokens_on_card
        if self.near and (view.card - 1 not in own and view.card + 1 not in own
                          and (view.card - 2 in own or view.card + 2 in own)):
            cost -= self.near
        if self.deny and any(view.card - 1 in cards or view.card + 1 in cards
                             for seat, cards in enumerate(view.cards) if seat != view.seat):
            cost -= self.deny
        return cost

    def safe_to_collect(self, view: View) -> bool:
        """Whether the card will likely come back: no opponent has a neighbouring card,
        it still looks too cheap for them after a round of passes, and tokens to spare.
        With the tally, each opponent is judged at its place in the round and its count."""
        if view.own_tokens <= self.reserve:
            return False
        for seat, cards in enumerate(view.cards):
            if seat != view.seat and (view.card - 1 in cards or view.card + 1 in cards):
                return False
        if self.poor < 0:
            return view.tokens_on_card + view.players - 1 < self.collect_safe * view.card
        for k in range(1, view.players):
            counted = self._tally[(view.seat + k) % view.players]
            share = min(1.0, counted / self.poor) if self.poor else float(counted > 0)
            if view.tokens_on_card + k >= share * self.collect_safe * view.card:
                return False
        return True

    def decide(self, view: View) -> Action:
        cost = self.value_cost(view)
        threshold = self.T + 2 * max(0, self.low - view.own_tokens)
        self.think_time = self._side.lognormvariate(
            math.log(self.speed) + (0.4 if abs(cost - threshold) <= 2 else 0.0), 0.5)
        if view.own_tokens == 0:
            return Action.TAKE
        u = self._rng.random()
        if u < self.lapse:
            take = self._rng.random() < 0.5
        elif u < self.lapse + self.w_greedy:
            take = view.tokens_on_card >= self.greed * view.card
        else:
            take = cost <= threshold
        if (take and self.collect and self.safe_to_collect(view)
                and self._rng.random() < self.collect):
            take = False
        return Action.TAKE if take else Action.PASS

    def marks(self) -> tuple[int, ...]:
        """Opponent seats whose last move this stand-in marks as bad now."""
        out = []
        for seat, (kind, cost) in sorted(self._last_move.items()):
            if seat == self.seat:
                continue
            bad = kind == "take" and cost >= 10
            if self._side.random() < (self.critic if bad else self.critic / 20):
                out.append(seat)
        return tuple(out)
