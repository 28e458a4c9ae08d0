"""Hand-built ext 2 frames (lists of struct instances by columns, docs/FORMAT.md 10.3).

``int_column`` writes an integer column as the spec words it (kind byte, LEB128 varints),
``ext2`` and ``table_frame`` the ext 2 and the table around it, ``points`` a list of points
from its columns. ``HOSTILE`` names the faulty (and a few good) ext 2 frames both codecs must
answer alike.
"""

from __future__ import annotations

from typing import Any, Optional

import msgpack

import serreg
from serreg.wire.class_id import class_id_hash

__all__ = ["FROZEN_DEF", "HOSTILE", "POINT_DEF", "STRUCTS_HASH", "ext2", "int_column", "leb128", "points", "table_frame"]

STRUCTS_HASH = class_id_hash("serreg.structs")
POINT_DEF = ["shapes.Point", [["x", "int64"], ["y", "int64"], ["z", "int64"]]]


def leb128(u: int) -> bytes:
    out = bytearray()
    while u >= 0x80:
        out.append(u & 0x7F | 0x80)
        u >>= 7
    out.append(u)
    return bytes(out)


def int_column(values: list[int]) -> bytes:
    """An integer column as 10.3 words it: kind 0 and the values, or kind 1 and their zigzag forms."""
    if any(v < 0 for v in values):
        return bytes([1]) + b"".join(leb128(((v << 1) ^ (v >> 63)) & (2**64 - 1)) for v in values)
    return bytes([0]) + b"".join(leb128(v) for v in values)


def ext2(index: int, count: int, *columns: Any) -> msgpack.ExtType:
    return msgpack.ExtType(2, msgpack.packb([index, count, *columns]))


def table_frame(definitions: list[Any], inner: bytes, inner_class: str = "list") -> bytes:
    in_band = STRUCTS_HASH + msgpack.packb(definitions) + class_id_hash(inner_class) + inner
    return serreg.SerializationResult(in_band).to_bytes()


WIDTHS_DEF = ["shapes.Widths", [["i8", "int8"], ["i16", "int16"], ["i32", "int32"], ["i64", "int64"], ["u8", "uint8"],
                                ["u16", "uint16"], ["u32", "uint32"], ["u64", "uint64"], ["f32", "float32"], ["f64", "float64"]]]
FROZEN_DEF = ["t.Frozen", [["a", "uint8"], ["b", ["optional", "float64"]], ["c", "str"]]]
GOOD = [int_column([1]), int_column([2]), int_column([3])]


def points(*columns: Any, count: int = 1, index: int = 0, definitions: Optional[list[Any]] = None) -> bytes:
    return table_frame(definitions or [POINT_DEF], msgpack.packb([ext2(index, count, *columns)]))


HOSTILE = {
    "a point": points(*GOOD),
    "kind byte 2": points(b"\x02\x01", *GOOD[1:]),
    "kind 1 without a negative": points(b"\x01\x02", *GOOD[1:]),
    "kind 1 in an unsigned column": table_frame([FROZEN_DEF], msgpack.packb([ext2(0, 1, b"\x01\x01", [None], ["c"])])),
    "uint8 of 256": table_frame([FROZEN_DEF], msgpack.packb([ext2(0, 1, b"\x00\x80\x02", [None], ["c"])])),
    "varint not minimal": points(b"\x00\x81\x00", *GOOD[1:]),
    "varint beyond 64 bits": points(b"\x00" + b"\xff" * 9 + b"\x02", *GOOD[1:]),
    "int64 column of 2**63": points(b"\x00" + leb128(2**63), *GOOD[1:]),
    "varint cut short": points(b"\x00\x81", *GOOD[1:]),
    "bytes left over": points(b"\x00\x01\x01", *GOOD[1:]),
    "count 0": points(b"\x00", b"\x00", b"\x00", count=0),
    "count beyond the bytes": points(*GOOD, count=1000),
    "index beyond the table": points(*GOOD, index=1),
    "too few columns": points(*GOOD[:2]),
    "too many columns": points(*GOOD, GOOD[0]),
    "column of another kind": points([1], *GOOD[1:]),
    "array column of another length": table_frame([FROZEN_DEF], msgpack.packb([ext2(0, 1, int_column([1]), [None, None], ["c"])])),
    "str column holding an int": table_frame([FROZEN_DEF], msgpack.packb([ext2(0, 1, int_column([1]), [None], [5])])),
    "bool byte 2": table_frame([["t.B", [["b", "bool"]]]], msgpack.packb([ext2(0, 1, b"\x02")])),
    "float64 column of 7 bytes": table_frame([["t.F", [["f", "float64"]]]], msgpack.packb([ext2(0, 1, b"\x00" * 7)])),
    "float32 column of 8 bytes": table_frame([WIDTHS_DEF], msgpack.packb([ext2(0, 1, *[int_column([1])] * 8, b"\x00" * 8, b"\x00" * 8)])),
    "definition without fields": table_frame([["t.Empty", []]], msgpack.packb([ext2(0, 1)])),
    "unknown class": table_frame([["no.Such", [["x", "int8"], ["s", "str"]]]], msgpack.packb([ext2(0, 2, int_column([1, -1]), ["a", "b"])])),
    "evolved definition": table_frame([["shapes.Point", [["y", "int32"], ["x", "int8"], ["w", "str"], ["z", "uint8"]]]],
                                      msgpack.packb([ext2(0, 1, int_column([5]), int_column([6]), ["skipped"], int_column([7]))])),
    "payload not an array": table_frame([POINT_DEF], msgpack.packb([msgpack.ExtType(2, msgpack.packb(7))])),
    "empty payload": table_frame([POINT_DEF], msgpack.packb([msgpack.ExtType(2, b"")])),
    "ext 2 outside a table": serreg.SerializationResult(class_id_hash("list") + msgpack.packb([ext2(0, 1, *GOOD)])).to_bytes(),
}
