"""Arrow Schema messages with one table or vtable broken, for tests that hold the readers' checks side by side.

``tables(message)`` lists every flatbuffer table Python's check walks in an encapsulated Schema message
(where each one and its vtable lie, what it is: Message, Schema, Field, a type table, DictionaryEncoding,
KeyValue); ``faults(message)`` breaks each of them in the ways a reader must notice before an Arrow
library reads it: the vtable outside the message, a vtable of an odd size, a table running past the end,
a field slot outside its table, a field slot misaligned. The message ``schema_message()`` gives holds a
field of every type union member serreg carries (docs/FORMAT.md, section 6.4), a dictionary-encoded
field and metadata on the schema and on a field, so that every kind of table occurs.
"""

from __future__ import annotations

import struct
from typing import Any

import pyarrow as pa

from serreg.serializers import arrow_ipc_check

__all__ = ["Table", "faults", "schema_message", "tables"]


class Table:
    """A table as the check reached it: ``position`` and ``vtable`` count from the flatbuffer's start."""

    def __init__(self, what: str, position: int, vtable: int, vtable_size: int, table_size: int) -> None:
        self.what, self.position, self.vtable = what, position, vtable
        self.vtable_size, self.table_size = vtable_size, table_size


def schema_message() -> bytes:
    """An encapsulated IPC Schema message (pyarrow's bytes) with a field of every kind of type table."""
    fields = [
        pa.field("i", pa.int32()), pa.field("f", pa.float64()), pa.field("dec", pa.decimal128(10, 2)),
        pa.field("d", pa.date32()), pa.field("t", pa.time64("us")), pa.field("ts", pa.timestamp("ms", tz="UTC")),
        pa.field("iv", pa.month_day_nano_interval()), pa.field("l", pa.list_(pa.int8())),
        pa.field("s", pa.struct([pa.field("a", pa.bool_()), pa.field("b", pa.utf8())])),
        pa.field("u", pa.sparse_union([pa.field("x", pa.int16()), pa.field("y", pa.binary())])),
        pa.field("fsb", pa.binary(4)), pa.field("fsl", pa.list_(pa.int64(), 2)),
        pa.field("m", pa.map_(pa.utf8(), pa.int32())), pa.field("du", pa.duration("s")),
        pa.field("lb", pa.large_binary()), pa.field("lu", pa.large_utf8()), pa.field("ll", pa.large_list(pa.null())),
        pa.field("dict", pa.dictionary(pa.int16(), pa.utf8()), metadata={"k": "v"}),
    ]
    return bytes(pa.schema(fields, metadata={"sk": "sv"}).serialize())


def tables(message: bytes) -> list[Table]:
    """Every table Python's check reads in ``message``, in the order it reads them (each once)."""
    found: list[Table] = []
    original = arrow_ipc_check._Flatbuffer.table

    def recording(self: Any, position: int, what: str) -> Any:
        table = original(self, position, what)
        vtable = position - struct.unpack_from("<i", self.view, position)[0]
        vtable_size, table_size = struct.unpack_from("<HH", self.view, vtable)
        found.append(Table(what, position, vtable, vtable_size, table_size))
        return table

    arrow_ipc_check._Flatbuffer.table = recording  # type: ignore[method-assign]
    try:
        arrow_ipc_check.check_schema_message(message, untrusted=True)
    finally:
        arrow_ipc_check._Flatbuffer.table = original  # type: ignore[method-assign]
    return found


def _patched(message: bytes, at: int, fmt: str, value: int) -> bytes:
    out = bytearray(message)
    struct.pack_into(fmt, out, 8 + at, value)
    return bytes(out)


def faults(message: bytes) -> dict[str, bytes]:
    """Copies of ``message``, each with one table broken, named by the table and the fault."""
    out: dict[str, bytes] = {}
    size = len(message) - 8
    for n, table in enumerate(tables(message)):
        name = f"{n} {table.what} at {table.position}"
        # The table's offset to its vtable points at the message's last two bytes.
        out[f"{name}: vtable outside the message"] = _patched(message, table.position, "<i", table.position - (size - 2))
        out[f"{name}: vtable of odd size"] = _patched(message, table.vtable, "<H", table.vtable_size | 1)
        out[f"{name}: table runs past the end"] = _patched(message, table.vtable + 2, "<H", size - table.position + 4)
        slots = [(i, struct.unpack_from("<H", message, 8 + table.vtable + 4 + 2 * i)[0])
                 for i in range((table.vtable_size - 4) // 2)]
        present = [i for i, offset in slots if offset]
        if present:
            out[f"{name}: field {present[0]} outside the table"] = _patched(
                message, table.vtable + 4 + 2 * present[0], "<H", table.table_size)
            out[f"{name}: field {present[-1]} misaligned"] = _patched(
                message, table.vtable + 4 + 2 * present[-1], "<H", slots[present[-1]][1] + 1)
    return out
