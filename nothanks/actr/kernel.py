"""Compiled retrieval kernels: activation, partial matching and noise in one pass.

A retrieval in NumPy is a dozen array operations, each a few hundred nanoseconds of call
overhead however few chunks there are; compiled with numba it is one loop. The kernel
computes exactly what the NumPy path in ``retrieval.py`` computes, in the same floating-point
order, so both give bit-identical activations and the same winner (tested on random
histories):

    total = base + noise;  total += offset (if nonzero);  total += MP · Σ mismatch

with ``Σ mismatch`` summed left to right and, for a single slot, ``mismatch · MP``.

numba is imported on first use, not with the package (the command line stays fast), and
compiled functions are cached on disk (``cache=True``). Without numba, or on the
reference (``nothanks.kernels.reference_mode``, ``NOTHANKS_REFERENCE=1``), the memory
uses its NumPy path.
"""
from __future__ import annotations

import gc
from types import SimpleNamespace

import numpy as np

from ..kernels import mode

_kernels: SimpleNamespace | None = None
_loaded = False
#: The compiled namespace once made (``_compile``), kept while the reference is in force
_made: list[SimpleNamespace | None] = []


def _compile() -> SimpleNamespace | None:
    try:
        import numba
    except ImportError:  # the NumPy path is always there
        return None
    from ..compiled_cache import numba_imported
    from ..kernels import compiling, counter  # (imports numba: on first use only)

    numba_imported()  # the command line may say that a first run compiles
    if not compiling.COMPILED:  # NOTHANKS_REFERENCE=1: no compiled code anywhere
        return None

    @numba.njit(cache=True, nogil=True)
    def activations(base, noise, rows, offset, m0, m1, m2, m3, slots, penalty, out):
        """Fill ``out`` with the activations of its ``out.shape[0]`` candidates and return
        the first best index, as NumPy's ``argmax`` gives it, for at most
        ``SEARCHED_HERE`` candidates; for more -1: the caller takes NumPy's ``argmax``
        (a SIMD search, several times faster than a compiled loop keeping the first
        maximum over ToM0's 2,117 instances; below a few hundred the call costs more).

        Candidates are ``rows`` (every chunk when empty; count 0 needs no rows); noise
        (none when empty) is per chunk when it covers more than the candidates (per-time
        noise, indexed by row), else per candidate. The mismatch columns come as four
        separate arrays (unused ones are any float array): numba types plain array
        arguments in C, but a tuple of arrays in Python, which cost more than the whole
        loop; every argument costs ~40 ns to dispatch, so flags are derived from shapes.
        Only the first ``slots`` (at most 4) are used. Every chunk a candidate with four
        scored slots and noise (a ToM0 instance retrieval) gets a loop without
        branches, which the compiler vectorizes; the additions are the same.
        """
        count = out.shape[0]
        use_rows = rows.shape[0] != 0
        noisy = noise.shape[0] != 0
        noise_by_row = noise.shape[0] != count
        if not use_rows and slots == 4 and noisy and offset == 0.0:
            for i in range(count):
                out[i] = (base[i] + noise[i]) + (((m0[i] + m1[i]) + m2[i]) + m3[i]) * penalty
        else:
            for i in range(count):
                row = rows[i] if use_rows else i
                value = base[row]
                if noisy:
                    value = value + noise[row if noise_by_row else i]
                if offset != 0.0:
                    value = value + offset
                if slots == 1:
                    value = value + m0[row] * penalty
                elif slots > 1:
                    summed = m0[row] + m1[row]
                    if slots > 2:
                        summed = summed + m2[row]
                    if slots > 3:
                        summed = summed + m3[row]
                    value = value + summed * penalty
                out[i] = value
        if count == 0 or count > SEARCHED_HERE:
            return -1
        # NumPy's argmax: the first maximum, or the first NaN if there is one
        top = out[0]
        if top != top:
            return 0
        best = 0
        for i in range(1, count):
            value = out[i]
            if value > top:
                top = value
                best = i
            elif value != value:
                return i
        return best

    @numba.njit(cache=True, nogil=True)
    def node_sums(parent, time_index, strengths):
        """``Σ_j strength(t_j)`` per node of the reference trie: node 0 (no reference)
        is 0, every other node its parent's sum plus its own reference's strength, in
        creation order (a parent is always older than its children)."""
        sums = np.empty(parent.shape[0])
        sums[0] = 0.0
        for node in range(1, parent.shape[0]):
            sums[node] = sums[parent[node]] + strengths[time_index[node]]
        return sums

    @numba.njit(cache=True, nogil=True)
    def exact_best(log_strengths, node_time, node_of, rows, noise, offset):
        """The best of ``rows`` when every chunk has one reference (activation
        ``(B + ε) + offset`` with ``B`` its reference time's log strength, ``ε`` its
        per-time noise): (first best index into ``rows``, its activation).

        The same additions as the NumPy path (``B + ε`` per chunk, then the offset
        if nonzero); the logarithms come in from NumPy, computed once per reference
        time, so their bits are NumPy's.
        """
        best = 0
        top = 0.0
        for i in range(rows.shape[0]):
            row = rows[i]
            value = log_strengths[node_time[node_of[row]]] + noise[row]
            if offset != 0.0:
                value = value + offset
            if i == 0 or value > top:
                top = value
                best = i
        return best, top

    # error_model="numpy": no division-by-zero branch (1 − u > 0 for a uniform in [0, 1)),
    # which lets the compiler vectorize the division; the quotient is IEEE's either way
    @numba.njit(cache=True, nogil=True, error_model="numpy")
    def odds(uniform, count, out):
        """Count the zeros among ``uniform`` and, if there are none, fill ``out[:count]``
        with ``u / (1 − u)`` of the first ``count`` uniforms: the logistic's inverse CDF
        before its logarithm, which the caller takes with NumPy: the C library's log,
        which numba calls, differed from NumPy's vectorized one in the last bit for one
        such value in ~540 (819,200 tried), and the draws are NumPy's. One pass for
        NumPy's three (the zero check over the whole block, the subtraction and the
        division), the same IEEE quotients."""
        zeros = 0
        for i in range(uniform.shape[0]):
            zeros += uniform[i] == 0.0
        if zeros == 0:
            for i in range(count):
                out[i] = uniform[i] / (1.0 - uniform[i])
        return zeros

    @numba.njit(cache=True, nogil=True, error_model="numpy")
    def odds_of_bits(bits, out):
        """``odds`` on a generator's raw 64-bit outputs (``random_raw``): each one's
        uniform is ``(bits >> 11) · 2⁻⁵³``, the double NumPy's ``random`` makes of it, so
        the zeros counted and the quotients are those of ``odds`` on ``random``'s
        uniforms; the raw outputs come ~1.2 µs faster per 2,117 (no conversion pass)."""
        zeros = 0
        for i in range(bits.shape[0]):
            zeros += (bits[i] >> np.uint64(11)) == 0
        if zeros == 0:
            for i in range(bits.shape[0]):
                uniform = float(bits[i] >> np.uint64(11)) * _TWO_TO_MINUS_53
                out[i] = uniform / (1.0 - uniform)
        return zeros

    @numba.njit(cache=True, nogil=True)
    def recall_best(strengths, strength_of, updates, count, noise, offset, threshold):
        """A token recall (``TokenMemory``) in one call: the best leaf of
        ``updates[:count]`` (a player's updates; update ``k``'s leaf is row ``2k``, its
        root row ``2k + 1``) and, only if its activation is below ``threshold``, the best
        root: ``(leaf update, leaf activation, root update, root activation)``, the root
        update -1 when the leaf was recalled.

        A chunk's activation is ``strengths[strength_of[k]] + noise[row]``, plus
        ``offset`` if nonzero (leaves only), as ``exact_best`` adds them; the best is the
        first highest. The log strengths come in from NumPy, so their bits are NumPy's.
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

    return SimpleNamespace(activations=activations, node_sums=node_sums,
                           exact_best=exact_best, odds=odds, odds_of_bits=odds_of_bits,
                           recall_best=recall_best, counter_logistic=counter.logistic)


def kernels() -> SimpleNamespace | None:
    """The compiled kernels (``activations``, ``node_sums``, ``exact_best``, ``odds``,
    ``odds_of_bits``, ``recall_best``, ``counter_logistic``), or None: numba is missing or
    the reference is in force (``nothanks.kernels.reference_mode``)."""
    global _kernels, _loaded
    if not _loaded:
        _loaded = True
        if mode.reference():
            _kernels = None
        else:
            if not _made:
                _made.append(_compile())
                if _made[0] is not None:
                    # numba and llvmlite leave ~100,000 long-lived objects (functions,
                    # type tables) that every full collection of the cyclic garbage
                    # collector would walk again: a sixth of a ToM game's time. They live
                    # as long as the process, so they (and whatever else is alive now)
                    # are moved to the collector's permanent generation; reference
                    # counting still frees them.
                    gc.freeze()
            _kernels = _made[0]
    return _kernels


@mode.when_switched
def _forget() -> None:
    """The switch moved: ask again on next use."""
    global _loaded
    _loaded = False


def warm() -> None:
    """Load every kernel's machine code now (numba reads it from its disk cache on a
    kernel's first call). A parent process calls this before it forks workers, which
    then inherit the loaded code instead of each loading it again (the measured gain:
    ``experiments.workers.prepare_to_fork``)."""
    compiled = kernels()
    if compiled is None:
        return
    values, index = np.zeros(1), np.zeros(1, dtype=np.int64)
    compiled.activations(values, values, index, 0.0, values, values, values, values, 4, 1.0,
                         np.empty(1))
    compiled.node_sums(index, index, values)
    compiled.exact_best(values, index, index, index, values, 0.0)
    compiled.odds(values, 1, np.empty(1))
    compiled.odds_of_bits(np.ones(1, np.uint64), np.empty(1))
    compiled.recall_best(values, index, index, 1, np.zeros(2), 0.0, 0.0)
    compiled.counter_logistic(np.uint64(1), np.uint64(2), 0, 1.0, np.empty(1))


#: The spacing of NumPy's uniform doubles: ``random`` is ``(raw >> 11) · 2⁻⁵³``.
_TWO_TO_MINUS_53 = 1.0 / 9007199254740992.0
#: Most candidates whose best ``activations`` finds itself (see there).
SEARCHED_HERE = 512
EMPTY = np.empty(0, dtype=np.float64)
NO_ROWS = np.empty(0, dtype=np.int64)
