"""Structs between Python and Java through the Java echo fixture (docs/FORMAT.md, section 10).

The fixture registers the Java twins of tests/struct_shapes.py (serreg.fixture.StructShapes)
except shapes.Everything, which Java relays through its data carrier. Every frame comes back
byte for byte; the evolution matrix has Python write one version of a class and read Java's
rewrite with another.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import msgpack
import numpy as np
import pytest

import serreg
from serreg.wire.class_id import class_id_hash
from java_fixture import JavaProcess
from struct_shapes import Pair, Point, everything, register, tree, widths

sys.path.insert(0, str(Path(__file__).resolve().parent / "vectors"))
import make_struct_vectors  # noqa: E402

SHAPES = register(serreg.Registry())
VECTORS = Path(__file__).resolve().parent / "vectors" / "structs"

CORPUS = [
    ("point", Point(1, -2, 3)),
    ("points_1000", [Point(i, -i, i * i) for i in range(1000)]),
    ("widths", widths()),
    ("widths_zero", dataclasses.replace(widths(), i8=0, u64=0, f32=-0.0, f64=float("inf"))),
    ("everything_via_carrier", everything()),
    ("tree", tree()),
    ("pair", Pair("left", -5)),
    ("mixed", {"pairs": [Pair("a"), Pair("b", 1)], "nested": (tree(), [Point(0, 0, 0)])}),
    ("optional_set", {"everything": [dataclasses.replace(everything(), maybe=7, members=frozenset())]}),
]



@pytest.mark.parametrize("name,value", CORPUS, ids=[c[0] for c in CORPUS])
def test_struct_corpus_survives_java_exactly(java_echo, name, value):
    sent = SHAPES.serialize(value).to_bytes()
    reply = java_echo.round_trip(sent)
    assert bytes(reply) == sent
    assert SHAPES.deserialize(reply) == value


def test_struct_fields_with_arrays_travel_out_of_band_through_java(java_echo):
    registry = serreg.Registry()

    @dataclasses.dataclass
    class Image:
        pixels: np.ndarray
        note: Optional[str] = None

    registry.register_struct(Image, "shapes.Image")
    value = Image(np.arange(20_000, dtype=np.int16).reshape(100, 200), "x")
    sent = registry.serialize(value).to_bytes()
    reply = java_echo.round_trip(sent)
    assert bytes(reply) == sent
    back = registry.deserialize(reply)
    assert np.array_equal(back.pixels, value.pixels) and back.note == "x"


@pytest.mark.parametrize("entry", json.loads((VECTORS / "manifest.json").read_text()), ids=lambda e: e["name"])
def test_golden_vectors_echo_byte_for_byte(java_echo, entry):
    data = (VECTORS / entry["file"]).read_bytes()
    # A legacy vector (arrays of ext 1, written before ext 2) comes back as the vector it rewrites to.
    assert bytes(java_echo.round_trip(data)) == (VECTORS / entry.get("rewrites_to", entry["file"])).read_bytes()


def test_carrier_relays_in_both_directions(java_echo):
    relay = serreg.Registry()  # no struct registered: everything is carried
    sent = SHAPES.serialize([everything(), tree(), widths()]).to_bytes()
    carried = relay.deserialize(sent)
    assert all(isinstance(v, serreg.StructValue) for v in carried)
    again = relay.serialize(carried).to_bytes()
    assert again == sent
    assert bytes(java_echo.round_trip(again)) == sent
    assert SHAPES.deserialize(java_echo.round_trip(again)) == [everything(), tree(), widths()]


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


@dataclasses.dataclass
class Bag:
    """Twin of Java's StructShapes.Bag: enum, long[], Set<String>, Map<String, Double>,
    Optional<Point>, NDArray."""

    color: Color
    numbers: list[int]
    names: set[str]
    scores: dict[str, float]
    origin: Optional[Point]
    data: np.ndarray


def test_java_typed_fields_enum_array_set_map_optional_ndarray(java_echo):
    registry = register(serreg.Registry())
    registry.register_struct(Bag, "shapes.Bag")
    bags = [
        Bag(Color.BLUE, [1, -2, 2**40], {"b", "a", "c"}, {"x": 0.5, "y": -1e300}, Point(1, 2, 3),
            np.arange(12, dtype=np.float64).reshape(3, 4)),
        Bag(Color.RED, [], set(), {}, None, np.zeros(0, dtype=np.int32)),
    ]
    sent = registry.serialize(bags).to_bytes()
    reply = java_echo.round_trip(sent)
    assert bytes(reply) == sent  # Java built its Bag records and wrote them back identically
    back = registry.deserialize(reply)
    for a, b in zip(back, bags):
        assert (a.color, a.numbers, a.names, a.scores, a.origin) == (b.color, b.numbers, b.names, b.scores, b.origin)
        assert np.array_equal(a.data, b.data) and a.data.dtype == b.data.dtype


# ------------------------------------------------------------------------------ evolution matrix


@dataclasses.dataclass
class PointV2:
    """shapes.Point, version 2: int32 coordinates, a new field with a default, no z."""

    x: Annotated[int, serreg.int32]
    y: Annotated[int, serreg.int32]
    w: float = 1.0


@dataclasses.dataclass
class PointV2Required:
    x: int
    y: int
    w: float


@dataclasses.dataclass
class PointChanged:
    x: str
    y: int
    z: int


def _registry(cls) -> serreg.Registry:
    registry = serreg.Registry()
    registry.register_struct(cls, "shapes.Point")
    return registry


def test_python_v2_writer_java_v1_reader_then_python_v2_reader(java_echo):
    # Python writes v2 (int32, extra w, no z); Java's v1 record Point(long x, long y, long z)
    # widens x and y, skips w, and has no default for z: it refuses, naming struct and field.
    sent = _registry(PointV2).serialize([PointV2(1, 2, 0.5)]).to_bytes()
    with pytest.raises(serreg.RemoteError, match="shapes.Point.*'z'"):
        SHAPES.deserialize(java_echo.round_trip(sent))


def test_java_v1_writer_python_v2_reader(java_echo):
    # Java writes its v1 definition (x, y, z int64); Python v2 needs int32 x and y: a narrowing.
    reply = java_echo.round_trip(SHAPES.serialize([Point(1, 2, 3)]).to_bytes())
    with pytest.raises(serreg.DeserializationError, match="shapes.Point.*'x'.*int64.*int32"):
        _registry(PointV2).deserialize(reply)
    # A v2 reader that widens instead takes x, y, skips z and defaults w.

    @dataclasses.dataclass
    class PointV2Wide:
        x: int
        y: int
        w: float = 1.0

    assert _registry(PointV2Wide).deserialize(reply) == [PointV2Wide(1, 2, 1.0)]
    with pytest.raises(serreg.DeserializationError, match="no field 'w'"):
        _registry(PointV2Required).deserialize(reply)
    with pytest.raises(serreg.DeserializationError, match="'x'.*int64.*str"):
        _registry(PointChanged).deserialize(reply)


def test_python_narrow_writer_java_wide_reader(java_echo):
    # Python writes shapes.Point with int8 fields; Java widens them to long and writes int64 back.
    @dataclasses.dataclass
    class SmallPoint:
        x: Annotated[int, serreg.int8]
        y: Annotated[int, serreg.int8]
        z: Annotated[int, serreg.int8]

    sent = _registry(SmallPoint).serialize(SmallPoint(1, -2, 3)).to_bytes()
    reply = java_echo.round_trip(sent)
    assert bytes(reply) != sent  # Java wrote its own (int64) definition
    assert SHAPES.deserialize(reply) == Point(1, -2, 3)
    with pytest.raises(serreg.DeserializationError, match="int64.*int8"):
        _registry(SmallPoint).deserialize(reply)


# ------------------------------------------------------------------------------ hostile frames


def _frame(definitions, inner: bytes) -> bytes:
    return serreg.SerializationResult(
        class_id_hash("serreg.structs") + msgpack.packb(definitions) + class_id_hash("list") + inner
    ).to_bytes()


def _ext1(items) -> bytes:
    return msgpack.packb(msgpack.ExtType(1, msgpack.packb(items)))


POINT = ["shapes.Point", [["x", "int64"], ["y", "int64"], ["z", "int64"]]]
HOSTILE = [
    ("unknown_index", _frame([POINT], b"\x91" + _ext1([3, 1, 2, 3])), "names definition 3"),
    ("short_instance", _frame([POINT], b"\x91" + _ext1([0, 1])), "holds 1 field value"),
    ("long_instance", _frame([["x.Y", [["a", "str"]]]], b"\x91" + _ext1([0, "a", "b"])), "holds 2 field value"),
    ("wrong_type", _frame([["x.Y", [["a", "int8"]]]], b"\x91" + _ext1([0, 1000])), "x.Y.a"),
    ("bad_type_name", _frame([["x.Y", [["a", "int128"]]]], b"\x90"), "unknown field type"),
    ("repeated_names", _frame([["x.Y", [["a", "str"], ["a", "str"]]]], b"\x90"), "repeat"),
    ("huge_table", serreg.SerializationResult(
        class_id_hash("serreg.structs") + b"\xdd\x7f\xff\xff\xff" + class_id_hash("list") + b"\x90").to_bytes(), "definitions|declares 2147483647 items"),
    ("outside_table", serreg.SerializationResult(class_id_hash("list") + b"\x91" + _ext1([0, 1])).to_bytes(),
     "outside any struct table"),
]


@pytest.mark.parametrize("name,data,message", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_struct_frames_get_clear_errors_in_both_languages(java_echo, name, data, message):
    with pytest.raises(serreg.DeserializationError, match=message):
        serreg.Registry().deserialize(data, trusted=False)
    with pytest.raises(serreg.RemoteError, match=message):
        SHAPES.deserialize(java_echo.round_trip(data))


def test_recursive_instances_deeper_than_max_depth_are_refused_by_java(java_echo):
    payload = msgpack.packb([0, None])
    for _ in range(500):
        payload = msgpack.packb([0, msgpack.ExtType(1, payload)])
    data = _frame([["x.Rec", [["next", ["optional", ["struct", "x.Rec"]]]]]], b"\x91" + msgpack.packb(msgpack.ExtType(1, payload)))
    with pytest.raises(serreg.RemoteError, match="maxDepth"):
        SHAPES.deserialize(java_echo.round_trip(data))


# ------------------------------------------------------------------------------ canonical form (10.5)


@pytest.fixture(scope="module")
def java_digest(java_jar):
    """The Java fixture in digest mode: each frame is answered with Serreg.digest of its value."""
    process = JavaProcess("digest")
    yield process
    assert process.close() == 0


def _bags() -> list:
    return [
        Bag(Color.BLUE, [1, -2, 2**40], {"b", "a", "c"}, {"y": -0.0, "x": float("nan")}, Point(1, 2, 3),
            np.arange(12, dtype=">f8").reshape(3, 4).T),
        Bag(Color.RED, [], set(), {}, None, np.zeros(0, dtype=np.int32)),
    ]


DIGEST_CORPUS = [c for c in CORPUS if c[0] != "points_1000"] + [
    ("group", make_struct_vectors.group()),
    ("mixed_three_definitions_in_a_set", make_struct_vectors.mixed()),
    ("reverse_first_use", [Point(0, 0, 0), Pair("a", 1)]),
    ("float32_canonical", dataclasses.replace(widths(), f32=-0.0, f64=float("nan"))),
    ("bags", _bags()),
    ("struct_keys_and_sets", {Pair("z"): {Pair("b"), Pair("a", 2)}, Pair("a"): frozenset()}),
]


@pytest.mark.parametrize("name,value", DIGEST_CORPUS, ids=[c[0] for c in DIGEST_CORPUS])
def test_java_digest_equals_the_python_digest(java_digest, name, value):
    registry = register(serreg.Registry())
    registry.register_struct(Bag, "shapes.Bag")
    frame = registry.serialize(value).to_bytes()  # an ordinary frame: table in first-use order
    expected = registry.digest(value)
    assert bytes(registry.deserialize(java_digest.round_trip(frame))) == expected
    # A Python relay that registers no class digests its carriers the same.
    relay = serreg.Registry()
    assert relay.digest(relay.deserialize(frame)) == expected


@pytest.mark.parametrize("entry", json.loads((VECTORS / "canonical.json").read_text()), ids=lambda e: e["name"])
def test_java_digest_of_canonical_vectors(java_digest, entry):
    frame = (VECTORS / entry["file"]).read_bytes()
    assert bytes(SHAPES.deserialize(java_digest.round_trip(frame))).hex() == entry["digest"]
