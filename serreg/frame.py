"""The contiguous frame: one serialization result in one byte string.

Layout (docs/FORMAT.md, section 4; all integers little-endian)::

    magic "SREG" | version | flags | reserved | K | reserved | N | total length
    OOB table: K x (offset, length)
    in-band section (N bytes, starts with the ClassIDHash)
    zero padding, OOB buffer 0, zero padding, OOB buffer 1, ...

Every OOB buffer starts at a 64-byte-aligned offset from the frame start, so a
reader can hand out numpy arrays and Arrow buffers that are views into the
frame.
"""

from __future__ import annotations

import struct
from typing import Iterator, Sequence

from .class_id import CLASS_ID_HASH_SIZE
from .errors import DeserializationError

MAGIC = b"SREG"
FORMAT_VERSION = 1
ALIGNMENT = 64
HEADER = struct.Struct("<4sBBHIIQQ")  # magic, version, flags, reserved, K, reserved, N, total
TABLE_ENTRY = struct.Struct("<QQ")
HEADER_SIZE = HEADER.size  # 32
_ZEROS = bytes(ALIGNMENT)


def _align(n: int) -> int:
    return (n + ALIGNMENT - 1) & ~(ALIGNMENT - 1)


def frame_pieces(in_band_parts: Sequence, buffers: Sequence[memoryview]) -> tuple[list, int]:
    """Return the pieces of a frame, in order, and its total length.

    ``in_band_parts`` are the pieces of the in-band section (the ClassIDHash
    and the serializer in-band); nothing is joined or copied here, so a caller
    can write the pieces one by one (``write_to``) or join them once
    (``to_bytes``).
    """
    in_band_len = sum(map(len, in_band_parts))
    if not buffers:
        end = HEADER_SIZE + in_band_len
        return [HEADER.pack(MAGIC, FORMAT_VERSION, 0, 0, 0, 0, in_band_len, end), *in_band_parts], end
    lengths = [b.nbytes for b in buffers]
    end = HEADER_SIZE + TABLE_ENTRY.size * len(lengths) + in_band_len
    table = bytearray()
    offsets = []
    for length in lengths:
        offset = _align(end)
        offsets.append(offset)
        table += TABLE_ENTRY.pack(offset, length)
        end = offset + length
    header = HEADER.pack(MAGIC, FORMAT_VERSION, 0, 0, len(lengths), 0, in_band_len, end)
    pieces = [header, table, *in_band_parts]
    position = HEADER_SIZE + len(table) + in_band_len
    for buffer, offset in zip(buffers, offsets):
        if offset > position:
            pieces.append(_ZEROS[: offset - position])
        pieces.append(buffer)
        position = offset + buffer.nbytes
    return pieces, end


def frame_length(in_band_len: int, buffer_lengths: Sequence[int]) -> int:
    """The total length of the frame holding an in-band section and these buffers."""
    end = HEADER_SIZE + TABLE_ENTRY.size * len(buffer_lengths) + in_band_len
    for length in buffer_lengths:
        end = _align(end) + length
    return end


def is_frame(data) -> bool:
    """True if ``data`` starts with the frame magic."""
    return bytes(memoryview(data)[:4]) == MAGIC


class FrameView:
    """A parsed frame: views of its in-band section and OOB buffers, no copies.

    The views are slices of the memory the frame was read from, so they are
    writable exactly when that memory is.
    """

    __slots__ = ("version", "in_band_offset", "in_band", "buffers", "buffer_offsets", "total_length")

    def __init__(self, data) -> None:
        view = memoryview(data)
        if view.ndim != 1 or view.itemsize != 1:
            view = view.cast("B")
        size = view.nbytes
        if size < HEADER_SIZE:
            raise DeserializationError(
                f"not a serreg frame: {size} bytes is shorter than the {HEADER_SIZE}-byte header", offset=size
            )
        magic, version, flags, reserved1, count, reserved2, in_band_len, total = HEADER.unpack_from(view, 0)
        if magic != MAGIC:
            raise DeserializationError(f"not a serreg frame: starts with {bytes(magic)!r}, expected {MAGIC!r}", offset=0)
        if version != FORMAT_VERSION:
            raise DeserializationError(
                f"unsupported frame format version {version}; this serreg reads version {FORMAT_VERSION}", offset=4
            )
        if flags != 0:
            raise DeserializationError(f"unknown frame flags 0x{flags:02x}", offset=5)
        if reserved1 or reserved2:
            raise DeserializationError("reserved header fields are not zero", offset=6 if reserved1 else 12)
        if total != size:
            raise DeserializationError(
                f"frame header says the frame is {total} bytes, but {size} bytes were given", offset=24
            )
        table_end = HEADER_SIZE + TABLE_ENTRY.size * count
        if table_end > size:
            raise DeserializationError(
                f"frame declares {count} out-of-band buffers, but their table does not fit in {size} bytes", offset=8
            )
        if in_band_len < CLASS_ID_HASH_SIZE or table_end + in_band_len > size:
            raise DeserializationError(
                f"in-band section length {in_band_len} is invalid for a {size}-byte frame", offset=16
            )
        self.version = version
        self.total_length = total
        self.in_band_offset = table_end
        self.in_band = view[table_end : table_end + in_band_len]
        expected = table_end + in_band_len
        buffers = []
        offsets = []
        for i in range(count):
            offset, length = TABLE_ENTRY.unpack_from(view, HEADER_SIZE + TABLE_ENTRY.size * i)
            if offset != _align(expected):
                raise DeserializationError(
                    f"out-of-band buffer {i} starts at {offset}, expected the 64-byte-aligned offset {_align(expected)}",
                    offset=HEADER_SIZE + TABLE_ENTRY.size * i,
                )
            if length > size - offset:
                raise DeserializationError(
                    f"out-of-band buffer {i} ({length} bytes at offset {offset}) runs past the end of the "
                    f"{size}-byte frame",
                    offset=HEADER_SIZE + TABLE_ENTRY.size * i + 8,
                )
            if any(view[expected:offset]):
                raise DeserializationError(f"padding before out-of-band buffer {i} is not zero", offset=expected)
            buffers.append(view[offset : offset + length])
            offsets.append(offset)
            expected = offset + length
        if expected != size:
            raise DeserializationError(
                f"frame has {size - expected} bytes after its last part", offset=expected
            )
        self.buffers = buffers
        self.buffer_offsets = offsets


def iter_frames(stream) -> Iterator[FrameView]:
    """Read consecutive frames from a binary stream until it ends."""
    while True:
        header = stream.read(HEADER_SIZE)
        if not header:
            return
        if len(header) < HEADER_SIZE:
            raise DeserializationError("stream ends inside a frame header", offset=len(header))
        total = HEADER.unpack(header)[7]
        rest = stream.read(total - HEADER_SIZE) if total > HEADER_SIZE else b""
        data = bytearray(header)
        data += rest
        yield FrameView(data)
