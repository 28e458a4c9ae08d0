"""Arrow Schema messages with one table or vtable broken, for tests that hold the readers' checks side by side.

``tables(message)`` lists every flatbuffer table Python's check walks in a well-formed Schema message,
found by a walk of its own in the same order (where each one and its vtable lie, what it is: Message,
Schema, Field, a type table, DictionaryEncoding, KeyValue); ``faults(message)`` breaks each of them in the ways a reader must notice before an Arrow
library reads it: the vtable outside the message, a vtable of an odd size, a table running past the end,
a field slot outside its table, a field slot misaligned. The message ``schema_message()`` gives holds a
field of every type union member serreg carries (docs/FORMAT.md, section 6.4), a dictionary-encoded
field and metadata on the schema and on a field, so that every kind of table occurs.
"""

from __future__ import annotations

import struct
import pyarrow as pa

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


# Type tag (Schema.fbs) -> the name of its table, as Python's check names it.
_TYPE_NAMES = {1: "Null", 2: "Int", 3: "FloatingPoint", 4: "Binary", 5: "Utf8", 6: "Bool", 7: "Decimal", 8: "Date",
               9: "Time", 10: "Timestamp", 11: "Interval", 12: "List", 13: "Struct_", 14: "Union", 15: "FixedSizeBinary",
               16: "FixedSizeList", 17: "Map", 18: "Duration", 19: "LargeBinary", 20: "LargeUtf8", 21: "LargeList",
               22: "RunEndEncoded", 23: "BinaryView", 24: "Utf8View", 25: "ListView", 26: "LargeListView"}


def tables(message: bytes) -> list[Table]:
    """Every table of a well-formed ``message`` an Arrow reader reads, in the order Python's check reaches them."""
    fb = memoryview(message)[8:]
    found: list[Table] = []

    def table(position: int, what: str) -> Table:
        vtable = position - struct.unpack_from("<i", fb, position)[0]
        vtable_size, table_size = struct.unpack_from("<HH", fb, vtable)
        found.append(Table(what, position, vtable, vtable_size, table_size))
        return found[-1]

    def slot(t: Table, index: int) -> int:
        if 4 + 2 * index + 2 > t.vtable_size:
            return 0
        offset: int = struct.unpack_from("<H", fb, t.vtable + 4 + 2 * index)[0]
        return 0 if offset == 0 else t.position + offset

    def target(at: int) -> int:
        return at + int(struct.unpack_from("<I", fb, at)[0])

    def child(t: Table, index: int, what: str) -> Table | None:
        at = slot(t, index)
        return None if at == 0 else table(target(at), what)

    def children(t: Table, index: int, what: str) -> list[Table]:
        at = slot(t, index)
        if at == 0:
            return []
        vector = target(at)
        count = struct.unpack_from("<I", fb, vector)[0]
        return [table(target(vector + 4 + 4 * i), what) for i in range(count)]

    def u8(t: Table, index: int) -> int:
        at = slot(t, index)
        return 0 if at == 0 else fb[at]

    root = table(target(0), "Message")
    children(root, 4, "KeyValue")
    schema = child(root, 2, "Schema")
    assert schema is not None
    children(schema, 2, "KeyValue")
    stack = list(reversed(children(schema, 1, "Field")))
    while stack:  # depth-first, as the check: type table, children, dictionary encoding, metadata
        field = stack.pop()
        child(field, 3, _TYPE_NAMES[u8(field, 2)])
        kids = children(field, 5, "Field")
        encoding = child(field, 4, "DictionaryEncoding")
        if encoding is not None:
            child(encoding, 1, "Int")
        children(field, 6, "KeyValue")
        stack.extend(reversed(kids))
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
