"""Numbers and other single values: int, float, complex, decimal, uuid, and the error frame.

docs/FORMAT.md, section 6.1. An int beyond 64 bits is a bin of its minimal
two's-complement little-endian bytes; a float is always a msgpack float 64; a
decimal is its scientific string.
"""

from __future__ import annotations

import decimal
import struct
import uuid

from msgpack import packb

from ..codec.checks import unpack_plain
from ..errors import DeserializationError, RemoteError, SerializationError
from ..result import SerializationResult
from .base import StandardSerializer, describe_value
from typing import Iterator, Any

__all__ = [
    "MAX_INT_BYTES", "ComplexSerializer", "DecimalSerializer", "FloatSerializer", "IntSerializer",
    "RemoteErrorSerializer", "UUIDSerializer",
]

_MSGPACK_FLOAT64 = 0xCB
_INT_MIN = -(2**63)
_INT_END = 2**64
# The longest big int bin (docs/FORMAT.md, section 6.1): every value of that many bytes fits a Java
# BigInteger (a magnitude under 2**31 bits) and a JavaScript BigInt (under 2**30 bits in V8). Java's
# IntSerializer.MAX_BYTES.
MAX_INT_BYTES = 2**27 - 1


class FloatSerializer(StandardSerializer):
    def serialize(self, obj: float) -> SerializationResult:
        return SerializationResult(packb(obj))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> float:
        if in_band.nbytes != 9 or in_band[0] != _MSGPACK_FLOAT64:
            raise DeserializationError("a float must be a msgpack float 64")
        value: float = struct.unpack_from(">d", in_band, 1)[0]
        return value


class IntSerializer(StandardSerializer):
    """In range: a msgpack int. Beyond 64 bits: bin of minimal two's-complement little-endian bytes."""

    def serialize(self, obj: int) -> SerializationResult:
        if _INT_MIN <= obj < _INT_END:
            return SerializationResult(packb(obj))
        size = ((obj if obj >= 0 else ~obj).bit_length() + 8) // 8
        if size > MAX_INT_BYTES:
            raise SerializationError(f"an int of {size} bytes is longer than a frame may carry ({MAX_INT_BYTES} bytes, "
                                     "docs/FORMAT.md, section 6.1)")
        return SerializationResult(packb(obj.to_bytes(size, "little", signed=True)))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> int:
        value = unpack_plain(in_band)
        if type(value) is int:
            return value
        if type(value) is bytes and value:
            if len(value) > MAX_INT_BYTES:
                raise DeserializationError(f"a big int's bin holds {len(value)} bytes, more than {MAX_INT_BYTES} "
                                           "(docs/FORMAT.md, section 6.1)")
            return int.from_bytes(value, "little", signed=True)
        raise DeserializationError(f"an int must be a msgpack int or bin, got {describe_value(value)}")


class ComplexSerializer(StandardSerializer):
    def serialize(self, obj: complex) -> SerializationResult:
        return SerializationResult(packb([obj.real, obj.imag]))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> complex:
        real, imag = _floats(unpack_plain(in_band), 2, "complex")
        return complex(real, imag)


def _floats(value: Any, count: int, name: str) -> list[Any]:
    if type(value) is not list or len(value) != count or any(type(v) is not float for v in value):
        raise DeserializationError(f"{name} in-band must be an array of {count} floats")
    return value


class DecimalSerializer(StandardSerializer):
    """The scientific string of the General Decimal Arithmetic spec (Python str(), Java BigDecimal.toString())."""

    def serialize(self, obj: decimal.Decimal) -> SerializationResult:
        return SerializationResult(packb(str(obj)))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> decimal.Decimal:
        text = unpack_plain(in_band)
        if type(text) is not str:
            raise DeserializationError("a decimal must be a msgpack str")
        try:
            return decimal.Decimal(text)
        except decimal.InvalidOperation as error:
            raise DeserializationError(f"invalid decimal text {text[:40]!r}") from error


class UUIDSerializer(StandardSerializer):
    def serialize(self, obj: uuid.UUID) -> SerializationResult:
        return SerializationResult(packb(obj.bytes))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> uuid.UUID:
        raw = unpack_plain(in_band)
        if type(raw) is not bytes or len(raw) != 16:
            raise DeserializationError("a uuid must be a 16-byte msgpack bin")
        return uuid.UUID(bytes=raw)


class RemoteErrorSerializer(StandardSerializer):
    """The error frame (docs/FORMAT.md, section 4): deserializing it raises RemoteError."""

    def serialize(self, obj: RemoteError) -> SerializationResult:
        return SerializationResult(packb({"message": obj.message}))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> None:
        value = unpack_plain(in_band)
        message = value.get("message") if type(value) is dict else None
        if type(message) is not str:
            raise DeserializationError("an error frame must hold a map with a str 'message'")
        raise RemoteError(message)
