"""The contiguous frame: one serialization result in one byte string.

Layout (docs/FORMAT.md, section 4; all integers little-endian)::

    magic "SREG" | version | flags | reserved | K | reserved | N | total length
    OOB table: K x (offset, length)
    in-band section (N bytes, starts with the ClassIDHash)
    zero padding, OOB buffer 0, zero padding, OOB buffer 1, ...

Every OOB buffer starts at a 64-byte-aligned offset from the frame start, so a
reader can hand out numpy arrays and Arrow buffers that are views into the
frame. A signed frame (flag bit 0x02) ends with a 32-byte HMAC-SHA256 trailer;
a reader given a key checks and decodes a private copy of the frame unless it
is an immutable ``bytes`` (another process could change shared memory between
the check and the decoding).

Reading checks the whole layout once per frame, against :class:`Limits`,
before any in-band byte is decoded: a frame that fails is rejected with the
byte offset of the field at fault.
"""

from __future__ import annotations

import os
import struct
from typing import Any, Iterator, Optional, Sequence

from ..errors import DeserializationError, LimitExceededError
from ..limits import DEFAULT_LIMITS, Limits
from .class_id import CLASS_ID_HASH_SIZE
from .signing import FLAG_SIGNED, FLAG_SIGNED_V1, SIGNATURE_SIZE, private_copy, refuse_v1, require_signed, sign, verify

MAGIC = b"SREG"
FORMAT_VERSION = 1
ALIGNMENT = 64
HEADER = struct.Struct("<4sBBHIIQQ")  # magic, version, flags, reserved, K, reserved, N, total
TABLE_ENTRY = struct.Struct("<QQ")
HEADER_SIZE = HEADER.size  # 32
_ZEROS = bytes(ALIGNMENT)


def _align(n: int) -> int:
    return (n + ALIGNMENT - 1) & ~(ALIGNMENT - 1)


def frame_pieces(in_band_parts: Sequence[Any], buffers: Sequence[memoryview], key: Optional[bytes] = None) -> tuple[list[Any], int]:
    """Return the pieces of a frame, in order, and its total length.

    ``in_band_parts`` are the pieces of the in-band section (the ClassIDHash
    and the serializer in-band); nothing is joined or copied here, so a caller
    can write the pieces one by one (``write_to``) or join them once
    (``to_bytes``). With a ``key`` the frame is signed: flag bit 0x02 is set
    and the last piece is the HMAC-SHA256 trailer over all the others.
    """
    in_band_len = sum(map(len, in_band_parts))
    if not buffers and key is None:
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
    flags = 0 if key is None else FLAG_SIGNED
    total = end if key is None else end + SIGNATURE_SIZE
    header = HEADER.pack(MAGIC, FORMAT_VERSION, flags, 0, len(lengths), 0, in_band_len, total)
    pieces = [header, table, *in_band_parts]
    position = HEADER_SIZE + len(table) + in_band_len
    for buffer, offset in zip(buffers, offsets):
        if offset > position:
            pieces.append(_ZEROS[: offset - position])
        pieces.append(buffer)
        position = offset + buffer.nbytes
    if key is not None:
        pieces.append(sign(key, pieces))
    return pieces, total


def frame_length(in_band_len: int, buffer_lengths: Sequence[int], signed: bool = False) -> int:
    """The total length of the frame holding an in-band section and these buffers."""
    end = HEADER_SIZE + TABLE_ENTRY.size * len(buffer_lengths) + in_band_len
    for length in buffer_lengths:
        end = _align(end) + length
    return end + SIGNATURE_SIZE if signed else end


def is_frame(data: Any) -> bool:
    """True if ``data`` starts with the frame magic."""
    return bytes(memoryview(data)[:4]) == MAGIC


class FrameView:
    """A parsed frame: views of its in-band section and OOB buffers, no copies.

    The views are slices of the memory the frame was read from, so they are
    writable exactly when that memory is. With a ``key`` the frame must be
    signed with it; the signature is checked before anything else is parsed,
    on a private copy of the frame unless ``data`` is an immutable ``bytes``
    (or ``owned``: the caller made ``data`` and no one else holds it), and the
    views are then slices of that copy: the bytes checked are the bytes decoded.
    ``signed`` tells whether the frame carried a signature (checked or not).
    """

    __slots__ = ("version", "in_band_offset", "in_band", "buffers", "buffer_offsets", "total_length", "signed")

    def __init__(self, data: Any, limits: Limits = DEFAULT_LIMITS, key: Optional[bytes] = None, owned: bool = False) -> None:
        try:
            view = memoryview(data)
        except TypeError:
            raise DeserializationError(_not_a_frame(data)) from None
        if not view.c_contiguous:  # a strided view of bytes too
            raise DeserializationError(
                "a frame must be one contiguous run of bytes (bytes, bytearray, mmap, a contiguous "
                "memoryview); copy a strided view first, e.g. with bytes(view)"
            )
        if view.ndim != 1 or view.itemsize != 1:
            view = view.cast("B")
        size = view.nbytes
        if key is not None and not owned:
            check_frame_size(size, limits)  # before copying: the size given, not one a header claims
            private = private_copy(data, view, size)
            if private is not data:
                view = memoryview(private)
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
        if reserved1 or reserved2:
            raise DeserializationError("reserved header fields are not zero", offset=6 if reserved1 else 12)
        max_size = limits.max_frame_size
        if max_size is not None and (total > max_size or size > max_size):
            check_frame_size(max(total, size), limits)
        if total != size:
            raise DeserializationError(
                f"frame header says the frame is {total} bytes, but {size} bytes were given", offset=24
            )
        end = size
        signed = False
        if flags or key is not None:
            if flags & FLAG_SIGNED_V1:
                raise refuse_v1()
            if flags & ~FLAG_SIGNED:
                raise DeserializationError(
                    f"unknown frame flags 0x{flags & ~FLAG_SIGNED:02x}; this serreg knows only 0x02 (signed)", offset=5
                )
            signed = bool(flags & FLAG_SIGNED)
            if key is not None:
                require_signed(signed)
            if signed:
                end = size - SIGNATURE_SIZE
                if end < HEADER_SIZE:
                    raise DeserializationError(
                        f"a signed frame needs a {SIGNATURE_SIZE}-byte signature after its header; "
                        f"{size} bytes is too short",
                        offset=size,
                    )
                if key is not None:
                    verify(key, view, end)
        max_buffers = limits.max_buffers
        if max_buffers is not None and count > max_buffers:
            raise LimitExceededError(
                f"frame declares {count} out-of-band buffers, more than max_buffers={max_buffers}; "
                "raise it with serreg.Limits(max_buffers=...) if such frames are expected",
                offset=8,
            )
        table_end = HEADER_SIZE + TABLE_ENTRY.size * count
        if table_end > end:
            raise DeserializationError(
                f"frame declares {count} out-of-band buffers, but their table does not fit in {end} bytes", offset=8
            )
        if in_band_len < CLASS_ID_HASH_SIZE or table_end + in_band_len > end:
            raise DeserializationError(
                f"in-band section length {in_band_len} is invalid for a frame whose table ends at {table_end} "
                f"and whose parts end at {end}",
                offset=16,
            )
        self.version = version
        self.total_length = total
        self.signed = signed
        self.in_band_offset = table_end
        self.in_band = view[table_end : table_end + in_band_len]
        expected = table_end + in_band_len
        buffers = []
        offsets = []
        for i in range(count):
            offset, length = TABLE_ENTRY.unpack_from(view, HEADER_SIZE + TABLE_ENTRY.size * i)
            if offset != _align(expected):
                raise DeserializationError(
                    f"out-of-band buffer {i} starts at {offset}, expected the 64-byte-aligned offset {_align(expected)} "
                    "(buffers follow each other in order, without overlap)",
                    offset=HEADER_SIZE + TABLE_ENTRY.size * i,
                )
            if length > end - offset:
                raise DeserializationError(
                    f"out-of-band buffer {i} ({length} bytes at offset {offset}) runs past the end of the "
                    f"frame's parts at {end}",
                    offset=HEADER_SIZE + TABLE_ENTRY.size * i + 8,
                )
            if any(view[expected:offset]):
                raise DeserializationError(f"padding before out-of-band buffer {i} is not zero", offset=expected)
            buffers.append(view[offset : offset + length])
            offsets.append(offset)
            expected = offset + length
        if expected != end:
            raise DeserializationError(
                f"frame has {end - expected} bytes after its last part", offset=expected
            )
        self.buffers = buffers
        self.buffer_offsets = offsets


def check_frame_size(size: int, limits: Limits) -> None:
    if limits.max_frame_size is not None and size > limits.max_frame_size:
        raise LimitExceededError(
            f"frame of {size} bytes is larger than max_frame_size={limits.max_frame_size}; raise it with "
            "serreg.Limits(max_frame_size=...) if such frames are expected",
            offset=24,
        )


def _not_a_frame(data: Any) -> str:
    """Why ``data``, which exports no buffer, is not a frame, and what to pass instead."""
    kind = type(data)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    hint = ""
    if isinstance(data, str):
        hint = " (a str is text: a frame is the bytes to_bytes() returns; for a frame file, serreg.load(path))"
    elif hasattr(data, "read"):
        hint = " (a file object: pass its bytes, f.read(), or read its frames with serreg.wire.frame.iter_frames(f))"
    return (f"not a serreg frame: expected bytes, bytearray, memoryview, mmap (any contiguous buffer) or a "
            f"SerializationResult, got {name}{hint}")


# Stream reads grow the frame as its bytes arrive, never by what a header claims.
_READ_CHUNK = 1 << 24


def read_frame_bytes(stream: Any, limits: Limits = DEFAULT_LIMITS) -> Optional[bytearray]:
    """Read one whole frame from a binary stream; None at a clean end of the stream.

    The declared length is checked against ``limits.max_frame_size`` first,
    and memory grows only with the bytes actually received, so a header that
    claims a huge frame costs nothing.
    """
    header = stream.read(HEADER_SIZE)
    if not header:
        return None
    if len(header) < HEADER_SIZE:
        raise DeserializationError("stream ends inside a frame header", offset=len(header))
    magic = header[:4]
    if magic != MAGIC:
        raise DeserializationError(f"not a serreg frame: starts with {bytes(magic)!r}, expected {MAGIC!r}", offset=0)
    total = HEADER.unpack(header)[7]
    check_frame_size(total, limits)
    data = bytearray(header)
    while len(data) < total:
        chunk = stream.read(min(total - len(data), _READ_CHUNK))
        if not chunk:
            raise DeserializationError(
                f"stream ends after {len(data)} bytes of a frame whose header says {total}", offset=len(data)
            )
        data += chunk
    return data


def iter_frames(stream: Any, limits: Limits = DEFAULT_LIMITS, key: Optional[bytes] = None) -> Iterator[FrameView]:
    """Read consecutive frames from a binary stream until it ends."""
    while True:
        data = read_frame_bytes(stream, limits)
        if data is None:
            return
        yield FrameView(data, limits, key, owned=True)  # read_frame_bytes made it: no one else holds it


def join_frame_python(in_band_parts: list[Any], buffers: list[Any]) -> bytes:
    """The unsigned frame of an in-band section's pieces and 1-d byte buffers, as one bytes object."""
    pieces, _ = frame_pieces(in_band_parts, buffers)
    return b"".join(pieces)


def join_section_python(class_hash: Any, in_band: Any) -> bytes:
    """The unsigned frame, without out-of-band buffers, of an in-band section in two pieces
    (the ClassIDHash and the rest, each None or bytes-like), as one bytes object."""
    parts = [part for part in (class_hash, in_band) if part is not None]
    return join_frame_python(parts, [])


def parse_frame_python(
    data: Any, max_frame_size: Optional[int], max_buffers: Optional[int]
) -> Optional[tuple[int, int, tuple[tuple[int, int], ...]]]:
    """(in-band offset, in-band length, ((buffer offset, length), ...)) of a valid unsigned frame
    of bytes or bytearray within the limits; None for anything else (FrameView says what is wrong)."""
    try:
        frame = FrameView(data, Limits(max_frame_size=max_frame_size, max_buffers=max_buffers))
    except DeserializationError:
        return None
    if frame.signed:
        return None
    lengths = (buffer.nbytes for buffer in frame.buffers)
    return frame.in_band_offset, frame.in_band.nbytes, tuple(zip(frame.buffer_offsets, lengths))


# The compiled twins (_frame.c) give the same answers; SERREG_PURE_PYTHON=1 picks these.
try:
    if os.environ.get("SERREG_PURE_PYTHON", "") not in ("", "0"):
        raise ImportError("pure Python requested")
    from ._frame import join_frame as join_frame
    from ._frame import join_section as join_section
    from ._frame import parse_frame as parse_frame
    from ._frame import to_bytes_descriptor
    from ._frame import track as track

    COMPILED = True
except ImportError:
    join_frame, join_section, parse_frame = join_frame_python, join_section_python, parse_frame_python
    COMPILED = False

    def track(obj: object, /) -> None:
        """The compiled twin lets the garbage collector see a result the compiled codec left untracked; a
        pure-Python build has none (the codec leaves results untracked only when this twin is compiled)."""


def compile_to_bytes(cls: type) -> None:
    """Make ``cls.to_bytes`` (``SerializationResult``'s) a C method of ``cls``, which the interpreter calls
    directly: compiled, the frame of a result without key or buffers is written (or was, by the codec)
    in C with no Python frame (``_frame.c``), and anything else calls the Python method, the one ``cls``
    was given; with the pure backend the Python method stays."""
    if COMPILED:
        setattr(cls, "to_bytes", to_bytes_descriptor(cls, cls.__dict__["to_bytes"]))
