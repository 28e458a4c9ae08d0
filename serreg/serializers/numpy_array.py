"""One ndarray's in-band header and buffer (docs/FORMAT.md, section 6.2), shared by the ndarray,
numpy scalar and masked array serializers.

``array_meta`` gives [dtype, shape, order] (or [dtype, shape, order, strides, read_only]) and the
buffer: C- and F-contiguous arrays are never copied, an array with stride-0 (broadcast) axes is
sent as the memory that exists plus its strides, other views as a packed C-order copy.
``array_from_meta`` checks a header against its buffer and builds the array over it (no copy).
``packed_header`` writes the header of the common array (contiguous, plain dtype) as msgpack
itself, the bytes msgpack would write, without building the list and a Packer.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..errors import DeserializationError
from .numpy_dtype import packed_plain_spec, parse_dtype, wire_dtype

__all__ = ["MAX_DIMENSIONS", "array_from_meta", "array_meta", "packed_header"]

# numpy's limit on dimensions; a longer shape is refused before its size is computed.
MAX_DIMENSIONS = 64

_BYTE = np.dtype(np.uint8)


def packed_header(array: np.ndarray) -> Optional[tuple[bytes, memoryview]]:
    """``packb(meta)`` and the buffer of ``array_meta`` for a C- or F-contiguous array of a plain
    dtype; None for any other array (``array_meta`` then)."""
    spec = packed_plain_spec(array.dtype)
    if spec is None:
        return None
    flags = array.flags
    if flags.c_contiguous:
        order = b"\xa1C"
    elif flags.f_contiguous:
        order = b"\xa1F"
    else:
        return None
    shape = array.shape
    if len(shape) == 1:
        data = array.view(_BYTE).data  # 1-d and contiguous: the bytes ravel's view gives, in one call
        dims = b"\x91" + _uint(shape[0])
    else:
        data = array.ravel(order="K").view(_BYTE).data
        dims = _array_of(shape)
    if flags.writeable:
        return b"\x93" + spec + dims + order, data
    return b"\x95" + spec + dims + order + b"\xc0\xc3", data  # strides None, read_only True


def _uint(n: int) -> bytes:
    """A non-negative int as msgpack writes it (the shortest form)."""
    if n < 0x80:
        return bytes((n,))
    if n < 0x100:
        return b"\xcc" + bytes((n,))
    if n < 0x10000:
        return b"\xcd" + n.to_bytes(2, "big")
    if n < 0x100000000:
        return b"\xce" + n.to_bytes(4, "big")
    return b"\xcf" + n.to_bytes(8, "big")


def _array_of(shape: tuple[int, ...]) -> bytes:
    head = bytes((0x90 | len(shape),)) if len(shape) < 16 else b"\xdc" + len(shape).to_bytes(2, "big")
    return head + b"".join([_uint(n) for n in shape])


def array_meta(array: np.ndarray) -> tuple[list[Any], memoryview]:
    """The in-band header (a list for msgpack) and the buffer of an array whose dtype has a wire form."""
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
    meta: list[Any] = [spec, shape, order]
    if strides is not None or read_only:
        meta += [strides, read_only]
    return meta, data.data


def array_from_meta(meta: Any, oob: Any) -> np.ndarray:
    """The array a header stands for, over the next buffer of ``oob``; DeserializationError if they disagree."""
    if type(meta) is not list or len(meta) not in (3, 5):
        raise DeserializationError("ndarray in-band must be [dtype, shape, order] or [dtype, shape, order, strides, read_only]")
    if len(meta) == 3:
        spec, shape, order = meta
        strides, read_only = None, False
    else:
        spec, shape, order, strides, read_only = meta
    if type(shape) is not list or order not in ("C", "F") or type(read_only) is not bool:
        raise DeserializationError(f"invalid ndarray header {meta!r:.200}")
    if len(shape) > MAX_DIMENSIONS:
        raise DeserializationError(f"ndarray shape has {len(shape)} dimensions; numpy allows at most {MAX_DIMENSIONS}")
    count = 1
    for n in shape:
        if type(n) is not int or n < 0:
            raise DeserializationError(f"invalid ndarray shape {shape!r}")
        count *= n
    dtype = parse_dtype(spec)
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
    if strides is not None:
        array = np.ndarray(tuple(shape), dtype=dtype, buffer=buffer, strides=tuple(strides))
    elif len(shape) == 1:
        array = np.frombuffer(buffer, dtype, count)  # already of its shape, in either order
    else:
        array = np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape, order=order)
    if read_only and array.flags.writeable:
        array.flags.writeable = False
    return array


# Strides beyond this could not address memory a frame can hold.
_MAX_STRIDE = 2**62


def _existing_memory(array: np.ndarray) -> tuple[np.ndarray, Optional[list[Any]]]:
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
