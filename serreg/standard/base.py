"""The base of the standard serializers, and the one that writes a value as plain msgpack.

Each standard serializer writes one msgpack value as its in-band. Values
inside containers are written by the shared MsgpackCodec: plain msgpack for
the native types, ext type 0 for the rest.
"""

from __future__ import annotations

from ..errors import DeserializationError
from ..result import SerializationResult
from ..serializer import Serializer
from typing import Iterator, Any

__all__ = ["MsgpackValueSerializer", "StandardSerializer", "describe_value"]


class StandardSerializer(Serializer):
    """Base of the standard serializers.

    ``handled_by_pickle``: pickle already keeps these types exactly, so the
    pickle fallback does not route them through serreg inside pickled objects.
    """

    handled_by_pickle = True

    def __init__(self, codec: Any) -> None:
        self.codec = codec

    def unpack_array(self, in_band: Any, oob: Any, name: str, length: int | None = None) -> list[Any]:
        """The in-band as a msgpack array (of ``length`` items, when given), nested values decoded."""
        value = self.codec.unpack(in_band, oob)
        if type(value) is not list or (length is not None and len(value) != length):
            expected = f"an array of {length}" if length is not None else "an array"
            raise DeserializationError(f"{name} in-band must be {expected}, got {describe_value(value)}")
        return value


def describe_value(value: Any) -> str:
    """What a decoded msgpack value is, for error messages (``an array of 3``, ``a str``)."""
    if type(value) is list:
        return f"an array of {len(value)}"
    return f"a {type(value).__name__}"


class MsgpackValueSerializer(StandardSerializer):
    """None, bool, str, list and dict: the in-band is the value as msgpack.

    ``serialize(obj)`` is exactly ``codec.pack(obj)`` and ``deserialize``
    gives back a value of exactly ``expected_type``, so the registry may call
    the codec itself for these (it is told so when they are installed).
    """

    def __init__(self, codec: Any, expected_type: type) -> None:
        super().__init__(codec)
        self.expected_type = expected_type

    def serialize(self, obj: Any) -> SerializationResult:
        oob: list[Any] = []
        return SerializationResult(self.codec.pack(obj, oob), oob)

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> Any:
        value = self.codec.unpack(in_band, oob)
        if type(value) is not self.expected_type:
            raise DeserializationError(
                f"expected a msgpack {self.expected_type.__name__} value, got {describe_value(value)}"
            )
        return value
