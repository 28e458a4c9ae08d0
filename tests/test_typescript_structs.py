"""Structs between Python and TypeScript through the Node echo fixture (docs/FORMAT.md, section 10).

The fixture registers the TypeScript twins of tests/struct_shapes.py (js-compat/fixture/structShapes.ts,
shapes.Everything and shapes.Bag included) and relays other class IDs through its data carrier. Every
frame comes back byte for byte; the evolution cases have Python write one version of shapes.Point and
read TypeScript's rewrite with another; hostile struct frames are refused by both with the same reason.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated, Optional

import msgpack
import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg.wire.class_id import class_id_hash
from struct_shapes import Leaf, Point, Tag, everything, register, tree, widths
from test_structs_cross_language import CORPUS, HOSTILE, Bag, Color, PointV2
from test_typescript import ts_built, ts_echo  # noqa: F401  (module fixtures: the built package, one echo process)

SHAPES = register(serreg.Registry())
SHAPES.register_struct(Bag, "shapes.Bag")
VECTORS = Path(__file__).resolve().parent / "vectors" / "structs"


@pytest.mark.parametrize("entry", json.loads((VECTORS / "manifest.json").read_text()), ids=lambda e: e["name"])
def test_struct_golden_vectors_echo_byte_for_byte(ts_echo, entry):
    data = (VECTORS / entry["file"]).read_bytes()
    # A legacy vector (arrays of ext 1, written before ext 2) comes back as the vector it rewrites to.
    assert bytes(ts_echo.round_trip(data)) == (VECTORS / entry.get("rewrites_to", entry["file"])).read_bytes()


@pytest.mark.parametrize("name,value", [pytest.param(name, value, id=name) for name, value in CORPUS])
def test_struct_values_survive_typescript_exactly(ts_echo, name, value):
    sent = SHAPES.serialize(value).to_bytes()
    reply = ts_echo.round_trip(sent)
    assert bytes(reply) == sent
    assert SHAPES.deserialize(reply) == value


def test_enum_list_set_map_optional_ndarray_fields(ts_echo):
    bags = [
        Bag(Color.BLUE, [1, -2, 2**40], {"b", "a", "c"}, {"x": 0.5, "y": -1e300}, Point(1, 2, 3),
            np.arange(12, dtype=np.float64).reshape(3, 4)),
        Bag(Color.RED, [], set(), {}, None, np.zeros(0, dtype=np.int32)),
    ]
    sent = SHAPES.serialize(bags).to_bytes()
    reply = ts_echo.round_trip(sent)
    assert bytes(reply) == sent  # TypeScript built its Bag objects (the arrays out of band) and wrote them back
    for a, b in zip(SHAPES.deserialize(reply), bags):
        assert (a.color, a.numbers, a.names, a.scores, a.origin) == (b.color, b.numbers, b.names, b.scores, b.origin)
        assert np.array_equal(a.data, b.data) and a.data.dtype == b.data.dtype


def test_unregistered_struct_with_an_array_and_a_table_is_relayed_by_the_carrier(ts_echo):
    registry = serreg.Registry()

    @dataclasses.dataclass
    class Image:
        pixels: np.ndarray
        rows: pa.Table
        note: Optional[str] = None

    registry.register_struct(Image, "shapes.Image")
    value = Image(np.arange(20_000, dtype=np.int16).reshape(100, 200), pa.table({"id": [1, 2, 3]}), "x")
    sent = registry.serialize(value).to_bytes()
    reply = ts_echo.round_trip(sent)
    assert bytes(reply) == sent
    back = registry.deserialize(reply)
    assert np.array_equal(back.pixels, value.pixels) and back.rows.equals(value.rows)


def test_carrier_frames_from_a_python_relay(ts_echo):
    sent = SHAPES.serialize([everything(), tree(), widths()]).to_bytes()
    carried = serreg.Registry().deserialize(sent)
    assert all(isinstance(v, serreg.StructValue) for v in carried)
    again = serreg.Registry().serialize(carried).to_bytes()
    assert again == sent
    assert SHAPES.deserialize(ts_echo.round_trip(again)) == [everything(), tree(), widths()]


@dataclasses.dataclass
class Tagged:
    first: Leaf
    tags: frozenset[Tag]
    more: list[tuple[Leaf, frozenset[Tag]]]


def test_definitions_first_met_inside_set_fields_keep_pythons_table_order(ts_echo):
    # Python packs a set field's members while converting the struct's fields, so Tag (met in
    # `tags`) takes its index before Leaf (met in `first`); TypeScript's carrier keeps that order.
    registry = serreg.Registry()
    for cls, class_id in ((Leaf, "t.Leaf"), (Tag, "t.Tag"), (Tagged, "t.Tagged")):
        registry.register_struct(cls, class_id)
    value = Tagged(Leaf(1), frozenset({Tag("q")}), [(Leaf(2), frozenset({Tag("r")}))])
    sent = registry.serialize(value).to_bytes()
    in_band = sent[32:]  # no out-of-band buffers: the in-band follows the header
    assert in_band[:8] == class_id_hash("serreg.structs")
    table = msgpack.Unpacker(raw=False)
    table.feed(in_band[8:])
    assert [definition[0] for definition in table.unpack()] == ["t.Tagged", "t.Tag", "t.Leaf"]
    assert bytes(ts_echo.round_trip(sent)) == sent


# ------------------------------------------------------------------------------ evolution


def _registry(cls) -> serreg.Registry:
    registry = serreg.Registry()
    registry.register_struct(cls, "shapes.Point")
    return registry


def test_python_v2_writer_typescript_v1_reader_names_the_missing_field(ts_echo):
    # v2: int32 x and y, an extra w, no z. TypeScript's shapes.Point widens x and y, would skip w,
    # and has no default for z: it refuses, naming struct and field.
    sent = _registry(PointV2).serialize([PointV2(1, 2, 0.5)]).to_bytes()
    with pytest.raises(serreg.RemoteError, match="shapes.Point.*'z'"):
        SHAPES.deserialize(ts_echo.round_trip(sent))


def test_python_narrow_writer_typescript_wide_reader(ts_echo):
    @dataclasses.dataclass
    class SmallPoint:
        x: Annotated[int, serreg.int8]
        y: Annotated[int, serreg.uint8]
        z: Annotated[int, serreg.int8]

    sent = _registry(SmallPoint).serialize([SmallPoint(1, 200, -3)]).to_bytes()
    reply = ts_echo.round_trip(sent)
    assert bytes(reply) != sent  # TypeScript read int8/uint8 as its int64 fields and wrote its own definition
    assert SHAPES.deserialize(reply) == [Point(1, 200, -3)]
    with pytest.raises(serreg.DeserializationError, match="'x'.*int64.*int8"):
        _registry(SmallPoint).deserialize(reply)


def test_type_change_is_refused_by_typescript_naming_both_types(ts_echo):
    @dataclasses.dataclass
    class PointText:
        x: str
        y: int
        z: int

    sent = _registry(PointText).serialize(PointText("one", 2, 3)).to_bytes()
    with pytest.raises(serreg.RemoteError, match="shapes.Point', field 'x': the writer's type is str, this reader's is int64"):
        SHAPES.deserialize(ts_echo.round_trip(sent))


# ------------------------------------------------------------------------------ hostile frames


def _frame(definitions, inner: bytes) -> bytes:
    return serreg.SerializationResult(
        class_id_hash("serreg.structs") + msgpack.packb(definitions) + class_id_hash("list") + inner
    ).to_bytes()


@pytest.mark.parametrize("name,data,message", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_struct_frames_get_the_same_reason_from_typescript(ts_echo, name, data, message):
    with pytest.raises(serreg.DeserializationError, match=message):
        serreg.Registry().deserialize(data, trusted=False)
    with pytest.raises(serreg.RemoteError, match=message):
        SHAPES.deserialize(ts_echo.round_trip(data))


def test_recursive_instances_deeper_than_max_depth_are_refused_by_typescript(ts_echo):
    payload = msgpack.packb([0, None])
    for _ in range(500):
        payload = msgpack.packb([0, msgpack.ExtType(1, payload)])
    data = _frame([["x.Rec", [["next", ["optional", ["struct", "x.Rec"]]]]]], b"\x91" + msgpack.packb(msgpack.ExtType(1, payload)))
    with pytest.raises(serreg.RemoteError, match="maxDepth"):
        SHAPES.deserialize(ts_echo.round_trip(data))
