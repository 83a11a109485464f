"""nothanks: ACT-R theory-of-mind models playing No Thanks!"""
from .compiled_cache import use_versioned_cache as _use_versioned_cache

__version__ = "0.1.0"

# numba's cache follows the compiled code's sources (docs/architecture.md, "Compiled code")
_use_versioned_cache()
