"""Runs one fuzz check under atheris, for the fuzz_*.py targets.

``run(check)`` sets atheris up with the command line, instruments serreg (and
the plug-ins) but not the libraries under it, and calls ``check(data)`` for
every input. With ``SERREG_FUZZ_FINDINGS=DIR`` a finding (an unexpected
exception, or an input over the amplification bound) is recorded in DIR (one
input per distinct kind and place) and fuzzing goes on, instead of stopping at
the first one.
"""

from __future__ import annotations

import hashlib
import os
import sys
import traceback

import atheris

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

# Third-party modules are imported first so that only serreg's own code is instrumented.
import msgpack  # noqa: E402,F401
import numpy  # noqa: E402,F401
import pyarrow  # noqa: E402,F401
import cloudpickle  # noqa: E402,F401

# Only serreg and the harness are instrumented: instrumenting whatever they import on the way
# (pandas through an optional plug-in, the standard library) took a quarter of an hour per target
# on a busy machine and pointed the fuzzer at code that is not ours.
HARNESS_MODULES = ["serreg", "targets", "harness", "inputs", "amplification"]

with atheris.instrument_imports(include=["serreg"]):
    import serreg  # noqa: F401
    import serreg.cas  # noqa: F401
    import serreg.inspection  # noqa: F401
    import serreg.cli.inspect  # noqa: F401
    import serreg.serializers.numpy  # noqa: F401
    import serreg.serializers.pyarrow  # noqa: F401
    import serreg.serializers.numpy_canonical  # noqa: F401
    import serreg.serializers.pyarrow_canonical  # noqa: F401

FINDINGS = os.environ.get("SERREG_FUZZ_FINDINGS")
_seen: set = set()


def _record(data: bytes, error: BaseException) -> None:
    where = traceback.extract_tb(error.__traceback__)[-1]
    signature = f"{type(error).__name__} at {os.path.basename(where.filename)}:{where.lineno}"
    if signature in _seen:
        return
    _seen.add(signature)
    os.makedirs(FINDINGS, exist_ok=True)
    name = hashlib.sha1(signature.encode()).hexdigest()[:12]
    with open(os.path.join(FINDINGS, name), "wb") as f:
        f.write(data)
    with open(os.path.join(FINDINGS, name + ".txt"), "w") as f:
        f.write(f"{signature}\n{type(error).__name__}: {str(error)[:2000]}\n\n")
        f.write("".join(traceback.format_exception(error)))
    print(f"\n=== finding: {signature}: {str(error)[:200]}", file=sys.stderr, flush=True)


def run(check) -> None:
    def test_one_input(data: bytes) -> None:
        if FINDINGS is None:
            check(data)
            return
        try:
            check(data)
        except Exception as error:  # recorded, then fuzzing goes on
            _record(data, error)

    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
