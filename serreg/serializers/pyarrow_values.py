"""pyarrow ChunkedArray ("ArrowChunkedArray"), Schema ("ArrowSchema") and Tensor ("ArrowTensor").

A ChunkedArray and a Schema use the ArrowTable in-band (docs/FORMAT.md,
section 6.4): a ChunkedArray is a table of one column named ``""`` whose
batches are its chunks; a Schema is a table of no batches. A Tensor is
``[dtype, shape, order, dim_names]`` with its memory as one out-of-band buffer
(``dtype`` a numpy type string of the types pyarrow tensors hold, ``order``
``"C"`` or ``"F"``). pyarrow Arrays and Scalars have one Python class per type,
and a class ID serves exactly one class, so they are sent as a ChunkedArray
(``pa.chunked_array([array])``) or a one-column RecordBatch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
from msgpack import packb

from ..canonical.floats import normalize_float_array
from ..codec import unpack_plain
from ..errors import DeserializationError
from ..limits import charge
from ..result import SerializationResult
from ..serializer import Serializer
from ..standard import ARROW_CHUNKED_ARRAY_CLASS_ID, ARROW_SCHEMA_CLASS_ID, ARROW_TENSOR_CLASS_ID

from .arrow_frames import read_batches, write_batches
from .pyarrow_canonical import write_table

__all__ = ["ArrowChunkedArraySerializer", "ArrowSchemaSerializer", "ArrowTensorSerializer", "register_values"]

_COLUMN = ""
# numpy type strings of the value types a pyarrow Tensor holds (little-endian).
_TENSOR_DTYPES = frozenset({"<i1", "<i2", "<i4", "<i8", "<u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", "|i1", "|u1"})
_MAX_DIMENSIONS = 64


def _as_table(chunked: pa.ChunkedArray) -> pa.Table:
    return pa.Table.from_arrays([chunked], schema=pa.schema([pa.field(_COLUMN, chunked.type)]))


class ArrowChunkedArraySerializer(Serializer):
    """pyarrow.ChunkedArray, its chunks kept as they are."""

    def serialize(self, chunked: pa.ChunkedArray) -> SerializationResult:
        table = _as_table(chunked)
        return write_batches(table.schema, table.to_batches())

    def deserialize(self, in_band: Any, oob: Any) -> pa.ChunkedArray:
        schema, batches = read_batches(in_band, oob)
        if len(schema) != 1:
            raise DeserializationError(f"an ArrowChunkedArray holds one column, not {len(schema)}")
        return pa.chunked_array([batch.column(0) for batch in batches], type=schema.field(0).type)

    def serialize_canonical(self, chunked: pa.ChunkedArray) -> SerializationResult:
        return write_table(_as_table(chunked))


class ArrowSchemaSerializer(Serializer):
    """pyarrow.Schema: its fields and metadata, no data."""

    def serialize(self, schema: pa.Schema) -> SerializationResult:
        return write_batches(schema, [])

    def deserialize(self, in_band: Any, oob: Any) -> pa.Schema:
        schema, batches = read_batches(in_band, oob)
        if any(batch.num_rows for batch in batches):  # (its canonical form has one batch of no rows)
            raise DeserializationError("an ArrowSchema holds no rows")
        return schema

    def serialize_canonical(self, schema: pa.Schema) -> SerializationResult:
        return write_table(schema.empty_table())


class ArrowTensorSerializer(Serializer):
    """pyarrow.Tensor: numpy type string, shape, order and dimension names; the memory out-of-band."""

    def _parts(self, tensor: pa.Tensor, canonical: bool) -> SerializationResult:
        array = tensor.to_numpy()
        order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous and not canonical else "C"
        array = np.asfortranarray(array) if order == "F" else np.ascontiguousarray(array)
        dtype = array.dtype.newbyteorder("<").str if array.dtype.byteorder != "|" else array.dtype.str
        if canonical and array.dtype.kind == "f":
            array = normalize_float_array(array.reshape(-1)).reshape(array.shape)
        names = list(tensor.dim_names) if tensor.dim_names else []
        in_band = packb([dtype, list(array.shape), order, names], use_bin_type=True)
        return SerializationResult(in_band, [memoryview(array.reshape(-1, order="A")).cast("B")])

    def serialize(self, tensor: pa.Tensor) -> SerializationResult:
        return self._parts(tensor, canonical=False)

    def serialize_canonical(self, tensor: pa.Tensor) -> SerializationResult:
        return self._parts(tensor, canonical=True)

    def deserialize(self, in_band: Any, oob: Any) -> pa.Tensor:
        header = unpack_plain(in_band)
        if (type(header) is not list or len(header) != 4 or header[0] not in _TENSOR_DTYPES
                or type(header[1]) is not list or len(header[1]) > _MAX_DIMENSIONS
                or any(type(d) is not int or d < 0 for d in header[1]) or header[2] not in ("C", "F")
                or type(header[3]) is not list or any(type(n) is not str for n in header[3])
                or header[3] and len(header[3]) != len(header[1])):
            raise DeserializationError(f"invalid ArrowTensor header {header!r:.200}")
        dtype, shape, order, names = header
        data = next(oob)
        itemsize = np.dtype(dtype).itemsize
        count = int(np.prod(shape, dtype=object))
        if count * itemsize != data.nbytes:
            raise DeserializationError(f"an ArrowTensor of shape {shape} and type {dtype} needs {count * itemsize} "
                                       f"bytes, its buffer has {data.nbytes}")
        charge(256 + 64 * len(shape), "Arrow tensor")
        array = np.frombuffer(data, dtype=dtype).reshape(shape, order=order)
        return pa.Tensor.from_numpy(array, dim_names=names or None)


def register_values(registry: Any) -> None:
    """Register the ChunkedArray, Schema and Tensor serializers."""
    registry.register_serializer(ARROW_CHUNKED_ARRAY_CLASS_ID, pa.ChunkedArray, ArrowChunkedArraySerializer())
    registry.register_serializer(ARROW_SCHEMA_CLASS_ID, pa.Schema, ArrowSchemaSerializer())
    registry.register_serializer(ARROW_TENSOR_CLASS_ID, pa.Tensor, ArrowTensorSerializer())
