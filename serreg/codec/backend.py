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
import sys
import warnings

PURE_REQUESTED = os.environ.get("SERREG_PURE_PYTHON", "") not in ("", "0")

COMPILED = not PURE_REQUESTED and importlib.util.find_spec(f"{__package__}._core") is not None

# What ``serreg --version`` and ``serreg registry`` report.
BACKEND = "compiled" if COMPILED else "pure Python"


def _first_caller_outside_serreg() -> int:
    """The ``stacklevel`` of the first frame outside the serreg package (the user's ``import``), so the
    warning points there and not into serreg; frames of the import system do not count, as warnings skips them."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    level, frame = 1, sys._getframe(1).f_back  # level 1: the module that warns (this one's caller)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not ("importlib" in filename and "_bootstrap" in filename):
            level += 1
            if not os.path.abspath(filename).startswith(package):
                return level
        frame = frame.f_back
    return 2


if not COMPILED and not PURE_REQUESTED:
    warnings.warn(
        "serreg's compiled codec is not built (was a C compiler missing when serreg was installed?); "
        "using the pure-Python codec, which is many times slower on small values. Reinstall serreg with a C compiler, "
        "or set SERREG_PURE_PYTHON=1 to choose the pure-Python codec and silence this warning.",
        RuntimeWarning,
        stacklevel=_first_caller_outside_serreg(),
    )
