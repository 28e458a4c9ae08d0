"""The Arrow types an IPC Schema message may hold, and the checks of their type tables.

``arrow_ipc_check.py`` walks the flatbuffer; for each field it asks
:func:`check_type` whether the type tag is one serreg carries (docs/FORMAT.md,
section 6.4) and whether its type table holds parameters that go together,
and :func:`check_dictionary` does the same for a field's DictionaryEncoding.
The numbers are the type union tags and table slots of Arrow's ``Schema.fbs``.
"""

from __future__ import annotations

from typing import Any

import struct

__all__ = ["I16", "I32", "I64", "U8", "MAP", "STRUCT", "TYPES", "check_dictionary", "check_type", "refused_type"]

U8 = struct.Struct("<B")
I16 = struct.Struct("<h")
I32 = struct.Struct("<i")
I64 = struct.Struct("<q")

NULL, INT, FLOAT, BINARY, UTF8, BOOL, DECIMAL, DATE, TIME, TIMESTAMP = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
INTERVAL, LIST, STRUCT, UNION, FIXED_SIZE_BINARY, FIXED_SIZE_LIST, MAP, DURATION = 11, 12, 13, 14, 15, 16, 17, 18
LARGE_BINARY, LARGE_UTF8, LARGE_LIST, RUN_END_ENCODED = 19, 20, 21, 22
BINARY_VIEW, UTF8_VIEW, LIST_VIEW, LARGE_LIST_VIEW = 23, 24, 25, 26

# tag -> (name in Schema.fbs, child fields it needs: None = any number)
TYPES = {
    NULL: ("Null", 0), INT: ("Int", 0), FLOAT: ("FloatingPoint", 0), BINARY: ("Binary", 0), UTF8: ("Utf8", 0),
    BOOL: ("Bool", 0), DECIMAL: ("Decimal", 0), DATE: ("Date", 0), TIME: ("Time", 0), TIMESTAMP: ("Timestamp", 0),
    INTERVAL: ("Interval", 0), LIST: ("List", 1), STRUCT: ("Struct_", None), UNION: ("Union", None),
    FIXED_SIZE_BINARY: ("FixedSizeBinary", 0), FIXED_SIZE_LIST: ("FixedSizeList", 1), MAP: ("Map", 1),
    DURATION: ("Duration", 0), LARGE_BINARY: ("LargeBinary", 0), LARGE_UTF8: ("LargeUtf8", 0),
    LARGE_LIST: ("LargeList", 1), RUN_END_ENCODED: ("RunEndEncoded", 2), BINARY_VIEW: ("BinaryView", 0),
    UTF8_VIEW: ("Utf8View", 0), LIST_VIEW: ("ListView", 1), LARGE_LIST_VIEW: ("LargeListView", 1),
}

# Interval units pyarrow can hold arrays of: only MONTH_DAY_NANO (2). YEAR_MONTH (0) and DAY_TIME (1)
# have no Python array class, so a column of them can be neither built nor handed out.
_INTERVAL_UNITS = {0: "YEAR_MONTH", 1: "DAY_TIME", 2: "MONTH_DAY_NANO"}
# A union has at most 128 children (type codes 0..127).
_MAX_UNION_CHILDREN = 128


def refused_type(tag: int) -> str | None:
    """Why a type tag is refused (None: it is one serreg carries)."""
    if tag in TYPES:
        return None
    return f"type tag {tag}, which is not an Arrow type serreg knows"


def check_type(buffer: Any, tag: int, table: Any, counts: Any, children: int) -> None:
    """Check the type table of a field of type ``tag`` with ``children`` child fields.

    ``buffer.fail`` raises with the field named; ``table`` reads the type table's slots.
    """
    if tag == INT:
        if table.scalar(0, I32, 0) not in (8, 16, 32, 64):
            buffer.fail("an Int type must be 8, 16, 32 or 64 bits wide", table.position)
        table.scalar(1, U8, 0)
    elif tag == FLOAT:
        if table.scalar(0, I16, 0) not in (0, 1, 2):
            buffer.fail("a FloatingPoint precision must be HALF, SINGLE or DOUBLE", table.position)
    elif tag == DECIMAL:
        precision, bits = table.scalar(0, I32, 0), table.scalar(2, I32, 128)
        table.scalar(1, I32, 0)
        limit = {32: 9, 64: 18, 128: 38, 256: 76}.get(bits)
        if limit is None or not 1 <= precision <= limit:
            buffer.fail(f"a Decimal type of {bits} bits has precision {precision} (1..{limit} for 32, 64, 128 or "
                        "256 bits)", table.position)
    elif tag == DATE:
        if table.scalar(0, I16, 1) not in (0, 1):
            buffer.fail("a Date unit must be DAY or MILLISECOND", table.position)
    elif tag == TIME:
        unit, bits = table.scalar(0, I16, 1), table.scalar(1, I32, 32)
        if (unit, bits) not in ((0, 32), (1, 32), (2, 64), (3, 64)):
            buffer.fail(f"a Time type has unit {unit} and bit width {bits}, which do not go together", table.position)
    elif tag == TIMESTAMP:
        if table.scalar(0, I16, 0) not in (0, 1, 2, 3):
            buffer.fail("a Timestamp unit must be SECOND, MILLISECOND, MICROSECOND or NANOSECOND", table.position)
        zone = table.string(1, "time zone")
        if zone is not None:
            counts.string_bytes += len(zone)
            try:
                zone.decode("utf-8")
            except UnicodeDecodeError:
                buffer.fail("a Timestamp time zone is not UTF-8", table.position)
    elif tag == DURATION:
        if table.scalar(0, I16, 1) not in (0, 1, 2, 3):
            buffer.fail("a Duration unit must be SECOND, MILLISECOND, MICROSECOND or NANOSECOND", table.position)
    elif tag == INTERVAL:
        unit = table.scalar(0, I16, 0)
        if unit not in _INTERVAL_UNITS:
            buffer.fail(f"an Interval unit must be YEAR_MONTH, DAY_TIME or MONTH_DAY_NANO, not {unit}", table.position)
        if unit != 2:
            buffer.fail(f"the field is an Interval({_INTERVAL_UNITS[unit]}) column, which pyarrow cannot hold as an "
                        "array in Python (only month_day_nano intervals); serreg does not carry it", table.position)
    elif tag in (FIXED_SIZE_BINARY, FIXED_SIZE_LIST):
        if table.scalar(0, I32, 0) < 0:
            buffer.fail(f"a {TYPES[tag][0]} size is negative", table.position)
    elif tag == MAP:
        table.scalar(0, U8, 0)
    elif tag == UNION:
        if table.scalar(0, I16, 0) not in (0, 1):
            buffer.fail("a Union mode must be Sparse or Dense", table.position)
        if children > _MAX_UNION_CHILDREN:
            buffer.fail(f"a Union has {children} children, more than {_MAX_UNION_CHILDREN}", table.position)
        codes = table.int32_vector(1, "union type ids")
        if codes is not None and (len(codes) != children or len(set(codes)) != len(codes)
                                  or any(not 0 <= c < 128 for c in codes)):
            buffer.fail(f"a Union's type ids {codes[:8]} must be {children} distinct codes in 0..127",
                        table.position)


def check_dictionary(buffer: Any, encoding: Any) -> None:
    """Check a field's DictionaryEncoding table: its index type is an integer of 8 to 64 bits."""
    encoding.scalar(0, I64, 0)  # id: any; serreg sends each dictionary with its batch
    index = encoding.table(1, "Int")
    if index is None:  # Arrow C++ refuses it; Arrow Java would take a 32-bit index
        buffer.fail("a dictionary has no index type", encoding.position)
    if index.scalar(0, I32, 0) not in (8, 16, 32, 64):
        buffer.fail("a dictionary's index type must be an integer of 8, 16, 32 or 64 bits", encoding.position)
    index.scalar(1, U8, 0)  # is_signed: read by Arrow Java, so checked inside its table
    encoding.scalar(2, U8, 0)  # isOrdered
    if encoding.scalar(3, I16, 0) != 0:
        buffer.fail("a dictionary's kind must be DenseArray", encoding.position)
