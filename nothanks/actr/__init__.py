"""ACT-R declarative memory (thesis §1.1.2, §3.3) and procedural utilities.

Chunks, base-level learning, logistic noise, partial matching, retrieval with latency
and inspectable records; production utilities with noisy conflict resolution and utility
learning (:class:`ProceduralMemory`); blending of instances, IBL style
(:class:`InstanceMemory`). Knows nothing of No Thanks!.
Equations, parameters and defaults: docs/actr.md.
"""
from .blending import (
    CREDIT_SCHEMES,
    Blend,
    BlendingLearner,
    InstanceMemory,
    Similarity,
    assign_credit,
)
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
from .procedural import CLEAR, ProceduralMemory, Selection, UtilityUpdate
from .records import (
    ActivationComponents,
    CandidateColumns,
    Chunk,
    Retrieval,
    RetrievalRecord,
    SlotValue,
)

__all__ = [
    "CLEAR",
    "CREDIT_SCHEMES",
    "NOISE_MODES",
    "NOISE_STREAMS",
    "ActivationComponents",
    "Blend",
    "BlendingLearner",
    "CandidateColumns",
    "Chunk",
    "CurrentTimeReferenceError",
    "DeclarativeMemory",
    "ExactMatch",
    "InstanceMemory",
    "Linear",
    "MismatchFunction",
    "NoiseMode",
    "Parameters",
    "ProceduralMemory",
    "Retrieval",
    "RetrievalRecord",
    "Selection",
    "Similarity",
    "SlotValue",
    "UtilityUpdate",
    "VectorizedMismatch",
    "Weber",
    "assign_credit",
    "recall_probability",
]
