"""The compiler switch: ``jit`` compiles a function with numba (cached on disk), or leaves
it plain Python without numba or with ``NOTHANKS_REFERENCE=1`` (slow but identical).
Shared by the counter stream and the lazy retrieval (:mod:`nothanks.kernels`), the rules
kernel (:mod:`nothanks.search.kernel`, which re-exports both names) and the ToM-k core
(:mod:`nothanks.kernels.tom`)."""
from __future__ import annotations

from .mode import REFERENCE_PROCESS


def _identity(function):
    return function


jit = _identity
#: ``jit`` with NumPy's error model: a float division by zero gives inf or NaN instead of
#: raising, so a loop dividing has no branch per element and vectorizes (for loops whose
#: divisors are never zero: the counter stream's odds).
jit_vectorized = _identity
if not REFERENCE_PROCESS:
    try:
        import numba

        from ..compiled_cache import numba_imported

        numba_imported()  # the command line may say that a first run compiles
        jit = numba.njit(cache=True, nogil=True)
        jit_vectorized = numba.njit(cache=True, nogil=True, error_model="numpy")
    except ImportError:  # the plain-Python path computes the same
        pass

#: Whether ``jit`` compiles.
COMPILED = jit is not _identity
