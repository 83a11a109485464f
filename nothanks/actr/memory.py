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
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from numbers import Integral, Real
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

import numpy as np

from . import counter_noise
from . import kernel as _kernel_module
from . import records as _records
from .growable import Growable
from .mismatch import BUILT_IN_MISMATCH, ExactMatch, MismatchFunction
from .records import ActivationComponents, Chunk, Retrieval, RetrievalRecord, SlotValue

NoiseMode = Literal["per_time", "per_retrieval"]
#: The noise modes and streams, with what each means (the error of a wrong one lists them).
_NOISE_MODE_MEANINGS = {"per_time": "one draw per chunk per model time, the thesis's Swift core",
                        "per_retrieval": "a fresh draw per chunk per retrieval, canonical ACT-R"}
_NOISE_STREAM_MEANINGS = {"pcg64": "NumPy's generator and log, pre-drawn blocks",
                          "counter": "a pure function of the position, the same bits on every "
                                     "machine"}
NOISE_MODES: tuple[str, ...] = tuple(_NOISE_MODE_MEANINGS)
#: Where the noise comes from (``_draw_noise``; docs/actr.md, "Noise streams").
NOISE_STREAMS: tuple[str, ...] = tuple(_NOISE_STREAM_MEANINGS)

_Scored = list[tuple[str, SlotValue, "_Column", MismatchFunction]]
"""Requested slots scored by partial matching: (slot, request value, column, function)."""

_NOISE_BLOCK = 4096  # standard logistic draws fetched from the generator at a time
_ABSENT = -1  # slot code of a chunk that lacks the slot
_UNKNOWN = -2  # slot code of a request value no chunk holds
_SCORE_CACHE_SIZE = 4096  # request values whose scores are kept per slot
_PLAN_CACHE_SIZE = 4096  # retrieval requests whose candidates are kept
_PLAIN_NUMBERS = (int, float)  # real numbers recognised without an ABC check
_ABSENT_VALUE = object()  # a slot a chunk lacks


class CurrentTimeReferenceError(ValueError):
    """A chunk's base level was needed at the very time it was referenced.

    ``(t − t_j)^(−d)`` is infinite for ``t = t_j``; ACT-R models always let some time
    pass between storing and retrieving, so this signals a missing ``advance``.
    """


# --------------------------------------------------------------------- validation
def real_number(name: str, value: Any) -> float:
    """``value`` as a finite float; a TypeError (not a real number, or a bool) or a
    ValueError (NaN, infinite) naming ``name`` and the value otherwise."""
    if type(value) is float and -math.inf < value < math.inf:  # the common case, checked fast
        return value
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def _check_decay(value: Any, optimized_learning: bool) -> float:
    decay = real_number("decay", value)
    if decay <= 0.0:
        raise ValueError(f"decay d must be > 0 (0.5 is ACT-R's usual value), got {decay!r}")
    if optimized_learning and decay >= 1.0:
        raise ValueError(f"with optimized learning decay d must be < 1 (the approximation "
                         f"divides by 1 − d; 0.5 is ACT-R's usual value), got {decay!r}; "
                         f"switch optimized_learning off to use d >= 1")
    return decay


_MP_HINT = ("MP scales every slot's mismatch; 0 makes the partially matched slots count "
            "for nothing (they are ignored, not matched exactly)")


def retrieval_latency(factor: float, activation: float) -> float:
    """``F·e^(−A)``, infinite rather than an OverflowError for A below about −709."""
    try:
        return factor * math.exp(-activation)
    except OverflowError:
        return math.inf


def log_in_place(values: np.ndarray) -> np.ndarray:
    """``ln`` in place; a strength that underflowed to 0 gives −inf without a warning."""
    if values.all():
        return np.log(values, out=values)
    with np.errstate(divide="ignore"):
        return np.log(values, out=values)


def _check_at_least(name: str, value: Any, lowest: float, strict: bool, hint: str) -> float:
    number = real_number(name, value)
    if number < lowest or (strict and number == lowest):
        sign = ">" if strict else ">="
        raise ValueError(f"{name} must be {sign} {lowest:g} ({hint}), got {number!r}")
    return number


def _check_choice(name: str, value: Any, meanings: Mapping[str, str]) -> str:
    if value not in tuple(meanings):  # (a tuple: an unhashable value is not an error here)
        options = " or ".join(f"{key!r} ({meaning})" for key, meaning in meanings.items())
        raise ValueError(f"{name} must be {options}, got {value!r}")
    return value


def _check_noise_mode(value: Any) -> str:
    return _check_choice("noise_mode", value, _NOISE_MODE_MEANINGS)


def _check_noise_stream(value: Any) -> str:
    return _check_choice("noise_stream", value, _NOISE_STREAM_MEANINGS)


def _check_mismatch_function(slot: Any, fn: Any) -> None:
    if not isinstance(slot, str) or not slot:
        raise TypeError(f"slot names must be non-empty strings, got {slot!r}")
    if not callable(fn):
        raise TypeError(f"the mismatch function for slot {slot!r} must be callable as "
                        f"fn(request_value, chunk_value) -> float <= 0, got {fn!r}")


def _make_rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise TypeError(f"seed must be a non-negative int, a numpy.random.SeedSequence, a "
                        f"numpy.random.Generator or None, got {seed!r}")
    return np.random.default_rng(int(seed))


def _uniforms_of(bits: np.ndarray) -> np.ndarray:
    """The uniforms ``Generator.random`` makes of the raw 64-bit outputs ``bits``
    (``(bits >> 11) · 2⁻⁵³``: exact in a double)."""
    return (bits >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def _redraw_zeros(rng: np.random.Generator, uniform: np.ndarray) -> None:
    """Replace the zeros among ``uniform`` (chance 2^-53 a draw; ``ln(u/(1−u))`` would be
    −inf) by fresh draws, in order."""
    zero = uniform == 0.0
    uniform[zero] = rng.random(int(zero.sum()))


# ------------------------------------------------------------------- storage
class _Column:
    """One slot across all chunks: integer codes for exact matching, values for scoring.

    ``codes[i]`` is the code of chunk i's value (``_ABSENT`` if it lacks the slot);
    ``rows_of[code]`` lists the chunks holding that value, which makes the exact-match
    filter a dict lookup and a list copy. ``values`` is float64 while every value is a
    real number, so numeric mismatch functions run on a plain float array, and object
    otherwise.
    """

    __slots__ = ("code_of", "codes", "numeric", "present", "rows_of", "value_of", "values")

    def __init__(self, chunks_before: int):
        self.codes = Growable(np.int64, [_ABSENT] * chunks_before)
        self.values = Growable(np.float64, [math.nan] * chunks_before)
        self.numeric = True
        self.code_of: dict[SlotValue, int] = {}
        self.value_of: list[SlotValue] = []
        # plain lists: most values of a unique slot (the token memory's ``update``) are
        # never looked up, so none gets an array until a request reads it
        self.rows_of: list[list[int]] = []
        self.present = 0  # how many chunks hold this slot

    def append(self, row: int, value: SlotValue) -> None:
        code = self.code_of.get(value)
        if code is None:
            code = self.code_of[value] = len(self.value_of)
            self.value_of.append(value)
            self.rows_of.append([row])
        else:
            self.rows_of[code].append(row)
        self.codes.append(code)
        if self.numeric and type(value) not in _PLAIN_NUMBERS and not isinstance(value, Real):
            self._to_objects()
        self.values.append(value)
        self.present += 1

    def copy(self) -> _Column:
        """An independent copy, for a memory that starts from another's chunks."""
        column = _Column.__new__(_Column)
        column.codes, column.values = self.codes.copy(), self.values.copy()
        column.numeric, column.present = self.numeric, self.present
        column.code_of, column.value_of = dict(self.code_of), list(self.value_of)
        column.rows_of = [list(rows) for rows in self.rows_of]
        return column

    def append_absent(self) -> None:
        self.codes.append(_ABSENT)
        self.values.append(math.nan if self.numeric else None)

    def _to_objects(self) -> None:
        """Switch to an object array once a symbol arrives, keeping the original values."""
        self.numeric = False
        self.values = Growable(object, self.original(self.codes.view()))

    def original(self, codes: np.ndarray) -> list[SlotValue | None]:
        """The values as stored (ints stay ints), None where the slot is absent."""
        return [None if code == _ABSENT else self.value_of[code] for code in codes.tolist()]


class _Plan:
    """One retrieval request's candidates, kept from retrieval to retrieval.

    A model asks the same few requests over and over ({kind, player} for token counts,
    the same ToM0 states within and across games), so the rows matching the exact-match
    slots are kept and extended with each chunk that arrives instead of being filtered
    anew. ``rows`` is None while every chunk is a candidate. The scored slots' mismatch
    columns and their MP-scaled sum over all chunks (``penalized``: the part of the
    activation that depends on the request, not on the clock) are kept until a chunk
    arrives.
    """

    __slots__ = ("exact", "needed", "penalized", "rows", "scored", "scores", "seen")

    def __init__(self, exact: list[tuple[_Column, int]], scored: _Scored,
                 rows: np.ndarray | None, seen: int):
        # the code lists themselves: a column's codes are appended to, never replaced
        self.exact = [(column.codes.items, code) for column, code in exact]
        self.scored = scored
        # slots a candidate must hold (scored slots some chunk lacks)
        self.needed = [column.codes.items for _, _, column, _ in scored]
        self.rows = None if rows is None else Growable(np.int64, rows.tolist())
        self.seen = seen
        self.scores: tuple[np.ndarray, ...] | None = None
        self.penalized: np.ndarray | None = None

    def extend(self, upto: int) -> None:
        """Add the matching rows among chunks ``seen .. upto - 1``."""
        append = self.rows.append
        exact, needed = self.exact, self.needed
        if len(exact) == 2 and not needed:  # the token memory's {kind, player}
            (first, one), (second, two) = exact
            for row in range(self.seen, upto):
                if first[row] == one and second[row] == two:
                    append(row)
        else:
            for row in range(self.seen, upto):
                if all(codes[row] == code for codes, code in exact) and all(
                        codes[row] != _ABSENT for codes in needed):
                    append(row)
        self.seen = upto


#: A Retrieval built as the tuple it is, without its generated ``__new__``'s frame.
_new_retrieval = tuple.__new__

_Scores = tuple
"""A request whose slots are all scored by built-in mismatch functions and held by every
chunk (a ToM0 state against the instances), as a plain tuple made from the per-slot
score caches at every retrieval of it (a class instance costs several times as much):
``(chunks, base, scratch, slots, m0, m1, m2, m3)``: the chunk count, the base levels
while every chunk has a fixed activation (else None), the memory's activations array
(``_HELD``), and the mismatch columns as the ``activations`` kernel takes them
(``slots`` of the four used). A retrieval of such a request is the per-time noise, one
kernel pass, the first best and the threshold: no candidate filter. It is not kept
among the plans: most ToM0 states are met once (a model meets ~3,300 distinct states in
200 games), and keeping each (six tuples that outlive the decision) cost more in
hashing and in the garbage collector's passes than making it anew (a few dict lookups:
in a 4 x ToM2 game 3.4 young-generation collections before, 0.9 after, no full ones)."""


_HELD = object()
"""The key, among a memory's kept plans, of ``(chunks, slots, base, scratch)``: the
per-slot score caches (``_compiled_scores``'s) of the scored slots every chunk holds, the
base levels if every chunk has a fixed activation (they never change; else None) and an
array for the activations, valid for that chunk count. Kept with the plans because
whatever invalidates plans (a mismatch function set, a new slot, copied chunks)
invalidates it too."""


# ------------------------------------------------------------------- the memory
class Parameters(NamedTuple):
    """A memory's parameters at one moment (:attr:`DeclarativeMemory.parameters`).

    The memory hands out the same object until one of its parameters is set, so a fast
    path may keep it and check it by identity (``memory.parameters is kept``) instead of
    reading every parameter at every call.
    """

    decay: float
    noise: float
    retrieval_threshold: float
    mismatch_penalty: float
    latency_factor: float
    noise_mode: str
    noise_stream: str
    optimized_learning: bool
    base_level_learning: bool


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
        self._optimized_learning = _flag("optimized_learning", optimized_learning)
        self._decay = _check_decay(decay, self._optimized_learning)
        self._noise = _check_at_least("noise", noise, 0.0, False, "the logistic scale s; 0 "
                                      "switches activation noise off")
        self._retrieval_threshold = real_number("retrieval_threshold", retrieval_threshold)
        self._mismatch_penalty = _check_at_least("mismatch_penalty", mismatch_penalty, 0.0,
                                                 False, _MP_HINT)
        self._latency_factor = _check_at_least("latency_factor", latency_factor, 0.0, True,
                                               "F in latency F·e^(−A)")
        self._noise_mode = _check_noise_mode(noise_mode)
        self._base_level_learning = _flag("base_level_learning", base_level_learning)
        self._noise_stream = _check_noise_stream(noise_stream)
        self._seed_noise(seed)

        self._time = 0.0
        self._mismatch: dict[str, MismatchFunction] = {}
        self._mismatch_changes = 0  # set_mismatch calls: scores kept elsewhere go stale
        # chunks and their columns
        self._chunks: list[Chunk] = []
        self._row_of: dict[frozenset, int] = {}
        self._columns: dict[str, _Column] = {}
        self._fixed = Growable(np.float64)  # fixed activation, NaN when learned
        self._learned = 0  # chunks without a fixed activation
        # references: one flat array with the chunk row of each and the index of its time
        # among the distinct reference times (a base level then needs one power per
        # distinct time, not per reference)
        self._reference_row = Growable(np.int64)
        self._reference_time_index = Growable(np.int64)
        self._time_values = Growable(np.float64)
        self._time_value_last = math.nan
        self._reference_count = Growable(np.float64)  # per chunk, float for the log
        self._created = Growable(np.float64)
        # The same references as a trie of reference-time sequences, for the kernel: node
        # 0 is "no reference yet", a node's child adds one reference at one time, and a
        # chunk points to the node of its whole history. Chunks with the same history
        # share a node, so Σ_j (t − t_j)^(−d) is summed once per node, each node's sum
        # its parent's plus one strength: the same additions in the same order as
        # summing the chunk's references one by one.
        self._node_of = Growable(np.int64)  # per chunk
        self._node_parent = Growable(np.int64, [0])
        self._node_time = Growable(np.int64, [0])  # index of the node's reference time
        self._node_child: dict[tuple[int, int], int] = {}
        self._deep_nodes = 0  # nodes of a second or later reference
        self._latest_reference = -math.inf
        # caches: base levels per (time, chunks, references); noise per model time
        self._base_key: tuple[float, int, int] | None = None
        self._base: np.ndarray = np.empty(0)
        self._base_undefined = False
        # unscaled mismatch of every chunk per (slot, request value), for built-in functions
        # (pure); cleared when a chunk is stored or a slot's function changes
        self._scores: dict[str, dict[SlotValue, np.ndarray]] = {}
        self._scores_chunks = 0
        self._plans: dict[tuple, _Plan] = {}  # request items -> its candidates
        # B + ε of every chunk at the current time, with the B and ε it was summed from
        self._sums_of: tuple[Any, Any, Any] = (None, None, None)
        self._log_strengths_key: tuple | None = None
        self._log_strengths_of = np.empty(0)

        for slot, fn in (mismatch or {}).items():
            self.set_mismatch(slot, fn)

    # ---------------------------------------------------------------- parameters
    @property
    def decay(self) -> float:
        """Base-level decay d."""
        return self._decay

    @decay.setter
    def decay(self, value: float) -> None:
        self._decay = _check_decay(value, self._optimized_learning)
        self._base_key = None
        self._parameters = None

    @property
    def noise(self) -> float:
        """Logistic noise scale s (noise variance is π²s²/3)."""
        return self._noise

    @noise.setter
    def noise(self, value: float) -> None:
        self._noise = _check_at_least("noise", value, 0.0, False, "the logistic scale s; 0 "
                                      "switches activation noise off")
        self._time_noise = None  # redrawn with the new scale
        self._noise_scaled = None  # the block's scaled copy has the old one
        self._parameters = None

    @property
    def retrieval_threshold(self) -> float:
        """τ: the winner's activation must be at least τ."""
        return self._retrieval_threshold

    @retrieval_threshold.setter
    def retrieval_threshold(self, value: float) -> None:
        self._retrieval_threshold = real_number("retrieval_threshold", value)
        self._parameters = None

    @property
    def mismatch_penalty(self) -> float:
        """MP, multiplying every slot's mismatch."""
        return self._mismatch_penalty

    @mismatch_penalty.setter
    def mismatch_penalty(self, value: float) -> None:
        self._mismatch_penalty = _check_at_least("mismatch_penalty", value, 0.0, False,
                                                 _MP_HINT)
        self._parameters = None

    @property
    def latency_factor(self) -> float:
        """F in latency ``F·e^(−A)``."""
        return self._latency_factor

    @latency_factor.setter
    def latency_factor(self, value: float) -> None:
        self._latency_factor = _check_at_least("latency_factor", value, 0.0, True,
                                               "F in latency F·e^(−A)")
        self._parameters = None

    @property
    def noise_mode(self) -> str:
        """``"per_time"`` or ``"per_retrieval"``."""
        return self._noise_mode

    @noise_mode.setter
    def noise_mode(self, value: str) -> None:
        self._noise_mode = _check_noise_mode(value)
        self._time_noise = None
        self._parameters = None

    @property
    def noise_stream(self) -> str:
        """``"pcg64"`` or ``"counter"`` (fixed at construction: a stream's key comes from
        the seed)."""
        return self._noise_stream

    @property
    def optimized_learning(self) -> bool:
        """Whether base levels use the ``ln(n/(1−d)) − d·ln L`` approximation."""
        return self._optimized_learning

    @optimized_learning.setter
    def optimized_learning(self, value: bool) -> None:
        optimized = _flag("optimized_learning", value)
        _check_decay(self._decay, optimized)
        self._optimized_learning = optimized
        self._base_key = None
        self._parameters = None

    @property
    def base_level_learning(self) -> bool:
        """If False, chunks without a fixed activation have base level 0."""
        return self._base_level_learning

    @base_level_learning.setter
    def base_level_learning(self, value: bool) -> None:
        self._base_level_learning = _flag("base_level_learning", value)
        self._base_key = None
        self._parameters = None

    @property
    def mismatch(self) -> Mapping[str, MismatchFunction]:
        """Slot name -> registered mismatch function (read-only; use ``set_mismatch``)."""
        return MappingProxyType(self._mismatch)

    def set_mismatch(self, slot: str, fn: MismatchFunction | None) -> None:
        """Register ``fn`` for ``slot``; None makes the slot an exact-match constraint."""
        self._mismatch_changes += 1
        self._scores.pop(slot, None)
        self._plans.clear()
        if fn is None:
            self._mismatch.pop(slot, None)
            return
        _check_mismatch_function(slot, fn)
        self._mismatch[slot] = fn

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

    def _seed_noise(self, seed: int | np.random.SeedSequence | np.random.Generator | None
                    ) -> None:
        """The generator from ``seed`` and noise drawn afresh from it (``reseed_noise``).
        A block's unused tail may be left in the generator (see _draw_noise) only in a
        generator this memory made itself (nobody else draws from it), while it holds no
        half of a 32-bit draw (PCG64.advance drops that half)."""
        self.reseed_noise(_make_rng(seed))
        self._tail_skippable = not isinstance(seed, np.random.Generator)

    # ---------------------------------------------------------------- fast paths
    # The public seam of code that computes retrievals of its own from this memory's
    # state (the ToM recursion's compiled decision, the token memory's kept rows):
    # docs/actr.md, "Public API for fast paths".
    @property
    def parameters(self) -> Parameters:
        """Every parameter at once: the same object until a parameter is set."""
        parameters = self._parameters
        if parameters is None:
            parameters = self._parameters = Parameters(
                self._decay, self._noise, self._retrieval_threshold, self._mismatch_penalty,
                self._latency_factor, self._noise_mode, self._noise_stream,
                self._optimized_learning, self._base_level_learning)
        return parameters

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
        return (time, len(self._chunks), parameters,
                self._time_noise if self._time_noise_at == time else None)

    @property
    def learned_count(self) -> int:
        """How many chunks have a learned (not a fixed) base level."""
        return self._learned

    @property
    def mismatch_version(self) -> int:
        """A number that changes whenever a mismatch function is set or removed: mismatch
        scores kept outside the memory are stale once it differs."""
        return self._mismatch_changes

    def fixed_activations(self) -> np.ndarray:
        """Every chunk's fixed activation in storing order, NaN for a learned chunk: the
        base levels themselves while :attr:`learned_count` is 0. A view of the memory's
        own array, valid until the next chunk is stored; do not write to it."""
        return self._fixed.view()

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
            count = len(self._chunks)
        noise = self._time_noise
        if noise is None or self._time_noise_at != self._time or len(noise) < count:
            if self._noise_mode != "per_time" or not self._noise > 0:
                raise ValueError(f"per-time noise needs noise_mode='per_time' and noise > 0; "
                                 f"this memory has noise_mode={self._noise_mode!r}, "
                                 f"noise={self._noise!r}")
            return self._noise_for(count)
        return noise

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
        rows, scored = self._split(dict(items))
        if rows is not None:
            return None
        return self._compiled_scores(scored)

    # ---------------------------------------------------------------- random state
    def random_state(self) -> tuple:
        """What decides the next noise draws (the generator, the pre-drawn block and the
        current model time's noise), to re-decide a state with other noise and then come
        back with :meth:`set_random_state` (e.g. estimating a model's choice probability)."""
        if self._noise_skipped:
            self._draw_skipped()  # the generator handed out as if the block was drawn whole
        return (self._rng, self._noise_buffer, self._noise_raw, self._noise_position,
                self._time_noise, self._time_noise_at, self._tail_skippable,
                self._stream_key, self._stream_position)

    def set_random_state(self, state: tuple) -> None:
        """Go back to a state saved by :meth:`random_state` (of a memory on the same
        noise stream)."""
        if (state[7] is None) != (self._noise_stream == "pcg64"):
            saved = "pcg64" if state[7] is None else "counter"
            raise ValueError(f"a random state saved on the {saved} noise stream cannot be "
                             f"restored into a memory on the {self._noise_stream} stream")
        (self._rng, self._noise_buffer, self._noise_raw, self._noise_position,
         self._time_noise, self._time_noise_at, self._tail_skippable,
         self._stream_key, self._stream_position) = state
        self._noise_skipped = 0
        self._noise_scaled = None  # scaled anew from the restored block when needed

    def reseed_noise(self, rng: np.random.Generator) -> None:
        """Draw all further noise from ``rng``, starting afresh (nothing pre-drawn). On the
        counter stream ``rng`` gives a new key (two raw outputs, taken now) and then only
        tie draws."""
        self._rng = rng
        # the counter stream's key (None: the pcg64 stream) and next position
        self._stream_key = (counter_noise.stream_key(rng) if self._noise_stream == "counter"
                            else None)
        self._stream_position = 0
        self._tail_skippable = False  # others may draw from it
        self._noise_skipped = 0  # uniforms of the current block still in the generator
        self._time_noise: np.ndarray | None = None  # per-time noise, at _time_noise_at
        self._time_noise_at = math.nan
        self._noise_buffer = np.empty(0)
        self._noise_raw = False  # whether the buffer holds uniforms not yet transformed
        self._noise_position = 0
        # the transformed block times s, handed out as slices (None: a raw block, or not
        # scaled with the current s yet)
        self._noise_scaled: np.ndarray | None = None

    # ---------------------------------------------------------------- contents
    def copy_chunks(self, other: DeclarativeMemory) -> None:
        """Start from ``other``'s chunks, references and clock (this memory must be empty).

        The result is the memory that the same ``add`` calls would have built, without
        making them again: a model with thousands of fixed instance chunks copies them
        from a memory built once instead of storing each. This memory keeps its own
        parameters, mismatch functions and random generator.
        """
        if self._chunks:
            raise ValueError(f"copy_chunks needs an empty memory; this one holds "
                             f"{len(self._chunks)} chunk(s)")
        self._time = other._time
        self._chunks = list(other._chunks)  # chunks are immutable: shared
        self._row_of = dict(other._row_of)
        self._columns = {slot: column.copy() for slot, column in other._columns.items()}
        for name in ("_fixed", "_reference_row", "_reference_time_index", "_time_values",
                     "_reference_count", "_created", "_node_of", "_node_parent",
                     "_node_time"):
            setattr(self, name, getattr(other, name).copy())
        self._learned = other._learned
        self._time_value_last = other._time_value_last
        self._node_child = dict(other._node_child)
        self._deep_nodes = other._deep_nodes
        self._latest_reference = other._latest_reference
        self._base_key = None
        self._sums_of = (None, None, None)
        self._time_noise = None
        self._time_noise_at = math.nan
        self._scores.clear()
        self._plans.clear()

    def add(self, slots: Mapping[str, SlotValue], *,
            fixed_activation: float | None = None) -> Chunk:
        """Store a chunk, or merge it into an identical one; either way add a reference.

        ``fixed_activation`` gives a base level that never decays (the thesis's instance
        chunks use 0). When merging, None keeps the existing chunk's setting; a different
        value is an error, because a chunk cannot both decay and not decay.
        """
        fixed = None if fixed_activation is None else real_number("fixed_activation",
                                                                fixed_activation)
        chunk = Chunk(slots, fixed)
        row = self._row_of.get(chunk.key)
        new = row is None
        if new:
            row = self._store(chunk)
            node = 0
        else:
            chunk = self._chunks[row]
            if fixed is not None and chunk.fixed_activation != fixed:
                raise ValueError(f"{chunk!r} is already stored with fixed_activation "
                                 f"{chunk.fixed_activation!r}; merging cannot change it to "
                                 f"{fixed!r}")
            node = self._node_of.items[row]
        now = self._time
        if now != self._time_value_last:
            self._time_values.append(now)
            self._time_value_last = now
        time_index = len(self._time_values.items) - 1
        self._reference_time_index.append(time_index)
        self._reference_row.append(row)
        child = self._node_child.get((node, time_index))
        if child is None:
            child = self._node_child[node, time_index] = len(self._node_parent.items)
            self._node_parent.append(node)
            self._deep_nodes += node != 0
            self._node_time.append(time_index)
        if new:  # the chunk's first reference: its per-chunk entries start here
            self._node_of.append(child)
            self._reference_count.append(1.0)
        else:
            self._node_of[row] = child
            self._reference_count[row] = self._reference_count.items[row] + 1
        self._latest_reference = now
        return chunk

    def _store(self, chunk: Chunk) -> int:
        """Append a new chunk's row to every column (its references: ``add``)."""
        row = len(self._chunks)
        self._chunks.append(chunk)
        self._row_of[chunk.key] = row
        slots = chunk.slots
        columns = self._columns
        for slot in slots:
            if slot not in columns:
                columns[slot] = _Column(row)
                self._plans.clear()  # a request naming this slot may now have candidates
        for slot, column in columns.items():
            value = slots.get(slot, _ABSENT_VALUE)
            if value is _ABSENT_VALUE:
                column.append_absent()
            else:
                column.append(row, value)
        fixed = chunk.fixed_activation
        self._fixed.append(math.nan if fixed is None else fixed)
        self._learned += fixed is None
        self._created.append(self._time)
        return row

    @property
    def chunks(self) -> tuple[Chunk, ...]:
        """All chunks, in the order they were first stored."""
        return tuple(self._chunks)

    def __len__(self) -> int:
        return len(self._chunks)

    def __contains__(self, slots: object) -> bool:
        return isinstance(slots, Mapping) and self._find(slots) is not None

    def _find(self, slots: Mapping[str, SlotValue]) -> int | None:
        key = slots.key if isinstance(slots, Chunk) else frozenset(slots.items())
        return self._row_of.get(key)

    def _row(self, chunk: Mapping[str, SlotValue]) -> int:
        row = self._find(chunk)
        if row is None:
            raise KeyError(f"{chunk!r} is not in this memory")
        return row

    def references(self, chunk: Mapping[str, SlotValue]) -> tuple[float, ...]:
        """The times at which ``chunk`` was stored or merged, oldest first."""
        row = self._row(chunk)
        index = self._reference_time_index.view()[self._reference_row.view() == row]
        times = self._time_values.view()[index]
        return tuple(times.tolist())

    # ---------------------------------------------------------------- activation
    def _base_levels(self) -> np.ndarray:
        """Base level of every chunk at the current time (cached until anything changes).

        An infinite entry marks a learned chunk referenced at the current time; callers
        raise ``CurrentTimeReferenceError`` only if that chunk is actually needed.
        """
        t = self._time
        key = (t, len(self._chunks), len(self._reference_row.items))
        if key == self._base_key:
            return self._base
        fixed = self._fixed.view()
        undefined = self._base_level_learning and self._latest_reference >= t
        if self._learned == 0:
            base = fixed
            undefined = False
        elif not self._base_level_learning:
            base = np.where(np.isnan(fixed), 0.0, fixed)
        else:
            if undefined:  # a reference at t: (t − t_j)^(−d) divides by zero
                with np.errstate(divide="ignore"):
                    learned = self._learned_base_levels(t)
            else:
                learned = self._learned_base_levels(t)
            base = learned if self._learned == len(fixed) else np.where(np.isnan(fixed),
                                                                         learned, fixed)
        self._base_key, self._base, self._base_undefined = key, base, undefined
        return base

    def _learned_base_levels(self, t: float) -> np.ndarray:
        d = self._decay
        if self._optimized_learning:
            lifetime = t - self._created.view()
            return np.log(self._reference_count.view() / (1.0 - d)) - d * np.log(lifetime)
        ages = t - self._time_values.view()
        strengths = np.power(ages, -d, out=ages)  # one per distinct reference time
        compiled = _kernel_module.kernels()
        if compiled is not None and not self._deep_nodes:
            # every chunk has one reference: its sum is 0.0 + its strength, the strength
            return log_in_place(strengths)[self._node_time.view()[self._node_of.view()]]
        if compiled is not None:
            # one sum per history node, then per chunk its node's (NumPy's log is
            # elementwise: the same bits whether taken per node or per chunk)
            sums = compiled.node_sums(self._node_parent.view(), self._node_time.view(),
                                      strengths)
            sums[0] = 1.0  # the root, which no chunk points to: no log(0)
            return log_in_place(sums)[self._node_of.view()]
        summed = np.bincount(self._reference_row.view(),
                             weights=strengths[self._reference_time_index.view()],
                             minlength=len(self._chunks))
        return log_in_place(summed)

    def _single_references_now(self) -> bool:
        """Whether every chunk is learned, has one reference, none at the current time,
        with per-time noise on (the token memory's case): then a chunk's base level is
        its reference time's log strength, and ties need no random draw."""
        return (not self._deep_nodes and self._learned == len(self._chunks)
                and self._noise > 0 and self._noise_mode == "per_time"
                and self._base_level_learning and not self._optimized_learning
                and self._latest_reference < self._time)

    def _log_strengths(self) -> np.ndarray:
        """``ln (t − t_j)^(−d)`` per distinct reference time, at the current time (kept
        until the clock moves or a reference time is added): what
        ``_learned_base_levels`` takes per chunk when every chunk has one reference."""
        key = (self._time, len(self._time_values.items), self._decay)
        if key != self._log_strengths_key:
            ages = self._time - self._time_values.view()
            self._log_strengths_of = log_in_place(np.power(ages, -self._decay, out=ages))
            self._log_strengths_key = key
        return self._log_strengths_of

    def _draw_noise(self, count: int) -> np.ndarray:
        """``count`` logistic draws with scale s, taken from a pre-drawn block (a view:
        never written to).

        The block is refilled in fixed sizes, so the generator is consumed in the same
        way whatever is inspected or recorded along the way. A draw is the logistic's
        inverse CDF, ``s·ln(u/(1−u))``, on a block of uniforms: twice as fast as
        Generator.logistic, which does the same one draw at a time. A block is
        transformed whole when refilled and kept times s too, so a draw is a slice (the
        same multiplication of the same numbers as scaling each draw when handed out),
        except when one draw takes most of it (ToM0's 2,117 instance chunks take a fresh
        4,096-uniform block at every model time): then only the uniforms handed out are
        transformed, when they are (elementwise: the same bits), and the unused tail
        never is. With the compiled kernels the zero check over a new block and
        ``u/(1−u)`` of the uniforms transformed now are one pass (``kernel.odds``: the
        same quotients, the same zeros redrawn); the logarithm stays NumPy's.

        Such a block's tail is not even drawn while the memory owns its generator: only
        its head (with the compiled kernels as the generator's raw outputs,
        ``kernel.odds_of_bits``), the tail left in the generator (``_noise_skipped``),
        which the next block jumps (``PCG64.advance``: the same state as drawing it) and
        a draw reaching into it, a saved random state and a tie draw draw first (the
        same uniforms).
        The one difference from drawing the block whole: a zero in a tail never drawn
        (chance ~2·10⁻¹³ a block) is not redrawn, which would have shifted every later
        draw by one (docs/actr.md, "Performance").
        """
        key = self._stream_key
        if key is not None:  # the counter stream: positions, nothing pre-drawn
            start = self._stream_position
            self._stream_position = start + count
            compiled = _kernel_module.kernels()
            if compiled is None:
                return counter_noise.logistic(key, start, count, self._noise)
            return compiled.counter_logistic(key[0], key[1], start, self._noise,
                                             np.empty(count))
        start = self._noise_position
        end = start + count
        scaled = self._noise_scaled
        if scaled is not None and end <= len(scaled):  # the common case: a slice
            self._noise_position = end
            return scaled[start:end]
        compiled = _kernel_module.kernels()
        skipped = self._noise_skipped
        if skipped and len(self._noise_buffer) < end <= len(self._noise_buffer) + skipped:
            self._draw_skipped()  # a draw reaching into the tail left in the generator
            skipped = 0
        if end > len(self._noise_buffer):
            if skipped:  # the last block's tail, never drawn: the generator jumps it
                self._rng.bit_generator.advance(skipped)
                self._noise_skipped = 0
            size = max(_NOISE_BLOCK, count)
            self._noise_raw = raw = 2 * count > size
            skipped = size - count if raw and self._tail_skippable else 0
            self._noise_scaled = None
            self._noise_position = count
            if skipped:  # only the head this draw takes
                if compiled is not None:  # as the generator's raw outputs
                    odds = np.empty(count)
                    bits = self._rng.bit_generator.random_raw(count)
                    if not compiled.odds_of_bits(bits, odds):
                        self._noise_skipped = skipped
                        self._noise_buffer = bits  # read only as uniforms: _draw_skipped
                        noise = np.log(odds, out=odds)
                        noise *= self._noise
                        return noise
                    uniform = _uniforms_of(bits)  # a zero among them
                else:
                    uniform = self._rng.random(count)
                if compiled is not None or uniform.min() == 0.0:
                    # a zero in the head: the whole block, as its zeros are redrawn in order
                    uniform = np.concatenate([uniform, self._rng.random(skipped)])
                    skipped = 0
            else:
                uniform = self._rng.random(size)
            if compiled is not None:  # the zero check and u / (1 − u) in one pass
                odds = np.empty(count if raw else len(uniform))
                zeros = compiled.odds(uniform, len(odds), odds)
                while zeros:
                    _redraw_zeros(self._rng, uniform)
                    zeros = compiled.odds(uniform, len(odds), odds)
                self._noise_skipped = skipped
                noise = np.log(odds, out=odds)
                if raw:
                    self._noise_buffer = uniform
                    noise *= self._noise
                    return noise
                self._noise_buffer = noise
                self._noise_scaled = noise * self._noise
                return self._noise_scaled[:count]
            while uniform.min() == 0.0:  # u = 0 (chance 2^-53 a draw) would give −inf
                _redraw_zeros(self._rng, uniform)
            self._noise_skipped = skipped
            if raw:
                self._noise_buffer = uniform
            else:
                ratio = np.subtract(1.0, uniform)  # u / (1 − u), with one temporary
                np.divide(uniform, ratio, out=ratio)
                self._noise_buffer = np.log(ratio, out=ratio)
            start, end = 0, count
        else:
            self._noise_position = end
        if not self._noise_raw:
            # a fresh array: a slice handed out earlier (kept as some time's noise, or in
            # a saved random state) keeps its values
            self._noise_scaled = self._noise_buffer * self._noise
            return self._noise_scaled[start:end]
        drawn = self._noise_buffer[start:end]
        if compiled is not None:
            noise = np.empty(count)
            compiled.odds(drawn, count, noise)  # no zeros: the block was checked whole
        else:
            noise = np.subtract(1.0, drawn)
            np.divide(drawn, noise, out=noise)
        np.log(noise, out=noise)
        noise *= self._noise
        return noise

    def _draw_skipped(self) -> None:
        """Draw the tail of the current block left in the generator (see _draw_noise):
        the uniforms the whole block would have held there, its zeros redrawn as the
        whole block's were (its head had none)."""
        tail = self._rng.random(self._noise_skipped)
        self._noise_skipped = 0
        while tail.min() == 0.0:
            _redraw_zeros(self._rng, tail)
        head = self._noise_buffer
        if head.dtype == np.uint64:  # kept as the generator's raw outputs
            head = _uniforms_of(head)
        self._noise_buffer = np.concatenate([head, tail])

    def _noise_now(self) -> np.ndarray:
        """Per-time noise of every chunk, drawn once per model time.

        Chunks added since the draw get their own draws appended; the others keep theirs.
        """
        noise = self._time_noise
        if (noise is None or self._time_noise_at != self._time
                or len(noise) < len(self._chunks)):
            return self._noise_for(len(self._chunks))
        return noise

    def _split(self, request: Mapping[str, SlotValue],
               exact: list[tuple[_Column, int]] | None = None
               ) -> tuple[np.ndarray | None, _Scored]:
        """Candidate rows (None = every chunk) and the slots scored by partial matching.

        A requested slot with no mismatch function filters candidates through its value
        index; a slot with one keeps only chunks that have the slot. ``exact`` (if given)
        receives the exact-match (column, code) pairs, and is emptied when no chunk can
        match (a slot or value no chunk holds yet: no plan can be kept).
        """
        if type(request) is not dict and not isinstance(request, Mapping):
            raise TypeError(f"a retrieval request must be a mapping of slot name to value, "
                            f"got {type(request).__name__}")
        rows: np.ndarray | None = None
        scored: _Scored = []
        columns = self._columns
        for slot, value in request.items():
            column = columns.get(slot)
            if column is None:
                if not isinstance(slot, str):
                    raise TypeError(f"slot names must be strings, got {slot!r}")
                if exact is not None:
                    exact.clear()
                return np.empty(0, np.int64), []
            fn = self._mismatch.get(slot)
            if fn is not None:
                scored.append((slot, value, column, fn))
                continue
            try:
                code = column.code_of.get(value)
            except TypeError:
                raise TypeError(f"request value for slot {slot!r} must be hashable, "
                                f"got {value!r}") from None
            if code is None:
                if exact is not None:
                    exact.clear()
                return np.empty(0, np.int64), []
            if exact is not None:
                exact.append((column, code))
            if rows is None:
                rows = np.array(column.rows_of[code], dtype=np.int64)
            else:
                rows = rows[column.codes.view()[rows] == code]
        n = len(self._chunks)
        for _, _, column, _ in scored:
            if column.present < n:
                if rows is None:
                    rows = np.flatnonzero(column.codes.view() != _ABSENT)
                else:
                    rows = rows[column.codes.view()[rows] != _ABSENT]
        return rows, scored

    def _evaluate(self, rows: np.ndarray | None, scored: _Scored, noise: np.ndarray | None,
                  offset: float) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
        """Base levels, per-slot mismatches (not yet times MP) and total activations.

        The total is ``base + noise + offset + MP·Σ mismatch``: summing before scaling
        saves one numpy pass per slot. Records scale each slot separately, so their
        components add up to the total up to floating-point rounding.
        """
        base = self._base_levels()
        if rows is not None:
            base = base[rows]
        if self._base_undefined and np.isinf(base).any():
            self._raise_current_time_reference(rows, base)
        total = base + noise if noise is not None else base.copy()
        if offset:
            total += offset
        mismatches = [self._score_slot(slot, value, column, rows, fn)
                      for slot, value, column, fn in scored]
        if mismatches:
            summed = mismatches[0] * self._mismatch_penalty if len(mismatches) == 1 else None
            if summed is None:
                summed = mismatches[0] + mismatches[1]
                for mismatch in mismatches[2:]:
                    summed += mismatch
                summed *= self._mismatch_penalty
            total += summed
        return base, mismatches, total

    @staticmethod
    def _score_slot(slot: str, value: SlotValue, column: _Column, rows: np.ndarray | None,
                    fn: MismatchFunction) -> np.ndarray:
        """Unscaled mismatch of every candidate for one slot.

        Exact matching compares integer codes (fast for symbols too); other vectorized
        functions get the column's values (float64 for numeric slots) in one call; plain
        callables are called once per chunk with the values as stored.
        """
        try:
            if type(fn) is ExactMatch:
                codes = column.codes.view()
                if rows is not None:
                    codes = codes[rows]
                return (codes != column.code_of.get(value, _UNKNOWN)) * -fn.weight
            built_in = type(fn) in BUILT_IN_MISMATCH
            vectorized = getattr(fn, "vectorized", None)
            if vectorized is not None:
                values = column.values.view()
                if rows is not None:
                    values = values[rows]
                result = vectorized(value, values)
                if built_in:  # a fresh array already (object dtype for symbol slots)
                    return np.asarray(result, dtype=np.float64)
                mismatch = np.array(result, dtype=np.float64)
            else:
                codes = column.codes.view()
                values = column.original(codes if rows is None else codes[rows])
                mismatch = np.fromiter((fn(value, v) for v in values), dtype=np.float64,
                                       count=len(values))
        except (TypeError, ValueError) as error:
            raise type(error)(f"mismatch function {fn!r} for slot {slot!r} failed on request "
                              f"value {value!r}: {error}") from error
        expected = len(column.codes) if rows is None else len(rows)
        if mismatch.shape != (expected,) or not (np.isfinite(mismatch) & (mismatch <= 0)).all():
            raise ValueError(f"mismatch function {fn!r} for slot {slot!r} must return one "
                             f"finite value <= 0 per chunk; got {mismatch!r} for request "
                             f"value {value!r}")
        return mismatch

    def _raise_current_time_reference(self, rows: np.ndarray | None, base: np.ndarray) -> None:
        position = int(np.flatnonzero(np.isinf(base))[0])
        chunk = self._chunks[position if rows is None else int(rows[position])]
        raise CurrentTimeReferenceError(
            f"{chunk!r} has a reference at the current time t={self._time:g}, so its base "
            f"level ln Σ (t − t_j)^(−d) is infinite. Advance the clock "
            f"(memory.advance(dt)) between storing and retrieving, give the chunk a fixed "
            f"activation, or switch base_level_learning off.")

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
        row = self._row(chunk)
        offset = real_number("offset", offset) if offset else 0.0
        chunk = self._chunks[row]
        rows, scored = self._split(request)
        if rows is not None and row not in rows:
            reasons = [f"lacks slot {slot!r}" if slot not in chunk
                       else f"has {slot}={chunk[slot]!r} where the request needs {value!r} "
                       f"exactly" for slot, value in request.items()
                       if slot not in chunk or (slot not in self._mismatch
                                                and chunk[slot] != value)]
            raise ValueError(f"{chunk!r} is not a candidate for {dict(request)!r}: "
                             f"{'; '.join(reasons)}")
        only = np.array([row])
        noise = None
        if self._noise > 0 and self._noise_mode == "per_time":
            noise = self._noise_now()[only]
        base, mismatches, total = self._evaluate(only, scored, noise, offset)
        return ActivationComponents(
            chunk=chunk, base_level=float(base[0]),
            mismatch={slot: float(m[0]) * self._mismatch_penalty + 0.0
                      for (slot, *_), m in zip(scored, mismatches, strict=True)},
            offset=offset, noise=0.0 if noise is None else float(noise[0]),
            activation=float(total[0]))

    # ---------------------------------------------------------------- retrieval
    def _break_tie(self, total: np.ndarray, best: int, activation: float) -> int:
        """The winner among candidates tied at the best activation, drawn at random. With
        noise on, two candidates tie only if their continuous draws coincide exactly, so
        callers check only when s = 0 (a draw from the stream only when there is a tie)."""
        ties = np.flatnonzero(total == activation)
        if len(ties) < 2:
            return best
        if self._noise_skipped:  # the block's tail first, as if drawn with it
            self._draw_skipped()
        self._tail_skippable = False  # a 32-bit draw may leave its other half held
        return int(ties[self._rng.integers(len(ties))])

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
        tau = (self._retrieval_threshold if threshold is None
               else real_number("threshold", threshold))
        if offset:
            offset = real_number("offset", offset)
        plan = split = None
        kernels = None if record or type(request) is not dict else _kernel_module.kernels()
        if kernels is not None:
            try:
                key = tuple(request.items())
                plan = self._plans.get(key)
            except TypeError:  # an unhashable value: _split reports it
                key = None
            if plan is None and key is not None:
                scores = self._scores_of(key)  # an all-scored request (a ToM0 state)?
                if scores is not None:
                    return self._retrieve_scored(kernels.activations, scores, offset, tau)
            plan, split = self._plan(request, key, plan)
            if plan is not None and not plan.scored:
                return self._retrieve_exact(plan, offset, tau)
        if plan is not None:
            rows, scored, compiled = plan.rows.view(), plan.scored, plan.scores
        else:
            rows, scored = split or self._split(request)
            compiled = None if record else self._compiled_scores(scored)
        count = len(self._chunks) if rows is None else len(rows)
        if count == 0:
            latency = retrieval_latency(self._latency_factor, tau)
            trace = (RetrievalRecord(MappingProxyType(dict(request)), self._time, tau,
                                     self._noise_mode, None, None, latency) if record else None)
            return Retrieval(None, None, latency, trace)

        noise = None
        if self._noise > 0:
            per_time = self._noise_mode == "per_time"
            noise = self._noise_now() if per_time else self._draw_noise(count)
        if compiled is not None:
            total, best = self._evaluate_compiled(rows, count, compiled, noise, offset)
        else:
            if noise is not None and rows is not None and self._noise_mode == "per_time":
                noise = noise[rows]
            base, mismatches, total = self._evaluate(rows, scored, noise, offset)
            best = int(total.argmax())
        activation = float(total[best])
        if activation >= tau:
            if noise is None:
                best = self._break_tie(total, best, activation)
            winner = self._chunks[best if rows is None else int(rows[best])]
            latency = retrieval_latency(self._latency_factor, activation)
        else:
            winner = None
            latency = retrieval_latency(self._latency_factor, tau)
        trace = None
        if record:
            trace = self._record(request, tau, rows, scored, base, mismatches, noise, offset,
                                 total, winner, latency)
        return Retrieval(winner, activation, latency, trace)

    def retrieve_items(self, items: tuple[tuple[str, SlotValue], ...]) -> Retrieval:
        """``retrieve(dict(items))``, the request given as its ``(slot, value)`` items in
        order: the same retrieval, and an all-scored request (a ToM0 state, ``_Scores``)
        is retrieved without a dict made, its items copied or the kept plans looked up
        (thousands a game)."""
        kernels = _kernel_module.kernels()
        if kernels is not None:
            try:
                plan = self._scores_of(items)
            except TypeError:  # an unhashable value: retrieve reports it
                plan = None
            if plan is not None:
                return self._retrieve_scored(kernels.activations, plan, 0.0,
                                             self._retrieval_threshold)
        return self.retrieve(dict(items))

    def _held_slots(self, count: int) -> tuple:
        """The ``_HELD`` entry for ``count`` chunks, made anew from the per-slot caches."""
        if self._scores_chunks != count:
            self._scores.clear()
            self._scores_chunks = count
        columns = self._columns
        # a slot's cache exists only for a built-in function the kernel can run on it
        # (set_mismatch drops it with the function), see _compiled_scores
        slots = {slot: cache for slot, cache in self._scores.items()
                 if columns[slot].present == count}
        # the activations' scratch array: a retrieval of an all-scored request hands out
        # only the winner, so one array per memory serves them all
        held = (count, slots, self._fixed.view() if self._learned == 0 else None,
                np.empty(count))
        self._plans[_HELD] = held
        return held

    def _scores_of(self, key: tuple) -> _Scores | None:
        """The ``_Scores`` of the request whose items are ``key``, from the memory's per-slot
        score caches, or None when it is not such a request (an exact-match slot, a slot some
        chunk lacks or none holds, a user-defined function, a slot not scored before: the
        general path sorts it out and fills the caches)."""
        count = len(self._chunks)
        held = self._plans.get(_HELD)
        if held is None or held[0] != count:
            held = self._held_slots(count)
        slots = held[1]
        try:
            if len(key) == 4:  # the thesis's four slots, unrolled (a ToM0 state's first sight)
                (s0, v0), (s1, v1), (s2, v2), (s3, v3) = key
                return (count, held[2], held[3], 4, slots[s0][v0], slots[s1][v1], slots[s2][v2],
                        slots[s3][v3])
            picked = [slots[slot][value] for slot, value in key]
        except KeyError:  # a slot not held (yet), or a value not scored yet
            picked = []
            for slot, value in key:
                cache = slots.get(slot)
                if cache is None:
                    cache = self._scores.get(slot)
                    if cache is None or self._columns[slot].present != count:
                        return None
                    slots[slot] = cache
                scores = cache.get(value)
                if scores is None:
                    scores = self._score_slot(slot, value, self._columns[slot], None,
                                              self._mismatch[slot])
                    if len(cache) >= _SCORE_CACHE_SIZE:
                        cache.clear()
                    cache[value] = scores
                picked.append(scores)
        used = len(picked)
        if used == 4:
            return (count, held[2], held[3], 4, *picked)
        if used == 0:
            return None
        if used > 4:  # the kernel takes four columns: fold all but the last three,
            head = picked[0] + picked[1]  # adding left to right as the kernel would
            for column in picked[2:-3]:
                head += column
            return (count, held[2], held[3], 4, head, *picked[-3:])
        return (count, held[2], held[3], used, *picked, *[picked[0]] * (4 - used))

    def _retrieve_scored(self, activations: Callable, plan: _Scores, offset: float,
                         tau: float) -> Retrieval:
        """A retrieval of an all-scored request (``_Scores``): the same noise draws,
        kernel pass and first-best argmax as ``retrieve``'s general compiled path, without
        its bookkeeping."""
        count, base, total, slots, m0, m1, m2, m3 = plan
        noise = _kernel_module.EMPTY
        if self._noise > 0:
            if self._noise_mode == "per_time":
                noise = self._time_noise  # _noise_now, its check inlined
                if (noise is None or self._time_noise_at != self._time
                        or len(noise) < count):
                    noise = self._noise_for(count)
            else:
                noise = self._draw_noise(count)
        if base is None:
            base = self._base_levels()
            if self._base_undefined and np.isinf(base).any():
                self._raise_current_time_reference(None, base)
        best = activations(
            base, noise, _kernel_module.NO_ROWS, float(offset), m0, m1, m2, m3, slots,
            self._mismatch_penalty, total)
        if best < 0:
            best = int(total.argmax())
        activation = total.item(best)
        if activation >= tau:
            if noise is _kernel_module.EMPTY:
                best = self._break_tie(total, best, activation)
            try:  # retrieval_latency, inlined
                latency = self._latency_factor * math.exp(-activation)
            except OverflowError:
                latency = math.inf
            return _new_retrieval(Retrieval, (self._chunks[best], activation, latency, None))
        return _new_retrieval(Retrieval, (None, activation,
                                          retrieval_latency(self._latency_factor, tau), None))

    def _plan(self, request: dict[str, SlotValue], key: tuple | None, plan: _Plan | None
              ) -> tuple[_Plan | None, tuple[np.ndarray | None, _Scored] | None]:
        """The kept plan of a plain-dict request with exact-match slots (``plan``: what
        ``retrieve`` found under its ``key``, the request's items; key None: an
        unhashable value), brought up to date with the chunks stored since; for any
        other request (unhashable values, only scored slots, or no chunk can match it
        yet) no plan but, when worked out already, its candidates and scored slots
        (``_split``). (All-scored requests ``retrieve`` keeps itself: ``_Scores``.)"""
        if key is None:
            return None, None
        if plan is not None:
            count = len(self._chunks)
            if plan.seen != count:
                plan.extend(count)
                plan.scores = self._compiled_scores(plan.scored)
            return plan, None
        exact: list[tuple[_Column, int]] = []
        rows, scored = self._split(request, exact)
        if not exact:
            return None, (rows, scored)
        if len(self._plans) >= _PLAN_CACHE_SIZE:
            self._plans.clear()
        plan = self._plans[key] = _Plan(exact, scored, rows, len(self._chunks))
        plan.scores = self._compiled_scores(scored)
        return plan, None

    def _retrieve_exact(self, plan: _Plan, offset: float, tau: float) -> Retrieval:
        """A retrieval whose request has only exact-match slots (the token memory's):
        no mismatch to add, so each candidate's activation is ``(B + ε) + offset``.

        In per_time mode ``B + ε`` of every chunk is computed once per model time and
        shared by every such retrieval until the clock moves or a chunk arrives; the
        same additions, in the same order, as the kernel and the NumPy path.
        """
        rows = plan.rows.view()
        count = len(rows)
        if count == 0:
            return Retrieval(None, None, retrieval_latency(self._latency_factor, tau))
        if self._single_references_now():
            # one compiled pass over the candidates: B from its reference time's log
            # strength, plus its per-time noise, plus the offset (the same additions)
            best, activation = _kernel_module.kernels().exact_best(
                self._log_strengths(), self._node_time.view(), self._node_of.view(), rows,
                self._noise_now(), float(offset))
            if activation >= tau:
                return Retrieval(self._chunks[int(rows[best])], activation,
                                 retrieval_latency(self._latency_factor, activation))
            return Retrieval(None, activation, retrieval_latency(self._latency_factor, tau))
        noise = None
        if self._noise > 0:
            per_time = self._noise_mode == "per_time"
            noise = self._noise_now() if per_time else self._draw_noise(count)
        base = self._base_levels()
        if self._base_undefined:
            candidates = base[rows]
            if np.isinf(candidates).any():
                self._raise_current_time_reference(rows, candidates)
        if noise is None:
            total = base[rows]
        elif self._noise_mode == "per_time":
            if self._sums_of[0] is not base or self._sums_of[1] is not noise:
                self._sums_of = (base, noise, base + noise)
            total = self._sums_of[2][rows]
        else:
            total = base[rows] + noise
        if offset:
            total += offset
        best = int(total.argmax())
        activation = float(total[best])
        if activation >= tau:
            if noise is None:
                best = self._break_tie(total, best, activation)
            return Retrieval(self._chunks[int(rows[best])], activation,
                             retrieval_latency(self._latency_factor, activation))
        return Retrieval(None, activation, retrieval_latency(self._latency_factor, tau))

    def _compiled_scores(self, scored: _Scored) -> tuple[np.ndarray, ...] | None:
        """Every chunk's unscaled mismatch per scored slot, for the compiled kernel; None
        when the NumPy path must run (no kernel, a user-defined function, a symbol slot
        scored numerically).

        Built-in mismatch functions are pure, so a slot's scores for one request value
        are computed once over the whole column and reused until a chunk is stored.
        """
        if _kernel_module.kernels() is None:
            return None
        if not scored:
            return ()
        if self._scores_chunks != len(self._chunks):
            self._scores.clear()
            self._scores_chunks = len(self._chunks)
        columns = []
        caches = self._scores
        for slot, value, column, fn in scored:
            kind = type(fn)
            if kind not in BUILT_IN_MISMATCH or not (column.numeric or kind is ExactMatch):
                return None
            cache = caches.get(slot)
            if cache is None:
                cache = caches[slot] = {}
            try:
                scores = cache.get(value)
            except TypeError:  # unhashable: the NumPy path reports it
                return None
            if scores is None:
                scores = self._score_slot(slot, value, column, None, fn)
                if len(cache) >= _SCORE_CACHE_SIZE:
                    cache.clear()
                cache[value] = scores
            columns.append(scores)
        return tuple(columns)

    def _evaluate_compiled(self, rows: np.ndarray | None, count: int,
                           scores: tuple[np.ndarray, ...], noise: np.ndarray | None,
                           offset: float) -> tuple[np.ndarray, int]:
        """Candidate activations in one compiled pass, and the first best index (the
        kernel's own search for small sets, else NumPy's argmax: bit-identical to
        ``_evaluate`` followed by ``argmax``)."""
        base = self._base_levels()
        if self._base_undefined:
            candidates = base if rows is None else base[rows]
            if np.isinf(candidates).any():
                self._raise_current_time_reference(rows, candidates)
        total = np.empty(count)
        if len(scores) > 4:  # the kernel takes four columns: fold all but the last three,
            head = scores[0] + scores[1]  # adding left to right as the kernel would
            for column in scores[2:-3]:
                head += column
            scores = (head, *scores[-3:])
        m0, m1, m2, m3 = scores + (base,) * (4 - len(scores))
        best = _kernel_module.kernels().activations(
            base, _kernel_module.EMPTY if noise is None else noise,
            _kernel_module.NO_ROWS if rows is None else rows, float(offset), m0, m1, m2, m3,
            len(scores), self._mismatch_penalty, total)
        return total, best if best >= 0 else int(total.argmax())

    def _record(self, request: Mapping[str, SlotValue], tau: float, rows: np.ndarray | None,
                scored: _Scored, base: np.ndarray, mismatches: list[np.ndarray],
                noise: np.ndarray | None, offset: float, total: np.ndarray,
                winner: Chunk | None, latency: float) -> RetrievalRecord:
        """The retrieval's record: its candidates' components as copied columns (the
        per-candidate ``ActivationComponents`` are built only if someone reads them)."""
        chunks = (tuple(self._chunks) if rows is None
                  else [self._chunks[r] for r in rows.tolist()])
        penalty = self._mismatch_penalty
        columns = _records.CandidateColumns(
            chunks=chunks, base_level=base.copy(),
            mismatch={slot: m * penalty + 0.0  # + 0.0: no -0.0
                      for (slot, *_), m in zip(scored, mismatches, strict=True)},
            offset=offset, noise=None if noise is None else noise.copy(), activation=total)
        return RetrievalRecord(request=MappingProxyType(dict(request)), time=self._time,
                               threshold=tau, noise_mode=self._noise_mode, columns=columns,
                               winner=winner, latency=latency)

    # ---------------------------------------------------------------- helpers
    def recall_probability(self, activation: float) -> float:
        """Chance that a chunk of noise-free ``activation`` beats this memory's threshold.

        Uses this memory's retrieval threshold and noise scale.
        """
        return recall_probability(activation, self._retrieval_threshold, self._noise)

    def __repr__(self) -> str:
        return (f"DeclarativeMemory({len(self._chunks)} chunks, t={self._time:g}, "
                f"d={self._decay:g}, s={self._noise:g}, τ={self._retrieval_threshold:g}, "
                f"MP={self._mismatch_penalty:g}, F={self._latency_factor:g}, "
                f"noise_mode={self._noise_mode!r})")

    def _noise_for(self, count: int) -> np.ndarray:
        """Per-time noise of the first ``count`` chunks (``_noise_now`` for all of them).

        A caller that keeps chunks of its own not yet stored here (the token memory, which
        stores them on demand with :meth:`add_past`) asks for its full count: the draws,
        and their order, are those the stored chunks would have had.
        """
        noise = self._time_noise
        if noise is None or self._time_noise_at != self._time:
            noise = self._draw_noise(count)
        elif len(noise) < count:
            noise = np.concatenate([noise, self._draw_noise(count - len(noise))])
        else:
            return noise
        self._time_noise, self._time_noise_at = noise, self._time
        return noise

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
        try:
            for time, slots in added:
                if not self._latest_reference <= time <= now:
                    raise ValueError(
                        f"add_past: time {time!r} of {dict(slots)!r} is not between the "
                        f"latest reference stored ({self._latest_reference:g}) and the "
                        f"clock ({now:g}); past chunks must come in time order")
                self._time = time
                self.add(slots)
        finally:
            self._time = now


def recall_probability(activation: float | np.ndarray, threshold: float,
                       noise: float) -> float | np.ndarray:
    """``1 / (1 + e^(−(A − τ)/s))``: chance that A plus logistic noise of scale s exceeds τ.

    With s = 0 it is a step: 1 if A >= τ (a retrieval at exactly τ succeeds), else 0.
    Accepts arrays of activations.
    """
    s = _check_at_least("noise", noise, 0.0, False, "the logistic scale s")
    tau = real_number("threshold", threshold)
    a = np.asarray(activation, dtype=np.float64)
    if s == 0:
        return float(a >= tau) if a.ndim == 0 else (a >= tau).astype(np.float64)
    p = 0.5 * (1.0 + np.tanh((a - tau) / (2.0 * s)))  # the logistic, without overflow
    return float(p) if p.ndim == 0 else p
