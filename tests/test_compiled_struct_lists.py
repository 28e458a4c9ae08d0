"""Lists of struct instances (ext 2, struct columns) through the compiled codec (docs/FORMAT.md, 10.3).

The compiled codec writes a list of instances of one definition by columns and reads it back in C.
Its frames are checked three ways: against bytes built here from the spec's text (kind byte and
LEB128 varints, packed little-endian floats and bools, arrays for the other types); against the
pure-Python codec (the same frames, values and errors for every column kind, out-of-band buffers
in column order, hostile ext 2 payloads trusted and untrusted); and for not asking the pure codec
at all on the common paths.
"""

from __future__ import annotations

import dataclasses
import math
import struct
from typing import Annotated, Any, NamedTuple, Optional
from unittest import mock

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import class_id_hash

from strategies import mutations
from struct_shapes import Node, Pair, Point, Widths, everything, register, tree, widths
from test_compiled_structs import COMPILED_REGISTRY, PURE_REGISTRY, Empty, Frozen, Mixed, Row, outcome, written

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")

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

    registries = []
    for codec in (None, PureMsgpackCodec):
        with mock.patch.object(serreg.registry, "MsgpackCodec", codec or serreg.registry.MsgpackCodec):
            registry = serreg.Registry()
        registry.register_struct(Arrays, "t.Arrays")
        registries.append(registry)
    value = [Arrays(np.arange(i, i + 3), np.full(2, float(i))) for i in range(3)]
    results = [r.serialize(value) for r in registries]
    assert results[0].to_bytes() == results[1].to_bytes()
    buffers = [bytes(b) for b in results[0].out_of_band_buffers]
    assert buffers == [bytes(v.a.data) for v in value] + [bytes(v.b.data) for v in value]
    back = registries[0].deserialize(results[0].to_bytes())
    assert all((x.a == y.a).all() and (x.b == y.b).all() for x, y in zip(back, value))


# ------------------------------------------------------------------------------ hostile ext 2

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


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("trusted", [True, False])
def test_hostile_ext_2_payloads_give_the_same_answer_from_both_codecs(name, trusted):
    frame = HOSTILE[name]
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=trusted))


@pytest.mark.parametrize("max_depth", [1, 2, 3, 10])
def test_max_depth_counts_lists_of_structs_alike(max_depth):
    frames = [HOSTILE["a point"], COMPILED_REGISTRY.serialize([tree(), tree()]).to_bytes(),
              COMPILED_REGISTRY.serialize([[Point(1, 2, 3)] * 3]).to_bytes()]
    for frame in frames:
        limits = serreg.Limits(max_depth=max_depth)
        compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=False, limits=limits))
        assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=False, limits=limits))


FRAMES = sorted(HOSTILE.values()) + [COMPILED_REGISTRY.serialize(v).to_bytes() for v in (
    [Point(i, -i, 2**40) for i in range(5)], [widths()] * 2, [Frozen(1, 2.5, "x"), Frozen(2, None, "")], [tree()])]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations(FRAMES), st.booleans())
def test_mutated_ext_2_frames_give_the_same_value_or_the_same_error(frame, trusted):
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=trusted))


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


# ------------------------------------------------------------------------------ the one-call entry


def test_serialize_top_writes_structs_with_their_table_as_the_full_path_does():
    carrier = COMPILED_REGISTRY.deserialize(table_frame([["no.Such", [["n", "int8"]]]], msgpack.packb([ext2(0, 1, b"\x00\x01")])))[0][0]
    written_in_one_call = [Point(1, 2, 3), [Point(1, 2, 3)] * 3, {"a": [tree()], "b": (widths(), Row("k", 1))},
                           [Frozen(1, None, "x"), [Frozen(2, 0.5, "")]], [1, "x", None]]
    for value in written_in_one_call:
        result = COMPILED_REGISTRY.codec.serialize_top(value)
        assert type(result) is serreg.SerializationResult
        assert result.to_bytes() == PURE_REGISTRY.serialize(value).to_bytes()
        assert COMPILED_REGISTRY.deserialize(result.to_bytes()) == value
    # Not plain: a carrier, a value another serializer writes (a decimal field), a value its field refuses
    # (the full path words it).
    for value in (carrier, [carrier], everything(), Point(2**64, 0, 0), [Row("k", 2**20)]):
        assert COMPILED_REGISTRY.codec.serialize_top(value) is NotImplemented
        assert written(COMPILED_REGISTRY, value) == written(PURE_REGISTRY, value)


def _registries(**options: Any) -> list[serreg.Registry]:
    """A compiled and a pure registry made with ``options``, with the struct classes of these tests."""
    made = []
    for codec in (serreg.registry.MsgpackCodec, PureMsgpackCodec):
        with mock.patch.object(serreg.registry, "MsgpackCodec", codec):
            registry = serreg.Registry(**options)
        register(registry)
        for class_id, cls in (("t.Frozen", Frozen), ("t.Row", Row)):
            registry.register_struct(cls, class_id)
        made.append(registry)
    return made


TOP_VALUES = [Point(1, 2, 3), [Point(1, 2, 3)] * 3, tree(), [tree(), tree()], {"a": [Row("k", 1)]}, widths(),
              [Pair("a", 1)], Pair("b", 2), [[Point(1, 2, 3)], []], [Frozen(1, None, "x")] * 2]


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3, 4, 100])
def test_unpack_top_reads_struct_frames_as_the_full_path_does(max_depth):
    compiled, pure = _registries(limits=serreg.Limits(max_depth=max_depth))
    for value in TOP_VALUES:
        frame = pure.serialize(value).to_bytes()
        result = compiled.serialize(value)
        assert result.to_bytes() == frame
        for data in (frame, result):
            assert outcome(lambda: compiled.deserialize(data)) == outcome(lambda: pure.deserialize(data))


def test_unpack_top_reads_struct_frames_in_one_call():
    refuse = mock.Mock(side_effect=AssertionError("the full path was taken"))
    frames = [COMPILED_REGISTRY.serialize(v).to_bytes() for v in TOP_VALUES]
    with mock.patch.object(serreg.structs.serializers.TableSerializer, "deserialize", refuse):
        assert [COMPILED_REGISTRY.deserialize(f) for f in frames] == TOP_VALUES
    # Anything else is read by the full path (which words the refusal): another definition, a carrier,
    # a value refused by its field's type, a mutated table.
    others = [HOSTILE["evolved definition"], HOSTILE["unknown class"], HOSTILE["str column holding an int"],
              frames[0][:40] + b"\xff" + frames[0][41:]]
    for frame in others:
        assert outcome(lambda: COMPILED_REGISTRY.deserialize(frame)) == outcome(lambda: PURE_REGISTRY.deserialize(frame))


def test_a_list_of_carriers_inside_a_value_is_handed_alone_to_the_pure_codec():
    carrier = COMPILED_REGISTRY.deserialize(table_frame([["no.Such", [["n", "int8"]]]], msgpack.packb([ext2(0, 1, b"\x00\x01")])))[0][0]
    assert type(carrier) is serreg.StructValue
    value = {"points": [Point(1, 2, 3)] * 2, "carriers": [carrier, carrier], "mixed": [carrier, Point(4, 5, 6)]}
    calls = []
    original = PureMsgpackCodec.pack

    def pack(self: Any, obj: Any, oob: list[Any]) -> bytes:
        calls.append(obj)
        return original(self, obj, oob)

    with mock.patch.object(PureMsgpackCodec, "pack", pack):
        frame = COMPILED_REGISTRY.serialize(value).to_bytes()
    assert calls == [value["carriers"], value["mixed"]]  # each list alone, never the whole value
    assert frame == PURE_REGISTRY.serialize(value).to_bytes()
    assert COMPILED_REGISTRY.deserialize(frame) == value
