"""Coverage-guided fuzz target for the Python decoder (atheris).

Whatever bytes reach ``Registry.deserialize`` must give a value or a
DeserializationError; any other exception, a hang or runaway memory is a bug.
The registry runs in untrusted mode (no pickle: unpickling hostile bytes runs
code by design, so it is not the decoder's bug) with the numpy and Arrow
plug-ins loaded.

The first input byte picks how the rest is read:

* even: the rest is a whole frame, handed over as it is;
* odd: the rest is an in-band section and up to 3 buffers
  (byte 1 = buffer count, then a 2-byte little-endian length per buffer, the
  buffers, then the in-band section), framed correctly before decoding, so
  mutations reach the serializers instead of stopping at the frame checks.

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
    import serreg
    from serreg.errors import DeserializationError
    from serreg.result import SerializationResult
    import serializers.numpy
    import serializers.pyarrow

REGISTRY = serreg.Registry(plugins=False, trusted=False)
serializers.numpy.register(REGISTRY)
serializers.pyarrow.register(REGISTRY)
FINDINGS = os.environ.get("SERREG_FUZZ_FINDINGS")
_seen: set = set()


def structured_frame(data: bytes) -> bytes:
    """Read byte 1.. as (buffer count, lengths, buffers, in-band) and frame it properly."""
    count = data[0] % 4 if data else 0
    position = 1
    lengths = []
    for _ in range(count):
        lengths.append(int.from_bytes(data[position:position + 2], "little"))
        position += 2
    buffers = []
    for length in lengths:
        buffers.append(memoryview(data[position:position + length]))
        position += length
    return SerializationResult(data[position:], buffers).to_bytes()


def decode(data: bytes) -> None:
    if not data:
        return
    frame = data[1:] if data[0] % 2 == 0 else structured_frame(data[1:])
    try:
        value = REGISTRY.deserialize(frame)
    except DeserializationError:
        return
    # What was decoded must serialize again (no half-built value escapes).
    REGISTRY.serialize(value)


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
