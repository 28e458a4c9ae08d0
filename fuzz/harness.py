"""The registry the fuzzers decode with and the check each target applies to an input.

Shared by the atheris targets (fuzz_*.py, through fuzzing.py) and replay.py
(under coverage.py), so all judge an input the same way. Every check runs its
entry point under the amplification oracle (amplification.py): an input of S
bytes that costs more than 16 x S + 32 MiB of memory or more than linear time
is a finding, like any exception that is not the entry point's own error.
"""

from __future__ import annotations

import types

import numpy as np
import pyarrow

import serreg
import serreg.serializers.numpy
import serreg.serializers.pyarrow
import serreg.standard.dataclass
from amplification import Oracle
from inputs import frame_from_input
from serreg.errors import DeserializationError

ORACLE = Oracle()


def warm_up() -> None:
    """Run every entry point once on ordinary values, so that what libraries set up on first use
    (pyarrow's compute kernels, about 40 MiB; lazily imported writers) is not charged to the
    first fuzz input that happens to need it."""
    table = pyarrow.table({
        "i": pyarrow.array([1, None, 3]), "s": pyarrow.array(["a", None, "c"]),
        "l": pyarrow.array([[1], None, [2, 3]]), "t": pyarrow.array([{"x": 1}, None, {"x": 3}]),
        "m": pyarrow.array([[("k", 1)], None, []], pyarrow.map_(pyarrow.string(), pyarrow.int64())),
        "f": pyarrow.FixedSizeListArray.from_arrays(pyarrow.array([1, 2, 3, 4, 5, 6]), 2,
                                                   mask=pyarrow.array([False, True, False])),
    })
    registry = make_registry(trusted=False)
    for value in (table, {"a": np.arange(5), "b": (1, "x"), "c": {1.5, 2.5}}):
        frame = registry.serialize(value).to_bytes()
        decoded = registry.deserialize(frame)
        registry.serialize(decoded, canonical=True).to_bytes()
        registry.digest(decoded)


def make_registry(trusted: bool) -> serreg.Registry:
    """A registry with the standard types, numpy and Arrow, and no pickle fallback.

    Untrusted (the default) is the hostile-input path. Trusted fuzzes the other
    decode path; there imports of modules a frame names (``serreg.dataclass``)
    are turned into ImportError, so the fuzzer cannot run code by design.
    """
    registry = serreg.Registry(plugins=False, fallback=False, trusted=trusted)
    serreg.serializers.numpy.register(registry)
    serreg.serializers.pyarrow.register(registry)
    if trusted:
        def no_import(name, package=None):
            raise ImportError(f"the fuzz harness imports nothing ({name})")

        serreg.standard.dataclass.importlib = types.SimpleNamespace(import_module=no_import)
    return registry


def holder_of(frame: bytes, data: bytes):
    """Bits 2-3 of the first input byte pick what holds the frame: readers take views of
    it, and which memory they come from changes what serializers do (writable arrays,
    pyarrow's own buffers, the private copy of signed frames)."""
    holder = (data[0] >> 2) & 3 if data else 0
    if holder == 1:
        return bytearray(frame)
    if holder == 2:
        return pyarrow.py_buffer(frame)
    if holder == 3:
        return memoryview(frame)
    return frame


def expect(outcome, *allowed: type):
    """Re-raise ``outcome`` if it is an exception other than the ``allowed`` kinds."""
    if isinstance(outcome, BaseException) and not isinstance(outcome, allowed):
        raise outcome
    return outcome


def write_back(registry: serreg.Registry, value) -> None:
    """A decoded value must serialize again (no half-built value escapes), except lists
    nested deeper than the writer's limit: msgpack reads 1,024 levels but writes 511
    (docs/FORMAT.md 4.3)."""
    try:
        registry.serialize(value)
    except serreg.SerializationError as error:
        if "nested too deeply" not in str(error) and "levels deep" not in str(error):
            raise


def check_input(registry: serreg.Registry, data: bytes) -> bool:
    """Decode one input; True if it gave a value, False if a DeserializationError."""
    frame = holder_of(frame_from_input(data), data)
    outcome = expect(ORACLE.check(len(data), lambda: registry.deserialize(frame), "deserialize"),
                     DeserializationError)
    if isinstance(outcome, DeserializationError):
        return False
    write_back(registry, outcome)
    return True
