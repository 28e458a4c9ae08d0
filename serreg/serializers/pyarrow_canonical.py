"""Canonical form of Arrow tables and record batches (docs/FORMAT.md, section 9.5).

The schema is written as its plain msgpack description (``arrow_schema.py``),
not as an IPC Schema message, whose flatbuffer bytes depend on the writer.

A table is written as exactly one batch (its chunks concatenated), and every
buffer is rebuilt from the logical values only: validity bitmaps are absent
when there are no nulls and otherwise exactly ceil(length / 8) bytes with zero
padding bits; slots under a null are zero (fixed width), empty (variable width
and lists) or null (struct and fixed-size-list children, where the parent's
nulls are pushed down); offsets start at 0; no buffer has trailing bytes;
floats are made canonical as in numpy. Buffers that need none of this are the
table's own memory, not copies.
"""

from __future__ import annotations

from typing import Optional, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
from msgpack import packb

from ..errors import CanonicalFormError

from ..result import SerializationResult

from .arrow_extension import plain_type
from .arrow_schema import describe_schema
from .arrow_validity import BitmapBudget, has_slot_storage, pushed_validity, storage_free_array
from .pyarrow_canonical_layouts import buffer_bytes, fixed_width, is_other_layout, take, write_other

__all__ = ["write_array", "write_record_batch", "write_table"]

_EMPTY = memoryview(b"")


_buffer_bytes = buffer_bytes


def _canonical_offsets(array: pa.Array, valid: Any, offset_type: Any) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(canonical offsets, first and last source offset, per-slot source lengths) of a variable-width array."""
    n = len(array)
    source = np.frombuffer(array.buffers()[1], dtype=offset_type)[array.offset: array.offset + n + 1] \
        if n else np.zeros(1, dtype=offset_type)
    lengths = np.diff(source)
    if valid is not None:
        lengths = np.where(valid.expanded(), lengths, 0)  # an offset per slot: a bool per slot is cheap
    offsets = np.zeros(n + 1, dtype=offset_type)
    np.cumsum(lengths, out=offsets[1:])
    return offsets, source, lengths


def _kept_ranges(source: np.ndarray[Any, Any], lengths: np.ndarray[Any, Any]) -> Optional[np.ndarray[Any, Any]]:
    """Mask over source[0]..source[-1] keeping the slots whose (canonical) length was kept, or None for all."""
    if np.array_equal(lengths, np.diff(source)):
        return None
    return np.repeat(lengths == np.diff(source), np.diff(source))


def write_array(array: pa.Array, pushed: Any, nodes: list[Any], buffers: list[Any], budget: BitmapBudget, where: str) -> None:
    """Append the canonical field nodes and buffers of ``array`` (section 6.4 order); ``pushed``
    is the Validity of the parent's nulls pushed down to it (or None)."""
    if isinstance(array, pa.ExtensionArray):
        array = array.storage  # the extension keys are in the schema description
    arrow_type = array.type
    t = pa.types
    n = len(array)
    if t.is_null(arrow_type):
        nodes.append([n, n, 0])
        return
    if is_other_layout(arrow_type):
        write_other(array, pushed, nodes, buffers, budget, where, write_array)
        return
    valid = pushed_validity(array, pushed)
    nodes.append([n, 0 if valid is None else n - valid.valid_count(), arrow_type.num_buffers])
    buffers.append(_EMPTY if valid is None else valid.bitmap(budget, where))
    source = array.buffers()
    start = array.offset
    if t.is_boolean(arrow_type):
        bits = np.unpackbits(_buffer_bytes(source[1], 0, (start + n + 7) // 8), bitorder="little")[start:start + n]
        if valid is not None:
            bits &= valid.expanded()
        buffers.append(np.packbits(bits, bitorder="little").data)
    elif t.is_struct(arrow_type):
        for i in range(arrow_type.num_fields):
            write_array(array.field(i), None if valid is None else valid.repeated(1), nodes, buffers, budget,
                        f"{where} > child {i}")
    elif t.is_fixed_size_list(arrow_type):
        size = arrow_type.list_size
        child = array.values.slice(start * size, n * size)
        write_array(child, None if valid is None else valid.repeated(size), nodes, buffers, budget,
                    f"{where} > child 0")
    elif arrow_type.num_fields:  # list, large list, map: offsets, then the child
        offset_type = np.int64 if t.is_large_list(arrow_type) else np.int32
        offsets, source_offsets, lengths = _canonical_offsets(array, valid, offset_type)
        buffers.append(offsets.view(np.uint8).data)
        child = array.values.slice(int(source_offsets[0]), int(source_offsets[-1] - source_offsets[0]))
        if not np.array_equal(lengths, np.diff(source_offsets)):  # slots under nulls are dropped
            if has_slot_storage(child):  # a bool per child slot costs at most 8 times the child
                child = take(child, np.flatnonzero(np.asarray(_kept_ranges(source_offsets, lengths))))
            else:
                child = storage_free_array(child.type, int(offsets[-1]))
        write_array(child, None, nodes, buffers, budget, f"{where} > child 0")
    elif arrow_type.num_buffers == 3:  # binary and string, small and large: validity, offsets, data
        offset_type = np.int64 if t.is_large_binary(arrow_type) or t.is_large_string(arrow_type) else np.int32
        offsets, source_offsets, lengths = _canonical_offsets(array, valid, offset_type)
        buffers.append(offsets.view(np.uint8).data)
        data = _buffer_bytes(source[2], int(source_offsets[0]), int(source_offsets[-1]))
        keep = _kept_ranges(source_offsets, lengths)
        buffers.append((data if keep is None else data[keep]).data)
    else:  # fixed width: integers, floats, decimals, dates, times, timestamps, durations, intervals, fixed-size binary
        buffers.append(fixed_width(array, valid))


def _column_array(column: pa.ChunkedArray, where: str) -> pa.Array:
    if column.num_chunks == 1:
        return column.chunk(0)
    if column.num_chunks == 0:
        try:
            return pa.array([], type=column.type)
        except pa.ArrowNotImplementedError:  # no builder for a union: an empty array made without one
            return pa.nulls(0, column.type)
    chunks = [chunk for chunk in column.chunks if len(chunk)] or column.chunks[:1]
    if len(chunks) == 1:
        return chunks[0]
    if pa.types.is_dictionary(column.type):
        return _join_dictionaries(chunks, where)
    try:
        return pa.concat_arrays(chunks)
    except pa.ArrowException:
        try:  # an extension type inside has no builder: join the storage
            plain = plain_type(column.type)
            return pa.concat_arrays([chunk.view(plain) for chunk in chunks])
        except pa.ArrowException as error:
            raise CanonicalFormError(
                f"the canonical form of Arrow {where} ({column.type}) has its {len(chunks)} batches as one, and pyarrow "
                f"cannot join them ({error}); join them first (table.combine_chunks()) or send them one by one"
            ) from error


def _join_dictionaries(chunks: list[Any], where: str) -> pa.Array:
    """The batches of a dictionary column as one: their dictionaries one after the other, each
    batch's indices moved past the dictionaries before it (docs/FORMAT.md, section 9.5)."""
    dictionary = _column_array(pa.chunked_array([c.dictionary for c in chunks]), f"{where} > dictionary")
    index_type = chunks[0].type.index_type
    if len(dictionary) - 1 > np.iinfo(index_type.to_pandas_dtype()).max:
        raise CanonicalFormError(f"the dictionaries of Arrow {where} hold {len(dictionary)} values together, more "
                                 f"than its {index_type} indices reach; cast the indices to a wider type first")
    shifted, before = [], 0
    for chunk in chunks:
        shifted.append(pa.compute.add(chunk.indices.cast(pa.int64()), before).cast(index_type))
        before += len(chunk.dictionary)
    return pa.DictionaryArray.from_arrays(pa.concat_arrays(shifted), dictionary, ordered=chunks[0].type.ordered)


def _write(schema: pa.Schema, num_rows: int, columns: Any) -> SerializationResult:
    nodes: list[Any] = []
    buffers: list[Any] = []
    budget = BitmapBudget(sum(column.get_total_buffer_size() for column in columns))
    for i, column in enumerate(columns):
        where = f"column {i} ({schema.field(i).name!r:.60})"
        try:
            write_array(column, None, nodes, buffers, budget, where)
        except pa.ArrowException as error:
            raise CanonicalFormError(f"the canonical form of Arrow {where} ({column.type}) needs what pyarrow cannot do "
                                     f"here: {error}") from error
    return SerializationResult(packb([describe_schema(schema), [[num_rows, nodes]]], use_bin_type=True), buffers)


def write_table(table: pa.Table) -> SerializationResult:
    """The canonical form of a Table (its serializer's ``serialize_canonical``)."""
    return _write(table.schema, table.num_rows, [
        _column_array(column, f"column {i} ({table.schema.field(i).name!r:.60})") for i, column in enumerate(table.columns)])


def write_record_batch(batch: pa.RecordBatch) -> SerializationResult:
    """The canonical form of a RecordBatch (its serializer's ``serialize_canonical``)."""
    return _write(batch.schema, batch.num_rows, batch.columns)
