"""The serializers behind structs: per class, the carrier, and the table (``serreg.structs``).

- :class:`StructSerializer` is registered under a struct's class ID. Inside a
  msgpack document its instances are ext 1 (the codec calls ``write_ext``
  straight from its lookup table); at the top level its in-band is the
  instance array, and the registry puts the table in front.
- :class:`CarrierSerializer` (class ID ``serreg.struct``) writes and reads
  :class:`StructValue` carriers the same way.
- :class:`TableSerializer` (class ID ``serreg.structs``) reads a frame's table,
  then the value after it with the table in scope.
"""

from __future__ import annotations

from ..errors import DeserializationError
from ..result import SerializationResult
from ..serializer import Serializer
from ..wire.class_id import CLASS_ID_HASH_SIZE
from .scope import DECODE_SCOPE, read_instance
from typing import Any

__all__ = ["CarrierSerializer", "StructSerializer", "TableSerializer", "ext_payload"]


def ext_payload(packed: bytes) -> bytes:
    """The payload of the one msgpack ext value ``packed`` (its header stripped)."""
    first = packed[0]
    if 0xD4 <= first <= 0xD8:
        return packed[2:]
    return packed[{0xC7: 3, 0xC8: 4, 0xC9: 6}[first]:]


class _InstanceSerializer(Serializer):
    """Writes one struct value at the top level as its instance array; reads one back."""

    def __init__(self, codec: Any, class_id: str) -> None:
        self.codec = codec
        self.class_id = class_id

    def serialize(self, obj: Any) -> SerializationResult:
        oob: list[Any] = []
        return SerializationResult(ext_payload(self.codec.pack(obj, oob)), oob)

    def deserialize(self, in_band: Any, oob: Any) -> Any:
        if DECODE_SCOPE.get() is None:
            raise DeserializationError(f"a {self.class_id!r} struct outside any struct table (serreg.structs)")
        return read_instance(self.codec.unpack(in_band, oob))


class StructSerializer(_InstanceSerializer):
    """The serializer of one registered struct class; ``write_ext`` is its compiled ext 1 writer."""

    def __init__(self, codec: Any, schema: Any) -> None:
        super().__init__(codec, schema.class_id)
        self.schema = schema
        self.write_ext = schema.write


class CarrierSerializer(_InstanceSerializer):
    """The data carrier's serializer (class ID ``serreg.struct``); ``write_ext`` writes its ext 1."""

    def __init__(self, codec: Any, class_id: str, frames: Any) -> None:
        super().__init__(codec, class_id)
        self.write_ext = frames.write_carrier


class TableSerializer(Serializer):
    """``serreg.structs``: the table, then the value's own section read with the table in scope."""

    def __init__(self, codec: Any, frames: Any, decode_section: Any, class_hashes: Any) -> None:
        self.codec = codec
        self.frames = frames
        self.decode_section = decode_section
        self.class_hashes = class_hashes  # class ID -> ClassIDHash (cached)

    def serialize(self, obj: Any) -> SerializationResult:
        raise TypeError("serreg.structs is written by the registry around a value, never on its own")

    def deserialize(self, in_band: Any, oob: Any) -> Any:
        in_band = memoryview(in_band)
        scope, offset = self.frames.open_table(in_band)
        return self.read_value(scope, in_band[offset:], oob)

    def read_value(self, scope: Any, inner: memoryview, oob: Any) -> Any:
        """The value after a table (its own section ``inner``) read with the table's DecodeScope ``scope``."""
        if inner.nbytes < CLASS_ID_HASH_SIZE:
            raise DeserializationError("the value after the struct table is too short to hold a ClassIDHash")
        token = DECODE_SCOPE.set(scope)
        try:
            class_hash = bytes(inner[:CLASS_ID_HASH_SIZE])
            if any(self.class_hashes(c) == class_hash for c in set(scope.class_ids)):
                items = self.codec.unpack(inner[CLASS_ID_HASH_SIZE:], oob)
                if type(items) is list and items and type(items[0]) is int and 0 <= items[0] < len(scope.class_ids):
                    if self.class_hashes(scope.class_ids[items[0]]) != class_hash:
                        raise DeserializationError(
                            "the top-level struct's ClassIDHash is not the class ID of the definition it names"
                        )
                return read_instance(items)
            return self.decode_section(inner, oob, None)
        finally:
            DECODE_SCOPE.reset(token)

