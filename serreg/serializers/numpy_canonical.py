"""Canonical form of numpy arrays and scalars (docs/FORMAT.md, section 9.4).

An array is written as its little-endian dtype, its shape and order "C", with
one buffer of packed C-order elements: the layout (F order, strides, a
big-endian dtype) leaves no trace. Float elements have -0.0 written as 0.0 and
every NaN as the canonical quiet NaN; bool elements are 0 or 1. Nothing is
copied for a C-contiguous little-endian array that needs no such fix.
"""

from __future__ import annotations

import numpy as np
from msgpack import packb

from ..canonical.floats import canonical_float_bits, normalize_float_array, pack_float
from ..result import SerializationResult
from typing import Callable, Any


def canonical_elements(array: np.ndarray) -> np.ndarray:
    """``array`` as a C-contiguous little-endian array with canonical float and bool elements.

    Returns ``array`` itself (no copy) when it already is one.
    """
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


def write_ndarray(array: np.ndarray) -> SerializationResult:
    """The canonical form of an ndarray (its serializer's ``serialize_canonical``)."""
    data = canonical_elements(array)
    meta = packb([data.dtype.str, list(data.shape), "C"])
    return SerializationResult(meta, [data.reshape(-1).view(np.uint8).data])


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
