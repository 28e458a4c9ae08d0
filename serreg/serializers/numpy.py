"""numpy.ndarray and numpy scalars (docs/FORMAT.md, sections 6.2 and 6.3).

Arrays travel as [dtype, shape, order] (or [dtype, shape, order, strides,
read_only]) in-band plus one out-of-band buffer holding the elements as they
lie in memory: C- and F-contiguous arrays are never copied, in one process or
from a frame. Data keep their byte order; every dtype of section 6.2.1 (numbers,
datetime64, timedelta64, bytes, str, void, structured) is carried, long doubles
and object arrays are left to the fallback. Masked arrays and the scalars
carried as 0-d arrays are in ``numpy_masked``; the header rules in ``numpy_array``.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional


import numpy as np
from msgpack import packb

from ..codec import unpack_plain
from ..errors import DeserializationError
from ..result import SerializationResult
from ..serializer import Serializer
from ..standard import MASKED_ARRAY_CLASS_ID, NDARRAY_CLASS_ID, NUMPY_GENERIC_CLASS_IDS, NUMPY_SCALAR_CLASS_IDS

from .numpy_canonical import write_ndarray, write_scalar
from .numpy_array import array_from_meta, array_meta, packed_header
from .numpy_dtype import wire_dtype
from .numpy_masked import GENERIC_SCALAR_TYPES, MaskedArraySerializer, NumpyGenericSerializer

__all__ = [
    "NDArraySerializer",
    "NumpyScalarSerializer",
    "register",
]

class NDArraySerializer(Serializer):
    """Zero-copy ndarray serializer (the layout rules are in ``numpy_array``).

    Arrays come back read-only when they were read-only, when decoded from
    read-only memory (a bytes frame), and writable when decoded from writable
    memory or in-process from a writable array, sharing memory with it. Dtypes
    without a wire form (object, long doubles) are left to the fallback.
    """

    leaf = True  # the header and the array's memory: no value inside goes through serreg

    def accepts(self, array: np.ndarray) -> bool:
        return wire_dtype(array.dtype)[0] is not None

    def refusal(self, array: np.ndarray) -> Optional[str]:
        return wire_dtype(array.dtype)[1]

    def serialize(self, array: np.ndarray) -> SerializationResult:
        packed = packed_header(array)
        if packed is not None:
            return SerializationResult(packed[0], [packed[1]])
        meta, data = array_meta(array)
        return SerializationResult(packb(meta), [data])

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> np.ndarray:
        return array_from_meta(unpack_plain(in_band), oob)

    def serialize_canonical(self, array: np.ndarray) -> SerializationResult:
        return write_ndarray(array, wire_dtype(array.dtype)[0])


def _bad(kind: Any, value: Any) -> None:
    raise DeserializationError(f"numpy.{np.dtype(kind).name} in-band holds {type(value).__name__}, not its value")


class NumpyScalarSerializer(Serializer):
    """One numpy scalar type; its width is kept (an int8 comes back an int8)."""

    handled_by_pickle = True  # pickle keeps numpy scalars exactly; no need to route them through serreg

    def __init__(self, kind: type) -> None:
        self.kind = kind
        self.name = np.dtype(kind).name

    def serialize(self, value: Any) -> SerializationResult:
        kind = self.kind
        if kind is np.bool_:
            return SerializationResult(packb(bool(value)))
        if issubclass(kind, np.integer):
            return SerializationResult(packb(int(value)))
        if kind is np.float16:
            return SerializationResult(packb(int(np.asarray(value).view(np.uint16))))
        if kind is np.float32:
            return SerializationResult(b"\xca" + np.asarray(value, dtype=">f4").tobytes())
        if kind is np.float64:
            return SerializationResult(packb(float(value)))
        if kind is np.complex64:
            parts = np.asarray([value.real, value.imag], dtype=">f4").tobytes()
            return SerializationResult(b"\x92\xca" + parts[:4] + b"\xca" + parts[4:])
        return SerializationResult(packb([float(value.real), float(value.imag)]))  # complex128

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> Any:
        kind = self.kind
        raw = bytes(in_band)
        if kind is np.float32:
            if len(raw) != 5 or raw[0] != 0xCA:
                raise DeserializationError("numpy.float32 must be a msgpack float 32")
            return np.frombuffer(raw, dtype=">f4", offset=1)[0].astype(np.float32)
        if kind is np.complex64:
            if len(raw) != 11 or raw[:2] != b"\x92\xca" or raw[6] != 0xCA:
                raise DeserializationError("numpy.complex64 must be an array of two msgpack float 32")
            real = np.frombuffer(raw, dtype=">f4", count=1, offset=2)[0]
            imag = np.frombuffer(raw, dtype=">f4", count=1, offset=7)[0]
            return _complex64(real, imag)
        value = unpack_plain(raw)
        if kind is np.bool_:
            if type(value) is not bool:
                _bad(kind, value)
            return np.bool_(value)
        if issubclass(kind, np.integer):
            if type(value) is not int:
                _bad(kind, value)
            info = np.iinfo(kind)
            if not info.min <= value <= info.max:
                raise DeserializationError(f"{value} is out of range for numpy.{self.name}")
            return kind(value)
        if kind is np.float16:
            if type(value) is not int or not 0 <= value < 65536:
                _bad(kind, value)
            return np.array(value, dtype=np.uint16).view(np.float16)[()]
        if kind is np.float64:
            if raw[0] != 0xCB:
                raise DeserializationError("numpy.float64 must be a msgpack float 64")
            return np.float64(value)
        if type(value) is not list or len(value) != 2 or raw[1] != 0xCB or raw[10] != 0xCB:
            raise DeserializationError("numpy.complex128 must be an array of two msgpack float 64")
        return np.complex128(complex(value[0], value[1]))

    def serialize_canonical(self, value: Any) -> SerializationResult:
        return write_scalar(self.kind, value, self.serialize)


def _complex64(real: Any, imag: Any) -> np.complex64:
    out = np.empty(1, dtype=np.complex64)
    out.real = real
    out.imag = imag
    return np.complex64(out[0])


SCALAR_TYPES = (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128,
)


def register(registry: Any) -> None:
    """Register the ndarray and masked array serializers and one serializer per numpy scalar type."""
    registry.register_serializer(NDARRAY_CLASS_ID, np.ndarray, NDArraySerializer())
    registry.register_serializer(MASKED_ARRAY_CLASS_ID, np.ma.MaskedArray, MaskedArraySerializer())
    for kind in SCALAR_TYPES:
        name = "bool" if kind is np.bool_ else np.dtype(kind).name
        registry.register_serializer(NUMPY_SCALAR_CLASS_IDS[name], kind, NumpyScalarSerializer(kind))
    for generic in GENERIC_SCALAR_TYPES:
        registry.register_serializer(NUMPY_GENERIC_CLASS_IDS[generic.__name__], generic, NumpyGenericSerializer(generic))
