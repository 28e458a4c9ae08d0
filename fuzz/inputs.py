"""How a fuzz input becomes a frame; shared by the fuzz target and the regression tests.

The first input byte picks how the rest is read:

* even: the rest is a whole frame, handed over as it is;
* 1 (mod 4): byte 1 is a buffer count (mod 4), then a 2-byte little-endian
  length per buffer, the buffers, and the in-band section (ClassIDHash
  first), which are framed correctly, so mutations reach the serializers
  instead of stopping at the frame checks;
* 3 (mod 4): as 1, but byte 1 picks the class ID (from CLASS_IDS) and the
  rest holds only the serializer's in-band, so mutations never spoil the hash.

Bits 2-3 of the first byte pick what holds the frame (bytes, bytearray, a
pyarrow Buffer, a memoryview); see harness.check_input.
"""

from __future__ import annotations

from serreg.result import SerializationResult
from serreg.standard import DATA_CLASS_IDS
from serreg.wire.class_id import class_id_hash

CLASS_IDS = sorted(DATA_CLASS_IDS)
HASHES = [class_id_hash(class_id) for class_id in CLASS_IDS]


def frame_from_input(data: bytes) -> bytes:
    if not data:
        return b""
    if data[0] % 2 == 0:
        return data[1:]
    rest = data[1:]
    prefix = b""
    if data[0] % 4 == 3:
        prefix = HASHES[rest[0] % len(HASHES)] if rest else HASHES[0]
        rest = rest[1:]
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
    return SerializationResult(prefix + rest[position:], buffers).to_bytes()


def input_from_result(result, by_index: bool = False) -> bytes:
    """The structured input holding a serialization result, or b"" if it does not fit.

    ``by_index``: mode 3, the class ID given by its index in CLASS_IDS (b"" if it is not there).
    """
    buffers = [memoryview(b).cast("B").tobytes() for b in result.out_of_band_buffers]
    if len(buffers) > 3 or any(len(b) > 0xFFFF for b in buffers):
        return b""
    section = bytes(result.in_band_buffer)
    if by_index:
        if section[:8] not in HASHES:
            return b""
        parts = [bytes([3, HASHES.index(section[:8]), len(buffers)])]
        section = section[8:]
    else:
        parts = [bytes([1, len(buffers)])]
    parts += [len(b).to_bytes(2, "little") for b in buffers]
    parts += buffers
    parts.append(section)
    return b"".join(parts)
