"""Coverage-guided fuzz target for the Python decoder (atheris).

Whatever bytes reach ``Registry.deserialize`` must give a value or a
DeserializationError; any other exception, a hang or runaway memory is a bug.
The registry runs in untrusted mode (no pickle: unpickling hostile bytes runs
code by design, so it is not the decoder's bug) with the numpy and Arrow
plug-ins loaded; ``SERREG_FUZZ_TRUSTED=1`` fuzzes the trusted path instead.

The first input byte picks whether the rest is a whole frame or an in-band
section plus buffers that are framed correctly first (fuzz/inputs.py).

Run (from the repository root)::

    python fuzz/make_corpus.py fuzz/corpus          # seeds: real frames of every type
    python fuzz/fuzz_deserialize.py fuzz/corpus -max_len=16384 -timeout=10 -rss_limit_mb=4096

With ``SERREG_FUZZ_FINDINGS=DIR`` an unexpected exception is recorded in DIR
(one input per distinct exception type and place) and fuzzing goes on,
instead of stopping at the first one.
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

with atheris.instrument_imports():
    import serreg  # noqa: F401
    import serreg.serializers.numpy  # noqa: F401
    import serreg.serializers.pyarrow  # noqa: F401
    from harness import check_input, make_registry

# SERREG_FUZZ_TRUSTED=1 fuzzes the trusted path instead (see harness.make_registry).
REGISTRY = make_registry(trusted=os.environ.get("SERREG_FUZZ_TRUSTED") == "1")
FINDINGS = os.environ.get("SERREG_FUZZ_FINDINGS")
_seen: set = set()


def decode(data: bytes) -> None:
    check_input(REGISTRY, data)


def test_one_input(data: bytes) -> None:
    if FINDINGS is None:
        decode(data)
        return
    try:
        decode(data)
    except Exception as error:  # recorded, then fuzzing goes on
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


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
