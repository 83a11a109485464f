"""The compiled ToM-k recursion (numba): imported by ``tom_kernel`` on first use, so the
package imports without numba. What it computes, and why so: ``tom_kernel``."""
from __future__ import annotations

import math

import numba
import numpy as np

from .tom_kernel import CATEGORY_ROW, N_CATEGORIES, STATE_HEAD, TAKES_ROW

# a frame's fields (the compiled recursion's stack): its level, seat, tokens on the card
# and tokens held; its ToM0 retrieval's action and failure, failures so far, the taker
# (-1: none yet) and predictions made; the other player projected (an index into the
# seat's turn order), the tokens on the card for it, its candidate being projected and
# how many of its candidates passed
(_LEVEL, _SEAT, _ON_CARD, _TOKENS, _TOM0, _FAILED, _FAILURES, _TAKER, _PREDICTED, _OTHER,
 _ON, _CANDIDATE, _PASSES) = range(13)
_FIELDS = 13
# what the frame on top does next
_ENTER, _NEXT, _PROJECT, _RETURNED, _FINISH = range(5)
_MEMO = 256  # ToM0 states kept per decision (beyond: retrieved again, the same result)


#: An activation's bits as an integer that orders as the activation does (negative
#: values' other bits flipped): the largest is found by an integer reduction, which the
#: compiler vectorizes (a float maximum it leaves as a chain of comparisons, each
#: waiting for the last). ±0 order apart here, but the first index holding the best is
#: searched by float equality, as NumPy's argmax compares.
_MAGNITUDE = 0x7FFFFFFFFFFFFFFF
_KEY_OF_MINUS_INF = -0x7FF0000000000001  # 0xFFF0... with its magnitude flipped
_KEY_OF_INF = 0x7FF0000000000000


@numba.njit(cache=True, nogil=True)
def retrieve(start, matched, on_card, owned, penalty, out, scratch):
    """A ToM0 retrieval over every instance: (first best index, its activation), with
    ``start`` = B + ε and ``matched`` = the category's plus the card's mismatch.

    The activations are ``kernel.activations``' additions, ``(B + ε) + Σm·MP`` with
    ``Σm`` summed left to right (the two sums made once per decision, the same
    additions); the best is NumPy's ``argmax``: the first maximum, or the first NaN if
    there is one."""
    count = out.shape[0]
    for i in range(count):
        out[i] = start[i] + ((matched[i] + on_card[i]) + owned[i]) * penalty
    keys = out.view(np.int64)
    top = -_MAGNITUDE - 1
    low = _MAGNITUDE
    for i in range(count):
        bits = keys[i]
        key = bits ^ ((bits >> 63) & _MAGNITUDE)
        top = key if key > top else top
        low = key if key < low else low
    if top > _KEY_OF_INF or low < _KEY_OF_MINUS_INF:  # a NaN: the first one
        for i in range(count):
            if out[i] != out[i]:
                return i, out[i]
    scratch[0] = top ^ ((top >> 63) & _MAGNITUDE)
    best = scratch.view(np.float64)[0]
    for i in range(count):
        if out[i] == best:
            return i, out[i]
    return 0, out[0]


@numba.njit(cache=True, nogil=True)
def decide(state, table, base, noise, penalty, tau, factor, predictions):
    """ToM-k at the root of a decision, its inputs packed in ``state`` (see
    ``ToMAgent._reason_compiled``): (takes, latency, failures, ToM0 takes, ToM0
    failed, taker or -1, predicted count, rows needed); the predictions' (seat,
    tokens on the card, takes) rows fill ``predictions``. Rows needed > 0: a count
    beyond the score tables (nothing was decided; grow them and call again); -1: a
    negative count assumed, which the tables do not hold (nothing was decided).

    ``ToMAgent._reason`` without recursion (numba cannot cache a recursive
    function): one frame per level on explicit stacks, in the same order.
    """
    level, seat, on_card, tokens = state[0], state[1], state[2], state[3]
    players, width, self_seat = state[4], state[5], state[6]
    project_self, all_pass = state[7] != 0, state[8] != 0
    card_row, rows, on_start, own_start = state[9], state[10], state[11], state[12]
    categories = state[STATE_HEAD:STATE_HEAD + players]
    counts = state[STATE_HEAD + players:STATE_HEAD + 2 * players]
    at = STATE_HEAD + 2 * players
    world = state[at:at + players * width].reshape(players, width)
    at += players * width
    others = state[at:at + players * (players - 1)].reshape(players, players - 1)
    # each level's projections put at most one token per other player on the card
    needed = max(on_card + level * (players - 1), tokens)
    for p in range(players):
        for c in range(counts[p]):
            if world[p, c] < 0:  # no row for it (the Python path scores it): not here
                return False, 0.0, 0, False, False, -1, 0, -1
            needed = max(needed, world[p, c])
    if needed >= rows:
        return False, 0.0, 0, False, False, -1, 0, needed + 1
    depth = level + 1
    worlds = np.empty((depth, players, width), np.int64)
    assumed = np.empty((depth, players), np.int64)
    frames = np.zeros((depth, _FIELDS), np.int64)
    latencies = np.zeros((depth, 2))  # the latency so far, a candidates' sum
    # ToM0's retrievals of this decision by state (per-time noise: the same state
    # retrieves the same), (takes, latency, failed) each
    memo_keys = np.empty(_MEMO, np.int64)
    memo_values = np.empty((_MEMO, 3))
    memo_size = 0
    # per decision: B + ε, and per category the category's plus the card's mismatch
    # (made when first needed)
    chunks = base.shape[0]
    out = np.empty(chunks)
    scratch = np.empty(1, np.int64)
    start = np.empty(chunks)
    for i in range(chunks):
        start[i] = base[i] + noise[i]
    matched = np.empty((N_CATEGORIES, chunks))
    made = np.zeros(N_CATEGORIES, np.bool_)
    worlds[0] = world
    assumed[0] = counts
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
        frame = frames[d]
        if phase == _ENTER:
            if frame[_TOKENS] == 0:  # no tokens: must take, nothing retrieved
                returned_takes, returned_latency, returned_failures = True, 0.0, 0
                d -= 1
                phase = _RETURNED
                continue
            category = categories[frame[_SEAT]]
            on = frame[_ON_CARD]
            held = frame[_TOKENS]
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
                if not made[category]:
                    by_category = table[CATEGORY_ROW + category]
                    by_card = table[card_row]
                    for i in range(chunks):
                        matched[category, i] = by_category[i] + by_card[i]
                    made[category] = True
                best, top = retrieve(start, matched[category], table[on_start + on],
                                     table[own_start + held], penalty, out, scratch)
                if top >= tau:
                    tom0 = table[TAKES_ROW, best] != 0.0
                    latency = factor * math.exp(-top)
                    failed = False
                else:  # no instance retrieved: the default action, pass
                    tom0 = False
                    latency = factor * math.exp(-tau)
                    failed = True
                if memo_size < _MEMO:
                    memo_keys[memo_size] = key
                    memo_values[memo_size, 0] = 1.0 if tom0 else 0.0
                    memo_values[memo_size, 1] = latency
                    memo_values[memo_size, 2] = 1.0 if failed else 0.0
                    memo_size += 1
            frame[_TOM0] = tom0
            frame[_FAILED] = failed
            frame[_FAILURES] = 1 if failed else 0
            frame[_TAKER] = -1
            frame[_PREDICTED] = 0
            latencies[d, 0] = latency
            if frame[_LEVEL] >= 1 and (d == 0 or tom0):
                worlds[d, frame[_SEAT], 0] = frame[_TOKENS] - 1
                assumed[d, frame[_SEAT]] = 1
                frame[_ON] = frame[_ON_CARD] + 1
                frame[_OTHER] = 0
                phase = _NEXT
            else:
                phase = _FINISH
        elif phase == _NEXT:  # project the next other player, its first candidate
            row = others[frame[_SEAT]]
            while frame[_OTHER] < row.shape[0] and (
                    d > 0 and not project_self and row[frame[_OTHER]] == self_seat):
                frame[_OTHER] += 1
            if frame[_OTHER] == row.shape[0]:
                phase = _FINISH
                continue
            frame[_CANDIDATE] = 0
            frame[_PASSES] = 0
            latencies[d, 1] = 0.0
            phase = _PROJECT
        elif phase == _PROJECT:  # a child frame for the current candidate
            other = others[frame[_SEAT], frame[_OTHER]]
            child = frames[d + 1]
            worlds[d + 1] = worlds[d]
            assumed[d + 1] = assumed[d]
            count = worlds[d, other, frame[_CANDIDATE]]
            if assumed[d, other] > 1:  # one projection per count, as its only belief
                worlds[d + 1, other, 0] = count
                assumed[d + 1, other] = 1
            child[_LEVEL] = frame[_LEVEL] - 1
            child[_SEAT] = other
            child[_ON_CARD] = frame[_ON]
            child[_TOKENS] = count
            d += 1
            phase = _ENTER
        elif phase == _RETURNED:  # frame d's projection returned
            other = others[frame[_SEAT], frame[_OTHER]]
            n = assumed[d, other]
            frame[_FAILURES] += returned_failures
            if n == 1:
                latencies[d, 0] += returned_latency
                passing = not returned_takes
            else:
                latencies[d, 1] += returned_latency
                frame[_PASSES] += 0 if returned_takes else 1
                frame[_CANDIDATE] += 1
                if frame[_CANDIDATE] < n:
                    phase = _PROJECT
                    continue
                latencies[d, 0] += latencies[d, 1]  # summed first, then added
                passing = frame[_PASSES] == n if all_pass else frame[_PASSES] > 0
            if d == 0:
                predictions[frame[_PREDICTED], 0] = other
                predictions[frame[_PREDICTED], 1] = frame[_ON]
                predictions[frame[_PREDICTED], 2] = 0 if passing else 1
            frame[_PREDICTED] += 1
            if not passing:
                frame[_TAKER] = other
                phase = _FINISH
                continue
            for c in range(n):  # Belief.after_pass
                if worlds[d, other, c] > 0:
                    worlds[d, other, c] -= 1
            frame[_ON] += 1
            frame[_OTHER] += 1
            phase = _NEXT
        else:  # _FINISH
            tom0 = frame[_TOM0] != 0
            action = tom0
            if frame[_LEVEL] >= 1 and tom0 and frame[_TAKER] < 0:
                action = False
            if d == 0:
                return (action, latencies[0, 0], frame[_FAILURES], tom0,
                        frame[_FAILED] != 0, frame[_TAKER], frame[_PREDICTED], 0)
            returned_takes = action
            returned_latency = latencies[d, 0]
            returned_failures = frame[_FAILURES]
            d -= 1
            phase = _RETURNED
