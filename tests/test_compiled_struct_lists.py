"""Lists of struct instances (ext 2, struct columns) through the compiled codec (docs/FORMAT.md, 10.3).

The compiled codec writes a list of instances of one definition by columns and reads it back in C.
Its frames are checked three ways: against bytes built here from the spec's text (kind byte and
LEB128 varints, packed little-endian floats and bools, arrays for the other types); against the
pure-Python codec (the same frames, values and errors for every column kind, out-of-band buffers
in column order, evolved definitions and carriers); and for not asking the pure codec at all on
the common paths. Hostile ext 2 payloads: test_compiled_struct_lists_hostile.py; the one-call
entry: test_compiled_struct_lists_top.py.
"""

from __future__ import annotations

import dataclasses
import math
import struct
from typing import Annotated, Any, NamedTuple
from unittest import mock

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg
import serreg.registry
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec

from struct_list_frames import POINT_DEF, STRUCTS_HASH, ext2, int_column, leb128, table_frame
from struct_registries import COMPILED_REGISTRY, PURE_REGISTRY, Empty, Frozen, Mixed, Row, outcome, twin_registries, written
from struct_shapes import Node, Pair, Point, Widths, everything, tree, widths

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")


def frame_of_points(points: list[Point]) -> bytes:
    columns = [int_column([getattr(p, name) for p in points]) for name in "xyz"]
    return table_frame([POINT_DEF], msgpack.packb(ext2(0, len(points), *columns)))


# ------------------------------------------------------------------------------ bytes from the spec


@pytest.mark.parametrize("points", [
    [Point(1, 2, 3)],
    [Point(-1, 0, 1), Point(2**63 - 1, -(2**63), 300)],
    [Point(i, -i, i * i) for i in range(300)],
])
def test_points_are_written_as_the_spec_words_them(points):
    frame = COMPILED_REGISTRY.serialize(points).to_bytes()
    assert frame == frame_of_points(points)
    assert COMPILED_REGISTRY.deserialize(frame) == points


def test_float_and_bool_columns_are_little_endian_bins():
    @dataclasses.dataclass
    class Sample:
        f64: float
        f32: Annotated[float, serreg.float32]
        ok: bool

    registry = serreg.Registry()
    registry.register_struct(Sample, "t.Sample")
    values = [Sample(-0.0, 0.1, True), Sample(math.inf, -0.0, False), Sample(2.5, 3.0, True)]
    definition = ["t.Sample", [["f64", "float64"], ["f32", "float32"], ["ok", "bool"]]]
    expected = table_frame([definition], msgpack.packb(ext2(
        0, 3, struct.pack("<3d", -0.0, math.inf, 2.5), struct.pack("<3f", 0.1, -0.0, 3.0), b"\x01\x00\x01")))
    frame = registry.serialize(values).to_bytes()
    assert frame == expected
    back = registry.deserialize(frame)
    assert back == [Sample(-0.0, struct.unpack("<f", struct.pack("<f", 0.1))[0], True), Sample(math.inf, -0.0, False),
                    Sample(2.5, 3.0, True)]
    assert math.copysign(1, back[0].f64) == -1 and math.copysign(1, back[1].f32) == -1


def test_uint64_and_the_other_widths_take_their_columns():
    values = [widths(), dataclasses.replace(widths(), u64=2**64 - 1, i8=-128, u8=255, f32=-0.0, f64=math.nan)]
    frame = COMPILED_REGISTRY.serialize(values).to_bytes()
    back = COMPILED_REGISTRY.deserialize(frame)
    assert back[0] == values[0] and back[1].u64 == 2**64 - 1 and back[1].i8 == -128 and math.isnan(back[1].f64)
    assert leb128(2**64 - 1) in frame  # the uint64 column, kind 0: ten bytes, the last 0x01


def ext_types(result: serreg.SerializationResult) -> list[int]:
    """The msgpack ext types of a result's inner section, in document order (nested payloads included)."""
    in_band = bytes(result.in_band_buffer)
    found: list[int] = []

    def hook(code: int, payload: bytes) -> Any:
        found.append(code)
        msgpack.unpackb(payload[8:] if code == 0 else payload, ext_hook=hook, strict_map_key=False)
        return None

    offset = 0
    if in_band.startswith(STRUCTS_HASH):
        unpacker = msgpack.Unpacker(strict_map_key=False)
        unpacker.feed(in_band[8:])
        unpacker.unpack()
        offset = 8 + unpacker.tell()
    msgpack.unpackb(in_band[offset + 8:], ext_hook=hook, strict_map_key=False)
    return found


def test_lists_that_are_not_one_definition_stay_arrays():
    cases = [([], []), ([Point(1, 2, 3), Row("k", 1)], [1, 1]), ([Point(1, 2, 3), 7], [1]), ([Empty(), Empty()], [1, 1]),
             ((Point(1, 2, 3), Point(1, 2, 3)), [1, 1]), ([(Point(1, 2, 3),)], [0, 1]), ([Point(1, 2, 3)], [2]), ({"k": [Row("a", 1)]}, [2])]
    for value, types in cases:
        result = COMPILED_REGISTRY.serialize(value)
        assert ext_types(result) == types
        assert COMPILED_REGISTRY.deserialize(result.to_bytes()) == value


def test_a_list_field_of_structs_is_an_ext_2_inside_the_column():
    # Node.children is ["list", ["struct", "shapes.Node"]]: each value of that column is itself an ext 2
    # (or an empty array), and the nested definition is met first in the outer list's columns.
    value = [tree(), Node(value=5, children=[Node(value=6), Node(value=7, children=[Node(value=8)])])]
    frame = COMPILED_REGISTRY.serialize(value).to_bytes()
    assert COMPILED_REGISTRY.deserialize(frame) == value
    assert frame.count(b"\x02\x95") >= 2  # ext 2 payloads [index, count, 3 columns]


# ------------------------------------------------------------------------------ against the pure codec

ints64 = st.one_of(st.integers(-300, 300), st.integers(-(2**63), 2**63 - 1), st.sampled_from([-(2**63), 2**63 - 1, 0, -1]))
floats = st.one_of(st.floats(allow_nan=True), st.sampled_from([-0.0, math.nan, 3.4028235e38, 1e-46, 5e-324]))
texts = st.text(max_size=8)
point_lists = st.lists(st.builds(Point, ints64, ints64, ints64), min_size=1, max_size=30)
width_lists = st.lists(st.builds(
    Widths, st.integers(-128, 127), st.integers(-(2**15), 2**15 - 1), st.integers(-(2**31), 2**31 - 1), ints64,
    st.integers(0, 255), st.integers(0, 2**16 - 1), st.integers(0, 2**32 - 1), st.integers(0, 2**64 - 1), floats, floats,
), min_size=1, max_size=8)
frozen_lists = st.lists(st.builds(Frozen, st.integers(0, 255), st.one_of(st.none(), floats), texts), min_size=1, max_size=8)
row_lists = st.lists(st.builds(Row, texts, st.integers(-(2**15), 2**15 - 1)), min_size=1, max_size=8)
wrong = st.one_of(st.none(), st.booleans(), texts, floats, st.integers(-(2**70), 2**70))
bad_points = st.lists(st.builds(Point, st.one_of(ints64, wrong), ints64, st.one_of(ints64, wrong)), min_size=1, max_size=6)
lists = st.one_of(point_lists, width_lists, frozen_lists, row_lists, bad_points,
                  st.lists(st.builds(everything), min_size=1, max_size=3), st.lists(st.builds(tree), min_size=1, max_size=3))
nested = st.one_of(lists, st.lists(lists, max_size=3), st.dictionaries(texts, lists, max_size=2), lists.map(tuple))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nested)
def test_both_codecs_write_lists_of_structs_alike_and_read_them_alike(value):
    compiled = written(COMPILED_REGISTRY, value)
    assert compiled == written(PURE_REGISTRY, value)
    if compiled[0] == "frame":
        for trusted in (True, False):
            back = outcome(lambda: COMPILED_REGISTRY.deserialize(compiled[1], trusted=trusted))
            assert back == outcome(lambda: PURE_REGISTRY.deserialize(compiled[1], trusted=trusted))
            assert back == ("value", compiled[1])


def test_out_of_band_buffers_follow_column_order():
    np = pytest.importorskip("numpy")

    @dataclasses.dataclass
    class Arrays:
        a: Any
        b: Any

    registries = twin_registries((Arrays, "t.Arrays"))
    value = [Arrays(np.arange(i, i + 3), np.full(2, float(i))) for i in range(3)]
    results = [r.serialize(value) for r in registries]
    assert results[0].to_bytes() == results[1].to_bytes()
    buffers = [bytes(b) for b in results[0].out_of_band_buffers]
    assert buffers == [bytes(v.a.data) for v in value] + [bytes(v.b.data) for v in value]
    back = registries[0].deserialize(results[0].to_bytes())
    assert all((x.a == y.a).all() and (x.b == y.b).all() for x, y in zip(back, value))


# ------------------------------------------------------------------------------ without the pure codec


def test_lists_of_registered_structs_need_no_pure_codec():
    values = [[Point(i, -i, 2**40) for i in range(50)], [widths()] * 3, [Frozen(1, None, "x"), Frozen(2, 0.5, "y")],
              [Row("k", 3), Row("l", -4)], [tree(), tree()], [Pair("a", 1), Pair("b", 2)],
              [Mixed(0.5, 1, 2, None, b"b", everything().color, {1}, frozenset(), {"k": [1]}, (1, None),
                     [Point(1, 2, 3)], None, (1.0,), [1, "x"])] * 2]
    frames = [COMPILED_REGISTRY.serialize(v).to_bytes() for v in values]
    refuse = mock.Mock(side_effect=AssertionError("the pure codec was asked"))
    with mock.patch.object(PureMsgpackCodec, "pack", refuse), mock.patch.object(PureMsgpackCodec, "unpack", refuse):
        assert [COMPILED_REGISTRY.serialize(v).to_bytes() for v in values] == frames
        assert [COMPILED_REGISTRY.deserialize(f) for f in frames] == values


class Reading(NamedTuple):
    sensor: str
    value: float


def test_a_converted_value_in_a_column_is_written_as_its_writer_converts_it():
    registry = serreg.Registry()
    registry.register_struct(Reading, "t.Reading")
    frame = registry.serialize([Reading("a", 1), Reading("b", 2.5)]).to_bytes()  # an int in a float64 column
    assert struct.pack("<2d", 1.0, 2.5) in frame
    assert registry.deserialize(frame) == [Reading("a", 1.0), Reading("b", 2.5)]


# ------------------------------------------------------------------------------ evolution and carriers


def test_a_narrower_or_evolved_definition_is_read_alike_and_widened():
    @dataclasses.dataclass
    class NarrowPoint:  # another process's shapes.Point: narrower types, and a field this reader lacks
        x: Annotated[int, serreg.int32]
        w: str
        y: Annotated[int, serreg.int8]
        z: Annotated[int, serreg.uint8]

    writer = serreg.Registry()
    writer.register_struct(NarrowPoint, "shapes.Point")
    frame = writer.serialize([NarrowPoint(-5, "dropped", 7, 0), NarrowPoint(2**31 - 1, "", -128, 255)]).to_bytes()
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame))
    assert COMPILED_REGISTRY.deserialize(frame) == [Point(-5, 7, 0), Point(2**31 - 1, -128, 255)]


def test_carriers_of_an_unknown_class_are_read_and_written_back_byte_for_byte():
    definition = ["no.Such", [["n", "int16"], ["f", "float32"], ["tags", ["list", "str"]], ["more", ["list", ["struct", "no.Such"]]]]]
    inner = ext2(0, 2, int_column([1, -2]), struct.pack("<2f", 0.5, -0.0), [["a"], []],
                 [[], msgpack.ExtType(2, msgpack.packb([0, 1, int_column([3]), struct.pack("<f", 1.0), [[]], [[]]]))])
    frame = table_frame([definition], msgpack.packb(inner))
    for registry in (COMPILED_REGISTRY, PURE_REGISTRY):
        back = registry.deserialize(frame)
        assert [type(v) for v in back] == [serreg.StructValue] * 2 and back[1]["more"][0]["n"] == 3
        assert COMPILED_REGISTRY.serialize(back).to_bytes() == PURE_REGISTRY.serialize(back).to_bytes() == frame


def test_a_list_mixing_a_class_and_carriers_is_written_alike():
    carrier = COMPILED_REGISTRY.deserialize(table_frame([["no.Such", [["n", "int8"]]]], msgpack.packb([ext2(0, 1, b"\x00\x01")])))[0][0]
    for value in ([carrier, carrier], [Point(1, 2, 3), carrier], [carrier, Point(1, 2, 3)], {"k": [carrier] * 3}):
        assert written(COMPILED_REGISTRY, value) == written(PURE_REGISTRY, value)
