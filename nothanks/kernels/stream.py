"""The counter noise stream's constants (``nothanks.actr.counter_noise`` states the stream;
``counter`` compiles it). Kept apart from the compiled code so the NumPy reference reads
them without importing numba."""
from __future__ import annotations

import numpy as np

# SplitMix64: the Weyl increment and the finalizer's multipliers
GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
# u = (m + ½) / 2⁵² with m < 2⁵²; 1 − u = (2⁵² − ½ − m) / 2⁵², both exact
HALF_BELOW_2_52 = 4503599627370495.5
# the logarithm: ln x = k·ln 2 + ln(1 + f), 1 + f in [√2/2, √2) (fdlibm's e_log.c)
MANTISSA = 0x000FFFFFFFFFFFFF
TWO_TO_MINUS_52 = 2.220446049250313e-16
SQRT2_MINUS_1 = 0.41421356237309503  # mantissas above it are halved (k + 1)
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10
LG1 = 6.666666666666735130e-01
LG2 = 3.999999999940941908e-01
LG3 = 2.857142874366239149e-01
LG4 = 2.222219843214978396e-01
LG5 = 1.818357216161805012e-01
LG6 = 1.531383769920937332e-01
LG7 = 1.479819860511658591e-01
#: An upper bound on ``|ln(odds)|`` of every draw: 53·ln 2 = 36.7368…, rounded up with
#: room for the logarithm's last-bit error. A draw times s is within ``s ·`` this of 0.
MAX_LN_ODDS = 36.74
#: ln 2 rounded up: ``odds < 2^(e + 1)`` gives ``ln(odds) < (e + 1) · LN2_UP``.
LN2_UP = 0.6931471805599454


