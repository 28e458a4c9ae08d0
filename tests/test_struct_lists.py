"""Lists of struct instances as ext 2, struct columns (docs/FORMAT.md, 10.3): when a list is one, its
bytes, first use, evolution and widening, defaults per instance, carriers, buffers in column order,
depth. Run through the pure-Python codec (the reference writer) whatever the backend, and through the
backend in use where it writes ext 2 (the compiled codec once its C core does)."""

from __future__ import annotations

import dataclasses
import struct
from typing import Annotated, Any, Optional
from unittest import mock

import msgpack
import numpy as np
import pytest

import serreg
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import FrameView
from struct_shapes import Pair, Point, Row, register, rows, tree

STRUCTS_HASH = class_id_hash("serreg.structs")


def pure_registry() -> serreg.Registry:
    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        return register(serreg.Registry())


def backend_registry() -> serreg.Registry:
    return register(serreg.Registry())


REGISTRIES = [
    pytest.param(pure_registry, id="pure"),
    pytest.param(backend_registry, id="backend"),
]


def inner_of(frame: bytes) -> tuple[list[Any], bytes]:
    """(the table's definitions, the inner section after the ClassIDHash) of a frame holding structs."""
    in_band = bytes(FrameView(frame).in_band)
    assert in_band[:8] == STRUCTS_HASH
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(in_band[8:])
    table = unpacker.unpack()
    offset = 8 + unpacker.tell()
    return table, in_band[offset + 8:]


def ext2_payload(packed: bytes) -> list[Any]:
    """The unpacked payload of the ext 2 that ``packed`` is."""
    value = msgpack.unpackb(packed, ext_hook=lambda code, data: (code, data))
    assert value[0] == 2
    return msgpack.unpackb(value[1], ext_hook=lambda code, data: (code, data))


# ---------------------------------------------------------------------------------- when and how


@pytest.mark.parametrize("make", REGISTRIES)
def test_a_thousand_points_fit_pyforys_frame_size(make):
    points = [Point(i, i * 2, -i) for i in range(1000)]
    frame = make().serialize(points).to_bytes()
    assert len(frame) <= 5918  # pyfory's xlang frame of the same list
    assert make().deserialize(frame) == points


@pytest.mark.parametrize("make", REGISTRIES)
def test_ext2_bytes_hold_the_index_once_and_the_columns(make):
    frame = make().serialize([Point(0, 1, -1), Point(200, 3, 2)]).to_bytes()
    table, inner = inner_of(frame)
    assert table == [["shapes.Point", [["x", "int64"], ["y", "int64"], ["z", "int64"]]]]
    assert ext2_payload(inner) == [0, 2, b"\x00\x00\xc8\x01", b"\x00\x01\x03", b"\x01\x01\x04"]


@pytest.mark.parametrize("make", [pure_registry, backend_registry], ids=["pure", "backend"])
@pytest.mark.parametrize("value", [
    [], [Point(1, 2, 3), Pair("a")], [Point(1, 2, 3), 1], (Point(1, 2, 3), Point(1, 2, 3)),
    {Pair("a"), Pair("b")}, frozenset({Pair("a")}),
], ids=["empty", "two definitions", "a non-struct", "tuple", "set", "frozenset"])
def test_other_lists_and_containers_stay_arrays(make, value):
    registry = make()
    frame = registry.serialize(value).to_bytes()
    assert 2 not in _ext_codes(frame)
    assert registry.deserialize(frame) == value


def _ext_codes(frame: bytes) -> set[int]:
    codes: set[int] = set()

    def hook(code: int, data: bytes) -> None:
        codes.add(code)
        if code in (1, 2):
            msgpack.unpackb(data, ext_hook=hook)
        elif code == 0 and len(data) > 8:
            msgpack.unpackb(data[8:], ext_hook=hook)

    in_band = bytes(FrameView(frame).in_band)
    if in_band[:8] == STRUCTS_HASH:
        _, inner = inner_of(frame)
    else:
        inner = in_band[8:]
    msgpack.unpackb(inner, ext_hook=hook)
    return codes


@dataclasses.dataclass
class Empty:
    pass


@dataclasses.dataclass
class Holder:
    points: tuple[Point, ...]
    pairs: set[Pair]
    anything: Any
    maybe: list[Optional[Point]]


def test_where_a_list_is_ext2():
    registry = pure_registry()
    registry.register_struct(Empty, "t.Empty")
    registry.register_struct(Holder, "t.Holder")
    assert 2 not in _ext_codes(registry.serialize([Empty(), Empty()]).to_bytes())  # a definition without fields
    holder = Holder((Point(1, 2, 3),), {Pair("a")}, {"k": [Pair("b"), Pair("c")]}, [Point(0, 0, 0), None])
    frame = registry.serialize(holder).to_bytes()
    _, inner = inner_of(frame)
    items = msgpack.unpackb(inner, ext_hook=lambda code, data: (code, msgpack.unpackb(data, ext_hook=lambda c, d: c)))
    # tuple[Point, ...] is ["list", ...]: ext 2; a set field stays an array (its members packed while the
    # fields are converted, so shapes.Pair takes index 1 before shapes.Point, 10.7); a list in an any
    # value is ext 2; a list holding None is an array of ext 1 and nil
    assert [d[0] for d in inner_of(frame)[0]] == ["t.Holder", "shapes.Pair", "shapes.Point"]
    assert items[1] == (2, [2, 1, b"\x00\x01", b"\x00\x02", b"\x00\x03"])
    assert items[2] == [(1, [1, "a", 0])]
    assert items[3] == {"k": (2, [1, 2, ["b", "c"], b"\x00\x00\x00"])}
    assert items[4] == [(1, [2, 0, 0, 0]), None]
    assert registry.deserialize(frame) == holder


def test_first_use_order_is_the_definition_then_its_columns_in_order():
    frame = pure_registry().serialize(rows()).to_bytes()
    table, _ = inner_of(frame)
    assert [d[0] for d in table] == ["shapes.Row", "shapes.Point", "shapes.Pair"]
    frame = pure_registry().serialize([{"p": Pair("a")}, [Point(1, 2, 3)]]).to_bytes()
    assert [d[0] for d in inner_of(frame)[0]] == ["shapes.Pair", "shapes.Point"]
    frame = pure_registry().serialize([[Point(1, 2, 3)], {"p": Pair("a")}]).to_bytes()
    assert [d[0] for d in inner_of(frame)[0]] == ["shapes.Point", "shapes.Pair"]


@pytest.mark.parametrize("trusted", [True, False])
def test_every_column_kind_round_trips(trusted):
    registry = pure_registry()
    value = rows()
    frame = registry.serialize(value).to_bytes()
    assert registry.deserialize(frame, trusted=trusted) == value
    relay = serreg.Registry()
    carried = relay.deserialize(frame, trusted=trusted)
    assert all(isinstance(v, serreg.StructValue) for v in carried)
    assert pure_registry().serialize(carried).to_bytes() == frame


def test_float32_columns_round_and_ints_widen_in_float_columns():
    registry = pure_registry()
    row = dataclasses.replace(rows()[0], ratio=3, weight=0.1)
    back = registry.deserialize(registry.serialize([row, row]).to_bytes())
    assert back[0].ratio == 3.0 and type(back[0].ratio) is float
    assert back[1].weight == struct.unpack("<f", struct.pack("<f", 0.1))[0]


@pytest.mark.parametrize("field, value, message", [
    ("small", 300, r"shapes\.Row\.small: 300"), ("small", 1.0, r"shapes\.Row\.small"),
    ("count", -1, r"shapes\.Row\.count: -1"), ("weight", 1e300, r"shapes\.Row\.weight.*float32's range"),
    ("flag", 1, r"shapes\.Row\.flag: 1"), ("ratio", "x", r"shapes\.Row\.ratio: 'x'"),
    ("name", b"x", r"shapes\.Row\.name"), ("origin", Pair("a"), r"shapes\.Row\.origin"),
    ("path", [Pair("a")], r"shapes\.Row\.path"),
])
def test_values_outside_a_columns_type_are_refused_naming_struct_field_and_value(field, value, message):
    good = rows()[0]
    bad = dataclasses.replace(good, **{field: value})
    with pytest.raises(serreg.SerializationError, match=message):
        pure_registry().serialize([good, bad])


# ---------------------------------------------------------------------------------- evolution


@dataclasses.dataclass
class V1:
    x: Annotated[int, serreg.int32]
    y: Annotated[float, serreg.float32]
    gone: str
    kept: int


@dataclasses.dataclass
class V2:
    kept: Optional[int]
    x: int
    y: float
    tags: list[str] = dataclasses.field(default_factory=list)
    note: str = "n"


@dataclasses.dataclass
class V3:
    x: Any
    must: int


@dataclasses.dataclass
class Narrow:
    x: Annotated[int, serreg.int32]


def _pure(cls: type, class_id: str) -> serreg.Registry:
    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        registry = serreg.Registry()
    registry.register_struct(cls, class_id)
    return registry


def test_columns_evolve_as_instances_do():
    frame = _pure(V1, "t.V").serialize([V1(-5, 0.5, "skip", 1), V1(2**31 - 1, -1.5, "me", -7)]).to_bytes()
    back = _pure(V2, "t.V").deserialize(frame, trusted=False)
    assert back == [V2(1, -5, 0.5), V2(-7, 2**31 - 1, -1.5)]
    assert back[0].tags is not back[1].tags  # the default factory is called once per instance
    anything = _pure(V3, "t.V")
    with pytest.raises(serreg.DeserializationError, match=r"no field 'must'.*V3\.must has no default"):
        anything.deserialize(frame)


def test_narrowing_a_column_is_refused_naming_both_types():
    frame = _pure(V2, "t.V").serialize([V2(1, 2, 3.0)]).to_bytes()
    with pytest.raises(serreg.DeserializationError, match=r"field 'x'.*int64.*int32"):
        _pure(Narrow, "t.V").deserialize(frame)


# ---------------------------------------------------------------------------------- buffers and depth


@dataclasses.dataclass
class Arrays:
    a: np.ndarray
    b: np.ndarray


def test_out_of_band_buffers_follow_column_order():
    registry = _pure(Arrays, "t.Arrays")
    value = [Arrays(np.full(4, i, np.int64), np.full(4, 10 + i, np.int64)) for i in range(3)]
    result = registry.serialize(value)
    firsts = [int(np.frombuffer(b, np.int64)[0]) for b in result.out_of_band_buffers]
    assert firsts == [0, 1, 2, 10, 11, 12]
    back = registry.deserialize(result.to_bytes())
    assert all(np.array_equal(x.a, y.a) and np.array_equal(x.b, y.b) for x, y in zip(back, value))


@pytest.mark.parametrize("max_depth", [1, 2, 3, 4, 8])
def test_depth_counts_as_for_an_array_of_ext1(max_depth):
    """The same value as a legacy frame (an array of ext 1) and as ext 2 meets max_depth alike."""
    legacy = open(__file__.replace("test_struct_lists.py", "vectors/structs/legacy_tree.srg"), "rb").read()
    current = pure_registry().serialize(tree()).to_bytes()

    def outcome(frame: bytes) -> Any:
        try:
            return pure_registry().deserialize(frame, limits=serreg.Limits(max_depth=max_depth))
        except serreg.LimitExceededError:
            return "too deep"
    assert outcome(legacy) == outcome(current)


def test_carrier_lists_keep_their_definition_and_relay_byte_for_byte():
    frame = pure_registry().serialize({"a": [Point(1, 2, 3), Point(4, 5, 6)], "b": [Pair("x"), Pair("y", 1)]}).to_bytes()
    relay = _pure(V1, "t.Other")
    carried = relay.deserialize(frame, trusted=False)
    assert [v["x"] for v in carried["a"]] == [1, 4]
    assert relay.serialize(carried).to_bytes() == frame
    mixed = [carried["a"][0], carried["b"][0]]  # two definitions: an array of ext 1
    assert relay.deserialize(relay.serialize(mixed).to_bytes()) == mixed
    assert 2 not in _ext_codes(relay.serialize(mixed).to_bytes())
