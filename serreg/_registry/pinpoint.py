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

from typing import Any, Optional

from ..errors import DeserializationError, LimitExceededError, SerializationError
from ..limits import Limits
from ..owned_views import is_released
from ..result import SerializationResult, released
from ..standard import STRUCTS_CLASS_ID
from ..wire.class_id import CLASS_ID_HASH_SIZE, class_id_hash
from ..wire.frame import FrameView
from ..wire.in_band_faults import first_fault

__all__ = ["pinpoint", "raise_refined", "refine_error", "released_input"]

# The codecs' words for a malformed in-band (compiled and pure word them alike). A refusal of a
# well-formed value (an unhashable key, a serializer's own check) keeps the offset it names.
_MALFORMED = ("invalid msgpack in-band data: ", "msgpack ext type ", "nested value of ", "a struct instance (msgpack ext 1) outside",
              "a list of struct instances (msgpack ext 2) outside")
_TOO_DEEP = "msgpack containers are nested more than"
_WELL_FORMED = ("unhashable", "ExtraData")
_ANY_SIZE = Limits(max_frame_size=None, max_buffers=None)
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
