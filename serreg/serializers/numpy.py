"""numpy.ndarray and numpy scalars (docs/FORMAT.md, sections 6.2 and 6.3).

Arrays travel as [dtype, shape, order] in-band plus one out-of-band buffer
holding the elements as they lie in memory: C- and F-contiguous arrays are
never copied, in one process or from a frame. Data keep their byte order.
"""

from __future__ import annotations


import numpy as np
from msgpack import packb

from ..codec import unpack_plain
from ..errors import DeserializationError
from ..result import SerializationResult
from ..serializer import Serializer
from ..standard import NDARRAY_CLASS_ID, NUMPY_SCALAR_CLASS_IDS

from .numpy_canonical import write_ndarray, write_scalar
from typing import Iterator, Any

__all__ = [
    "NDArraySerializer",
    "NumpyScalarSerializer",
    "register",
]

# Kinds of the standard dtypes: bool, signed and unsigned ints, floats, complex.
STANDARD_KINDS = frozenset("biufc")

# The array-interface strings of section 6.2, checked before numpy parses them: no others (an
# x86 long double, "<f16" or "<c32", is not in the format and Java refuses it).
STANDARD_DTYPES = frozenset(
    ["|b1", "|i1", "|u1"]
    + [f"{order}{kind}{size}" for order in "<>" for kind, size in
       [("i", 2), ("i", 4), ("i", 8), ("u", 2), ("u", 4), ("u", 8), ("f", 2), ("f", 4), ("f", 8), ("c", 8), ("c", 16)]]
)

# numpy's limit on dimensions; a longer shape is refused before its size is computed.
MAX_DIMENSIONS = 64


class NDArraySerializer(Serializer):
    """Zero-copy ndarray serializer.

    Arrays come back read-only when decoded from read-only memory (a bytes
    frame) and writable when decoded from writable memory or in-process from a
    writable array, sharing memory with it. Non-contiguous views are sent as a
    packed C-order copy. Other dtypes (object, structured, datetime64,
    strings) are left to the fallback.
    """

    def accepts(self, array: np.ndarray) -> bool:
        dtype = array.dtype
        return dtype.str in STANDARD_DTYPES and dtype.fields is None and dtype.subdtype is None

    def serialize(self, array: np.ndarray) -> SerializationResult:
        if array.flags.c_contiguous:
            order = "C"
        elif array.flags.f_contiguous:
            order = "F"
        else:
            array = np.ascontiguousarray(array)
            order = "C"
        # ravel(order="K") of a contiguous array is a view: the buffer is the array's memory.
        data = array.ravel(order="K").view(np.uint8)
        meta = packb([array.dtype.str, list(array.shape), order])
        return SerializationResult(meta, [data.data])

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> np.ndarray:
        meta = unpack_plain(in_band)
        if type(meta) is not list or len(meta) != 3:
            raise DeserializationError("ndarray in-band must be [dtype, shape, order]")
        dtype_str, shape, order = meta
        if type(dtype_str) is not str or type(shape) is not list or order not in ("C", "F"):
            raise DeserializationError(f"invalid ndarray header {meta!r}")
        if len(shape) > MAX_DIMENSIONS:
            raise DeserializationError(f"ndarray shape has {len(shape)} dimensions; numpy allows at most {MAX_DIMENSIONS}")
        if any(type(n) is not int or n < 0 for n in shape):
            raise DeserializationError(f"invalid ndarray shape {shape!r}")
        if dtype_str not in STANDARD_DTYPES:
            raise DeserializationError(
                f"ndarray dtype {dtype_str[:40]!r} is not a standard dtype string (docs/FORMAT.md, section 6.2)"
            )
        try:
            dtype = np.dtype(dtype_str)
        except TypeError as error:
            raise DeserializationError(f"unknown ndarray dtype {dtype_str!r}") from error
        if dtype.kind not in STANDARD_KINDS or dtype.str != dtype_str:
            raise DeserializationError(f"ndarray dtype {dtype_str!r} is not a standard dtype")
        count = 1
        for n in shape:
            count *= n
        buffer = next(oob)
        if buffer.nbytes != count * dtype.itemsize:
            raise DeserializationError(
                f"ndarray of shape {tuple(shape)} and dtype {dtype_str} needs {count * dtype.itemsize} bytes, "
                f"but its buffer has {buffer.nbytes}"
            )
        flat = np.frombuffer(buffer, dtype=dtype, count=count)
        return flat.reshape(shape, order=order)

    def serialize_canonical(self, array: np.ndarray) -> SerializationResult:
        return write_ndarray(array)


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
    """Register the ndarray serializer and one serializer per numpy scalar type."""
    registry.register_serializer(NDARRAY_CLASS_ID, np.ndarray, NDArraySerializer())
    for kind in SCALAR_TYPES:
        name = "bool" if kind is np.bool_ else np.dtype(kind).name
        registry.register_serializer(NUMPY_SCALAR_CLASS_IDS[name], kind, NumpyScalarSerializer(kind))
