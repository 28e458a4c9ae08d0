"""bytes, bytearray and memoryview (docs/FORMAT.md, section 6.1).

Large bytes and every bytearray and memoryview travel as one out-of-band
buffer: in one process the value comes back as the very object (or a view of
the very memory) that was serialized.
"""

from __future__ import annotations

from typing import Iterator, Any

from msgpack import packb

from ..codec.checks import unpack_plain
from ..codec.layout import BYTES_OUT_OF_BAND_THRESHOLD
from ..errors import DeserializationError, SerializationError
from ..owned_views import RELEASED_VALUE, is_released
from ..result import SerializationResult
from .base import StandardSerializer, describe_value

__all__ = ["ByteArraySerializer", "BytesSerializer", "MemoryViewSerializer", "native_format"]

_MSGPACK_NIL = b"\xc0"


class BytesSerializer(StandardSerializer):
    """Small bytes in-band as msgpack bin; large ones as one out-of-band buffer."""

    leaf = True

    def serialize(self, obj: bytes) -> SerializationResult:
        if len(obj) >= BYTES_OUT_OF_BAND_THRESHOLD:
            return SerializationResult(_MSGPACK_NIL, [memoryview(obj)])
        return SerializationResult(packb(obj, use_bin_type=True))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> bytes:
        if in_band == _MSGPACK_NIL:
            view = next(oob)
            owner = view.obj
            # In one process this is the caller's own bytes object: hand it back, no copy.
            if type(owner) is bytes and len(owner) == view.nbytes:
                return owner
            return view.tobytes()
        value = unpack_plain(in_band)
        if type(value) is not bytes:
            raise DeserializationError(f"bytes must be a msgpack bin, got {describe_value(value)}")
        return value


class ByteArraySerializer(StandardSerializer):
    """Always out-of-band, as in the proposal: in one process the result is the same bytearray."""

    leaf = True

    def serialize(self, obj: bytearray) -> SerializationResult:
        return SerializationResult(_MSGPACK_NIL, [memoryview(obj)])

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> bytearray:
        view = next(oob)
        owner = view.obj
        if type(owner) is bytearray and len(owner) == view.nbytes:
            return owner
        return bytearray(view)


# Buffer formats whose items are pointers to Python objects (numpy's object dtype): never shipped.
_OBJECT_FORMATS = frozenset({"O"})


class MemoryViewSerializer(StandardSerializer):
    """Format, shape and one out-of-band buffer; in one process, a view of the same memory.

    pickle cannot write a memoryview, so inside a pickled value it goes through this serializer.
    """

    handled_by_pickle = False
    leaf = True

    def accepts(self, obj: memoryview) -> bool:
        if is_released(obj):
            return True  # serialize says what is wrong with it
        return len(native_format(obj.format)) == 1

    def serialize(self, obj: memoryview) -> SerializationResult:
        if is_released(obj):
            raise SerializationError(RELEASED_VALUE, value=obj)
        if native_format(obj.format) in _OBJECT_FORMATS:
            raise SerializationError(
                f"a memoryview of format {obj.format!r} holds the addresses of Python objects, not data: serialize "
                "the objects themselves (for a numpy object array, the array)", value=obj,
            )
        if obj.format == "B" and obj.ndim == 1:
            flat = obj
        elif obj.c_contiguous:
            flat = obj.cast("B")
        else:
            flat = memoryview(obj.tobytes())
        meta = [native_format(obj.format), list(obj.shape or ())]
        return SerializationResult(packb(meta), [flat])

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> memoryview:
        meta = unpack_plain(in_band)
        if type(meta) is not list or len(meta) != 2 or type(meta[0]) is not str or type(meta[1]) is not list:
            raise DeserializationError("memoryview in-band must be [format, shape]")
        view = next(oob)
        fmt, shape = meta
        if view.format != "B" or view.ndim != 1:
            view = view.cast("B")
        if fmt == "B" and len(shape) == 1:
            if shape[0] != view.nbytes:
                raise DeserializationError(f"memoryview shape {shape} does not match its {view.nbytes}-byte buffer")
            return view
        return view.cast(fmt, shape)  # type: ignore[return-value]  # typeshed types a cast by its format's item type


def native_format(fmt: str) -> str:
    """A one-character struct format without a native or little-endian prefix (``"<d"`` -> ``"d"``)."""
    return fmt[1:] if fmt[:1] in ("@", "=", "<") and len(fmt) == 2 else fmt
