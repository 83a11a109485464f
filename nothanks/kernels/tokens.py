"""The token memory's recall in one compiled call, drawing only the noise it reads.

A token recall (``nothanks.agents.cognitive.token_memory``) searches one player's leaf
chunks and, only if the best leaf fails, its root chunks. Every chunk has one reference,
so a chunk's activation is ``strengths[strength_of[k]] + ε_row`` (update ``k``'s leaf is
row ``2k``, its root row ``2k + 1``), plus the leaf offset if nonzero, added in the memory
retrieval's order; the best is the first highest, as NumPy's argmax picks.

``ε_row`` is the memory's per-time noise. On the counter stream the caller reserves the
time's positions for every row (``reserve_per_time_noise``) and :func:`recall` draws only
the rows it reads, each the stream's value at ``first + row`` times s
(``retrieval.draw``: the bits an eager ``per_time_noise`` gives); a player's leaves are
about a third of the rows, and its roots are read only when the leaf fails. Otherwise
(the memory drew this time's noise already, or the pcg64 stream) it reads ``noise``.
"""
from __future__ import annotations

from .compiling import jit
from .retrieval import draw


@jit
def _noise(noise, row, key1, key2, first, scale):
    """Row ``row``'s per-time noise: ``noise[row]``, or drawn from the stream when
    ``noise`` is empty."""
    if noise.shape[0] == 0:
        return draw(key1, key2, first, row, scale)
    return noise[row]


@jit
def recall(strengths, strength_of, updates, count, noise, key1, key2, first, scale, offset,
           threshold):
    """The recall from ``updates[:count]`` (a player's updates): ``(leaf update, leaf
    activation, root update, root activation)``, the root update -1 when the best leaf's
    activation reaches ``threshold``. ``noise``: every row's per-time noise, or empty to
    draw the rows read from the stream ``(key1, key2)`` reserved from ``first``, times
    ``scale``."""
    best = 0
    top = 0.0
    for i in range(count):
        update = updates[i]
        value = strengths[strength_of[update]] + _noise(noise, 2 * update, key1, key2, first,
                                                         scale)
        if offset != 0.0:
            value = value + offset
        if i == 0 or value > top:
            top = value
            best = update
    if top >= threshold:
        return best, top, -1, top
    root = 0
    root_top = 0.0
    for i in range(count):
        update = updates[i]
        value = strengths[strength_of[update]] + _noise(noise, 2 * update + 1, key1, key2,
                                                         first, scale)
        if i == 0 or value > root_top:
            root_top = value
            root = update
    return best, top, root, root_top
