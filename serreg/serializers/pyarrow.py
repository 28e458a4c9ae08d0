"""pyarrow.Table ("ArrowTable") and pyarrow.RecordBatch ("ArrowRecordBatch").

The layout is that of an Arrow IPC RecordBatch message without the
flatbuffers: the schema as an IPC Schema message, then per batch the field
nodes (length, null count, buffer count) in depth-first order, and every
buffer out-of-band (docs/FORMAT.md, section 6.4). Arrow Java loads the same
nodes and buffers with its VectorLoader. No buffer is copied, in one process
or from a frame, except for sliced arrays, which are compacted first because
the wire has no array offsets.
"""

from __future__ import annotations

import pyarrow as pa

from ..errors import DeserializationError
from ..result import SerializationResult
from ..serializer import Serializer
from ..standard import ARROW_RECORD_BATCH_CLASS_ID, ARROW_TABLE_CLASS_ID

from .arrow_frames import read_batches, write_batches
from .pyarrow_canonical import write_record_batch, write_table
from typing import Iterator, Any
from .pyarrow_values import register_values

__all__ = [
    "ArrowRecordBatchSerializer",
    "ArrowTableSerializer",
    "register",
]

class ArrowTableSerializer(Serializer):
    """pyarrow.Table, each record batch kept as it is (chunking is preserved)."""

    leaf = True  # the schema, the nodes and the buffers: no value inside goes through serreg

    def serialize(self, table: pa.Table) -> SerializationResult:
        return write_batches(table.schema, table.to_batches())

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> pa.Table:
        schema, batches = read_batches(in_band, oob)
        return pa.Table.from_batches(batches, schema=schema)

    def serialize_canonical(self, table: pa.Table) -> SerializationResult:
        return write_table(table)


class ArrowRecordBatchSerializer(Serializer):
    leaf = True

    def serialize(self, batch: pa.RecordBatch) -> SerializationResult:
        return write_batches(batch.schema, [batch])

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> pa.RecordBatch:
        schema, batches = read_batches(in_band, oob)
        if len(batches) != 1:
            raise DeserializationError(f"an ArrowRecordBatch holds exactly one batch, not {len(batches)}")
        return batches[0]

    def serialize_canonical(self, batch: pa.RecordBatch) -> SerializationResult:
        return write_record_batch(batch)


def register(registry: Any) -> None:
    """Register the Table and RecordBatch serializers, and those of pyarrow_values.py."""
    registry.register_serializer(ARROW_TABLE_CLASS_ID, pa.Table, ArrowTableSerializer())
    registry.register_serializer(ARROW_RECORD_BATCH_CLASS_ID, pa.RecordBatch, ArrowRecordBatchSerializer())
    register_values(registry)
