"""numpy masked arrays and the numpy scalars of the kinds without a class ID of their own
(docs/FORMAT.md, sections 6.2.2 and 6.3).

``numpy.ma.MaskedArray``: in-band [data, mask, fill_value, hard_mask], data and mask each an
ndarray header of 6.2 (mask nil for numpy's ``nomask``), fill_value one item of the data's dtype
as bin; the buffers are the data's, then the mask's. The scalars: a datetime64,
timedelta64, bytes, str or void scalar (class IDs ``numpy.datetime64``, ``numpy.timedelta64``,
``numpy.bytes_``, ``numpy.str_``, ``numpy.void``), written as the 0-d ndarray holding it.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from msgpack import packb

from ..codec import unpack_plain
from ..errors import DeserializationError
from ..result import SerializationResult
from ..serializer import Serializer
from .numpy_array import array_from_meta, array_meta
from .numpy_canonical import canonical_array, write_ndarray
from .numpy_dtype import wire_dtype

__all__ = ["GENERIC_SCALAR_TYPES", "MaskedArraySerializer", "NumpyGenericSerializer"]

# The numpy scalar types carried as 0-d arrays (the others have in-bands of their own, section 6.3).
GENERIC_SCALAR_TYPES = (np.datetime64, np.timedelta64, np.bytes_, np.str_, np.void)


def _zero_d(value: Any) -> np.ndarray:
    """The 0-d array holding a scalar; an empty bytes or str scalar as one zero character (it reads back empty)."""
    array = np.asarray(value)
    if array.dtype.itemsize == 0 and array.dtype.kind in "SU":
        array = array.astype(array.dtype.kind + "1")
    return array


class NumpyGenericSerializer(Serializer):
    """numpy scalars of kinds M, m, S, U and V: the 0-d ndarray of 6.2, given back as the scalar."""

    handled_by_pickle = True  # pickle keeps these scalars exactly inside pickled objects

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def accepts(self, value: Any) -> bool:
        return wire_dtype(_zero_d(value).dtype)[0] is not None

    def refusal(self, value: Any) -> Optional[str]:
        return wire_dtype(_zero_d(value).dtype)[1]

    def serialize(self, value: Any) -> SerializationResult:
        meta, data = array_meta(_zero_d(value))
        return SerializationResult(packb(meta), [data])

    def deserialize(self, in_band: Any, oob: Any) -> Any:
        array = array_from_meta(unpack_plain(in_band), oob)
        value = array[()]
        if array.shape != () or type(value) is not self.kind:
            raise DeserializationError(
                f"numpy.{self.kind.__name__} must be a 0-d array of its kind, not {array.dtype} of shape {array.shape}")
        return value

    def serialize_canonical(self, value: Any) -> SerializationResult:
        array = _zero_d(value)
        return write_ndarray(array, wire_dtype(array.dtype)[0])


def _fill_item(masked: np.ma.MaskedArray) -> Optional[np.ndarray]:
    """The fill value as a 0-d array of the data's dtype; None where numpy cannot make its default
    (datetime64 with a unit count, as ``M8[2M]``): the reader keeps numpy's default then too."""
    try:
        return np.array(masked.fill_value, dtype=masked.dtype)
    except (ValueError, TypeError):
        return None


class MaskedArraySerializer(Serializer):
    """numpy.ma.MaskedArray: data, mask (nil for nomask), fill value and hard-mask flag; no copy."""

    def accepts(self, masked: np.ma.MaskedArray) -> bool:
        return wire_dtype(masked.dtype)[0] is not None

    def refusal(self, masked: np.ma.MaskedArray) -> Optional[str]:
        return wire_dtype(masked.dtype)[1]

    def serialize(self, masked: np.ma.MaskedArray) -> SerializationResult:
        data_meta, data = array_meta(masked.data)
        buffers = [data]
        mask = masked.mask
        mask_meta = None
        if mask is not np.ma.nomask:
            mask_meta, mask_data = array_meta(np.asarray(mask))
            buffers.append(mask_data)
        fill = _fill_item(masked)
        fill_bytes = None if fill is None else fill.tobytes()
        return SerializationResult(packb([data_meta, mask_meta, fill_bytes, bool(masked.hardmask)]), buffers)

    def deserialize(self, in_band: Any, oob: Any) -> np.ma.MaskedArray:
        meta = unpack_plain(in_band)
        if type(meta) is not list or len(meta) != 4 or type(meta[2]) not in (bytes, type(None)) or type(meta[3]) is not bool:
            raise DeserializationError("numpy.ma.MaskedArray in-band must be [data, mask, fill_value: bin or nil, hard_mask: bool]")
        data = array_from_meta(meta[0], oob)
        mask: Any = np.ma.nomask
        if meta[1] is not None:
            mask = array_from_meta(meta[1], oob)
            if mask.shape != data.shape or mask.dtype != np.ma.make_mask_descr(data.dtype):
                raise DeserializationError(
                    f"masked array: a mask of {mask.dtype} {mask.shape} does not fit data of {data.dtype} {data.shape}")
        fill = None
        if meta[2] is not None:
            if len(meta[2]) != data.dtype.itemsize:
                raise DeserializationError(f"masked array: fill_value has {len(meta[2])} bytes, not one {data.dtype} item")
            fill = np.frombuffer(meta[2], dtype=data.dtype)[0]
        return np.ma.MaskedArray(data, mask=mask, fill_value=fill, hard_mask=meta[3], copy=False, keep_mask=True)

    def serialize_canonical(self, masked: np.ma.MaskedArray) -> SerializationResult:
        spec = wire_dtype(masked.dtype)[0]
        data_meta, data = canonical_array(masked.data, spec)
        buffers = [data]
        mask_meta = None
        if masked.mask is not np.ma.nomask:
            mask_meta, mask = canonical_array(np.asarray(masked.mask), wire_dtype(masked.mask.dtype)[0])
            buffers.append(mask)
        fill, fill_bytes = _fill_item(masked), None
        if fill is not None:
            fill_bytes = bytes(canonical_array(fill, spec)[1])
        return SerializationResult(packb([data_meta, mask_meta, fill_bytes, bool(masked.hardmask)]), buffers)
