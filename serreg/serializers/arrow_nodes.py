"""Field nodes and buffers of one Arrow batch: written from pyarrow arrays, read back into them.

The order is that of an Arrow IPC RecordBatch body (docs/FORMAT.md, section
6.4): a node per field in depth-first pre-order, and per node its buffers in
the Arrow columnar layout order; unions have no validity buffer, run-end
encoded arrays have none at all, and view arrays have their variadic data
buffers after the views. Two things differ from IPC: a dictionary-encoded
field's node (validity, indices) is followed by the nodes of its dictionary,
which travels with every batch (no dictionary batches, no deltas), and an
extension column is its storage. Nothing is copied, except sliced arrays,
which are compacted first because the wire has no array offsets.

Reading, one kind of buffer is copied out of a frame whose memory may change
(anything but an immutable ``bytes``: a mapped file, shared memory, a
bytearray): the buffers that say where other memory is, the offsets of
strings, binaries, lists and maps, list-view sizes, the views of view types,
dictionary indices, union type ids and offsets, run ends. Pyarrow reads those
without bounds checks once an array has been validated, so another process
rewriting one after the check made the reader's next access of the column
read outside its buffers (a crash); in private memory they stay as checked.
Values (the data buffers) stay views of the frame: rewritten, they change
the values, nothing else.
"""

from __future__ import annotations

from typing import Optional, Any

import pyarrow as pa

from ..errors import DeserializationError
from ..limits import charge

from .arrow_validate import counts_own_nulls, validate_fully

__all__ = ["BUFFER_COST", "NodeReader", "compact", "write_batch"]

_EMPTY = memoryview(b"")
BUFFER_COST = 128  # a pyarrow Buffer wrapping one OOB buffer


def _storage(array: pa.Array) -> pa.Array:
    return array.storage if isinstance(array, pa.ExtensionArray) else array


def _children(array: pa.Array) -> list[Any]:
    array = _storage(array)
    arrow_type = array.type
    t = pa.types
    if t.is_dictionary(arrow_type):
        return [array.dictionary]
    if t.is_run_end_encoded(arrow_type):
        return [array.run_ends, array.values]
    if t.is_struct(arrow_type) or t.is_union(arrow_type):
        return [array.field(i) for i in range(arrow_type.num_fields)]
    if arrow_type.num_fields:
        return [array.values]  # lists, list views, fixed-size lists, maps
    return []


def _has_offsets(array: pa.Array) -> bool:
    return _storage(array).offset != 0 or any(_has_offsets(child) for child in _children(array))


def _own_buffers(array: pa.Array) -> list[Any]:
    arrow_type = array.type
    t = pa.types
    if t.is_union(arrow_type):  # no validity; type ids (and offsets, dense)
        return list(array.buffers()[1: arrow_type.num_buffers])
    if t.is_run_end_encoded(arrow_type):
        return []
    if t.is_binary_view(arrow_type) or t.is_string_view(arrow_type):
        return list(array.buffers())  # validity, views, then every data buffer
    if t.is_dictionary(arrow_type):
        return list(array.buffers()[:2])
    return list(array.buffers()[: arrow_type.num_buffers])


def _write_array(array: pa.Array, nodes: list[Any], buffers: list[Any]) -> None:
    array = _storage(array)
    if pa.types.is_null(array.type):
        nodes.append([len(array), len(array), 0])
        return
    own = _own_buffers(array)
    nodes.append([len(array), array.null_count, len(own)])
    for buffer in own:
        buffers.append(_EMPTY if buffer is None else memoryview(buffer))
    for child in _children(array):
        _write_array(child, nodes, buffers)


def compact(array: pa.Array) -> pa.Array:
    """A sliced array copied into fresh buffers at offset 0, children included."""
    try:
        return pa.concat_arrays([array])
    except pa.ArrowNotImplementedError:
        # No builder for an extension type somewhere inside (and Array.view drops the nulls of a
        # list view under run-end encoding): Arrow's IPC writer compacts every type.
        batch = pa.RecordBatch.from_arrays([array], ["c"])
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema) as writer:
            writer.write_batch(batch)
        return pa.ipc.open_stream(sink.getvalue()).read_next_batch().column(0)


def write_batch(batch: pa.RecordBatch, buffers: list[Any], flat: Optional[tuple[Optional[int], ...]] = None) -> list[Any]:
    """[row count, nodes] of ``batch``; its buffers are appended to ``buffers``. ``flat``: per
    column, its buffer count if it has no children and all its buffers are ``buffers()``
    (arrow_plans.flat_buffers), if known."""
    nodes: list[Any] = []
    for i, column in enumerate(batch.columns):
        count = None if flat is None else flat[i]
        if count is not None:
            if column.offset:
                column = compact(column)
            nodes.append([len(column), column.null_count, count])
            buffers.extend(_EMPTY if b is None else memoryview(b) for b in column.buffers()[:count])
            continue
        if _has_offsets(column):
            column = compact(column)
        _write_array(column, nodes, buffers)
    return [batch.num_rows, nodes]


def _structural(arrow_type: pa.DataType) -> tuple[int, ...]:
    """The positions, among a node's buffers in the frame, of those that locate other memory."""
    t = pa.types
    if isinstance(arrow_type, pa.BaseExtensionType):
        arrow_type = arrow_type.storage_type
    if t.is_union(arrow_type):
        return (0, 1)  # type ids, and offsets when dense (the frame has no validity buffer for a union)
    if t.is_list_view(arrow_type) or t.is_large_list_view(arrow_type):
        return (1, 2)
    if (t.is_dictionary(arrow_type) or t.is_binary(arrow_type) or t.is_string(arrow_type)
            or t.is_large_binary(arrow_type) or t.is_large_string(arrow_type) or t.is_list(arrow_type)
            or t.is_large_list(arrow_type) or t.is_map(arrow_type) or t.is_binary_view(arrow_type)
            or t.is_string_view(arrow_type)):
        return (1,)
    return ()


def _expected_buffers(arrow_type: pa.DataType) -> Optional[int]:
    """How many buffers a node of this type has (None: two or more, for views)."""
    t = pa.types
    if t.is_union(arrow_type):
        return int(arrow_type.num_buffers) - 1
    if t.is_run_end_encoded(arrow_type) or t.is_null(arrow_type):
        return 0
    if t.is_binary_view(arrow_type) or t.is_string_view(arrow_type):
        return None
    if t.is_dictionary(arrow_type):
        return 2
    return int(arrow_type.num_buffers)


class NodeReader:
    """Rebuilds arrays from the field nodes and buffers of one batch, in order."""

    def __init__(self, nodes: list[Any], oob: Any) -> None:
        self._nodes = nodes
        self._next = 0
        self._oob = oob
        self.in_process = True  # until a buffer that is not a pyarrow Buffer is met

    def _node(self) -> tuple[Any, ...]:
        if self._next >= len(self._nodes):
            raise DeserializationError("Arrow batch has fewer field nodes than its schema needs")
        node = self._nodes[self._next]
        self._next += 1
        if type(node) is list and len(node) == 3:
            length, null_count, buffer_count = node
            if (type(length) is int and type(null_count) is int and type(buffer_count) is int
                    and length >= 0 and null_count >= 0 and buffer_count >= 0):
                return length, null_count, buffer_count
        raise DeserializationError(f"invalid Arrow field node {node!r:.200}")

    def _buffers(self, count: int, structural: tuple[int, ...]) -> list[Any]:
        charge(BUFFER_COST * count, "Arrow buffers")
        buffers: list[Any] = []
        oob = self._oob
        for i in range(count):
            view = next(oob)
            nbytes = view.nbytes
            if i == 0 and nbytes == 0:
                buffers.append(None)  # no validity bitmap
                continue
            # A whole pyarrow Buffer is one an in-process result handed over (used as it is); a
            # slice of one is a frame held in Arrow memory (a memory-mapped file, say) and gets
            # checked in full.
            whole = view.obj
            if type(whole) is pa.Buffer and nbytes == whole.size:
                buffers.append(whole)
                continue
            if nbytes:
                self.in_process = False
            if i in structural and type(whole) is not bytes:
                buffers.append(pa.py_buffer(view.tobytes()))  # memory that may change: a private copy
                continue
            buffers.append(pa.py_buffer(view))
        return buffers

    def read(self, arrow_type: pa.DataType, full: Optional[bool] = None, flat: Optional[int] = None,
             run_ends: bool = False) -> pa.Array:
        """The next array of ``arrow_type``, its children read first. ``full``: whether it gets
        Arrow's full validation; None (a column) when its buffers are not all pyarrow's own.
        ``flat``: the type's buffer count if arrow_plans.flat_buffers gave one (no children).
        ``run_ends``: the run ends of a run-end encoded array (its data buffer locates values)."""
        extension = None
        if flat is not None:
            length, null_count, buffer_count = self._node()
            expected: Optional[int] = flat
        else:
            if isinstance(arrow_type, pa.BaseExtensionType):
                extension, arrow_type = arrow_type, arrow_type.storage_type
            length, null_count, buffer_count = self._node()
            if pa.types.is_null(arrow_type):
                if buffer_count != 0:
                    raise DeserializationError("an Arrow null column has no buffers")
                # pa.nulls() fills memory in proportion to the length; a null array needs none.
                array = pa.Array.from_buffers(pa.null(), length, [None], null_count=length)
                return array if extension is None else pa.ExtensionArray.from_storage(extension, array)
            expected = _expected_buffers(arrow_type)
        if expected is None and buffer_count < 2 or expected is not None and buffer_count != expected:
            raise DeserializationError(
                f"Arrow {arrow_type} column needs {'2 or more' if expected is None else expected} buffers, its node "
                f"says {buffer_count}"
            )
        buffers = self._buffers(buffer_count, (1,) if run_ends else _structural(arrow_type))
        try:
            # A column read from a frame gets the full validation (offsets inside their data, child
            # lengths, null counts, UTF-8, dictionary indices, union type ids, run ends, views; it
            # covers the children too): the cheap one trusts offsets, and reading past a buffer would
            # crash the process. Children get the cheap one before their parent is built. Buffers
            # that are all pyarrow's own (an in-process result of this serializer) come from arrays
            # pyarrow built, so the cheap one is enough there. arrow_validate.py does the full one
            # of binary and string columns in whole-buffer passes; pyarrow counts their nulls.
            # (A binary or string array has no children: whether it is in-process is known here.)
            own_nulls = (null_count > 0 and counts_own_nulls(arrow_type)
                         and (full or full is None and not self.in_process))
            nulls = -1 if own_nulls else null_count
            if flat is not None:
                array = pa.Array.from_buffers(arrow_type, length, buffers, nulls, 0)  # runs the cheap validation
            else:
                array = self._build(arrow_type, length, nulls, buffers)
            if full is None:
                full = not self.in_process  # after the children's buffers too
            if full:
                validate_fully(array, null_count)
            elif flat is None:
                array.validate()
            if extension is not None:
                array = pa.ExtensionArray.from_storage(extension, array)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, pa.ArrowIndexError) as error:
            raise DeserializationError(f"invalid Arrow {extension or arrow_type} column: {error}") from error
        return array

    def _build(self, arrow_type: pa.DataType, length: int, null_count: int, buffers: list[Any]) -> pa.Array:
        t = pa.types
        if t.is_dictionary(arrow_type):
            indices = pa.Array.from_buffers(arrow_type.index_type, length, buffers, null_count, 0)
            indices.validate()
            dictionary = self.read(arrow_type.value_type, True)  # full: before pyarrow looks values up
            return pa.DictionaryArray.from_arrays(indices, dictionary, ordered=arrow_type.ordered, safe=True)
        if t.is_union(arrow_type):
            if null_count:
                raise DeserializationError(f"an Arrow {arrow_type} node has no nulls of its own, not {null_count}")
            buffers = [None, *buffers]
        elif t.is_run_end_encoded(arrow_type):
            if null_count:
                raise DeserializationError(f"an Arrow {arrow_type} node has no nulls of its own, not {null_count}")
            buffers = [None]
        ree = t.is_run_end_encoded(arrow_type)
        children = [self.read(field.type, False, run_ends=ree and i == 0) for i, field in enumerate(_child_fields(arrow_type))]
        return pa.Array.from_buffers(arrow_type, length, buffers, null_count, 0, children or None)

    def finish(self) -> None:
        if self._next != len(self._nodes):
            raise DeserializationError(f"Arrow batch has {len(self._nodes) - self._next} field nodes too many")


def _child_fields(arrow_type: pa.DataType) -> list[Any]:
    t = pa.types
    if t.is_run_end_encoded(arrow_type):
        return [pa.field("run_ends", arrow_type.run_end_type), pa.field("values", arrow_type.value_type)]
    if t.is_map(arrow_type):
        return [pa.field("entries", pa.struct([arrow_type.key_field, arrow_type.item_field]))]
    if t.is_struct(arrow_type) or t.is_union(arrow_type):
        return [arrow_type.field(i) for i in range(arrow_type.num_fields)]
    if arrow_type.num_fields:
        return [arrow_type.value_field]
    return []
