"""Compiled code (numba): the counter noise stream and the lazy retrieval that reads it.

This package imports only :mod:`nothanks.rules`: the layers above it (the ACT-R memory, the
ToM-k core, the search) call into it, never the other way. ``compiling.jit`` compiles
with numba (cached on disk) or leaves a function plain Python (no numba, or
``NOTHANKS_SEARCH_KERNEL=0``): the same results, slowly.
"""
