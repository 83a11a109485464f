"""ACT-R declarative memory (thesis §1.1.2, §3.3).

Chunks, base-level learning, logistic noise, partial matching, retrieval with latency
and inspectable records. Knows nothing of No Thanks!.
Equations, parameters and defaults: docs/actr.md.
"""
from .memory import (
    NOISE_MODES,
    NOISE_STREAMS,
    CurrentTimeReferenceError,
    DeclarativeMemory,
    NoiseMode,
    Parameters,
    recall_probability,
)
from .mismatch import ExactMatch, Linear, MismatchFunction, VectorizedMismatch, Weber
from .records import (
    ActivationComponents,
    CandidateColumns,
    Chunk,
    Retrieval,
    RetrievalRecord,
    SlotValue,
)

__all__ = [
    "NOISE_MODES",
    "NOISE_STREAMS",
    "ActivationComponents",
    "CandidateColumns",
    "Chunk",
    "CurrentTimeReferenceError",
    "DeclarativeMemory",
    "ExactMatch",
    "Linear",
    "MismatchFunction",
    "NoiseMode",
    "Parameters",
    "Retrieval",
    "RetrievalRecord",
    "SlotValue",
    "VectorizedMismatch",
    "Weber",
    "recall_probability",
]
