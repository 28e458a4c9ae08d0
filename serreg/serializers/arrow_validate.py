"""Arrow's full validation of a column read from a frame, at the cost of its cheap parts.

Every column a reader builds from a frame's buffers must pass pyarrow's
``validate(full=True)`` before it is handed out (docs/BOUNDS.md, "Arrow
columns read from a frame"). For most types that is already cheap (a count of
the validity bits); for binary and string columns (and their large variants)
pyarrow checks every offset, then every string's UTF-8 one at a time, which
costs about 60 instructions per row. Here the same promise is kept for those
columns with whole-buffer passes:

- the buffer sizes and the first and last offsets: pyarrow's cheap
  validation, which ``Array.from_buffers`` runs;
- the null count: an array whose node declares nulls is built with the null
  count unknown, pyarrow counts the validity bits, and the count must be the
  declared one (a node declaring none has no bitmap for pyarrow: the bitmap
  is dropped, as pyarrow does with a null count of 0);
- the offsets: every one at least the one before it (so all lie between the
  first and the last, inside the data);
- UTF-8 (string columns): if every byte between the first and the last offset
  is ASCII, every value is valid UTF-8; otherwise pyarrow's full validation
  decides, as before.

Each step refuses exactly what the full validation refuses for these types
(tests/test_arrow_validate.py compares them on mutated columns); for every
other type the full validation runs as it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

__all__ = ["counts_own_nulls", "validate_fully"]

# Offsets compared per step, so the temporary array of comparisons stays at 1 MiB.
_CHUNK = 1 << 20
_OFFSET_DTYPES: dict[int, np.dtype[Any]] = {
    pa.lib.Type_BINARY: np.dtype("<i4"),
    pa.lib.Type_STRING: np.dtype("<i4"),
    pa.lib.Type_LARGE_BINARY: np.dtype("<i8"),
    pa.lib.Type_LARGE_STRING: np.dtype("<i8"),
}
_UTF8 = frozenset({pa.lib.Type_STRING, pa.lib.Type_LARGE_STRING})


def counts_own_nulls(arrow_type: pa.DataType) -> bool:
    """True for the types :func:`validate_fully` checks itself: build such an array whose node
    declares nulls with its null count unknown (-1), and hand the declared count to ``validate_fully``."""
    return arrow_type.id in _OFFSET_DTYPES


def validate_fully(array: pa.Array, declared_nulls: int) -> None:
    """Raise pa.ArrowInvalid where ``array.validate(full=True)`` would; ``declared_nulls`` is the
    null count of the array's node when :func:`counts_own_nulls` says it was built without one."""
    type_id = array.type.id
    offset_dtype = _OFFSET_DTYPES.get(type_id)
    if offset_dtype is None or array.offset:  # (the reader builds every array at offset 0)
        array.validate(full=True)
        return
    if array.null_count != declared_nulls:
        raise pa.ArrowInvalid(f"null_count value ({declared_nulls}) doesn't match actual number of nulls in "
                              f"array ({array.null_count})")
    length = len(array)
    if length == 0:  # pyarrow's cheap validation skips the offsets here, its full one checks the first
        array.validate(full=True)
        return
    _, offsets_buffer, data_buffer = array.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=offset_dtype, count=length + 1)
    first, last = int(offsets[0]), int(offsets[length])
    if first < 0 or last < first or last > (0 if data_buffer is None else data_buffer.size):
        array.validate(full=True)  # the cheap validation has refused these already; pyarrow says why
        raise pa.ArrowInvalid(f"offsets {first}..{last} outside the data")
    for start in range(0, length, _CHUNK):
        part = offsets[start:start + _CHUNK + 1]
        if not (part[1:] >= part[:-1]).all():
            slot = start + 1 + int(np.flatnonzero(part[1:] < part[:-1])[0])
            raise pa.ArrowInvalid(f"Offset invariant failure: non-monotonic offset at slot {slot}: "
                                  f"{offsets[slot]} < {offsets[slot - 1]}")
    if type_id not in _UTF8:
        return
    if last > first and _max_byte(data_buffer, first, last) >= 0x80:
        array.validate(full=True)  # not all ASCII: pyarrow checks each value's UTF-8


def _max_byte(data_buffer: Any, first: int, last: int) -> int:
    return int(np.frombuffer(data_buffer, dtype=np.uint8, count=last - first, offset=first).max())
