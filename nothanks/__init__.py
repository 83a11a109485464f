"""nothanks: ACT-R theory-of-mind models playing No Thanks!

Importing the package has no side effects: numba's cache folder is chosen when compiled
code is first loaded (:mod:`nothanks.compiled_cache`).
"""

__version__ = "0.1.0"
