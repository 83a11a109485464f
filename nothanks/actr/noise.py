"""Activation noise: the memory's generator, the two noise streams, per-time noise, saved
random states and tie draws (docs/actr.md, "Noise" and "Noise streams").

All randomness of a memory comes from its own generator. On the ``"pcg64"`` stream noise is
handed out from pre-drawn blocks of NumPy uniforms (``NoiseSource.draw`` says how, and what it
guarantees about the generator's consumption); on the ``"counter"`` stream a draw is a pure
function of the stream's key and positions (``counter_noise``, its compiled twin in
``kernel``).
"""
from __future__ import annotations

import math
from numbers import Integral
from typing import Any

import numpy as np

from . import counter_noise
from . import kernel as _kernel_module

_NOISE_BLOCK = 4096  # standard logistic draws fetched from the generator at a time
#: Half the spacing of NumPy's uniform doubles: ``random() + _HALF_ULP`` is in (0, 1), so the
#: logistic ``ln(u / (1 − u))`` is always finite.
_HALF_ULP = 2.0 ** -54


def _make_rng(seed: Any) -> np.random.Generator:
    """The generator of ``seed`` (an int >= 0, a SeedSequence or None), or ``seed`` itself
    if it is a Generator; a TypeError otherwise."""
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


class NoiseSource:
    """A memory's activation noise: its generator, the draws of either stream, the
    per-time noise of each model time, saved random states and the random pick among
    tied candidates.

    ``scale`` is s (set it with :meth:`set_scale`), ``mode`` ``"per_time"`` or
    ``"per_retrieval"`` (whoever sets it calls :meth:`forget_time_noise`), ``stream``
    ``"pcg64"`` or ``"counter"`` (fixed: a stream's key comes from the seed); the values
    are checked by the memory. ``rng`` is the generator; ``stream_key`` the counter
    stream's key (None on the pcg64 stream); ``time_noise`` the per-time noise drawn at
    ``time_noise_at`` (None: none yet); ``skipped`` the uniforms of the current block
    left in the generator (:meth:`draw`), which only a generator this source made itself
    may hold back (``tail_skippable``).
    """

    def __init__(self, *, scale: float, mode: str, stream: str,
                 seed: int | np.random.SeedSequence | np.random.Generator | None):
        self.scale = scale
        self.mode = mode
        self.stream = stream
        self.seed_from(seed)

    def seed_from(self, seed: int | np.random.SeedSequence | np.random.Generator | None
                  ) -> None:
        """The generator from ``seed`` and noise drawn afresh from it (:meth:`reseed`).
        A block's unused tail may be left in the generator (see :meth:`draw`) only in a
        generator this source made itself (nobody else draws from it), while it holds no
        half of a 32-bit draw (PCG64.advance drops that half)."""
        self.reseed(_make_rng(seed))
        self.tail_skippable = not isinstance(seed, np.random.Generator)

    def set_scale(self, scale: float) -> None:
        """Draw with scale s = ``scale`` from now on (this time's noise is redrawn)."""
        self.scale = scale
        self.forget_time_noise()  # redrawn with the new scale
        self._noise_scaled = None  # the block's scaled copy has the old one

    def random_state(self) -> tuple:
        """What decides the next noise draws (the generator, the pre-drawn block and the
        current model time's noise), to re-decide a state with other noise and then come
        back with :meth:`set_random_state` (e.g. estimating a model's choice probability)."""
        if self.skipped:
            self._draw_skipped()  # the generator handed out as if the block was drawn whole
        return (self.rng, self._noise_buffer, self._noise_raw, self._noise_position,
                self.time_noise, self.time_noise_at, self.tail_skippable,
                self.stream_key, self._stream_position, self._time_reserved)

    def set_random_state(self, state: tuple) -> None:
        """Go back to a state saved by :meth:`random_state` (of a memory on the same
        noise stream)."""
        if (state[7] is None) != (self.stream == "pcg64"):
            saved = "pcg64" if state[7] is None else "counter"
            raise ValueError(f"a random state saved on the {saved} noise stream cannot be "
                             f"restored into a memory on the {self.stream} stream")
        (self.rng, self._noise_buffer, self._noise_raw, self._noise_position,
         self.time_noise, self.time_noise_at, self.tail_skippable,
         self.stream_key, self._stream_position, self._time_reserved) = state
        self.skipped = 0
        self._noise_scaled = None  # scaled anew from the restored block when needed

    def reseed(self, rng: np.random.Generator) -> None:
        """Draw all further noise from ``rng``, starting afresh (nothing pre-drawn). On the
        counter stream ``rng`` gives a new key (two raw outputs, taken now) and then only
        tie draws."""
        self.rng = rng
        # the counter stream's key (None: the pcg64 stream) and next position
        self.stream_key = (counter_noise.stream_key(rng) if self.stream == "counter"
                            else None)
        self._stream_position = 0
        self.tail_skippable = False  # others may draw from it
        self.skipped = 0  # uniforms of the current block still in the generator
        self.forget_time_noise()
        self._noise_buffer = np.empty(0)
        self._noise_raw = False  # whether the buffer holds uniforms not yet transformed
        self._noise_position = 0
        # the transformed block times s, handed out as slices (None: a raw block, or not
        # scaled with the current s yet)
        self._noise_scaled: np.ndarray | None = None

    def draw(self, count: int) -> np.ndarray:
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
        if self.stream_key is not None:  # the counter stream: positions, nothing pre-drawn
            start = self._stream_position
            self._stream_position = start + count
            return self._draw_at(start, count)
        start = self._noise_position
        end = start + count
        scaled = self._noise_scaled
        if scaled is not None and end <= len(scaled):  # the common case: a slice
            self._noise_position = end
            return scaled[start:end]
        compiled = _kernel_module.kernels()
        skipped = self.skipped
        if skipped and len(self._noise_buffer) < end <= len(self._noise_buffer) + skipped:
            self._draw_skipped()  # a draw reaching into the tail left in the generator
            skipped = 0
        if end > len(self._noise_buffer):
            if skipped:  # the last block's tail, never drawn: the generator jumps it
                self.rng.bit_generator.advance(skipped)
                self.skipped = 0
            size = max(_NOISE_BLOCK, count)
            self._noise_raw = raw = 2 * count > size
            skipped = size - count if raw and self.tail_skippable else 0
            self._noise_scaled = None
            self._noise_position = count
            if skipped:  # only the head this draw takes
                if compiled is not None:  # as the generator's raw outputs
                    odds = np.empty(count)
                    bits = self.rng.bit_generator.random_raw(count)
                    if not compiled.odds_of_bits(bits, odds):
                        self.skipped = skipped
                        self._noise_buffer = bits  # read only as uniforms: _draw_skipped
                        noise = np.log(odds, out=odds)
                        noise *= self.scale
                        return noise
                    uniform = _uniforms_of(bits)  # a zero among them
                else:
                    uniform = self.rng.random(count)
                if compiled is not None or uniform.min() == 0.0:
                    # a zero in the head: the whole block, as its zeros are redrawn in order
                    uniform = np.concatenate([uniform, self.rng.random(skipped)])
                    skipped = 0
            else:
                uniform = self.rng.random(size)
            if compiled is not None:  # the zero check and u / (1 − u) in one pass
                odds = np.empty(count if raw else len(uniform))
                zeros = compiled.odds(uniform, len(odds), odds)
                while zeros:
                    _redraw_zeros(self.rng, uniform)
                    zeros = compiled.odds(uniform, len(odds), odds)
                self.skipped = skipped
                noise = np.log(odds, out=odds)
                if raw:
                    self._noise_buffer = uniform
                    noise *= self.scale
                    return noise
                self._noise_buffer = noise
                self._noise_scaled = noise * self.scale
                return self._noise_scaled[:count]
            while uniform.min() == 0.0:  # u = 0 (chance 2^-53 a draw) would give −inf
                _redraw_zeros(self.rng, uniform)
            self.skipped = skipped
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
            self._noise_scaled = self._noise_buffer * self.scale
            return self._noise_scaled[start:end]
        drawn = self._noise_buffer[start:end]
        if compiled is not None:
            noise = np.empty(count)
            compiled.odds(drawn, count, noise)  # no zeros: the block was checked whole
        else:
            noise = np.subtract(1.0, drawn)
            np.divide(drawn, noise, out=noise)
        np.log(noise, out=noise)
        noise *= self.scale
        return noise

    def draw_fresh(self, count: int) -> np.ndarray:
        """``count`` logistic draws with scale s from ``count`` uniforms drawn now, pyibl's
        way: ``s·(ln u − ln(1 − u))`` with ``u = random() + 2⁻⁵⁴`` (never 0 or 1). No
        block is kept: a call takes exactly ``count`` uniforms from the generator (the
        instance memory's blends, a fresh draw per instance per blend)."""
        uniform = self.rng.random(count)
        uniform += _HALF_ULP
        noise = np.log(uniform)
        noise -= np.log1p(-uniform)
        noise *= self.scale
        return noise

    def _draw_at(self, start: int, count: int) -> np.ndarray:
        """The counter stream's draws at positions ``start`` … ``start + count − 1``, times
        s (the stream's position is the caller's business)."""
        key = self.stream_key
        compiled = _kernel_module.kernels()
        if compiled is None:
            return counter_noise.logistic(key, start, count, self.scale)
        return compiled.counter_logistic(key[0], key[1], start, self.scale, np.empty(count))

    def _draw_skipped(self) -> None:
        """Draw the tail of the current block left in the generator (see draw):
        the uniforms the whole block would have held there, its zeros redrawn as the
        whole block's were (its head had none)."""
        tail = self.rng.random(self.skipped)
        self.skipped = 0
        while tail.min() == 0.0:
            _redraw_zeros(self.rng, tail)
        head = self._noise_buffer
        if head.dtype == np.uint64:  # kept as the generator's raw outputs
            head = _uniforms_of(head)
        self._noise_buffer = np.concatenate([head, tail])

    def forget_time_noise(self) -> None:
        """No per-time noise drawn or reserved yet: the next draw at any time is new."""
        self.time_noise: np.ndarray | None = None  # per-time noise, at _time_noise_at
        self.time_noise_at = math.nan
        # positions of the counter stream reserved for this time's noise, not drawn yet:
        # (time, first position, count), or None (``reserve_per_time_noise``)
        self._time_reserved: tuple[float, int, int] | None = None

    def reserve_time_noise(self, t: float, count: int) -> int | None:
        """Reserve the counter stream's next ``count`` positions as the per-time noise of
        time ``t``, drawing nothing: the first position, or None when the source is not
        on the counter stream or has drawn or reserved the noise of ``t`` already.
        The stream moves on as if the draws were made; a later draw at ``t`` takes the
        reserved positions (:meth:`per_time`), so its values are what an eager draw now
        would have given."""
        if (self.stream_key is None or self.time_noise_at == t
                or (self._time_reserved is not None and self._time_reserved[0] == t)):
            return None
        first = self._stream_position
        self._stream_position = first + count
        self._time_reserved = (t, first, count)
        return first

    def now(self, t: float, count: int) -> np.ndarray:
        """Per-time noise at ``t`` of every one of the ``count`` chunks stored, drawn once
        per model time (:meth:`per_time`; chunks stored since the draw get their own draws
        appended, the others keep theirs)."""
        noise = self.time_noise
        if noise is None or self.time_noise_at != t or len(noise) < count:
            return self.per_time(t, count)
        return noise

    def per_time(self, t: float, count: int) -> np.ndarray:
        """Per-time noise at ``t`` of the first ``count`` chunks (possibly longer).

        A caller that keeps chunks of its own not yet stored in the memory (the token
        memory, which stores them on demand with ``add_past``) asks for its full count:
        the draws, and their order, are those the stored chunks would have had.
        """
        noise = self.time_noise
        if noise is None or self.time_noise_at != t:
            reserved = self._time_reserved
            if reserved is not None and reserved[0] == t:  # drawn where reserved
                self._time_reserved = None
                noise = self._draw_at(reserved[1], reserved[2])
                if len(noise) < count:
                    noise = np.concatenate([noise, self.draw(count - len(noise))])
            else:
                noise = self.draw(count)
        elif len(noise) < count:
            noise = np.concatenate([noise, self.draw(count - len(noise))])
        else:
            return noise
        self.time_noise, self.time_noise_at = noise, t
        return noise

    def break_tie(self, total: np.ndarray, best: int, activation: float) -> int:
        """The winner among candidates tied at the best activation, drawn at random. With
        noise on, two candidates tie only if their continuous draws coincide exactly, so
        callers check only when s = 0 (a draw from the stream only when there is a tie)."""
        ties = np.flatnonzero(total == activation)
        if len(ties) < 2:
            return best
        if self.skipped:  # the block's tail first, as if drawn with it
            self._draw_skipped()
        self.tail_skippable = False  # a 32-bit draw may leave its other half held
        return int(ties[self.rng.integers(len(ties))])
