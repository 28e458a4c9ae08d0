"""Says where a refusal lies: a malformed msgpack's first wrong byte, or the released buffer it met.

The codecs find a malformed in-band (a count or length past the end, a str that is not UTF-8, an
ext type serreg does not use, bytes after the value...) without always knowing where it lies, and
the registry then names the offset where the failing value's section starts. On that error path
only, :func:`pinpoint` walks the frame's in-band (wire/in_band_faults.py) and, when its first fault
lies inside that value, names the fault's offset instead: the first byte that is wrong, as the
Java reader names it (docs/FORMAT.md, section 4.1). :func:`released_input` names the part of
the input to ``deserialize`` that was released, where reading it raised Python's plain ValueError;
:func:`refine_error` is what ``Registry.deserialize`` (and its compiled entry) does with an error.
"""

from __future__ import annotations

import hashlib
from typing import Any, Optional

from ..errors import DeserializationError, LimitExceededError, SerializationError, UntrustedClassIDError
from ..limits import Limits
from ..owned_views import is_released
from ..result import SerializationResult, released
from ..standard import STRUCTS_CLASS_ID
from ..wire.class_id import CLASS_ID_HASH_SIZE, class_id_hash
from ..wire.frame import FrameView
from ..wire.in_band_faults import first_fault

__all__ = ["ValuePrint", "pinpoint", "place_nested_value", "raise_refined", "refine_error", "released_input", "value_print"]

# The codecs' words for a malformed in-band (compiled and pure word them alike). A refusal of a
# well-formed value (an unhashable key, a serializer's own check) keeps the offset it names.
_MALFORMED = ("invalid msgpack in-band data: ", "msgpack ext type ", "nested value of ", "a struct instance (msgpack ext 1) outside",
              "a list of struct instances (msgpack ext 2) outside")
_TOO_DEEP = "msgpack containers are nested more than"
_WELL_FORMED = ("unhashable", "ExtraData")
_ANY_SIZE = Limits(max_frame_size=None, max_buffers=None)
_TOO_DEEP_VALUES = "values are nested more than max_depth="

# A value's ClassIDHash, its in-band's length and digest (DeserializationError.value_print).
ValuePrint = tuple[bytes, int, bytes]
_STRUCTS_HASH = class_id_hash(STRUCTS_CLASS_ID)


def pinpoint(error: DeserializationError, data: Any) -> None:
    """Give ``error`` (raised reading the frame ``data``) the offset of the first fault of the value
    it names, when it refuses a malformed in-band and the walk finds the fault in that value."""
    message = error.message
    if type(error) is LimitExceededError:
        if not message.startswith(_TOO_DEEP):
            return
    elif type(error) is not DeserializationError or not message.startswith(_MALFORMED):
        return
    if any(word in message for word in _WELL_FORMED) or not isinstance(data, (bytes, bytearray, memoryview)):
        return
    try:
        frame = FrameView(data, _ANY_SIZE, None)
    except DeserializationError:
        return
    in_band = frame.in_band
    sections: dict[int, int] = {}
    fault = first_fault(in_band, 0, in_band.nbytes, in_band[:CLASS_ID_HASH_SIZE] == _STRUCTS_HASH, sections)
    if fault is None or (type(error) is LimitExceededError) != fault[1].startswith(_TOO_DEEP):
        return
    if error.offset is not None:
        # The error names a value's section (the codec knew where it starts): the fault must lie in it.
        start = error.offset - frame.in_band_offset
        end = sections.get(start)
        if end is None or not start <= fault[0] <= end:
            return
    # Without an offset (a value nested in another), the fault the codec met is the walk's first:
    # both read the in-band in order and refuse the same malformed msgpack.
    error.offset = frame.in_band_offset + fault[0]


def value_print(class_hash: bytes, in_band: Any) -> Optional[ValuePrint]:
    """What identifies a value that failed where its offset is unknown (on the error path only)."""
    try:
        return (bytes(class_hash), len(memoryview(in_band).cast("B")), hashlib.blake2b(in_band, digest_size=16).digest())
    except (TypeError, ValueError, BufferError):  # an in-band that is no buffer, or a released one
        return None


def place_nested_value(error: DeserializationError, data: Any) -> None:
    """Give ``error``, raised by a value nested in the frame ``data`` whose offset its codec did not
    know, that value's offset: the start of its in-band (plus the serializer's ``in_band_offset``),
    or for ``max_depth`` and the allow-list the start of its section, as Java names them. The value is the first
    nested value in stream order at its nesting level with its ClassIDHash and in-band (one read
    in order fails at the first such value); nothing is named when none is found."""
    printed = error.value_print
    if error.offset is not None or printed is None or not isinstance(data, (bytes, bytearray, memoryview)):
        return
    try:
        frame = FrameView(data, _ANY_SIZE, None)
    except DeserializationError:
        return
    in_band = frame.in_band
    sections: dict[int, int] = {}
    levels: dict[int, int] = {}
    first_fault(in_band, 0, in_band.nbytes, in_band[:CLASS_ID_HASH_SIZE] == _STRUCTS_HASH, sections, levels)
    class_hash, size, digest = printed
    level = len(error.nesting) + 1
    for start, end in sections.items():
        body = start + CLASS_ID_HASH_SIZE
        if (levels.get(start) != level or end - body != size or in_band[start:body] != class_hash
                or hashlib.blake2b(in_band[body:end], digest_size=16).digest() != digest):
            continue
        if isinstance(error, UntrustedClassIDError) or (
            type(error) is LimitExceededError and error.message.startswith(_TOO_DEEP_VALUES)
        ):  # the value as a whole is refused: its section's first byte, its ClassIDHash
            error.offset = frame.in_band_offset + start
        else:
            error.offset = frame.in_band_offset + body + (error.in_band_offset or 0)
        return


def released_input(data: Any) -> Optional[str]:
    """What of the input to ``deserialize`` was released (a memoryview's ``release()``), or None:
    ``"the frame"``, or a part of a serialization result."""
    if isinstance(data, SerializationResult):
        part = released(data)
        return None if part is None else f"the serialization result's {part}"
    return "the frame" if is_released(data) else None


def refine_error(data: Any, error: Exception) -> Exception:
    """The error ``deserialize(data)`` raises when reading ``data`` raised ``error``: a
    DeserializationError located (:func:`pinpoint`), or one naming the released input, or ``error``.
    The compiled entry of ``Registry.deserialize`` calls it too (``bind_registry``)."""
    if isinstance(error, DeserializationError):
        pinpoint(error, data)
        place_nested_value(error, data)
        return error
    if isinstance(error, (ValueError, SerializationError)):
        what = released_input(data)
        if what is not None:
            refined = DeserializationError(f"{what} given to deserialize is a memoryview that was released; nothing was read")
            refined.__cause__ = error
            return refined
    return error


def raise_refined(data: Any, error: Exception) -> None:
    """Raise :func:`refine_error`'s error when it is another one than ``error`` (return otherwise),
    keeping no reference to either in this frame: the traceback holds the frame, and a frame that
    held the error would keep ``data`` (say, a view of shared memory) alive until a garbage collection."""
    refined: Optional[Exception] = refine_error(data, error)
    if refined is error:
        return
    try:
        raise refined from error  # type: ignore[misc]
    finally:
        refined = data = error = None  # type: ignore[assignment]
