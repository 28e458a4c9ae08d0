"""How a fuzz input becomes a frame; shared by the fuzz target and the regression tests.

The first input byte picks how the rest is read:

* even: the rest is a whole frame, handed over as it is;
* odd: byte 1 is a buffer count (mod 4), then a 2-byte little-endian length
  per buffer, the buffers, and the in-band section (ClassIDHash first), which
  are framed correctly, so mutations reach the serializers instead of
  stopping at the frame checks.
"""

from __future__ import annotations

from serreg.result import SerializationResult


def frame_from_input(data: bytes) -> bytes:
    if not data:
        return b""
    if data[0] % 2 == 0:
        return data[1:]
    rest = data[1:]
    count = rest[0] % 4 if rest else 0
    position = 1
    lengths = []
    for _ in range(count):
        lengths.append(int.from_bytes(rest[position:position + 2], "little"))
        position += 2
    buffers = []
    for length in lengths:
        buffers.append(memoryview(rest[position:position + length]))
        position += length
    return SerializationResult(rest[position:], buffers).to_bytes()


def input_from_result(result) -> bytes:
    """The structured-mode input (first byte 1) holding a serialization result, or b"" if it does not fit."""
    buffers = [memoryview(b).cast("B").tobytes() for b in result.out_of_band_buffers]
    if len(buffers) > 3 or any(len(b) > 0xFFFF for b in buffers):
        return b""
    parts = [bytes([1, len(buffers)])]
    parts += [len(b).to_bytes(2, "little") for b in buffers]
    parts += buffers
    parts.append(bytes(result.in_band_buffer))
    return b"".join(parts)
