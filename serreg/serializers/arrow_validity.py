"""Nulls pushed down Arrow columns, for the canonical form (docs/FORMAT.md, section 9.5).

In the canonical form a slot under a null parent slot is null too: the slots
of a struct's children under a null struct slot, and the ``listSize`` slots of
a fixed-size list's child under a null list slot. Done naively (a bool per
child slot) this costs memory in proportion to the child's *length*, which a
frame chooses for free where the child holds no bytes per slot: a 288-byte
frame with a fixed-size list of 2^20 nulls per slot made ``digest`` allocate
256 MiB. Here validity stays at the granularity it came in (:class:`Validity`:
one bool per parent slot and a repeat factor) until a child that has bytes per
slot needs it slot by slot; a null-typed child never does, and a bitmap for a
child without bytes per slot is written a chunk at a time. Bitmaps made from
pushed-down nulls are charged to a :class:`BitmapBudget` that grows with the
value's own buffers, and a child with no bytes per slot under list slots that
are dropped is rebuilt from its type and length alone.
"""

from __future__ import annotations

from typing import Optional, Any

import numpy as np
import pyarrow as pa

from ..errors import CanonicalFormError
from ..limits import DEFAULT_LIMITS

__all__ = ["Validity", "BitmapBudget", "own_validity", "pushed_validity", "has_slot_storage", "storage_free_array"]

# Bits expanded at once when a bitmap is written from a repeated validity.
_CHUNK_BITS = 1 << 23
# Above this repeat factor a parent slot's bits are written as whole bytes, slot by slot.
_BYTEWISE_REPEAT = 1 << 16


class Validity:
    """Slot i is valid iff ``base[i // repeat]`` (a bool array per parent slot, not yet repeated)."""

    __slots__ = ("base", "repeat", "derived")

    def __init__(self, base: np.ndarray, repeat: int = 1, derived: bool = False) -> None:
        self.base = base
        self.repeat = repeat
        self.derived = derived  # True when it is not the node's own bitmap (pushed down from a parent)

    def __len__(self) -> int:
        return len(self.base) * self.repeat

    def valid_count(self) -> int:
        return int(np.count_nonzero(self.base)) * self.repeat

    def repeated(self, size: int) -> "Validity":
        """The validity of a fixed-size list's child slots, ``size`` per slot."""
        return Validity(self.base, self.repeat * size, True)

    def expanded(self) -> np.ndarray:
        """One bool per slot: only for a node that holds at least a bit per slot of its own."""
        return self.base if self.repeat == 1 else np.repeat(self.base, self.repeat)

    def bitmap(self, budget: "BitmapBudget", where: str) -> memoryview:
        """The validity bitmap (least significant bit first, padding bits zero)."""
        n = len(self)
        if self.derived:
            budget.charge((n + 7) // 8, where)
        if self.repeat == 1:
            return np.packbits(self.base, bitorder="little").data
        out = np.zeros((n + 7) // 8, dtype=np.uint8)
        repeat = self.repeat
        if repeat > _BYTEWISE_REPEAT:
            for slot in np.flatnonzero(self.base).tolist():
                _set_bits(out, slot * repeat, (slot + 1) * repeat)
            return out.data
        step = max(8, _CHUNK_BITS // repeat // 8 * 8)  # parent slots per chunk: whole bytes each time
        for start in range(0, len(self.base), step):
            packed = np.packbits(np.repeat(self.base[start:start + step], repeat), bitorder="little")
            first = start * repeat // 8
            out[first:first + len(packed)] = packed
        return out.data


def _set_bits(out: np.ndarray, start: int, stop: int) -> None:
    """Set bits start..stop of a bitmap: whole bytes at once, at most 14 bits one by one."""
    first_byte = (start + 7) // 8
    last_byte = stop // 8
    if first_byte >= last_byte:
        for bit in range(start, stop):
            out[bit >> 3] |= 1 << (bit & 7)
        return
    out[first_byte:last_byte] = 0xFF
    for bit in range(start, first_byte * 8):
        out[bit >> 3] |= 1 << (bit & 7)
    for bit in range(last_byte * 8, stop):
        out[bit >> 3] |= 1 << (bit & 7)


class BitmapBudget:
    """Bytes of bitmaps the canonical writer may make from pushed-down nulls for one value:
    ``memory_allowance + memory_per_byte * (the value's own buffer bytes)``, as a reader's
    budget grows with its frame (serreg.Limits defaults)."""

    __slots__ = ("left", "limit")

    def __init__(self, value_bytes: int) -> None:
        per_byte = DEFAULT_LIMITS.memory_per_byte
        assert per_byte is not None  # the default limits set every limit
        self.limit = self.left = DEFAULT_LIMITS.memory_allowance + per_byte * value_bytes

    def charge(self, nbytes: int, where: str) -> None:
        self.left -= nbytes
        if self.left < 0:
            raise CanonicalFormError(
                f"the canonical form of Arrow {where} would need more than {self.limit:,} bytes of validity "
                "bitmaps for nulls pushed down into slots that hold no data of their own (docs/FORMAT.md, "
                "section 9.5), far more than the value holds; such a value has no digest"
            )


def own_validity(array: pa.Array) -> Optional[np.ndarray[Any, np.dtype[np.bool_]]]:
    """The array's own validity as one bool per slot, or None when it has no nulls."""
    if array.null_count == 0:
        return None
    valid: np.ndarray[Any, np.dtype[np.bool_]] = array.is_valid().to_numpy(zero_copy_only=False)
    return valid


def pushed_validity(array: pa.Array, pushed: Any) -> Validity | None:
    """The validity of ``array`` with its parent's nulls (``pushed``, a Validity or None)
    pushed down: a Validity, or None when every slot is valid."""
    own = own_validity(array)
    if pushed is None:
        return None if own is None else Validity(own)
    if own is None:
        return None if pushed.base.all() else pushed
    return Validity(own & pushed.expanded())  # the array holds a bitmap of its own: a bit per slot


def has_slot_storage(array: pa.Array) -> bool:
    """True if ``array`` holds at least one bit of its own per slot (validity, data or offsets)
    somewhere, so a bool per slot costs at most 8 times what it holds."""
    arrow_type = array.type
    t = pa.types
    if t.is_null(arrow_type):
        return False
    if array.null_count:
        return True
    if t.is_struct(arrow_type):
        return any(has_slot_storage(array.field(i)) for i in range(arrow_type.num_fields))
    if t.is_fixed_size_list(arrow_type):
        return arrow_type.list_size > 0 and has_slot_storage(array.values)
    if t.is_fixed_size_binary(arrow_type):
        return bool(arrow_type.byte_width > 0)
    return True  # bool, fixed width, offsets


def storage_free_array(arrow_type: pa.DataType, length: int) -> pa.Array:
    """An array of ``arrow_type`` with ``length`` slots, no nulls and no bytes per slot (what a
    value of that type without slot storage is, whatever it was sliced from)."""
    t = pa.types
    if t.is_null(arrow_type):
        return pa.Array.from_buffers(arrow_type, length, [None], null_count=length)
    if t.is_struct(arrow_type):
        children = [storage_free_array(arrow_type.field(i).type, length) for i in range(arrow_type.num_fields)]
        return pa.Array.from_buffers(arrow_type, length, [None], 0, 0, children)
    if t.is_fixed_size_list(arrow_type):
        child = storage_free_array(arrow_type.value_type, length * arrow_type.list_size)
        return pa.Array.from_buffers(arrow_type, length, [None], 0, 0, [child])
    return pa.Array.from_buffers(arrow_type, length, [None, pa.py_buffer(b"")], 0)  # fixed-size binary of width 0
