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

The memory is a composition of parts, each an object with a public interface in its own
module: the ``store`` (chunks, slot columns, references; :class:`~.store.ChunkStore`), the
base levels (:class:`~.base_level.BaseLevels`), the noise (:class:`~.noise.NoiseSource`;
the counter stream's reference in ``counter_noise``), the matching (request plans,
partial matching; :class:`~.matching.RequestMatching`) and the retrieval over all four
(:class:`~.retrieval.Retriever`). This module is the class that holds them: its
constructor, clock and parameters, the calls it passes on to its parts, the public API
of code computing retrievals of its own (docs/actr.md, "Public API for fast paths"), and
the names the rest of the package imports from it. docs/architecture.md, "The ACT-R
memory engine", says who calls whom.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from . import kernel as _kernel_module
from .base_level import BaseLevels, CurrentTimeReferenceError, log_in_place
from .growable import Growable
from .matching import UNKNOWN_CODE, RequestMatching
from .mismatch import BUILT_IN_MISMATCH, ExactMatch, MismatchFunction
from .noise import NoiseSource
from .parameters import (
    MP_HINT,
    NOISE_MODES,
    NOISE_STREAMS,
    NoiseMode,
    Parameters,
    check_at_least,
    check_decay,
    check_flag,
    check_noise_mode,
    check_noise_stream,
    real_number,
)
from .records import ActivationComponents, Chunk, Retrieval, SlotValue
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


class DeclarativeMemory:
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
            always drawn whole, see ``NoiseSource.draw``; on the counter stream the generator
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
        optimized_learning = check_flag("optimized_learning", optimized_learning)
        decay = check_decay(decay, optimized_learning)
        scale = check_at_least("noise", noise, 0.0, False, "the logistic scale s; 0 "
                               "switches activation noise off")
        threshold = real_number("retrieval_threshold", retrieval_threshold)
        penalty = check_at_least("mismatch_penalty", mismatch_penalty, 0.0, False, MP_HINT)
        latency_factor = check_at_least("latency_factor", latency_factor, 0.0, True,
                                        "F in latency F·e^(−A)")
        noise_mode = check_noise_mode(noise_mode)
        base_level_learning = check_flag("base_level_learning", base_level_learning)
        noise_stream = check_noise_stream(noise_stream)
        self._noise_source = NoiseSource(scale=scale, mode=noise_mode, stream=noise_stream,
                                         seed=seed)
        self._time = 0.0
        self._store = store = ChunkStore()
        self._base_levels = BaseLevels(store, decay=decay,
                                       optimized_learning=optimized_learning,
                                       learning=base_level_learning)
        self._matching = RequestMatching(store, penalty=penalty)
        self._retriever = Retriever(store, self._base_levels, self._noise_source,
                                    self._matching, threshold=threshold,
                                    latency_factor=latency_factor)
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
        store = self._store
        if store.learned:
            raise ValueError(
                f"cannot restart a memory holding {store.learned} learned chunk(s): their "
                "references belong to the old clock; only fixed-activation chunks carry over"
            )
        self._time = 0.0
        store.latest_reference = 0.0 if store.chunks else -math.inf
        self._base_levels.forget()
        self._noise_source.seed_from(seed)

    def __repr__(self) -> str:
        return (f"DeclarativeMemory({len(self._store.chunks)} chunks, t={self._time:g}, "
                f"d={self.decay:g}, s={self.noise:g}, τ={self.retrieval_threshold:g}, "
                f"MP={self.mismatch_penalty:g}, F={self.latency_factor:g}, "
                f"noise_mode={self.noise_mode!r})")

    # ---------------------------------------------------------------- parameters
    # Setting a parameter drops what was computed with the old value (base levels, the
    # per-time noise, the parameters tuple); setting a mismatch function drops the kept
    # scores and request plans.
    @property
    def decay(self) -> float:
        """Base-level decay d."""
        return self._base_levels.decay

    @decay.setter
    def decay(self, value: float) -> None:
        base_levels = self._base_levels
        base_levels.decay = check_decay(value, base_levels.optimized_learning)
        base_levels.forget()
        self._parameters = None

    @property
    def noise(self) -> float:
        """Logistic noise scale s (noise variance is π²s²/3)."""
        return self._noise_source.scale

    @noise.setter
    def noise(self, value: float) -> None:
        self._noise_source.set_scale(check_at_least(
            "noise", value, 0.0, False, "the logistic scale s; 0 switches activation "
            "noise off"))
        self._parameters = None

    @property
    def retrieval_threshold(self) -> float:
        """τ: the winner's activation must be at least τ."""
        return self._retriever.threshold

    @retrieval_threshold.setter
    def retrieval_threshold(self, value: float) -> None:
        self._retriever.threshold = real_number("retrieval_threshold", value)
        self._parameters = None

    @property
    def mismatch_penalty(self) -> float:
        """MP, multiplying every slot's mismatch."""
        return self._matching.penalty

    @mismatch_penalty.setter
    def mismatch_penalty(self, value: float) -> None:
        self._matching.penalty = check_at_least("mismatch_penalty", value, 0.0, False,
                                                MP_HINT)
        self._parameters = None

    @property
    def latency_factor(self) -> float:
        """F in latency ``F·e^(−A)``."""
        return self._retriever.latency_factor

    @latency_factor.setter
    def latency_factor(self, value: float) -> None:
        self._retriever.latency_factor = check_at_least("latency_factor", value, 0.0, True,
                                                        "F in latency F·e^(−A)")
        self._parameters = None

    @property
    def noise_mode(self) -> str:
        """``"per_time"`` or ``"per_retrieval"``."""
        return self._noise_source.mode

    @noise_mode.setter
    def noise_mode(self, value: str) -> None:
        self._noise_source.mode = check_noise_mode(value)
        self._noise_source.forget_time_noise()
        self._parameters = None

    @property
    def noise_stream(self) -> str:
        """``"pcg64"`` or ``"counter"`` (fixed at construction: a stream's key comes from
        the seed)."""
        return self._noise_source.stream

    @property
    def optimized_learning(self) -> bool:
        """Whether base levels use the ``ln(n/(1−d)) − d·ln L`` approximation."""
        return self._base_levels.optimized_learning

    @optimized_learning.setter
    def optimized_learning(self, value: bool) -> None:
        optimized = check_flag("optimized_learning", value)
        base_levels = self._base_levels
        check_decay(base_levels.decay, optimized)
        base_levels.optimized_learning = optimized
        base_levels.forget()
        self._parameters = None

    @property
    def base_level_learning(self) -> bool:
        """If False, chunks without a fixed activation have base level 0."""
        return self._base_levels.learning

    @base_level_learning.setter
    def base_level_learning(self, value: bool) -> None:
        self._base_levels.learning = check_flag("base_level_learning", value)
        self._base_levels.forget()
        self._parameters = None

    @property
    def mismatch(self) -> Mapping[str, MismatchFunction]:
        """Slot name -> registered mismatch function (read-only; use ``set_mismatch``)."""
        return MappingProxyType(self._matching.functions)

    def set_mismatch(self, slot: str, fn: MismatchFunction | None) -> None:
        """Register ``fn`` for ``slot``; None makes the slot an exact-match constraint."""
        self._matching.set_mismatch(slot, fn)

    @property
    def parameters(self) -> Parameters:
        """Every parameter at once: the same object until a parameter is set."""
        parameters = self._parameters
        if parameters is None:
            base_levels, noise = self._base_levels, self._noise_source
            parameters = self._parameters = Parameters(
                base_levels.decay, noise.scale, self._retriever.threshold,
                self._matching.penalty, self._retriever.latency_factor, noise.mode,
                noise.stream, base_levels.optimized_learning, base_levels.learning)
        return parameters

    # ---------------------------------------------------------------- chunks
    @property
    def store(self) -> ChunkStore:
        """The chunk store (read it; store chunks only through :meth:`add`)."""
        return self._store

    def add(self, slots: Mapping[str, SlotValue], *,
            fixed_activation: float | None = None) -> Chunk:
        """Store a chunk, or merge it into an identical one; either way add a reference
        at the current time.

        ``fixed_activation`` gives a base level that never decays (the thesis's instance
        chunks use 0). When merging, None keeps the existing chunk's setting; a different
        value is an error, because a chunk cannot both decay and not decay.
        """
        return self._store.add(slots, fixed_activation, self._time)

    def add_past(self, added: Sequence[tuple[float, Mapping[str, SlotValue]]]) -> None:
        """``add`` each of ``added``'s ``(time, slots)`` at its own past model time, then
        put the clock back: the memory the same ``add`` calls, made at those times, would
        have built (the token memory stores its chunks on demand with it).

        Raises:
            ValueError: a time before the latest reference already stored (or the one
                before it in ``added``) or after the clock; the chunks before it are
                stored, the clock is put back.
        """
        now = self._time
        store = self._store
        for time, slots in added:
            if not store.latest_reference <= time <= now:
                raise ValueError(
                    f"add_past: time {time!r} of {dict(slots)!r} is not between the "
                    f"latest reference stored ({store.latest_reference:g}) and the "
                    f"clock ({now:g}); past chunks must come in time order")
            store.add(slots, None, time)

    def copy_chunks(self, other: DeclarativeMemory) -> None:
        """Start from ``other``'s chunks, references and clock (this memory must be
        empty).

        The result is the memory that the same ``add`` calls would have built, without
        making them again: a model with thousands of fixed instance chunks copies them
        from a memory built once instead of storing each. This memory keeps its own
        parameters, mismatch functions and random generator.
        """
        self._store.copy_from(other.store)
        self._time = other.time
        self._base_levels.forget()
        self._retriever.forget()
        self._noise_source.forget_time_noise()
        self._matching.forget()

    @property
    def chunks(self) -> tuple[Chunk, ...]:
        """All chunks, in the order they were first stored."""
        return tuple(self._store.chunks)

    def __len__(self) -> int:
        return len(self._store.chunks)

    def __contains__(self, slots: object) -> bool:
        return isinstance(slots, Mapping) and self._store.find(slots) is not None

    def references(self, chunk: Mapping[str, SlotValue]) -> tuple[float, ...]:
        """The times at which ``chunk`` was stored or merged, oldest first."""
        return self._store.references(self._store.row(chunk))

    # ---------------------------------------------------------------- retrieval
    def retrieve(self, request: Mapping[str, SlotValue], *, offset: float = 0.0,
                 threshold: float | None = None, record: bool = False) -> Retrieval:
        """Retrieve the most active chunk matching ``request``, if above the threshold.

        Args:
            request: slot -> value. Slots with a mismatch function are scored by partial
                matching; the others must match exactly. Chunks lacking a requested slot
                are never candidates; slots the request does not name are ignored.
            offset: a constant added to every candidate's activation, kept as its own
                component in records (e.g. an extra penalty for a class of chunks).
            threshold: τ for this retrieval only (default: ``retrieval_threshold``).
            record: attach a ``RetrievalRecord`` listing every candidate's components.
                Recording never changes the outcome or the random numbers drawn.
        """
        return self._retriever.retrieve(request, self._time, offset, threshold, record)

    def retrieve_items(self, items: tuple[tuple[str, SlotValue], ...]) -> Retrieval:
        """``retrieve(dict(items))``, the request given as its ``(slot, value)`` items in
        order (a ToM0 state, ``state.state_items``)."""
        return self._retriever.retrieve(dict(items), self._time, 0.0, None, False)

    def activation(self, chunk: Mapping[str, SlotValue], request: Mapping[str, SlotValue], *,
                   offset: float = 0.0) -> ActivationComponents:
        """The components of ``chunk``'s activation for ``request``, without retrieving.

        In per_time mode the noise is the chunk's draw for the current model time (drawn
        now if no retrieval has needed it yet: the same draw the next retrieval at this
        time will use). In per_retrieval mode every retrieval draws afresh, so there is
        no noise to report: the noise is 0 (its mean) and no random number is consumed.

        Raises:
            ValueError: ``chunk`` lacks a requested slot or differs in an exact-match slot,
                so it could not be a candidate for this request.
        """
        return self._retriever.activation(chunk, request, self._time, offset)

    def recall_probability(self, activation: float) -> float:
        """Chance that a chunk of noise-free ``activation`` beats this memory's threshold.

        Uses this memory's retrieval threshold and noise scale.
        """
        return recall_probability(activation, self._retriever.threshold,
                                  self._noise_source.scale)

    # ---------------------------------------------------------------- noise
    def random_state(self) -> tuple:
        """What decides the next noise draws (the generator, the pre-drawn block and the
        current model time's noise), to re-decide a state with other noise and then come
        back with :meth:`set_random_state` (e.g. estimating a model's choice probability)."""
        return self._noise_source.random_state()

    def set_random_state(self, state: tuple) -> None:
        """Go back to a state saved by :meth:`random_state` (of a memory on the same
        noise stream)."""
        self._noise_source.set_random_state(state)

    def reseed_noise(self, rng: np.random.Generator) -> None:
        """Draw all further noise from ``rng``, starting afresh (nothing pre-drawn). On the
        counter stream ``rng`` gives a new key (two raw outputs, taken now) and then only
        tie draws."""
        self._noise_source.reseed(rng)

    # ---------------------------------------------------------------- fast paths
    # The public API of code computing retrievals of its own from the memory's state (the
    # ToM recursion's compiled decision, the token memory's kept rows; docs/actr.md,
    # "Public API for fast paths"); with ``parameters``, ``time``, ``len(memory)``,
    # ``chunks`` and ``add_past`` they are the whole seam. The arrays handed out are the
    # memory's own (valid until the clock moves or a chunk is stored): read them, never
    # write to them.
    @property
    def compiled_view(self) -> tuple[float, int, Parameters, np.ndarray | None]:
        """``(time, chunks, parameters, noise)`` in one read: the model time, how many
        chunks are stored, :attr:`parameters`, and the per-time noise drawn so far at
        this time (None when none is yet; it may hold fewer rows than a caller needs,
        who then asks :meth:`per_time_noise`). A plain tuple, made anew at every read: a
        fast path reads it once per call instead of four members."""
        parameters = self._parameters
        if parameters is None:
            parameters = self.parameters
        time = self._time
        noise = self._noise_source
        return (time, len(self._store.chunks), parameters,
                noise.time_noise if noise.time_noise_at == time else None)

    @property
    def learned_count(self) -> int:
        """How many chunks have a learned (not a fixed) base level."""
        return self._store.learned

    @property
    def mismatch_version(self) -> int:
        """A number that changes whenever a mismatch function is set or removed: mismatch
        scores kept outside the memory are stale once it differs."""
        return self._matching.changes

    def fixed_activations(self) -> np.ndarray:
        """Every chunk's fixed activation in storing order, NaN for a learned chunk: the
        base levels themselves while :attr:`learned_count` is 0. A view of the memory's
        own array, valid until the next chunk is stored; do not write to it."""
        return self._store.fixed.view()

    def base_levels(self) -> np.ndarray:
        """Every chunk's base level at the current time, in storing order: what a
        retrieval now adds for each chunk before mismatches and noise (the fixed
        activations while :attr:`learned_count` is 0, then the same array as
        :meth:`fixed_activations`). An infinite entry marks a learned chunk referenced at
        the current time (its retrieval would raise
        :class:`~nothanks.actr.CurrentTimeReferenceError`). The memory's own cached array,
        valid until the clock moves or a chunk or reference is stored; do not write to it.
        """
        return self._base_levels.at(self._time)

    def per_time_noise(self, count: int | None = None) -> np.ndarray:
        """The per-time noise of the first ``count`` chunks (default: every chunk) at the
        current model time: the draws every retrieval at this time adds, drawn now if
        none has needed them yet. The array may be longer than ``count``; do not write
        to it.

        A caller keeping chunks of its own not yet stored here (the token memory, which
        stores them later with :meth:`add_past`) may ask for more rows than are stored:
        the draws, in order, are those the stored chunks will have.

        Raises:
            ValueError: the noise is off (s = 0) or drawn per retrieval, so there is no
                per-time noise.
        """
        if count is None:
            count = len(self._store.chunks)
        source = self._noise_source
        noise = source.time_noise
        if noise is None or source.time_noise_at != self._time or len(noise) < count:
            self._require_per_time_noise()
            return source.per_time(self._time, count)
        return noise

    def reserve_per_time_noise(self, count: int | None = None
                                ) -> tuple[np.uint64, np.uint64, np.uint64, float] | None:
        """The per-time noise of the first ``count`` chunks (default: every chunk) at the
        current model time as positions of the counter stream, reserved now and not drawn:
        ``(key1, key2, first position, s)``, the draw of chunk j being the stream's value
        at ``first + j`` times s (``nothanks.kernels.counter``). The stream moves on as if
        the draws were made, and a later :meth:`per_time_noise` at this time draws the
        reserved positions, so a caller computing only the draws it needs
        (``nothanks.kernels.retrieval``) sees the values an eager draw gives. None when
        the memory is on the pcg64 stream, or has drawn or reserved this time's noise
        already (then :meth:`per_time_noise` hands it out).

        Raises:
            ValueError: the noise is off (s = 0) or drawn per retrieval.
        """
        self._require_per_time_noise()
        source = self._noise_source
        first = source.reserve_time_noise(
            self._time, len(self._store.chunks) if count is None else count)
        if first is None:
            return None
        key = source.stream_key
        return key[0], key[1], np.uint64(first), source.scale

    def _require_per_time_noise(self) -> None:
        source = self._noise_source
        if source.mode != "per_time" or not source.scale > 0:
            raise ValueError(f"per-time noise needs noise_mode='per_time' and noise > 0; "
                             f"this memory has noise_mode={source.mode!r}, "
                             f"noise={source.scale!r}")

    def score_columns(self, items: Sequence[tuple[str, SlotValue]]
                      ) -> tuple[np.ndarray, ...] | None:
        """Every chunk's unscaled mismatch for each slot of the request ``items`` (its
        ``(slot, value)`` pairs), in the request's order: the columns the compiled
        retrieval adds, times MP, to the base levels and noise. None when the compiled
        retrieval would not take the request as one pass over every chunk: an exact-match
        slot, a slot some chunk lacks, a user-defined mismatch function, or the compiled
        kernels off. The arrays are the memory's own cached columns (valid until a chunk
        is stored or a mismatch function set); do not write to them.
        """
        rows, scored = self._matching.split(dict(items))
        if rows is not None:
            return None
        return self._matching.compiled_scores(scored)

    def score_rows(self, slot: str, values: Sequence[SlotValue], start: int = 0
                   ) -> np.ndarray | None:
        """The unscaled mismatch of the chunks stored from row ``start`` on, for ``slot``
        requested at each of ``values``: one row per value (``len(values)`` by
        ``len(memory) − start``), each the same bits as that value's column of
        :meth:`score_columns` from ``start`` on (a caller keeping those columns extends
        them by the chunks stored since with it). None where :meth:`score_columns` would
        give None: the slot unknown, without a built-in mismatch function, or lacking
        in some chunk, or the compiled kernels off.
        """
        column = self._store.columns.get(slot)
        fn = self._matching.functions.get(slot)
        count = len(self._store.chunks)
        if (column is None or fn is None or type(fn) not in BUILT_IN_MISMATCH
                or column.present < count or _kernel_module.kernels() is None
                or not (column.numeric or type(fn) is ExactMatch)):
            return None
        if type(fn) is ExactMatch:  # as score_slot: the codes compared, times −weight
            codes = np.array([column.code_of.get(value, UNKNOWN_CODE) for value in values])
            return (column.codes.view()[start:] != codes[:, None]) * -fn.weight
        # elementwise, broadcast: the bits of the whole column's scores
        return fn.grid(list(values), column.values.view()[start:])

    # ---------------------------------------------------------------- test seams
    # The agreement and noise tests pin down the noise block and the base-level sums
    # through these names (tests/integration/agreement/, tests/unit/test_noise_tail.py); the package
    # itself calls the parts.
    @property
    def _rng(self) -> np.random.Generator:
        return self._noise_source.rng

    @_rng.setter
    def _rng(self, rng: np.random.Generator) -> None:
        self._noise_source.rng = rng

    @property
    def _tail_skippable(self) -> bool:
        return self._noise_source.tail_skippable

    @_tail_skippable.setter
    def _tail_skippable(self, skippable: bool) -> None:
        self._noise_source.tail_skippable = skippable

    @property
    def _noise_skipped(self) -> int:
        return self._noise_source.skipped

    def _draw_noise(self, count: int) -> np.ndarray:
        return self._noise_source.draw(count)

    def _noise_now(self) -> np.ndarray:
        return self._noise_source.now(self._time, len(self._store.chunks))

    def _break_tie(self, total: np.ndarray, best: int, activation: float) -> int:
        return self._noise_source.break_tie(total, best, activation)

    def _learned_base_levels(self, t: float) -> np.ndarray:
        return self._base_levels.learned_at(t)

    @property
    def _time_values(self) -> Growable:
        return self._store.time_values

    @property
    def _reference_row(self) -> Growable:
        return self._store.reference_row

    @property
    def _reference_time_index(self) -> Growable:
        return self._store.reference_time_index
