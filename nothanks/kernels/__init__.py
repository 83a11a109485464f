"""Compiled code (numba): the counter noise stream, the lazy retrieval that reads it, and
the one switch between this engine and the reference (:mod:`.mode`).

This package imports only :mod:`nothanks.rules`: the layers above it (the ACT-R memory, the
ToM-k core, the search) call into it, never the other way. ``compiling.jit`` compiles
with numba (cached on disk) or leaves a function plain Python (no numba, or
``NOTHANKS_REFERENCE=1``): the same results, slowly.
"""
from .mode import ENV, reference, reference_mode

__all__ = ["ENV", "reference", "reference_mode"]
