"""Canonical form of numpy arrays and scalars (docs/FORMAT.md, section 9.4).

An array is written as its dtype with every byte order little-endian, its
shape and order "C", with one buffer of packed C-order items: the layout (F
order, strides, broadcasting, read-only, a big-endian dtype) leaves no trace.
Float elements have -0.0 written as 0.0 and every NaN as the canonical quiet
NaN; bool elements are 0 or 1; the padding bytes of a structured item (bytes
no field covers) are 0. Nothing is copied for a C-contiguous little-endian
array of plain dtype that needs no such fix.
"""

from __future__ import annotations

import numpy as np
from msgpack import packb

from ..canonical.floats import canonical_float_bits, normalize_float_array, pack_float
from ..result import SerializationResult
from typing import Callable, Any

from .numpy_dtype import canonical_spec, leaves

__all__ = ["canonical_array", "canonical_elements", "write_ndarray", "write_scalar"]


def canonical_elements(array: np.ndarray) -> np.ndarray:
    """``array`` (of a plain dtype) as a C-contiguous little-endian array with canonical float and
    bool elements. Returns ``array`` itself (no copy) when it already is one."""
    data = array.astype(array.dtype.newbyteorder("<"), order="C", copy=False)
    kind = data.dtype.kind
    if kind in "fc" and data.size:
        flat = data.reshape(-1)
        if kind == "c":
            flat = flat.view(f"<f{data.dtype.itemsize // 2}")
        fixed = normalize_float_array(flat)
        if fixed is not flat:
            data = fixed.view(data.dtype).reshape(data.shape)
    elif kind == "b" and data.size:
        raw = data.reshape(-1).view(np.uint8)
        if (raw > 1).any():  # a bool array made by viewing other bytes
            data = (raw != 0).view(np.bool_).reshape(data.shape)
    return data


def _canonical_records(array: np.ndarray) -> np.ndarray:
    """The packed bytes of a structured array, field by field canonical, padding zero."""
    dtype = array.dtype
    source = np.ascontiguousarray(array).reshape(-1)
    count, size = source.shape[0], dtype.itemsize
    raw = source.view(np.uint8)
    out = np.zeros(count * size, dtype=np.uint8)
    for offset, leaf, n in leaves(dtype):
        if not count or not leaf.itemsize or not n:
            continue
        shape, strides = (count, n), (size, leaf.itemsize)
        part = np.ndarray(shape, dtype=leaf, buffer=raw, offset=offset, strides=strides)
        fixed = canonical_elements(part)
        np.ndarray(shape, dtype=fixed.dtype, buffer=out, offset=offset, strides=strides)[...] = fixed
    return out


def canonical_array(array: np.ndarray, spec: Any) -> tuple[list[Any], memoryview]:
    """The canonical header (a list for msgpack) and buffer of an ndarray whose dtype's
    description is ``spec``."""
    meta = [canonical_spec(spec), list(array.shape), "C"]
    if array.dtype.names is not None:
        return meta, _canonical_records(array).data
    return meta, canonical_elements(array).reshape(-1).view(np.uint8).data


def write_ndarray(array: np.ndarray, spec: Any) -> SerializationResult:
    """The canonical form of an ndarray whose dtype's description is ``spec`` (its serializer's
    ``serialize_canonical``)."""
    meta, data = canonical_array(array, spec)
    return SerializationResult(packb(meta), [data])


def write_scalar(kind: type, value: Any, serialize: Callable[[Any], SerializationResult]) -> SerializationResult:
    """The canonical form of a numpy scalar of type ``kind``; ``serialize`` writes the
    types whose normal form is already canonical (bool and the integers)."""
    if kind is np.float64:
        return SerializationResult(pack_float(float(value)))
    if kind is np.complex128:
        return SerializationResult(b"\x92" + pack_float(float(value.real)) + pack_float(float(value.imag)))
    if kind is np.float16:
        bits = int(np.asarray(value, dtype="<f2").view("<u2"))
        return SerializationResult(packb(canonical_float_bits(bits, 2)))
    if kind is np.float32:
        return SerializationResult(_pack_float32(value))
    if kind is np.complex64:
        return SerializationResult(b"\x92" + _pack_float32(value.real) + _pack_float32(value.imag))
    return serialize(value)  # bool and integers: already one form per value


def _pack_float32(value: Any) -> bytes:
    bits = canonical_float_bits(int(np.asarray(value, dtype="<f4").view("<u4")), 4)
    return b"\xca" + bits.to_bytes(4, "big")
