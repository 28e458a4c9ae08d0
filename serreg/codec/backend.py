"""Which in-band codec runs: the compiled core or its pure-Python twin, picked once at import.

The compiled core (``_core.c``, built by setup.py when a C compiler is there)
and the pure-Python codec (``pure.py``) write the same bytes, read the same
values and raise the same errors; the test suite runs over both.
``SERREG_PURE_PYTHON=1`` forces the pure one. A build without the compiled
core warns once, at import, and uses the pure one.
"""

from __future__ import annotations

import importlib.util
import os
import warnings

PURE_REQUESTED = os.environ.get("SERREG_PURE_PYTHON", "") not in ("", "0")

COMPILED = not PURE_REQUESTED and importlib.util.find_spec(f"{__package__}._core") is not None

# What ``serreg --version`` and ``serreg registry`` report.
BACKEND = "compiled" if COMPILED else "pure Python"

if not COMPILED and not PURE_REQUESTED:
    warnings.warn(
        "serreg's compiled codec is not built (was a C compiler missing when serreg was installed?); "
        "using the pure-Python codec, which is many times slower on small values. Reinstall serreg with a C compiler, "
        "or set SERREG_PURE_PYTHON=1 to choose the pure-Python codec and silence this warning.",
        RuntimeWarning,
        stacklevel=2,
    )
