"""Hand-built struct in-bands (ext 1 and ext 2, docs/FORMAT.md 10) both codecs must answer alike.

``HOSTILE`` names each frame (faults of instances, definitions, ext 2 lists and the values
after a nested value; some good frames too); ``FRAMES`` adds frames written by the compiled
codec, as seeds for mutations. The fuzzers take their seeds from here too. ``table_frame``,
``ext1`` and ``listed`` build more.
"""

from __future__ import annotations

import decimal

import msgpack

import serreg
from serreg.wire.class_id import class_id_hash

from struct_list_faults import FAULTS as LIST_FAULTS, INSTANCE_FAULTS
from struct_registries import COMPILED_REGISTRY, PURE_REGISTRY, Frozen
from struct_shapes import Group, Node, Pair, Point, everything, tree, widths

__all__ = ["FRAMES", "HOSTILE", "ext1", "listed", "table_frame"]

STRUCTS_HASH = class_id_hash("serreg.structs")
POINT_DEF = ["shapes.Point", [["x", "int64"], ["y", "int64"], ["z", "int64"]]]
FROZEN_DEF = ["t.Frozen", [["a", "uint8"], ["b", ["optional", "float64"]], ["c", "str"]]]
MIXED_POINTS = ["t.Rec", [["next", ["optional", ["struct", "t.Rec"]]], ["points", ["list", ["struct", "shapes.Point"]]]]]


def table_frame(definitions, inner: bytes, inner_class: str = "list") -> bytes:
    in_band = STRUCTS_HASH + msgpack.packb(definitions) + class_id_hash(inner_class) + inner
    return serreg.SerializationResult(in_band).to_bytes()


def ext1(items) -> msgpack.ExtType:
    return msgpack.ExtType(1, msgpack.packb(items))


def listed(*items) -> bytes:
    return msgpack.packb(list(items))


def ext2(*items) -> bytes:
    return msgpack.packb(msgpack.ExtType(2, msgpack.packb(list(items), use_bin_type=True)))


def chain(depth: int) -> msgpack.ExtType:
    value = ext1([0, None, []])
    for _ in range(depth - 1):
        value = ext1([0, value, [ext1([1, 1, 2, 3])]])
    return value


ANY_DEF = ["t.Any", [["a", "any"], ["b", "int64"]]]
DECIMAL = msgpack.ExtType(0, bytes(PURE_REGISTRY.serialize(decimal.Decimal("1.5")).in_band_buffer))  # decoded by a serializer


def in_tuple(*items) -> msgpack.ExtType:
    return msgpack.ExtType(0, class_id_hash("tuple") + msgpack.packb(list(items)))


def bad_str_in(value, header: bytes = b"") -> bytes:
    """The frame of ``value`` (holding the str "qx" once) with "qx" replaced by bytes that are not UTF-8;
    with ``header``, a list ``value`` of 2 items declares another array header (items its bytes lack)."""
    frame = PURE_REGISTRY.serialize(value).to_bytes()
    assert frame.count(b"\xa2qx") == 1
    if header:
        assert frame.count(class_id_hash("list") + b"\x92") == 1
        frame = frame.replace(class_id_hash("list") + b"\x92", class_id_hash("list") + header)
    return frame.replace(b"\xa2qx", b"\xa2\xff\xfe")


HOSTILE = {
    "a point": table_frame([POINT_DEF], listed(ext1([0, 1, 2, 3]))),
    "too few fields": table_frame([POINT_DEF], listed(ext1([0, 1, 2]))),
    "too many fields": table_frame([POINT_DEF], listed(ext1([0, 1, 2, 3, 4]))),
    "index beyond the table": table_frame([POINT_DEF], listed(ext1([1, 1, 2, 3]))),
    "negative index": table_frame([POINT_DEF], listed(ext1([-1, 1, 2, 3]))),
    "index as str": table_frame([POINT_DEF], listed(ext1(["0", 1, 2, 3]))),
    "payload not an array": table_frame([POINT_DEF], listed(msgpack.ExtType(1, msgpack.packb(7)))),
    "empty payload": table_frame([POINT_DEF], listed(msgpack.ExtType(1, b""))),
    "payload with trailing bytes": table_frame([POINT_DEF], listed(msgpack.ExtType(1, msgpack.packb([0, 1, 2, 3]) + b"\x00"))),
    "field of another type": table_frame([POINT_DEF], listed(ext1([0, "1", 2, 3]))),
    "int64 beyond range": table_frame([POINT_DEF], listed(ext1([0, 2**63, 2, 3]))),
    "float in an int field": table_frame([POINT_DEF], listed(ext1([0, 1.0, 2, 3]))),
    "nested value in a scalar field": table_frame([POINT_DEF], listed(ext1([0, msgpack.ExtType(0, class_id_hash("tuple") + b"\x90"), 2, 3]))),
    "struct in a scalar field": table_frame([POINT_DEF], listed(ext1([0, ext1([0, 1, 2, 3]), 2, 3]))),
    "uint8 of 256": table_frame([FROZEN_DEF], listed(ext1([0, 256, None, "c"]))),
    "negative uint8": table_frame([FROZEN_DEF], listed(ext1([0, -1, None, "c"]))),
    "float32 wire float": table_frame([FROZEN_DEF], listed(msgpack.ExtType(1, b"\x94\x00\x01\xca\x3f\xc0\x00\x00\xa1c"))),
    "invalid utf-8 in a str field": table_frame([FROZEN_DEF], listed(msgpack.ExtType(1, b"\x94\x00\x01\xc0\xa2\xff\xfe"))),
    "str8 header cut short": table_frame([FROZEN_DEF], listed(msgpack.ExtType(1, b"\x94\x00\x01\xc0\xd9"))),
    "evolved definition": table_frame([["shapes.Point", [["y", "int32"], ["x", "int8"], ["w", "str"], ["z", "uint8"]]]],
                                      listed(ext1([0, 5, 6, "skipped", 7]))),
    "unknown class": table_frame([["no.Such", [["x", "int64"]]]], listed(ext1([0, 1]))),
    "unknown class, bad value": table_frame([["no.Such", [["x", "int8"]]]], listed(ext1([0, 1000]))),
    "structs inside structs": table_frame([MIXED_POINTS, POINT_DEF], listed(chain(5))),
    "structs 200 deep": table_frame([MIXED_POINTS, POINT_DEF], listed(chain(200))),
    "wrong struct in a struct field": table_frame([MIXED_POINTS, POINT_DEF], listed(ext1([0, ext1([1, 1, 2, 3]), []]))),
    "ext 1 outside a table": serreg.SerializationResult(class_id_hash("list") + listed(ext1([0, 1, 2, 3]))).to_bytes(),
    "ext 2 of another length": table_frame([POINT_DEF], listed(msgpack.ExtType(2, msgpack.packb([0, 1, 2, 3])))),
    "ext 2 points": table_frame([POINT_DEF], ext2(0, 2, b"\x00\x01\x02", b"\x01\x01\x04", b"\x00\x00\x00")),
    "ext 2 in a list": table_frame([POINT_DEF], listed(msgpack.ExtType(2, msgpack.packb([0, 1, b"\x00\x01", b"\x00\x02", b"\x00\x03"], use_bin_type=True)))),
    "ext 2 kind byte 2": table_frame([POINT_DEF], ext2(0, 1, b"\x02\x01", b"\x00\x02", b"\x00\x03")),
    "ext 2 count beyond its bytes": table_frame([POINT_DEF], ext2(0, 2**31, b"\x00\x01", b"\x00\x02", b"\x00\x03")),
    "ext 2 inside an instance": table_frame([MIXED_POINTS, POINT_DEF], listed(ext1([0, None, msgpack.ExtType(2, msgpack.packb([1, 1, b"\x00\x01", b"\x00\x02", b"\x00\x03"], use_bin_type=True))]))),
    "ext 2 of a definition without fields": table_frame([["t.Empty", []]], ext2(0, 1)),
    "ext -1 inside an instance": table_frame([["t.Any", [["a", "any"]]]], listed(ext1([0, msgpack.Timestamp(1, 0)]))),
    "top-level point": table_frame([POINT_DEF], msgpack.packb([0, 1, 2, 3]), "shapes.Point"),
    # Refused after a nested value was decoded (the compiled codec does not decode the document again).
    "payload with trailing bytes after a nested value": table_frame([ANY_DEF], listed(msgpack.ExtType(1, msgpack.packb([0, DECIMAL, 1]) + b"\x00\x01"))),
    "payload cut short after a nested value": table_frame([ANY_DEF], listed(msgpack.ExtType(1, msgpack.packb([0, DECIMAL, 1])[:-1]))),
    "instance array longer than its payload": table_frame([ANY_DEF], listed(msgpack.ExtType(1, b"\x94" + msgpack.packb([0, DECIMAL, 1])[1:]))),
    "trailing bytes after a nested value's instance": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(1, msgpack.packb([0, 1, 1]) + b"\x00"))),
    "short ext 0 after a nested value": table_frame([ANY_DEF], listed(DECIMAL, ext1([0, msgpack.ExtType(0, b"12345"), 1]))),
    "ext 5 after a nested value": table_frame([ANY_DEF], listed(DECIMAL, ext1([0, msgpack.ExtType(5, b"12345"), 1]))),
    "ext -1 of 5 bytes after a nested value": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(1, b"\x93\x00\xc7\x05\xff12345\x01"))),
    "ext -1 of 3 bytes in a tuple after a nested value": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(0, class_id_hash("tuple") + b"\x91\xc7\x03\xff123"))),
    "ext 5 in a tuple after a nested value": table_frame([ANY_DEF], listed(DECIMAL, in_tuple(msgpack.ExtType(5, b"12345")))),
    "payload with trailing bytes in a tuple": table_frame([ANY_DEF], listed(DECIMAL, in_tuple(msgpack.ExtType(1, msgpack.packb([0, DECIMAL, 1]) + b"\x00")))),
    "tuple with trailing bytes after a nested value": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(0, class_id_hash("tuple") + b"\x91\x01\x00"))),
    "byte 0xc1 in a tuple after a nested value": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(0, class_id_hash("tuple") + b"\xc1"))),
    "tuple of an int after a nested value": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(0, class_id_hash("tuple") + b"\xd1\x01\x00"))),
    "set of a map after a nested value": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(0, class_id_hash("set") + b"\x81\x01\x00"))),
    "tuple cut short after a nested value": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(0, class_id_hash("tuple") + b"\x93\x01\x00"))),
    "tuple of more items than bytes, then ext 5, after a nested value": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(0, class_id_hash("tuple") + b"\x99\xc7\x05\x0512345"))),
    "list of more items than bytes, then a tuple's fault, after a nested value": table_frame([ANY_DEF], b"\x9f" + msgpack.packb(DECIMAL) + msgpack.packb(msgpack.ExtType(0, class_id_hash("tuple") + b"\x91\x83\x01\x00"))),
    "list of more items than bytes, then a struct holding a short ext 0, after a nested value": table_frame([ANY_DEF], b"\x9a" + msgpack.packb(DECIMAL) + msgpack.packb(msgpack.ExtType(1, b"\x93\x00" + msgpack.packb(msgpack.ExtType(0, b"12345")) + b"\x01"))),
    "tuple of more items than bytes after a nested value": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(0, class_id_hash("tuple") + b"\x95\x01\x00"))),
    "map of more pairs than bytes after a nested value": table_frame([ANY_DEF], listed(DECIMAL, msgpack.ExtType(0, class_id_hash("tuple") + b"\x91\x83\x01\x00"))),
    "invalid utf-8 after a nested value": table_frame([ANY_DEF], b"\x92" + msgpack.packb(DECIMAL) + b"\xa2\xff\xfe"),
    "lone surrogate in an instance after a nested value": table_frame([ANY_DEF], listed(msgpack.ExtType(1, b"\x93\x00" + msgpack.packb(DECIMAL) + b"\xa3\xed\xa0\x80"))),
    "invalid utf-8 str field after a nested value": table_frame([FROZEN_DEF], b"\x92" + msgpack.packb(DECIMAL) + msgpack.packb(msgpack.ExtType(1, b"\x94\x00\x01\xc0\xa2\xff\xfe"))),
    "invalid utf-8 in an ext 2's str column after a nested value": bad_str_in(
        {"a": decimal.Decimal("1.5"), "b": [Node(value=1, label="qx"), Node(value=2, label="b")]}),
    "invalid utf-8 in an ext 2 in an ext 2's column after a nested value": bad_str_in(
        [decimal.Decimal("1.5"), [Node(value=1, children=[Node(value=3, label="qx"), Node(value=4)])]]),
    "list of more items than bytes, then invalid utf-8 in an ext 2's column, after a nested value": bad_str_in(
        [decimal.Decimal("1.5"), [Node(value=1, children=[Node(value=3, label="qx"), Node(value=4)])]], b"\x9f"),
    "invalid utf-8 in an instance in an ext 2's column": bad_str_in(
        [Group("g", frozenset(), {}, Pair("qx", 1)), Group("h", frozenset(), {})]),
    "cut-short utf-8 key in a tuple after an instance holding a nested value": table_frame([ANY_DEF], listed(msgpack.ExtType(1, b"\x93\x00" + msgpack.packb(DECIMAL) + b"\x01"), msgpack.ExtType(0, class_id_hash("tuple") + b"\x91\x81\xa3a\xe2\x82\x01"))),
    "str cut short after a nested value": table_frame([ANY_DEF], b"\x92" + msgpack.packb(DECIMAL) + b"\xa5ab"),
    "trailing bytes after a list holding a nested value": table_frame([ANY_DEF], listed(DECIMAL) + b"\x00\x01"),
    **{f"{name} in an ext 2's any column after a nested value": fault[0] for name, fault in LIST_FAULTS.items()},
    **{f"{name} in an instance after a nested value": fault[0] for name, fault in INSTANCE_FAULTS.items()},
    "point of 17 fields": table_frame([["shapes.Point", [["x", "int64"], ["y", "int64"], ["z", "int64"]] + [[f"f{i}", "int64"] for i in range(14)]]],
                                      listed(ext1([0, 1, 2, 3] + list(range(14))))),
}


FRAMES = sorted(HOSTILE.values()) + [
    COMPILED_REGISTRY.serialize(v).to_bytes() for v in ([Point(1, 2, 3)] * 3, [everything(), tree()], widths(), Frozen(1, 2.5, "x"))
]
