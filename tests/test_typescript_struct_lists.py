"""Lists of struct instances as ext 2 (docs/FORMAT.md 10.3) between Python and TypeScript through the Node
echo fixture: the frames of Python's reference writer (the pure codec, whatever the backend) come back byte
for byte for every column kind, TypeScript widens narrow columns and refuses an int64 beyond 2^53 - 1 in a
`number` field, and hostile ext 2 payloads are refused by both languages for the same reason."""

from __future__ import annotations

import dataclasses
from typing import Annotated
from unittest import mock

import msgpack
import pytest

import serreg
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import class_id_hash
from struct_shapes import Leaf, Node, Pair, Point, Tag, rows, tree
from test_struct_lists import pure_registry
from test_typescript import ts_built, ts_echo  # noqa: F401  (module fixtures: the built package, one echo process)

PURE = pure_registry()  # the shapes of struct_shapes, written and read by the pure codec
POINT = ["shapes.Point", [["x", "int64"], ["y", "int64"], ["z", "int64"]]]
KINDS = ["x.C", [["i8", "int8"], ["u8", "uint8"], ["f", "float64"], ["b", "bool"], ["s", "str"]]]

VALUES = [
    ("rows", rows()),
    ("points_1000", [Point(i, -i, i * i) for i in range(1000)]),
    ("tree", tree()),
    ("wide_tree", Node(value=0, children=[Node(value=i, label=str(i)) for i in range(50)])),
    ("in_containers", {"pairs": [Pair("a"), Pair("b", -1)], "tuple": ([Point(0, 0, 0)], 1), "nested": [[Point(1, 2, 3)], []]}),
]


def _is_ext2(frame: bytes) -> bool:
    return any(frame[i] in (0xc7, 0xc8) and frame[i + 1 + (frame[i] - 0xc6)] == 2 for i in range(len(frame) - 4))


@pytest.mark.parametrize("name,value", VALUES, ids=[v[0] for v in VALUES])
def test_ext2_lists_from_python_come_back_from_typescript_byte_for_byte(ts_echo, name, value):
    sent = PURE.serialize(value).to_bytes()
    assert _is_ext2(sent)
    reply = bytes(ts_echo.round_trip(sent))
    assert reply == sent  # TypeScript built its own instances (shapes.Row included) and wrote them as ext 2 again
    assert PURE.deserialize(reply) == value


def test_typescript_widens_narrow_columns_and_writes_its_own_definition(ts_echo):
    @dataclasses.dataclass
    class SmallPoint:
        x: Annotated[int, serreg.int8]
        y: Annotated[int, serreg.uint8]
        z: Annotated[int, serreg.int8]

    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        narrow = serreg.Registry()
    narrow.register_struct(SmallPoint, "shapes.Point")
    sent = narrow.serialize([SmallPoint(1, 200, -3), SmallPoint(-128, 0, 127)]).to_bytes()
    reply = bytes(ts_echo.round_trip(sent))
    assert reply != sent and _is_ext2(reply)  # the same values under TypeScript's int64 definition
    assert PURE.deserialize(reply) == [Point(1, 200, -3), Point(-128, 0, 127)]
    assert reply == PURE.serialize([Point(1, 200, -3), Point(-128, 0, 127)]).to_bytes()


def test_an_int64_column_beyond_2_53_is_refused_by_a_typescript_number_field(ts_echo):
    sent = PURE.serialize([Point(0, 0, 0), Point(2**53, -(2**63), 0)]).to_bytes()
    with pytest.raises(serreg.RemoteError, match='shapes.Point.x: 9007199254740992 is beyond Number.MAX_SAFE_INTEGER; declare the field "bigint64"'):
        PURE.deserialize(ts_echo.round_trip(sent))


@dataclasses.dataclass
class Holder:
    n: int
    more: tuple[Leaf, frozenset[Tag]]


def test_structs_met_in_a_columns_sets_keep_pythons_table_order(ts_echo):
    # Python converts a whole column before packing it, and converting a set packs its members: Tag (met in the
    # sets of column `more`) takes its index before Leaf (met when the same column is packed); TypeScript's
    # carrier writes the same table.
    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        registry = serreg.Registry()
    for cls, class_id in ((Leaf, "t.Leaf"), (Tag, "t.Tag"), (Holder, "t.Holder")):
        registry.register_struct(cls, class_id)
    value = [Holder(0, (Leaf(1), frozenset({Tag("q")}))), Holder(2, (Leaf(3), frozenset({Tag("r"), Tag("s")})))]
    sent = registry.serialize(value).to_bytes()
    table = msgpack.Unpacker(raw=False)
    table.feed(sent[40:])  # no out-of-band buffers: the in-band follows the header, then ClassIDHash(serreg.structs)
    assert [definition[0] for definition in table.unpack()] == ["t.Holder", "t.Tag", "t.Leaf"]
    assert _is_ext2(sent)
    assert bytes(ts_echo.round_trip(sent)) == sent


# ------------------------------------------------------------------------------ hostile ext 2


def _frame(definitions, items) -> bytes:
    inner = msgpack.packb([msgpack.ExtType(2, msgpack.packb(items))])
    return serreg.SerializationResult(
        class_id_hash("serreg.structs") + msgpack.packb(definitions) + class_id_hash("list") + inner
    ).to_bytes()


def _kinds(**columns) -> list:
    """One instance of x.C, some columns replaced."""
    base = {"i8": b"\x00\x01", "u8": b"\x00\x02", "f": bytes(8), "b": b"\x01", "s": ["s"]}
    base.update(columns)
    return [0, 1, *base.values()]


HOSTILE = [
    ("outside_table", serreg.SerializationResult(
        class_id_hash("list") + msgpack.packb([msgpack.ExtType(2, msgpack.packb([0, 1, b"\x00\x01"]))])).to_bytes(),
     r"\(msgpack ext 2\) outside any struct table"),
    ("index_outside_table", _frame([POINT], [3, 1, b"\x00\x01", b"\x00\x01", b"\x00\x01"]), "names definition 3, but the table holds 1"),
    ("wrong_length", _frame([POINT], [0, 1, b"\x00\x01"]), r"is an array of 3 items; its definition's 3 field\(s\) make 5"),
    ("no_fields", _frame([["x.E", []]], [0, 1]), "its definition has no fields, so its lists are arrays"),
    ("count_0", _frame([POINT], [0, 0, b"\x00", b"\x00", b"\x00"]), "declares 0 instances; a count is at least 1"),
    ("count_huge", _frame([POINT], [0, 2**32 - 1, b"\x00", b"\x00", b"\x00"]), "declares 4294967295 instances; a count is at least 1"),
    ("kind_2", _frame([KINDS], _kinds(i8=b"\x02\x01")), "field 'i8': its ext 2 column .*kind byte 0x02"),
    ("kind_1_unsigned", _frame([KINDS], _kinds(u8=b"\x01\x01")), r"field 'u8': its ext 2 column .*kind byte 0x01 \(zigzag\) in a column of an unsigned type"),
    ("kind_1_no_negative", _frame([KINDS], _kinds(i8=b"\x01\x02")), r"kind byte 0x01 \(zigzag\) in a column without a negative value"),
    ("not_minimal", _frame([POINT], [0, 1, b"\x00\x81\x00", b"\x00\x01", b"\x00\x01"]), "field 'x': its ext 2 column .*a varint that is not minimal"),
    ("eleven_bytes", _frame([POINT], [0, 1, b"\x00" + b"\x80" * 10 + b"\x01", b"\x00\x01", b"\x00\x01"]), "a varint that does not fit 64 bits"),
    ("past_the_end", _frame([POINT], [0, 1, b"\x00\x81", b"\x00\x01", b"\x00\x01"]), "the column ends inside a varint"),
    ("left_over", _frame([POINT], [0, 1, b"\x00\x01\x02", b"\x00\x01", b"\x00\x01"]), "the column holds (more than its 1|2) values"),
    ("int8_300", _frame([KINDS], _kinds(i8=b"\x00\xac\x02")), r"field 'i8': its ext 2 column .*value 0 of the column is 300, outside -128 \.\.\. 127"),
    ("bool_2", _frame([KINDS], _kinds(b=b"\x02")), "field 'b': its ext 2 column .*bool byte 0x02"),
    ("float64_7_bytes", _frame([KINDS], _kinds(f=bytes(7))), "a float64 column of 1 values holds 8 bytes, not 7"),
    ("array_length", _frame([KINDS], _kinds(s=["a", "b"])), "field 's': its ext 2 column holds 2 values, the list 1"),
    ("bin_for_array", _frame([KINDS], _kinds(s=b"\x01")), "field 's': its ext 2 column of type .*must be a msgpack array"),
    ("array_for_bin", _frame([KINDS], _kinds(i8=[1])), "field 'i8': its ext 2 column of type .*must be a msgpack bin"),
]


@pytest.mark.parametrize("name,data,message", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_ext2_gets_the_same_reason_from_python_and_typescript(ts_echo, name, data, message):
    with pytest.raises(serreg.DeserializationError, match=message):
        PURE.deserialize(data, trusted=False)
    with pytest.raises(serreg.RemoteError, match=message):
        PURE.deserialize(ts_echo.round_trip(data))
