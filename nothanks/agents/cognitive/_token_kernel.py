"""The token memory's recall compiled: the leaf, and the root if the leaf fails, in one call.

A token recall compares a few dozen chunks; in NumPy that is a dozen array operations,
each a few hundred nanoseconds of call overhead, and through a generic compiled kernel
two calls (leaf, then root). Here one compiled call finds the most active leaf and, only
when it is below the threshold, the most active root, with the additions of the memory's
NumPy path (``B + ε`` per chunk, then the offset if nonzero) and its first-best order. The
log strengths come in from NumPy (computed once per reference time), so their bits are
NumPy's.

Compiled on first use, as ``nothanks.actr.kernel`` compiles its kernels (numba imported
only then, machine code cached on disk), and used only while those kernels are switched
on: without numba, or with ``NOTHANKS_ACTR_KERNEL=0``, the token memory uses NumPy.
"""
from __future__ import annotations

import gc
from collections.abc import Callable

_recall_best: Callable | None = None


def _compile() -> Callable:
    import numba

    @numba.njit(cache=True, nogil=True)
    def recall_best(strengths, strength_of, updates, count, noise, offset, threshold):
        """The best leaf of ``updates[:count]`` (a player's updates; update ``k``'s leaf
        is row ``2k``, its root row ``2k + 1``) and, if its activation is below
        ``threshold``, the best root: ``(leaf update, leaf activation, root update,
        root activation)``, the root update -1 when the leaf was recalled.

        A chunk's activation is ``strengths[strength_of[k]] + noise[row]``, plus
        ``offset`` if nonzero (leaves only); the best is the first highest.
        """
        best = 0
        top = 0.0
        for i in range(count):
            update = updates[i]
            value = strengths[strength_of[update]] + noise[2 * update]
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
            value = strengths[strength_of[update]] + noise[2 * update + 1]
            if i == 0 or value > root_top:
                root_top = value
                root = update
        return best, top, root, root_top

    return recall_best


def recall_best() -> Callable:
    """The compiled recall (numba must be importable: the caller checks that the
    memory's kernels are on, which needs it)."""
    global _recall_best
    if _recall_best is None:
        import numpy as np

        compiled = _compile()
        one, row = np.zeros(1), np.zeros(1, dtype=np.int64)
        compiled(one, row, row, 1, np.zeros(2), 0.0, 0.0)  # loads the machine code
        # as nothanks.actr.kernel does after compiling: the objects numba made while
        # loading live as long as the process, and the cyclic garbage collector need
        # not walk them at every full collection
        gc.freeze()
        _recall_best = compiled
    return _recall_best
