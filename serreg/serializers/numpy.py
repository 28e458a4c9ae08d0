"""numpy.ndarray and numpy scalars (docs/FORMAT.md, sections 6.2 and 6.3).

Arrays travel as [dtype, shape, order] in-band plus one out-of-band buffer
holding the elements as they lie in memory: C- and F-contiguous arrays are
never copied, in one process or from a frame. Data keep their byte order.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from msgpack import packb

from ..codec import unpack_plain
from ..errors import DeserializationError
from ..result import SerializationResult
from ..serializer import Serializer
from ..standard import NDARRAY_CLASS_ID, NUMPY_SCALAR_CLASS_IDS

from .numpy_canonical import write_ndarray, write_scalar
from .numpy_dtype import parse_dtype, wire_dtype

__all__ = [
    "NDArraySerializer",
    "NumpyScalarSerializer",
    "register",
]

# numpy's limit on dimensions; a longer shape is refused before its size is computed.
MAX_DIMENSIONS = 64


class NDArraySerializer(Serializer):
    """Zero-copy ndarray serializer.

    Arrays come back read-only when they were read-only, when decoded from
    read-only memory (a bytes frame), and writable when decoded from writable
    memory or in-process from a writable array, sharing memory with it. An
    array with stride-0 (broadcast) axes is sent as the memory that exists plus
    its strides; other non-contiguous views as a packed C-order copy. Dtypes
    without a wire form (object, long doubles) are left to the fallback.
    """

    def accepts(self, array: np.ndarray) -> bool:
        return wire_dtype(array.dtype)[0] is not None

    def refusal(self, array: np.ndarray) -> Optional[str]:
        return wire_dtype(array.dtype)[1]

    def serialize(self, array: np.ndarray) -> SerializationResult:
        spec = wire_dtype(array.dtype)[0]
        read_only = not array.flags.writeable
        shape = list(array.shape)
        strides = None
        if array.flags.c_contiguous:
            order = "C"
        elif array.flags.f_contiguous:
            order = "F"
        else:
            order = "C"
            array, strides = _existing_memory(array)
        # ravel(order="K") of a contiguous array is a view: the buffer is the array's memory.
        data = array.ravel(order="K").view(np.uint8)
        meta = [spec, shape, order]
        if strides is not None or read_only:
            meta += [strides, read_only]
        return SerializationResult(packb(meta), [memoryview(data)])

    def deserialize(self, in_band, oob) -> np.ndarray:
        meta = unpack_plain(in_band)
        if type(meta) is not list or len(meta) not in (3, 5):
            raise DeserializationError("ndarray in-band must be [dtype, shape, order] or [dtype, shape, order, strides, read_only]")
        spec, shape, order = meta[:3]
        strides, read_only = meta[3:] if len(meta) == 5 else (None, False)
        if type(shape) is not list or order not in ("C", "F") or type(read_only) is not bool:
            raise DeserializationError(f"invalid ndarray header {meta!r:.200}")
        if len(shape) > MAX_DIMENSIONS:
            raise DeserializationError(f"ndarray shape has {len(shape)} dimensions; numpy allows at most {MAX_DIMENSIONS}")
        if any(type(n) is not int or n < 0 for n in shape):
            raise DeserializationError(f"invalid ndarray shape {shape!r}")
        dtype = parse_dtype(spec)
        count = 1
        for n in shape:
            count *= n
        if strides is None:
            needed = count * dtype.itemsize
        elif type(strides) is not list or len(strides) != len(shape) or order != "C" or any(
                type(s) is not int or not 0 <= s <= _MAX_STRIDE for s in strides):
            raise DeserializationError(f"ndarray strides {strides!r:.200} must be one byte count >= 0 per dimension, with order \"C\"")
        else:
            needed = 0 if count == 0 else dtype.itemsize + sum((n - 1) * s for n, s in zip(shape, strides))
        buffer = next(oob)
        if buffer.nbytes != needed:
            raise DeserializationError(
                f"ndarray of shape {tuple(shape)}, dtype {dtype} and strides {strides} needs {needed} bytes, "
                f"but its buffer has {buffer.nbytes}"
            )
        if strides is None:
            array = np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape, order=order)
        else:
            array = np.ndarray(tuple(shape), dtype=dtype, buffer=buffer, strides=tuple(strides))
        if read_only and array.flags.writeable:
            array.flags.writeable = False
        return array

    def serialize_canonical(self, array: np.ndarray) -> SerializationResult:
        return write_ndarray(array, wire_dtype(array.dtype)[0])


# Strides beyond this could not address memory a frame can hold.
_MAX_STRIDE = 2**62


def _existing_memory(array: np.ndarray) -> tuple[np.ndarray, Optional[list]]:
    """A non-contiguous array as (packed array, strides): with stride-0 axes, only the memory that
    exists (each such axis cut to length 1) and the strides that restore it; else a packed copy, None."""
    broadcast = [s == 0 and n > 1 for s, n in zip(array.strides, array.shape)]
    if not any(broadcast) or array.size == 0:
        return np.ascontiguousarray(array), None
    core = np.ascontiguousarray(array[tuple(slice(0, 1) if b else slice(None) for b in broadcast)])
    strides, step = [0] * array.ndim, array.dtype.itemsize
    for axis in range(array.ndim - 1, -1, -1):
        if not broadcast[axis]:
            strides[axis] = step
            step *= core.shape[axis]
    return core, strides


def _bad(kind, value):
    raise DeserializationError(f"numpy.{np.dtype(kind).name} in-band holds {type(value).__name__}, not its value")


class NumpyScalarSerializer(Serializer):
    """One numpy scalar type; its width is kept (an int8 comes back an int8)."""

    handled_by_pickle = True  # pickle keeps numpy scalars exactly; no need to route them through serreg

    def __init__(self, kind: type) -> None:
        self.kind = kind
        self.name = np.dtype(kind).name

    def serialize(self, value) -> SerializationResult:
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

    def deserialize(self, in_band, oob):
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

    def serialize_canonical(self, value) -> SerializationResult:
        return write_scalar(self.kind, value, self.serialize)


def _complex64(real, imag) -> np.complex64:
    out = np.empty(1, dtype=np.complex64)
    out.real = real
    out.imag = imag
    return out[0]


SCALAR_TYPES = (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128,
)


def register(registry) -> None:
    """Register the ndarray serializer and one serializer per numpy scalar type."""
    registry.register_serializer(NDARRAY_CLASS_ID, np.ndarray, NDArraySerializer())
    for kind in SCALAR_TYPES:
        name = "bool" if kind is np.bool_ else np.dtype(kind).name
        registry.register_serializer(NUMPY_SCALAR_CLASS_IDS[name], kind, NumpyScalarSerializer(kind))
