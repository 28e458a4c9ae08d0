"""Canonical nodes and buffers of the Arrow layouts beyond the plain ones (docs/FORMAT.md, section 9.5).

``pyarrow_canonical.py`` writes null, boolean, fixed-width, variable-width,
list, fixed-size-list, map and struct nodes; this module writes fixed-width
data for it and the rest, each rebuilt from its logical values so that equal
arrays give equal bytes:

- dictionary: the index node (validity, indices zero under nulls), then the
  dictionary's nodes as they are (a dictionary is part of the value);
- sparse union: type ids (the first type code under a null pushed down from a
  parent), each child with the slots another child holds pushed to null;
- dense union: type ids, offsets renumbered 0, 1, 2 ... per child, each child
  reduced to the slots the union uses, in slot order;
- run-end encoded: the runs of the slice, ends counted from 0, split where
  nulls pushed down from a parent begin or end (runs are not merged);
- binary and string views: one view of 16 bytes per slot (length, then the
  bytes inline up to 12, else a 4-byte prefix, buffer 0 and the offset), one
  data buffer holding the values longer than 12 bytes in slot order, nulls all
  zero;
- list views and large list views: offsets 0, 1, ... as a list's, sizes, and
  the child reduced to the slots the views show, in slot order.

Each ``write_*`` takes ``write`` (pyarrow_canonical.write_array) for children.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ..canonical.floats import normalize_float_array

from .arrow_validity import Validity, pushed_validity

__all__ = ["buffer_bytes", "fixed_width", "is_other_layout", "take", "write_other"]

_EMPTY = memoryview(b"")
_INLINE = 12  # bytes a view holds inline


def buffer_bytes(buffer: Any, start: int, stop: int) -> np.ndarray:
    """Bytes start..stop of an Arrow buffer as a uint8 array (a view, no copy)."""
    if buffer is None:
        return np.zeros(stop - start, dtype=np.uint8)
    return np.frombuffer(buffer, dtype=np.uint8)[start:stop]


def fixed_width(array: pa.Array, valid: Any) -> memoryview:
    """The data buffer of a fixed-width array: its own slots, floats canonical, zero under nulls."""
    arrow_type = array.type
    width = arrow_type.byte_width
    n = len(array)
    start = array.offset
    data = buffer_bytes(array.buffers()[1], start * width, (start + n) * width)
    if pa.types.is_floating(arrow_type) and n:
        floats = data.view(f"<f{width}")
        fixed = normalize_float_array(floats)
        if fixed is not floats:
            data = fixed.view(np.uint8)
    if valid is not None and width:  # width 0: nothing lies under the nulls
        null = ~valid.expanded()
        rows = data.reshape(n, width)
        if rows[null].any():
            rows = rows.copy()
            rows[null] = 0
            data = rows.reshape(-1)
    return data.data


def take(array: pa.Array, indices: np.ndarray) -> pa.Array:
    """``array.take(indices)``; for types pyarrow 26 has no take kernel for (views, run-end
    encoded), the runs of consecutive indices are sliced and joined."""
    try:
        return array.take(pa.array(indices, pa.int64()))
    except pa.ArrowNotImplementedError:
        if len(indices) == 0:
            return array.slice(0, 0)
        breaks = np.flatnonzero(np.diff(indices) != 1) + 1
        starts = np.concatenate([[0], breaks])
        stops = np.concatenate([breaks, [len(indices)]])
        return pa.concat_arrays([array.slice(int(indices[a]), int(b - a)) for a, b in zip(starts, stops)])


def is_other_layout(arrow_type: pa.DataType) -> bool:
    t = pa.types
    return bool(t.is_dictionary(arrow_type) or t.is_union(arrow_type) or t.is_run_end_encoded(arrow_type)
            or t.is_binary_view(arrow_type) or t.is_string_view(arrow_type) or t.is_list_view(arrow_type)
            or t.is_large_list_view(arrow_type))


def _bitmap(valid: Any, budget: Any, where: Any) -> memoryview:
    return _EMPTY if valid is None else valid.bitmap(budget, where)


def write_other(array: pa.Array, pushed: Any, nodes: list[Any], buffers: list[Any], budget: Any, where: str, write: Any) -> None:
    """Append the canonical nodes and buffers of a layout :func:`is_other_layout` names."""
    arrow_type = array.type
    t = pa.types
    n = len(array)
    if t.is_union(arrow_type):
        _write_union(array, pushed, nodes, buffers, budget, where, write)
    elif t.is_run_end_encoded(arrow_type):
        _write_run_ends(array, pushed, nodes, buffers, budget, where, write)
    else:
        # A dictionary's nulls are its indices' own (pyarrow's is_valid also counts slots whose
        # dictionary value is null, which the dictionary's own nodes already say).
        valid = pushed_validity(array.indices if t.is_dictionary(arrow_type) else array, pushed)
        nulls = 0 if valid is None else n - valid.valid_count()
        if t.is_dictionary(arrow_type):
            nodes.append([n, nulls, 2])
            buffers.append(_bitmap(valid, budget, where))
            buffers.append(fixed_width(array.indices, valid))
            write(array.dictionary, None, nodes, buffers, budget, f"{where} > dictionary")
        elif t.is_list_view(arrow_type) or t.is_large_list_view(arrow_type):
            _write_list_view(array, valid, nulls, nodes, buffers, budget, where, write)
        else:
            nodes.append([n, nulls, 3])
            buffers.append(_bitmap(valid, budget, where))
            buffers.extend(_views(array, valid))


def _write_union(array: Any, pushed: Any, nodes: Any, buffers: Any, budget: Any, where: Any, write: Any) -> None:
    arrow_type = array.type
    n = len(array)
    codes = arrow_type.type_codes
    source = array.buffers()
    ids = np.frombuffer(source[1], dtype=np.int8)[array.offset: array.offset + n] if n else np.zeros(0, np.int8)
    pushed_valid = None if pushed is None else pushed.expanded()
    if arrow_type.mode == "sparse":
        if pushed_valid is not None and not pushed_valid.all():
            ids = np.where(pushed_valid, ids, np.int8(codes[0]))
        nodes.append([n, 0, 1])
        buffers.append(ids.data)
        for i, code in enumerate(codes):
            held = ids == code
            if pushed_valid is not None:
                held &= pushed_valid
            write(array.field(i), Validity(held, 1, True), nodes, buffers, budget, f"{where} > child {i}")
        return
    offsets = np.frombuffer(source[2], dtype=np.int32)[array.offset: array.offset + n] if n else np.zeros(0, np.int32)
    renumbered = np.zeros(n, dtype=np.int32)
    nodes.append([n, 0, 2])
    buffers.append(ids.data)
    buffers.append(renumbered.data)
    for i, code in enumerate(codes):
        held = ids == code
        used = offsets[held]
        renumbered[held] = np.arange(len(used), dtype=np.int32)
        child = take(array.field(i), used.astype(np.int64))
        child_pushed = None if pushed_valid is None else Validity(pushed_valid[held], 1, True)
        write(child, child_pushed, nodes, buffers, budget, f"{where} > child {i}")


def _write_run_ends(array: Any, pushed: Any, nodes: Any, buffers: Any, budget: Any, where: Any, write: Any) -> None:
    arrow_type = array.type
    n = len(array)
    start = array.offset
    run_ends = array.run_ends.to_numpy(zero_copy_only=False).astype(np.int64)
    if n:
        first = int(np.searchsorted(run_ends, start, side="right"))
        last = int(np.searchsorted(run_ends, start + n - 1, side="right")) + 1
    else:
        first = last = 0
    ends = np.minimum(run_ends[first:last], start + n) - start
    values = array.values.slice(first, last - first)
    values_pushed = None
    if pushed is not None and not pushed.base.all():
        valid = pushed.expanded()
        changes = np.flatnonzero(valid[1:] != valid[:-1]) + 1  # slots where a parent's null begins or ends
        split = np.union1d(ends, changes)
        starts = np.concatenate([[0], split[:-1]]).astype(np.int64)
        values = take(values, np.searchsorted(ends, starts, side="right"))
        values_pushed = Validity(valid[starts], 1, True)
        ends = split
    nodes.append([n, 0, 0])
    write(pa.array(ends, arrow_type.run_end_type), None, nodes, buffers, budget, f"{where} > run ends")
    write(values, values_pushed, nodes, buffers, budget, f"{where} > values")


def _views(array: Any, valid: Any) -> list[Any]:
    """[views, data] of a binary or string view array."""
    n = len(array)
    flat = array.cast(pa.large_string() if pa.types.is_string_view(array.type) else pa.large_binary())
    offsets = np.frombuffer(flat.buffers()[1], dtype=np.int64)[flat.offset: flat.offset + n + 1] \
        if n else np.zeros(1, np.int64)
    data = buffer_bytes(flat.buffers()[2], 0, int(offsets[-1]))
    lengths = np.diff(offsets)
    if valid is not None:
        lengths = np.where(valid.expanded(), lengths, 0)
    views = np.zeros((n, 16), dtype=np.uint8)
    views[:, 0:4] = lengths.astype("<i4").view(np.uint8).reshape(n, 4)
    if len(data):
        positions = offsets[:-1, None] + np.arange(_INLINE)[None, :]
        inline = (np.arange(_INLINE)[None, :] < lengths[:, None]) & (lengths <= _INLINE)[:, None]
        views[:, 4:16] = np.where(inline, data[np.minimum(positions, len(data) - 1)], 0)
    long = lengths > _INLINE
    starts = np.zeros(n, dtype=np.int64)
    if n > 1:
        np.cumsum(np.where(long, lengths, 0)[:-1], out=starts[1:])
    out = np.zeros(0, dtype=np.uint8)
    if long.any():
        views[long, 4:8] = data[offsets[:-1][long, None] + np.arange(4)[None, :]]
        views[long, 12:16] = starts[long].astype("<i4").view(np.uint8).reshape(-1, 4)
        out = data[int(offsets[0]):][np.repeat(long, np.diff(offsets))]
    return [views.reshape(-1).data, out.data]


def _write_list_view(array: Any, valid: Any, nulls: Any, nodes: Any, buffers: Any, budget: Any, where: Any, write: Any) -> None:
    n = len(array)
    width = np.int64 if pa.types.is_large_list_view(array.type) else np.int32
    source = array.buffers()
    start = array.offset
    offsets = np.frombuffer(source[1], dtype=width)[start: start + n] if n else np.zeros(0, width)
    sizes = np.frombuffer(source[2], dtype=width)[start: start + n] if n else np.zeros(0, width)
    if valid is not None:
        sizes = np.where(valid.expanded(), sizes, 0).astype(width)
    new_offsets = np.zeros(n, dtype=width)
    if n > 1:
        np.cumsum(sizes[:-1], out=new_offsets[1:])
    total = int(sizes.sum())
    # Child slot k of the result is source slot offsets[i] + (k - new_offsets[i]) of the view i it falls in.
    positions = np.repeat(offsets.astype(np.int64) - new_offsets.astype(np.int64), sizes.astype(np.int64)) + np.arange(total, dtype=np.int64)
    child = take(array.values, positions)
    nodes.append([n, nulls, 3])
    buffers.append(_bitmap(valid, budget, where))
    buffers.append(new_offsets.data)
    buffers.append((np.ascontiguousarray(sizes, dtype=width)).data)
    write(child, None, nodes, buffers, budget, f"{where} > child 0")
