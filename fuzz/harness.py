"""The registry the fuzzer decodes with and the check it applies to each input.

Shared by fuzz_deserialize.py (under atheris) and replay.py (under coverage.py),
so both judge an input the same way.
"""

from __future__ import annotations

import types

import pyarrow

import serreg
import serreg.serializers.numpy
import serreg.serializers.pyarrow
import serreg.standard.dataclass
from inputs import frame_from_input
from serreg.errors import DeserializationError


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


def check_input(registry: serreg.Registry, data: bytes) -> bool:
    """Decode one input; True if it gave a value, False if a DeserializationError.

    Anything else raised is a bug. A decoded value must serialize again (no
    half-built value escapes), except lists nested deeper than the writer's
    limit: msgpack reads 1,024 levels but writes 511 (docs/FORMAT.md 4.3).
    """
    frame = frame_from_input(data)
    if data:
        # Bits 2-3 of the first byte pick what holds the frame: readers take views of it,
        # and which memory they come from changes what serializers do (writable arrays,
        # pyarrow's own buffers).
        holder = (data[0] >> 2) & 3
        if holder == 1:
            frame = bytearray(frame)
        elif holder == 2:
            frame = pyarrow.py_buffer(frame)
        elif holder == 3:
            frame = memoryview(frame)
    try:
        value = registry.deserialize(frame)
    except DeserializationError:
        return False
    try:
        registry.serialize(value)
    except serreg.SerializationError as error:
        if "nested too deeply" not in str(error) and "levels deep" not in str(error):
            raise
    return True
