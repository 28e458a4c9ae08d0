"""Python-only types used by the golden vectors and the cross-language tests.

They live in an importable module so pickle refers to them by name
(``python_only_types.PythonOnly``), never by value with file paths inside.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgpack
import numpy as np

import serreg


@dataclass(frozen=True)
class PythonOnly:
    """A class only pickle can serialize: Java must keep it opaque."""

    name: str
    numbers: tuple


@dataclass
class Holder:
    """A pickled value holding an ndarray, whose data travels as a pickle out-of-band buffer."""

    array: np.ndarray

    def __eq__(self, other):
        return type(other) is Holder and np.array_equal(self.array, other.array)


class Unshared:
    """Registered under a class ID Java does not know."""

    def __init__(self, payload: bytes):
        self.payload = payload

    def __eq__(self, other):
        return type(other) is Unshared and other.payload == self.payload


class UnsharedSerializer(serreg.Serializer):
    def serialize(self, value):
        return serreg.SerializationResult(msgpack.packb(value.payload), [memoryview(b"oob-" + value.payload)])

    def deserialize(self, in_band, oob):
        next(oob)
        return Unshared(msgpack.unpackb(in_band))


UNSHARED_CLASS_ID = "python.only.Unshared"
