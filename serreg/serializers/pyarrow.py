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
from msgpack import Unpacker, packb
from msgpack.exceptions import StackError

from ..codec import check_untrusted_structure, is_untrusted
from ..errors import DeserializationError, LimitExceededError
from ..limits import MSGPACK_MAX_NESTING, charge
from ..result import SerializationResult
from ..serializer import Serializer
from ..standard import ARROW_RECORD_BATCH_CLASS_ID, ARROW_TABLE_CLASS_ID

from .arrow_ipc_check import check_schema_message
from .arrow_schema import FIELD_COST, METADATA_COST, schema_from_description
from .pyarrow_canonical import write_record_batch, write_table
from typing import Iterator, Any

__all__ = [
    "ArrowRecordBatchSerializer",
    "ArrowTableSerializer",
    "register",
]

_EMPTY = memoryview(b"")

# What one item of a frame becomes in memory (pyarrow 26, CPython 3.11: a column of one field
# and one array measured 350 to 610 bytes), charged against the deserialize call's memory
# budget before it is built, so a frame of empty batches or of fields without data is bounded.
# (Fields: FIELD_COST and METADATA_COST, in arrow_schema.)
NODE_COST = 512  # one Array and its Python wrapper, per field node
BATCH_COST = 320  # one RecordBatch


def _is_standard_type(arrow_type: pa.DataType) -> bool:
    t = pa.types
    if pa.types.is_struct(arrow_type) or t.is_list(arrow_type) or t.is_large_list(arrow_type) \
            or t.is_fixed_size_list(arrow_type) or t.is_map(arrow_type):
        return all(_is_standard_type(arrow_type.field(i).type) for i in range(arrow_type.num_fields))
    return bool(
        t.is_null(arrow_type) or t.is_boolean(arrow_type) or t.is_integer(arrow_type) or t.is_floating(arrow_type)
        or t.is_decimal(arrow_type) or t.is_date(arrow_type) or t.is_time(arrow_type)
        or t.is_timestamp(arrow_type) or t.is_duration(arrow_type) or t.is_binary(arrow_type)
        or t.is_string(arrow_type) or t.is_large_binary(arrow_type) or t.is_large_string(arrow_type)
        or t.is_fixed_size_binary(arrow_type)
    )


def _check_field(field: pa.Field, where: str) -> None:
    """Refuse a schema field the standard does not allow, before any array is built.

    Building arrays of other types (unions, dictionaries, views) from untrusted
    nodes can fail a check inside Arrow C++, which ends the process; a name
    that is not UTF-8 would make the value unusable later.
    """
    try:
        name = field.name
    except UnicodeDecodeError as error:
        raise DeserializationError(f"Arrow schema: the name of {where} is not UTF-8 ({error.reason})") from error
    arrow_type = field.type
    where = f"{where} ({name!r})"
    if arrow_type.num_fields and (pa.types.is_struct(arrow_type) or pa.types.is_list(arrow_type)
                                  or pa.types.is_large_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type)
                                  or pa.types.is_map(arrow_type)):
        for i in range(arrow_type.num_fields):
            _check_field(arrow_type.field(i), f"child {i} of {where}")
    elif not _is_standard_type(arrow_type):
        raise DeserializationError(
            f"Arrow schema: {where} has type {arrow_type}, which is not a standard serreg Arrow type "
            "(docs/FORMAT.md, section 6.4)"
        )


def _children(array: pa.Array) -> list[Any]:
    arrow_type = array.type
    if pa.types.is_struct(arrow_type):
        return [array.field(i) for i in range(arrow_type.num_fields)]
    if arrow_type.num_fields:
        return [array.values]  # list, large list, fixed-size list, map
    return []


def _has_offsets(array: pa.Array) -> bool:
    return array.offset != 0 or any(_has_offsets(child) for child in _children(array))


def _write_array(array: pa.Array, nodes: list[Any], buffers: list[Any]) -> None:
    arrow_type = array.type
    if pa.types.is_null(arrow_type):
        nodes.append([len(array), len(array), 0])
        return
    own = array.buffers()[: arrow_type.num_buffers]
    nodes.append([len(array), array.null_count, len(own)])
    for buffer in own:
        buffers.append(_EMPTY if buffer is None else memoryview(buffer))
    for child in _children(array):
        _write_array(child, nodes, buffers)


def _write_batch(batch: pa.RecordBatch, buffers: list[Any]) -> list[Any]:
    nodes: list[Any] = []
    for column in batch.columns:
        if _has_offsets(column):
            column = pa.concat_arrays([column])  # compacts a slice into fresh buffers at offset 0
        _write_array(column, nodes, buffers)
    return [batch.num_rows, nodes]


class _NodeReader:
    """Rebuilds arrays from the field nodes and buffers of one batch, in order."""

    def __init__(self, nodes: list[Any], oob: Any) -> None:
        self._nodes = nodes
        self._next = 0
        self._oob = oob
        self.in_process = True  # until a buffer that is not a pyarrow Buffer is met

    def read(self, arrow_type: pa.DataType, column: bool = True) -> pa.Array:
        if self._next >= len(self._nodes):
            raise DeserializationError("Arrow batch has fewer field nodes than its schema needs")
        node = self._nodes[self._next]
        self._next += 1
        if type(node) is not list or len(node) != 3 or any(type(n) is not int or n < 0 for n in node):
            raise DeserializationError(f"invalid Arrow field node {node!r}")
        length, null_count, buffer_count = node
        if pa.types.is_null(arrow_type):
            if buffer_count != 0:
                raise DeserializationError("an Arrow null column has no buffers")
            # pa.nulls() fills memory in proportion to the length; a null array needs none.
            return pa.Array.from_buffers(pa.null(), length, [None], null_count=length)
        if buffer_count != arrow_type.num_buffers:
            raise DeserializationError(
                f"Arrow {arrow_type} column needs {arrow_type.num_buffers} buffers, its node says {buffer_count}"
            )
        buffers: list[memoryview] = []
        for i in range(buffer_count):
            view = next(self._oob)
            # A whole pyarrow Buffer is one an in-process result handed over; a slice of one is
            # a frame held in Arrow memory (a memory-mapped file, say) and gets checked in full.
            if view.nbytes and (type(view.obj) is not pa.Buffer or view.nbytes != view.obj.size):
                self.in_process = False
            if i == 0 and view.nbytes == 0:
                buffers.append(None)  # type: ignore[arg-type]  # absent validity bitmap, taken as such by pyarrow
            else:
                buffers.append(pa.py_buffer(view))
        children = [self.read(arrow_type.field(i).type, False) for i in range(arrow_type.num_fields)]
        array = pa.Array.from_buffers(arrow_type, length, buffers, null_count, 0, children or None)
        # A column read from a frame gets the full validation (offsets inside their data, child
        # lengths, null counts; it covers the children too): the cheap one trusts offsets, and
        # reading past a buffer would crash the process. Children get the cheap one before their
        # parent is built. Buffers that are all pyarrow's own (an in-process result of this
        # serializer) come from arrays pyarrow built, so the cheap one is enough there.
        try:
            array.validate(full=column and not self.in_process)
        except pa.ArrowInvalid as error:
            raise DeserializationError(f"invalid Arrow {arrow_type} column: {error}") from error
        return array

    def finish(self) -> None:
        if self._next != len(self._nodes):
            raise DeserializationError(f"Arrow batch has {len(self._nodes) - self._next} field nodes too many")


class _ArrowSerializer(Serializer):
    def accepts(self, value: Any) -> bool:
        return all(_is_standard_type(field.type) for field in value.schema)

    def _serialize_batches(self, schema: pa.Schema, batches: Any) -> SerializationResult:
        buffers: list[memoryview] = []
        written = [_write_batch(batch, buffers) for batch in batches]
        return SerializationResult(packb([schema.serialize().to_pybytes(), written]), buffers)

    def _deserialize_batches(self, in_band: Any, oob: Any) -> tuple[pa.Schema, list[pa.RecordBatch]]:
        # Read [schema, batches] one batch at a time: each batch's nodes are charged before any
        # array is built from them, and the msgpack lists of one batch are dropped before the next.
        check_untrusted_structure(in_band)
        unpacker = Unpacker(max_buffer_size=max(len(in_band), 1))
        unpacker.feed(in_band)
        try:
            if unpacker.read_array_header() != 2:
                raise ValueError("not a pair")
            schema_part = unpacker.unpack()
            count = unpacker.read_array_header()
        except StackError as error:
            raise LimitExceededError(f"msgpack containers are nested more than {MSGPACK_MAX_NESTING} deep") from error
        except (ValueError, TypeError, UnicodeDecodeError) as error:
            raise DeserializationError(f"Arrow in-band must be [schema, batches] ({error})") from error
        except Exception as error:  # msgpack reports truncated data with its own exception types
            raise DeserializationError(f"Arrow in-band must be [schema, batches] ({type(error).__name__})") from error
        schema = _read_schema(schema_part)
        batches = []
        for index in range(count):
            batch_meta = _next_item(unpacker, index)
            if type(batch_meta) is not list or len(batch_meta) != 2 or type(batch_meta[1]) is not list:
                raise DeserializationError(f"invalid Arrow batch header {batch_meta!r:.200}")
            num_rows, nodes = batch_meta
            charge(BATCH_COST + NODE_COST * len(nodes), "Arrow batches and arrays")
            reader = _NodeReader(nodes, oob)
            arrays = [reader.read(field.type) for field in schema]
            reader.finish()
            if any(len(a) != num_rows for a in arrays):
                raise DeserializationError(f"Arrow batch columns do not all have {num_rows} rows")
            if arrays:
                batches.append(pa.RecordBatch.from_arrays(arrays, schema=schema))
            else:
                batches.append(pa.RecordBatch.from_pydict({}, schema=schema))
        if unpacker.tell() != len(in_band):
            raise DeserializationError(f"Arrow in-band has {len(in_band) - unpacker.tell()} bytes after its batches")
        return schema, batches


def _next_item(unpacker: Unpacker, index: int) -> Any:
    try:
        return unpacker.unpack()
    except StackError as error:
        raise LimitExceededError(f"msgpack containers are nested more than {MSGPACK_MAX_NESTING} deep") from error
    except (ValueError, TypeError, UnicodeDecodeError) as error:
        raise DeserializationError(f"Arrow batch {index} is not valid msgpack: {error}") from error
    except Exception as error:  # msgpack reports truncated data with its own exception types
        raise DeserializationError(f"Arrow in-band ends inside batch {index} ({type(error).__name__})") from error


def _read_schema(schema_part: Any) -> pa.Schema:
    """The schema of an Arrow in-band: an IPC Schema message (checked here before pyarrow reads
    it) or, in the canonical form, a schema description (docs/FORMAT.md, section 9.5)."""
    if type(schema_part) is list:
        schema = schema_from_description(schema_part)
    elif type(schema_part) is bytes:
        shape = check_schema_message(schema_part, untrusted=is_untrusted())
        charge(FIELD_COST * shape.fields + METADATA_COST * shape.metadata_entries + 2 * shape.string_bytes,
               "Arrow schema fields")
        try:
            schema = pa.ipc.read_schema(pa.py_buffer(schema_part))
        except (pa.ArrowInvalid, OSError) as error:
            raise DeserializationError(f"invalid Arrow schema message: {error}") from error
    else:
        raise DeserializationError("Arrow in-band must be [schema, batches]")
    for i in range(len(schema)):
        _check_field(schema.field(i), f"column {i}")
    return schema


class ArrowTableSerializer(_ArrowSerializer):
    """pyarrow.Table, each record batch kept as it is (chunking is preserved)."""

    def serialize(self, table: pa.Table) -> SerializationResult:
        return self._serialize_batches(table.schema, table.to_batches())

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> pa.Table:
        schema, batches = self._deserialize_batches(in_band, oob)
        return pa.Table.from_batches(batches, schema=schema)

    def serialize_canonical(self, table: pa.Table) -> SerializationResult:
        return write_table(table)


class ArrowRecordBatchSerializer(_ArrowSerializer):
    def serialize(self, batch: pa.RecordBatch) -> SerializationResult:
        return self._serialize_batches(batch.schema, [batch])

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> pa.RecordBatch:
        schema, batches = self._deserialize_batches(in_band, oob)
        if len(batches) != 1:
            raise DeserializationError(f"an ArrowRecordBatch holds exactly one batch, not {len(batches)}")
        return batches[0]

    def serialize_canonical(self, batch: pa.RecordBatch) -> SerializationResult:
        return write_record_batch(batch)


def register(registry: Any) -> None:
    """Register the Table and RecordBatch serializers."""
    registry.register_serializer(ARROW_TABLE_CLASS_ID, pa.Table, ArrowTableSerializer())
    registry.register_serializer(ARROW_RECORD_BATCH_CLASS_ID, pa.RecordBatch, ArrowRecordBatchSerializer())
