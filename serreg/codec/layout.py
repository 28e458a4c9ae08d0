"""The msgpack pieces of the in-band layout (docs/FORMAT.md, section 3).

A nested value is msgpack ext type 0 whose payload is its ClassIDHash and its
serializer's in-band; serializers that join pre-packed members themselves
(sets, the canonical form) write the container headers with these helpers.
"""

from __future__ import annotations

# The msgpack ext type of a nested value: ClassIDHash + serializer in-band.
NESTED_EXT_TYPE = 0
# The msgpack ext type of a struct instance: [definition index, field values...] (section 10.3).
STRUCT_EXT_TYPE = 1
# The msgpack ext type of a list of struct instances of one definition: [index, count, columns...] (10.3).
STRUCT_LIST_EXT_TYPE = 2

# Top-level bytes at least this long travel out-of-band (docs/FORMAT.md, 6.1; serreg/standard/binary.py).
BYTES_OUT_OF_BAND_THRESHOLD = 65536

# The canonical form's nesting limit (serreg/canonical); deeper values raise a clear SerializationError.
# Frames are written at most serreg.limits.MSGPACK_MAX_NESTING levels deep (docs/FORMAT.md, 4.3).
MAX_NESTING = 511


def array_header(count: int) -> bytes:
    """The msgpack header of an array of ``count`` items."""
    if count < 16:
        return bytes([0x90 | count])
    if count < 2**16:
        return b"\xdc" + count.to_bytes(2, "big")
    return b"\xdd" + count.to_bytes(4, "big")


def map_header(count: int) -> bytes:
    """The msgpack header of a map of ``count`` entries."""
    if count < 16:
        return bytes([0x80 | count])
    if count < 2**16:
        return b"\xde" + count.to_bytes(2, "big")
    return b"\xdf" + count.to_bytes(4, "big")
