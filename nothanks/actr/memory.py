"""ACT-R declarative memory: chunks, base-level learning, noise, partial matching.

Activation of chunk i for a retrieval request (thesis §1.1.2, §3.3)::

    A_i = B_i + Σ_slots MP·M(request value, chunk value) + offset + ε_i

* base level ``B_i = ln Σ_j (t − t_j)^(−d)`` over the chunk's references t_j, or the
  optimized-learning approximation ``ln(n/(1−d)) − d·ln L``, or a fixed value for
  chunks that never decay, or 0 when base-level learning is off;
* mismatch ``M`` per requested slot, from that slot's mismatch function, times MP;
  a requested slot without a mismatch function must match exactly;
* ε logistic with scale s, drawn per chunk per model time (the Swift core the thesis
  used; default) or per chunk per retrieval (canonical ACT-R).

The store is columnar (one numpy array per slot, one flat array of reference times) so
a retrieval is a handful of vectorized operations however many chunks there are.
See docs/actr.md for the equations, parameters and their defaults.

The class is assembled from one module per job, each holding a part of it that
:class:`DeclarativeMemory` inherits: ``parameters`` (values, checks, setters), ``store``
(chunks, columns, references), ``base_level``, ``noise`` (the streams, per-time noise,
random states; the counter stream's reference in ``counter_noise``), ``matching`` (request
plans, partial matching), ``retrieval`` (retrieval, latency, records) and ``fast_paths``
(the public API of code computing retrievals of its own); docs/actr.md, "Where the code
lives". This module is the class, its constructor and clock, and the names the rest of the
package imports from it.
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .base_level import BaseLevels, CurrentTimeReferenceError, log_in_place
from .fast_paths import FastPathView
from .matching import RequestMatching
from .mismatch import MismatchFunction
from .noise import NoiseSource
from .parameters import (
    MP_HINT,
    NOISE_MODES,
    NOISE_STREAMS,
    NoiseMode,
    Parameters,
    ParameterSettings,
    check_at_least,
    check_decay,
    check_flag,
    check_noise_mode,
    check_noise_stream,
    real_number,
)
from .retrieval import Retriever, recall_probability, retrieval_latency
from .store import ChunkStore

__all__ = [
    "NOISE_MODES",
    "NOISE_STREAMS",
    "CurrentTimeReferenceError",
    "DeclarativeMemory",
    "NoiseMode",
    "Parameters",
    "log_in_place",
    "real_number",
    "recall_probability",
    "retrieval_latency",
]


class DeclarativeMemory(ParameterSettings, FastPathView, Retriever, RequestMatching,
                        BaseLevels, NoiseSource, ChunkStore):
    """A declarative memory with its own model clock and random generator.

    Args:
        decay: base-level decay d > 0 (below 1 with optimized learning).
        noise: activation noise scale s >= 0 (logistic; 0 switches noise off).
        retrieval_threshold: τ; the best candidate is retrieved if its activation is at
            least τ (canonical ACT-R: a retrieval fails only below τ).
        mismatch_penalty: MP >= 0, the weight of every slot's mismatch.
        latency_factor: F > 0 in latency ``F·e^(−A)``.
        noise_mode: ``"per_time"`` (one draw per chunk per model time, reused by every
            retrieval until the clock moves: the thesis's Swift core) or
            ``"per_retrieval"`` (a fresh draw per chunk per retrieval: canonical ACT-R).
        noise_stream: ``"pcg64"`` (NumPy's generator and log, the default) or
            ``"counter"`` (``counter_noise``: a pure function of the position, the same
            bits on every machine, a ToM0 time's draw ~2× cheaper); the draws of the two
            have the same distribution, not the same values.
        optimized_learning: use ``ln(n/(1−d)) − d·ln L`` instead of the full sum.
        base_level_learning: if False, every chunk without a fixed activation has B = 0.
        mismatch: slot name -> mismatch function; requested slots without one must
            match exactly.
        seed: int, numpy SeedSequence, numpy Generator or None; the memory's only source
            of randomness (a Generator passed in may be shared: its noise blocks are
            always drawn whole, see ``_draw_noise``; on the counter stream the generator
            gives the stream's key, two raw outputs taken at once, and afterwards only
            tie draws).
    """

    def __init__(
        self,
        *,
        decay: float = 0.5,
        noise: float = 0.25,
        retrieval_threshold: float = -2.0,
        mismatch_penalty: float = 5.0,
        latency_factor: float = 0.2,
        noise_mode: NoiseMode = "per_time",
        noise_stream: str = "pcg64",
        optimized_learning: bool = False,
        base_level_learning: bool = True,
        mismatch: Mapping[str, MismatchFunction] | None = None,
        seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    ):
        self._parameters: Parameters | None = None  # made on first use, see parameters
        self._optimized_learning = check_flag("optimized_learning", optimized_learning)
        self._decay = check_decay(decay, self._optimized_learning)
        self._noise = check_at_least("noise", noise, 0.0, False, "the logistic scale s; 0 "
                                     "switches activation noise off")
        self._retrieval_threshold = real_number("retrieval_threshold", retrieval_threshold)
        self._mismatch_penalty = check_at_least("mismatch_penalty", mismatch_penalty, 0.0,
                                                False, MP_HINT)
        self._latency_factor = check_at_least("latency_factor", latency_factor, 0.0, True,
                                              "F in latency F·e^(−A)")
        self._noise_mode = check_noise_mode(noise_mode)
        self._base_level_learning = check_flag("base_level_learning", base_level_learning)
        self._noise_stream = check_noise_stream(noise_stream)
        self._seed_noise(seed)

        self._time = 0.0
        self._mismatch: dict[str, MismatchFunction] = {}
        self._mismatch_changes = 0  # set_mismatch calls: scores kept elsewhere go stale
        self._init_store()
        self._init_base_levels()
        self._init_matching()
        self._init_retrieval()

        for slot, fn in (mismatch or {}).items():
            self.set_mismatch(slot, fn)

    # ---------------------------------------------------------------- clock
    @property
    def time(self) -> float:
        """The model clock; moves only through ``advance``."""
        return self._time

    def advance(self, dt: float) -> float:
        """Move the clock forward by ``dt >= 0`` and return the new time."""
        if type(dt) is float and 0.0 <= dt < math.inf:  # the common case (a model's turn)
            self._time += dt
            return self._time
        step = real_number("dt", dt)
        if step < 0:
            raise ValueError(f"the clock only moves forward: dt must be >= 0, got {step!r}")
        self._time += step
        return self._time

    def restart(self, seed: int | np.random.SeedSequence | np.random.Generator | None
                ) -> None:
        """Begin a new episode with the same chunks: clock at 0, noise and caches cleared,
        randomness from ``seed``.

        Storing thousands of fixed-activation chunks (the thesis's instances) costs more
        than a whole game, so a model keeps them and restarts its memory per game. Learned
        chunks cannot be kept: their references belong to the old clock.
        """
        if self._learned:
            raise ValueError(
                f"cannot restart a memory holding {self._learned} learned chunk(s): their "
                "references belong to the old clock; only fixed-activation chunks carry over"
            )
        self._time = 0.0
        self._latest_reference = 0.0 if self._chunks else -math.inf
        self._base_key = None
        self._base = np.empty(0)
        self._base_undefined = False
        self._seed_noise(seed)

    def __repr__(self) -> str:
        return (f"DeclarativeMemory({len(self._chunks)} chunks, t={self._time:g}, "
                f"d={self._decay:g}, s={self._noise:g}, τ={self._retrieval_threshold:g}, "
                f"MP={self._mismatch_penalty:g}, F={self._latency_factor:g}, "
                f"noise_mode={self._noise_mode!r})")
