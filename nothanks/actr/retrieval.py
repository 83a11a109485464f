"""Retrieval: the activation of every candidate, the winner, its latency, the record
(docs/actr.md, "Retrieval, latency, recall probability" and "Retrieval records").

``retrieve`` takes the cheapest path that gives the same result: an exact-match request
(``_retrieve_exact``), the compiled kernel over a kept plan's candidates, or the NumPy path
(always with records; and on the reference, ``nothanks.kernels.reference_mode``). All
of them compute the same additions in the same order, so activations, winners and latencies
are bit-identical (tested in ``tests/integration/agreement/``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from . import kernel as _kernel_module
from . import records as _records
from .matching import Plan, Scored
from .parameters import check_at_least, real_number
from .records import ActivationComponents, Chunk, Retrieval, RetrievalRecord, SlotValue

#: A Retrieval built as the tuple it is, without its generated ``__new__``'s frame.
_new_retrieval = tuple.__new__


def retrieval_latency(factor: float, activation: float) -> float:
    """``F·e^(−A)``, infinite rather than an OverflowError for A below about −709."""
    try:
        return factor * math.exp(-activation)
    except OverflowError:
        return math.inf


def recall_probability(activation: float | np.ndarray, threshold: float,
                       noise: float) -> float | np.ndarray:
    """``1 / (1 + e^(−(A − τ)/s))``: chance that A plus logistic noise of scale s exceeds τ.

    With s = 0 it is a step: 1 if A >= τ (a retrieval at exactly τ succeeds), else 0.
    Accepts arrays of activations.
    """
    s = check_at_least("noise", noise, 0.0, False, "the logistic scale s")
    tau = real_number("threshold", threshold)
    a = np.asarray(activation, dtype=np.float64)
    if s == 0:
        return float(a >= tau) if a.ndim == 0 else (a >= tau).astype(np.float64)
    p = 0.5 * (1.0 + np.tanh((a - tau) / (2.0 * s)))  # the logistic, without overflow
    return float(p) if p.ndim == 0 else p


class Retriever:
    """The retrievals of :class:`~nothanks.actr.DeclarativeMemory` (a part of the memory,
    not a class of its own)."""

    def _init_retrieval(self) -> None:
        """Nothing summed yet (the memory's constructor calls it)."""
        # B + ε of every chunk at the current time, with the B and ε it was summed from
        self._sums_of: tuple[Any, Any, Any] = (None, None, None)

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
        order (a ToM0 state, ``state.state_items``)."""
        return self.retrieve(dict(items))

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

    def _retrieve_exact(self, plan: Plan, offset: float, tau: float) -> Retrieval:
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

    def _evaluate(self, rows: np.ndarray | None, scored: Scored, noise: np.ndarray | None,
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
                scored: Scored, base: np.ndarray, mismatches: list[np.ndarray],
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

    def recall_probability(self, activation: float) -> float:
        """Chance that a chunk of noise-free ``activation`` beats this memory's threshold.

        Uses this memory's retrieval threshold and noise scale.
        """
        return recall_probability(activation, self._retrieval_threshold, self._noise)
