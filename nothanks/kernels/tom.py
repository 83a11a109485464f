"""The compiled ToM-k decision: the one fast path of the models' recursion (numba).

:func:`reason` is ToM-k at the root of a decision over plain arrays, in one compiled
call. It is the only compiled copy of the recursion, and two callers share it:

- the ToM-k models (``ToMAgent``, every order, with the token memory's candidate counts
  or exact ones), through :func:`decide` (``nothanks.agents.cognitive.tom_kernel`` packs
  the decision's state), and ToM0 models through :func:`decide_tom0`, the same
  retrieval without the recursion's set-up: ToM0 is a retrieval over the instances with
  the memory's own per-time noise, base levels and mismatch scores;
- the search's ToM-k stand-in (:func:`nothanks.search.kernel.skips`: the play-outs' model
  players and the inference of each opponent's kind): ToM0 is read from a table of
  take probabilities (``nothanks.agents.population.tom0_take_table``), taking when it
  is at least 1/2.

The reference it must agree with, bit for bit (actions, latencies, failure counts,
predictions), is the plain recursion ``ToMAgent._reason``
(``nothanks/agents/cognitive/tom.py``; tests/integration/agreement/test_tom.py).

What ToM-k computes (thesis §3; docs/models.md): ToM0 retrieves the instance that best
matches its state and does what it did (pass when no instance is above the threshold).
ToM-k (k >= 1) whose ToM0 says take (or at the root, always) predicts each other
player in turn order by ToM-(k-1) from that player's view, with one more token on the
card per player who would have passed before it (its own pass included), stops at the
first predicted taker, and passes instead of taking when nobody is predicted to take. A
player assumed to have several possible counts is projected once per count and
predicted to pass when all (``all_pass``) or any projection passes. Without tokens a
player takes, nothing retrieved.

numba cannot cache a recursive function that returns a tuple, so the recursion runs on
explicit stacks: one frame per level, in the reference's order. Compiled with this
package's switch (``NOTHANKS_REFERENCE=1``, or no numba: plain Python, the same results;
the models then reason in Python, ``tom_kernel.compiled``).
"""
from __future__ import annotations

import math

import numpy as np

from ..rules.scoring import CATEGORY_BY_NEIGHBOURS
from .compiling import COMPILED, jit
from .retrieval import first_best, windowed_best

__all__ = ["CATEGORY_ROW", "COMPILED", "N_CATEGORIES", "STATE_HEAD", "TAKES_ROW", "decide",
           "decide_tom0", "reason", "retrieve"]

#: The sequence categories, indexed by how many of card - 1 and card + 1 a player holds.
N_CATEGORIES = len(CATEGORY_BY_NEIGHBOURS)
#: The score table's first rows (``tom_kernel.ScoreTables``): each instance's action (1.0:
#: take), then the categories' scores; then the cards' and the two token slots' by count.
TAKES_ROW = 0
CATEGORY_ROW = 1
#: The packed state's fixed head (:func:`decide`).
STATE_HEAD = 12

# a frame's fields (the recursion's stack): its level, seat, tokens on the card and tokens
# held; its ToM0's action and failure, failures so far, the taker (-1: none yet) and
# predictions made; the other player projected (its place in the seat's turn order), the
# tokens on the card for it, its candidate being projected and how many candidates passed
(_LEVEL, _SEAT, _ON_CARD, _TOKENS, _TOM0, _FAILED, _FAILURES, _TAKER, _PREDICTED, _OTHER,
 _ON, _CANDIDATE, _PASSES) = range(13)
_FIELDS = 13
# what the frame on top does next
_ENTER, _NEXT, _PROJECT, _RETURNED, _FINISH = range(5)
_MEMO = 256  # ToM0 states kept per decision (beyond: retrieved again, the same result)
#: The probability table a decision with ToM0 retrieved passes (never read).
_NO_PROBABILITIES = np.zeros((1, 1, 1))

@jit
def retrieve(start, matched, on_card, owned, penalty, out, scratch):
    """A ToM0 retrieval over every instance: (first best index, its activation), with
    ``start`` = B + ε and ``matched`` = the category's plus the card's mismatch.

    The activations are the memory's compiled additions (``actr.kernel.activations``),
    ``(B + ε) + Σm·MP`` with ``Σm`` the four slots' scores summed left to right (the two
    sums made once per decision, the same additions); the best is NumPy's ``argmax``:
    the first maximum, or the first NaN if there is one."""
    count = out.shape[0]
    for i in range(count):
        out[i] = start[i] + ((matched[i] + on_card[i]) + owned[i]) * penalty
    return first_best(out, scratch)


@jit
def _retrieved(table, best, top, tau, factor):
    """What ToM0 makes of a retrieval's best instance and activation: (takes, latency,
    failed); below the threshold nothing is retrieved and it passes, the default."""
    if top >= tau:
        return table[TAKES_ROW, best] != 0.0, factor * math.exp(-top), False
    return False, factor * math.exp(-tau), True


@jit
def decide_tom0(table, base, base_extent, window, summed, cutoff, margin, noise, key1, key2,
                first, scale, card_row, category, on_row, own_row, penalty, tau, factor, det):
    """A decision of ToM0 itself (a model of order 0): the one retrieval :func:`reason`
    makes at level 0, with its state given as the score table's rows (``category`` its
    index among the categories), without the recursion's set-up: (takes, latency,
    failed). The retrieval is ``kernels.retrieval.windowed_best`` over the query's
    ``window``, ``summed``, ``cutoff`` and ``margin`` (``kernels.retrieval.window``; an
    empty window:
    over every instance; ``base_extent``: the largest finite ``|base level|``); its noise
    the per-time noise: ``noise`` when drawn already, else (``noise`` empty) drawn as
    needed at the counter stream's positions reserved for it (``key1``, ``key2``,
    ``first``: uint64), times ``scale``; ``det``: room for every chunk's det."""
    best, top = windowed_best(window, summed, cutoff, margin, base, base_extent,
                              table[CATEGORY_ROW + category], table[card_row], table[on_row],
                              table[own_row], penalty, noise, key1, key2, first, scale, det)
    return _retrieved(table, best, top, tau, factor)


@jit
def reason(level, seat, on_card, tokens, self_seat, project_self, all_pass, root_takes,
           categories, counts, world, probs, retrieval, predictions):
    """ToM-``level`` at the root of a decision from ``seat``'s view, holding ``tokens``
    with ``on_card`` tokens on the card: (takes, latency, failures, ToM0 takes, ToM0
    failed, first predicted taker or -1, predictions made). The root's predictions'
    (seat, tokens on the card, takes) rows fill ``predictions`` (None: not kept).

    ``counts[p]``: how many counts are assumed for player p (one entry per player);
    ``world[c, p]``: the c-th of them; ``categories[p]``: p's sequence category of the
    card (both arrays may be longer than the players). ``self_seat``,
    ``project_self``: the reasoning model's seat and whether a projection also predicts
    it; ``all_pass``: several counts pass when all pass (else any); ``root_takes`` >= 0:
    the root's ToM0 action given (1: take; nothing retrieved), -1: asked.

    ToM0 comes from ``retrieval`` = (score table, base levels, noise, card row, first
    row of the tokens on the card, first row of the tokens owned, mismatch penalty,
    threshold, latency factor): a retrieval, kept per state for the decision (per-time
    noise). With ``retrieval`` None it comes from ``probs[category, on, held]``, P(take),
    taking when >= 1/2, without latency or failure (counts beyond the table read its last
    entry). The caller makes sure the score table holds every count asked for
    (:func:`decide`)."""
    players = counts.shape[0]
    width = world.shape[0]
    depth = level + 1
    # one row per level (one allocation: the search asks this at most of its moves): the
    # frame's fields, then how many counts each player is assumed to have, the counts
    # (``width`` blocks of one per player), and two floats: the latency so far and a
    # candidates' sum
    at_assumed = _FIELDS
    at_world = _FIELDS + players
    at_latency = at_world + width * players
    frames = np.zeros((depth, at_latency + 2), np.int64)
    latencies = frames.view(np.float64)
    if retrieval is not None:
        table, base, noise, card_row, on_start, own_start, penalty, tau, factor = retrieval
        rows = own_start - on_start
        # ToM0's retrievals of this decision by state (per-time noise: the same state
        # retrieves the same), (takes, latency, failed) each
        kept = _MEMO if level else 0  # (ToM0 alone retrieves once)
        memo_keys = np.empty(kept, np.int64)
        memo_values = np.empty((kept, 3))
        memo_size = 0
        chunks = base.shape[0]
        out = np.empty(chunks)
        scratch = np.empty(1, np.int64)
        # per decision, made when first needed: B + ε, and per category the category's
        # plus the card's mismatch
        start = np.empty(chunks)
        started = False
        matched = np.empty((N_CATEGORIES, chunks))
        made = np.zeros(N_CATEGORIES, np.bool_)
    for p in range(players):
        frames[0, at_assumed + p] = counts[p]
        for c in range(width):
            frames[0, at_world + c * players + p] = world[c, p]
    frames[0, _LEVEL] = level
    frames[0, _SEAT] = seat
    frames[0, _ON_CARD] = on_card
    frames[0, _TOKENS] = tokens
    d = 0
    phase = _ENTER
    passing = False
    returned_takes = False
    returned_latency = 0.0
    returned_failures = 0
    while True:
        if phase == _ENTER:
            if frames[d, _TOKENS] == 0:  # no tokens: must take, nothing retrieved
                if d == 0:
                    return True, 0.0, 0, False, False, -1, 0
                returned_takes, returned_latency, returned_failures = True, 0.0, 0
                d -= 1
                phase = _RETURNED
                continue
            category = categories[frames[d, _SEAT]]
            on = frames[d, _ON_CARD]
            held = frames[d, _TOKENS]
            if d == 0 and root_takes >= 0:
                tom0, latency, failed = root_takes != 0, 0.0, False
            elif retrieval is None:  # (numba compiles this branch only when it is)
                tom0 = probs[category, min(on, probs.shape[1] - 1),
                             min(held, probs.shape[2] - 1)] >= 0.5
                latency, failed = 0.0, False
            else:
                key = (category * rows + on) * rows + held
                known = -1
                for i in range(memo_size):
                    if memo_keys[i] == key:
                        known = i
                        break
                if known >= 0:
                    tom0 = memo_values[known, 0] != 0.0
                    latency = memo_values[known, 1]
                    failed = memo_values[known, 2] != 0.0
                else:
                    if not started:
                        for i in range(chunks):
                            start[i] = base[i] + noise[i]
                        started = True
                    if not made[category]:
                        by_category = table[CATEGORY_ROW + category]
                        by_card = table[card_row]
                        for i in range(chunks):
                            matched[category, i] = by_category[i] + by_card[i]
                        made[category] = True
                    best, top = retrieve(start, matched[category], table[on_start + on],
                                         table[own_start + held], penalty, out, scratch)
                    tom0, latency, failed = _retrieved(table, best, top, tau, factor)
                    if memo_size < kept:
                        memo_keys[memo_size] = key
                        memo_values[memo_size, 0] = 1.0 if tom0 else 0.0
                        memo_values[memo_size, 1] = latency
                        memo_values[memo_size, 2] = 1.0 if failed else 0.0
                        memo_size += 1
            frames[d, _TOM0] = tom0
            frames[d, _FAILED] = failed
            frames[d, _FAILURES] = 1 if failed else 0
            frames[d, _TAKER] = -1
            frames[d, _PREDICTED] = 0
            latencies[d, at_latency] = latency
            if frames[d, _LEVEL] >= 1 and (d == 0 or tom0):
                frames[d, at_world + frames[d, _SEAT]] = frames[d, _TOKENS] - 1
                frames[d, at_assumed + frames[d, _SEAT]] = 1
                frames[d, _ON] = frames[d, _ON_CARD] + 1
                frames[d, _OTHER] = 0
                phase = _NEXT
            else:
                phase = _FINISH
        elif phase == _NEXT:  # project the next other player, its first candidate
            while frames[d, _OTHER] < players - 1 and (
                    d > 0 and not project_self
                    and (frames[d, _SEAT] + 1 + frames[d, _OTHER]) % players == self_seat):
                frames[d, _OTHER] += 1
            if frames[d, _OTHER] == players - 1:
                phase = _FINISH
                continue
            frames[d, _CANDIDATE] = 0
            frames[d, _PASSES] = 0
            latencies[d, at_latency + 1] = 0.0
            phase = _PROJECT
        elif phase == _PROJECT:  # a child frame for the current candidate
            other = (frames[d, _SEAT] + 1 + frames[d, _OTHER]) % players
            for i in range(at_assumed, at_latency):
                frames[d + 1, i] = frames[d, i]
            count = frames[d, at_world + frames[d, _CANDIDATE] * players + other]
            if frames[d, at_assumed + other] > 1:  # one projection per count, as its only belief
                frames[d + 1, at_world + other] = count
                frames[d + 1, at_assumed + other] = 1
            frames[d + 1, _LEVEL] = frames[d, _LEVEL] - 1
            frames[d + 1, _SEAT] = other
            frames[d + 1, _ON_CARD] = frames[d, _ON]
            frames[d + 1, _TOKENS] = count
            d += 1
            phase = _ENTER
        elif phase == _RETURNED:  # frame d's projection returned
            other = (frames[d, _SEAT] + 1 + frames[d, _OTHER]) % players
            n = frames[d, at_assumed + other]
            frames[d, _FAILURES] += returned_failures
            if n == 1:
                latencies[d, at_latency] += returned_latency
                passing = not returned_takes
            else:
                latencies[d, at_latency + 1] += returned_latency
                frames[d, _PASSES] += 0 if returned_takes else 1
                frames[d, _CANDIDATE] += 1
                if frames[d, _CANDIDATE] < n:
                    phase = _PROJECT
                    continue
                latencies[d, at_latency] += latencies[d, at_latency + 1]  # summed, then added
                passing = frames[d, _PASSES] == n if all_pass else frames[d, _PASSES] > 0
            if d == 0 and predictions is not None:
                predictions[frames[d, _PREDICTED], 0] = other
                predictions[frames[d, _PREDICTED], 1] = frames[d, _ON]
                predictions[frames[d, _PREDICTED], 2] = 0 if passing else 1
            frames[d, _PREDICTED] += 1
            if not passing:
                frames[d, _TAKER] = other
                phase = _FINISH
                continue
            for c in range(n):  # Belief.after_pass
                if frames[d, at_world + c * players + other] > 0:
                    frames[d, at_world + c * players + other] -= 1
            frames[d, _ON] += 1
            frames[d, _OTHER] += 1
            phase = _NEXT
        else:  # _FINISH
            tom0 = frames[d, _TOM0] != 0
            action = tom0
            if frames[d, _LEVEL] >= 1 and tom0 and frames[d, _TAKER] < 0:
                action = False
            if d == 0:
                return (action, latencies[0, at_latency], frames[d, _FAILURES], tom0,
                        frames[d, _FAILED] != 0, frames[d, _TAKER], frames[d, _PREDICTED])
            returned_takes = action
            returned_latency = latencies[d, at_latency]
            returned_failures = frames[d, _FAILURES]
            d -= 1
            phase = _RETURNED


@jit
def decide(state, table, base, noise, penalty, tau, factor, predictions):
    """A model's decision (:func:`reason` with ToM0 retrieved), its inputs packed in one
    array (a compiled call costs ~40 ns per argument): (takes, latency, failures, ToM0
    takes, ToM0 failed, taker or -1, predicted count, rows needed). Rows needed > 0: a
    count beyond the score tables (nothing was decided; grow them and call again); -1: a
    negative count assumed, which the tables do not hold (nothing was decided).

    ``state``: ``STATE_HEAD`` fields (level, seat, tokens on the card, tokens held,
    players, width, the model's seat, project_self, all_pass, the card's row, the first
    row of the tokens on the card, of the tokens owned), then per player its category of
    the card, per player its count of assumed counts, and the assumed counts,
    ``width`` rows of one per player (``world[c, p]``, 0 past a player's counts)."""
    level, seat, on_card, tokens = state[0], state[1], state[2], state[3]
    players, width, self_seat = state[4], state[5], state[6]
    card_row, on_start, own_start = state[9], state[10], state[11]
    categories = state[STATE_HEAD:STATE_HEAD + players]
    counts = state[STATE_HEAD + players:STATE_HEAD + 2 * players]
    at = STATE_HEAD + 2 * players
    world = state[at:at + width * players].reshape(width, players)
    rows = own_start - on_start
    # each level's projections put at most one token per other player on the card
    needed = max(on_card + level * (players - 1), tokens)
    for p in range(players):
        for c in range(counts[p]):
            if world[c, p] < 0:  # no row for it (the Python path scores it): not here
                return False, 0.0, 0, False, False, -1, 0, -1
            needed = max(needed, world[c, p])
    if needed >= rows:
        return False, 0.0, 0, False, False, -1, 0, needed + 1
    result = reason(level, seat, on_card, tokens, self_seat, state[7] != 0, state[8] != 0,
                    -1, categories, counts, world, _NO_PROBABILITIES,
                    (table, base, noise, card_row,
                     on_start, own_start, penalty, tau, factor), predictions)
    return (result[0], result[1], result[2], result[3], result[4], result[5], result[6], 0)
