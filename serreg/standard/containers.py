"""tuple, set and frozenset (docs/FORMAT.md, section 6.1).

A tuple is written as a msgpack array; a set or frozenset as an array of its
members sorted by their encoded bytes, so a set has one byte form whatever its
iteration order. In untrusted mode a set whose members flood one hash value is
refused before it is built.
"""

from __future__ import annotations

from ..codec.checks import MAX_KEYS_PER_HASH, check_hash_spread, is_untrusted
from ..codec.layout import array_header
from ..result import SerializationResult
from .base import StandardSerializer
from typing import Iterator, Any

__all__ = ["SetSerializer", "TupleSerializer"]


class TupleSerializer(StandardSerializer):
    def serialize(self, obj: tuple[Any, ...]) -> SerializationResult:
        oob: list[Any] = []
        return SerializationResult(self.codec.pack_array(obj, oob), oob)  # an array, never ext 2 (10.3)

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> tuple[Any, ...]:
        return tuple(self.unpack_array(in_band, oob, "tuple"))


class SetSerializer(StandardSerializer):
    """Members sorted by their encoded bytes, so a set has one byte form whatever its iteration order."""

    def __init__(self, codec: Any, kind: type) -> None:
        super().__init__(codec)
        self.kind = kind

    def serialize(self, obj: Any) -> SerializationResult:
        encoded = []
        for member in obj:
            member_oob: list[memoryview] = []
            encoded.append((self.codec.pack(member, member_oob), member_oob))
        encoded.sort(key=lambda pair: pair[0])
        oob = []
        parts = [array_header(len(encoded))]
        for packed, member_oob in encoded:
            parts.append(packed)
            oob.extend(member_oob)
        return SerializationResult(b"".join(parts), oob)

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> Any:
        members = self.unpack_array(in_band, oob, self.kind.__name__)
        if len(members) > MAX_KEYS_PER_HASH and is_untrusted():
            check_hash_spread(members, self.kind.__name__)
        return self.kind(members)
