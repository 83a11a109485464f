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
from .base_level import BaseLevels
from .matching import Plan, RequestMatching, Scored
from .noise import NoiseSource
from .parameters import check_at_least, real_number
from .records import ActivationComponents, Chunk, Retrieval, RetrievalRecord, SlotValue
from .store import ChunkStore

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
    """Retrievals over a memory's parts: the candidates and scores of ``matching``, the
    base levels of ``base_levels``, the noise of ``noise``, the chunks of ``store``.

    ``threshold`` (τ) and ``latency_factor`` (F) are the retrieval's own parameters,
    checked by the memory that sets them. The model time is the caller's: every method
    that needs it takes it.
    """

    def __init__(self, store: ChunkStore, base_levels: BaseLevels, noise: NoiseSource,
                 matching: RequestMatching, *, threshold: float, latency_factor: float):
        self.store = store
        self.base_levels = base_levels
        self.noise = noise
        self.matching = matching
        self.threshold = threshold
        self.latency_factor = latency_factor
        self.forget()

    def forget(self) -> None:
        """Drop the kept sums (the store was replaced)."""
        # B + ε of every chunk at the current time, with the B and ε it was summed from
        self._sums_of: tuple[Any, Any, Any] = (None, None, None)

    def retrieve(self, request: Mapping[str, SlotValue], t: float, offset: float,
                 threshold: float | None, record: bool) -> Retrieval:
        """``DeclarativeMemory.retrieve`` at model time ``t`` (which states the contract)."""
        tau = self.threshold if threshold is None else real_number("threshold", threshold)
        if offset:
            offset = real_number("offset", offset)
        matching = self.matching
        plan = split = None
        kernels = None if record or type(request) is not dict else _kernel_module.kernels()
        if kernels is not None:
            try:
                key = tuple(request.items())
                plan = matching.plans.get(key)
            except TypeError:  # an unhashable value: split reports it
                key = None
            plan, split = matching.plan(request, key, plan)
            if plan is not None and not plan.scored:
                return self._retrieve_exact(plan, t, offset, tau)
        if plan is not None:
            rows, scored, compiled = plan.rows.view(), plan.scored, plan.scores
        else:
            rows, scored = split or matching.split(request)
            compiled = None if record else matching.compiled_scores(scored)
        chunks = self.store.chunks
        count = len(chunks) if rows is None else len(rows)
        noise_source = self.noise
        if count == 0:
            latency = retrieval_latency(self.latency_factor, tau)
            trace = (RetrievalRecord(MappingProxyType(dict(request)), t, tau,
                                     noise_source.mode, None, None, latency)
                     if record else None)
            return Retrieval(None, None, latency, trace)

        noise = None
        per_time = noise_source.mode == "per_time"
        if noise_source.scale > 0:
            noise = (noise_source.now(t, len(chunks)) if per_time
                     else noise_source.draw(count))
        if compiled is not None:
            total, best = self._evaluate_compiled(rows, count, compiled, noise, offset, t)
        else:
            if noise is not None and rows is not None and per_time:
                noise = noise[rows]
            base, mismatches, total = self._evaluate(rows, scored, noise, offset, t)
            best = int(total.argmax())
        activation = float(total[best])
        if activation >= tau:
            if noise is None:
                best = noise_source.break_tie(total, best, activation)
            winner = chunks[best if rows is None else int(rows[best])]
            latency = retrieval_latency(self.latency_factor, activation)
        else:
            winner = None
            latency = retrieval_latency(self.latency_factor, tau)
        trace = None
        if record:
            trace = self._record(request, t, tau, rows, scored, base, mismatches, noise,
                                 offset, total, winner, latency)
        return Retrieval(winner, activation, latency, trace)

    def activation(self, chunk: Mapping[str, SlotValue], request: Mapping[str, SlotValue],
                   t: float, offset: float) -> ActivationComponents:
        """``DeclarativeMemory.activation`` at model time ``t`` (which states the
        contract)."""
        store, matching, noise_source = self.store, self.matching, self.noise
        row = store.row(chunk)
        offset = real_number("offset", offset) if offset else 0.0
        chunk = store.chunks[row]
        rows, scored = matching.split(request)
        if rows is not None and row not in rows:
            reasons = [f"lacks slot {slot!r}" if slot not in chunk
                       else f"has {slot}={chunk[slot]!r} where the request needs {value!r} "
                       f"exactly" for slot, value in request.items()
                       if slot not in chunk or (slot not in matching.functions
                                                and chunk[slot] != value)]
            raise ValueError(f"{chunk!r} is not a candidate for {dict(request)!r}: "
                             f"{'; '.join(reasons)}")
        only = np.array([row])
        noise = None
        if noise_source.scale > 0 and noise_source.mode == "per_time":
            noise = noise_source.now(t, len(store.chunks))[only]
        base, mismatches, total = self._evaluate(only, scored, noise, offset, t)
        return ActivationComponents(
            chunk=chunk, base_level=float(base[0]),
            mismatch={slot: float(m[0]) * matching.penalty + 0.0
                      for (slot, *_), m in zip(scored, mismatches, strict=True)},
            offset=offset, noise=0.0 if noise is None else float(noise[0]),
            activation=float(total[0]))

    def _retrieve_exact(self, plan: Plan, t: float, offset: float, tau: float) -> Retrieval:
        """A retrieval whose request has only exact-match slots (the token memory's):
        no mismatch to add, so each candidate's activation is ``(B + ε) + offset``.

        In per_time mode ``B + ε`` of every chunk is computed once per model time and
        shared by every such retrieval until the clock moves or a chunk arrives; the
        same additions, in the same order, as the kernel and the NumPy path.
        """
        rows = plan.rows.view()
        count = len(rows)
        if count == 0:
            return Retrieval(None, None, retrieval_latency(self.latency_factor, tau))
        store, base_levels, noise_source = self.store, self.base_levels, self.noise
        chunks = store.chunks
        per_time = noise_source.mode == "per_time"
        if per_time and noise_source.scale > 0 and base_levels.single_references(t):
            # one compiled pass over the candidates: B from its reference time's log
            # strength, plus its per-time noise, plus the offset (the same additions)
            best, activation = _kernel_module.kernels().exact_best(
                base_levels.log_strengths(t), store.node_time.view(), store.node_of.view(),
                rows, noise_source.now(t, len(chunks)), float(offset))
            if activation >= tau:
                return Retrieval(chunks[int(rows[best])], activation,
                                 retrieval_latency(self.latency_factor, activation))
            return Retrieval(None, activation, retrieval_latency(self.latency_factor, tau))
        noise = None
        if noise_source.scale > 0:
            noise = noise_source.now(t, len(chunks)) if per_time else noise_source.draw(count)
        base = base_levels.at(t)
        if base_levels.undefined:
            candidates = base[rows]
            if np.isinf(candidates).any():
                base_levels.raise_current_time_reference(rows, candidates, t)
        if noise is None:
            total = base[rows]
        elif per_time:
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
                best = noise_source.break_tie(total, best, activation)
            return Retrieval(chunks[int(rows[best])], activation,
                             retrieval_latency(self.latency_factor, activation))
        return Retrieval(None, activation, retrieval_latency(self.latency_factor, tau))

    def _evaluate(self, rows: np.ndarray | None, scored: Scored, noise: np.ndarray | None,
                  offset: float, t: float
                  ) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
        """Base levels, per-slot mismatches (not yet times MP) and total activations.

        The total is ``base + noise + offset + MP·Σ mismatch``: summing before scaling
        saves one numpy pass per slot. Records scale each slot separately, so their
        components add up to the total up to floating-point rounding.
        """
        base_levels = self.base_levels
        base = base_levels.at(t)
        if rows is not None:
            base = base[rows]
        if base_levels.undefined and np.isinf(base).any():
            base_levels.raise_current_time_reference(rows, base, t)
        total = base + noise if noise is not None else base.copy()
        if offset:
            total += offset
        score_slot = self.matching.score_slot
        mismatches = [score_slot(slot, value, column, rows, fn)
                      for slot, value, column, fn in scored]
        if mismatches:
            penalty = self.matching.penalty
            summed = mismatches[0] * penalty if len(mismatches) == 1 else None
            if summed is None:
                summed = mismatches[0] + mismatches[1]
                for mismatch in mismatches[2:]:
                    summed += mismatch
                summed *= penalty
            total += summed
        return base, mismatches, total

    def _evaluate_compiled(self, rows: np.ndarray | None, count: int,
                           scores: tuple[np.ndarray, ...], noise: np.ndarray | None,
                           offset: float, t: float) -> tuple[np.ndarray, int]:
        """Candidate activations in one compiled pass, and the first best index (the
        kernel's own search for small sets, else NumPy's argmax: bit-identical to
        ``_evaluate`` followed by ``argmax``)."""
        base_levels = self.base_levels
        base = base_levels.at(t)
        if base_levels.undefined:
            candidates = base if rows is None else base[rows]
            if np.isinf(candidates).any():
                base_levels.raise_current_time_reference(rows, candidates, t)
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
            len(scores), self.matching.penalty, total)
        return total, best if best >= 0 else int(total.argmax())

    def _record(self, request: Mapping[str, SlotValue], t: float, tau: float,
                rows: np.ndarray | None, scored: Scored, base: np.ndarray,
                mismatches: list[np.ndarray], noise: np.ndarray | None, offset: float,
                total: np.ndarray, winner: Chunk | None, latency: float) -> RetrievalRecord:
        """The retrieval's record: its candidates' components as copied columns (the
        per-candidate ``ActivationComponents`` are built only if someone reads them)."""
        all_chunks = self.store.chunks
        chunks = (tuple(all_chunks) if rows is None
                  else [all_chunks[r] for r in rows.tolist()])
        penalty = self.matching.penalty
        columns = _records.CandidateColumns(
            chunks=chunks, base_level=base.copy(),
            mismatch={slot: m * penalty + 0.0  # + 0.0: no -0.0
                      for (slot, *_), m in zip(scored, mismatches, strict=True)},
            offset=offset, noise=None if noise is None else noise.copy(), activation=total)
        return RetrievalRecord(request=MappingProxyType(dict(request)), time=t,
                               threshold=tau, noise_mode=self.noise.mode, columns=columns,
                               winner=winner, latency=latency)
