"""Cross-language structs in Python (docs/FORMAT.md, section 10): declaring, every field type,
exact widths, the data carrier. Schema evolution: test_structs_evolution.py; untrusted and
hostile frames: test_structs_hostile.py; the golden vectors: test_structs_vectors.py."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Optional

import attrs
import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg.wire.class_id import class_id_hash
from struct_round_trips import frame, registry, round_trip  # noqa: F401  (registry: a fixture)
from struct_shapes import Color, Pair, Point, everything, tree, widths


STRUCTS_HASH = class_id_hash("serreg.structs")


# ------------------------------------------------------------------------------ shapes and types


@pytest.mark.parametrize("make", [everything, widths, tree, lambda: Pair("a", 3), lambda: [Point(1, 2, 3)] * 3])
def test_round_trip_every_shape(registry, make):
    value = make()
    assert round_trip(registry, value) == value


def test_slots_frozen_kw_only_namedtuple_keep_their_kind(registry):
    back = round_trip(registry, {"w": widths(), "e": everything(), "p": Pair("x")})
    with pytest.raises(dataclasses.FrozenInstanceError):
        back["w"].i8 = 1
    assert not hasattr(back["e"], "__dict__")
    assert type(back["p"]) is Pair and back["p"].right == 0
    assert type(back["e"].members) is frozenset and type(back["e"].pair) is tuple and back["e"].color is Color.GREEN


def test_attrs_classes(registry):
    @attrs.define
    class Slotted:
        a: int
        b: list[str] = attrs.field(factory=list)

    @attrs.frozen(slots=False)
    class Plain:
        a: Optional[float] = None

    registry.register_struct(Slotted, "attrs.Slotted")
    registry.register_struct(Plain, "attrs.Plain")
    value = [Slotted(1, ["x"]), Plain(2.5), Plain()]
    assert round_trip(registry, value) == value


def test_decorator_registers_on_the_default_registry():
    @serreg.struct("test.Decorated")
    @dataclasses.dataclass
    class Decorated:
        a: int

    assert serreg.deserialize(serreg.serialize(Decorated(5)).to_bytes()) == Decorated(5)
    assert isinstance(serreg.get_serializer("test.Decorated"), serreg.Serializer)


def test_definition_travels_once_per_frame(registry):
    data = frame(registry, [Point(i, i, i) for i in range(1000)])
    assert data.count(b"\xa1x") == 1 and data.count(b"shapes.Point") == 1
    assert bytes(data[32:40]) == STRUCTS_HASH


def test_arrays_and_tables_travel_out_of_band(registry):
    @dataclasses.dataclass
    class Frame:
        image: np.ndarray
        table: pa.Table
        extra: Optional[np.ndarray] = None

    registry.register_struct(Frame, "test.Frame")
    image = np.arange(100_000, dtype=np.float32)
    table = pa.table({"a": list(range(1000))})
    result = registry.serialize(Frame(image, table))
    assert len(result.out_of_band_buffers) >= 2
    back = registry.deserialize(bytearray(result.to_bytes()))
    assert np.array_equal(back.image, image) and back.table.equals(table) and back.extra is None
    assert back.image.base is not None  # a view of the frame, not a copy


def test_nested_in_standard_containers(registry):
    value = {"t": (Point(1, 2, 3), {Pair("a", 1)}), "nested": [[tree()]]}
    assert round_trip(registry, value) == value


# ------------------------------------------------------------------------------ widths and errors


@pytest.mark.parametrize(
    "field, value",
    [("i8", 128), ("i8", -129), ("u8", -1), ("u8", 256), ("i32", 2**31), ("u64", 2**64), ("i64", 2**63),
     ("f32", 1e300), ("i16", 1.0), ("i64", True)],
)
def test_out_of_range_names_struct_field_and_value(registry, field, value):
    bad = dataclasses.replace(widths(), **{field: value})
    with pytest.raises(serreg.SerializationError) as error:
        registry.serialize(bad)
    message = str(error.value)
    assert f"shapes.Widths.{field}" in message and repr(value) in message


def test_float32_rounds_to_binary32(registry):
    back = round_trip(registry, dataclasses.replace(widths(), f32=0.1))
    assert back.f32 == np.float32(0.1)


def test_wrong_python_types_are_refused(registry):
    with pytest.raises(serreg.SerializationError, match="shapes.Point.x"):
        registry.serialize(Point("1", 2, 3))
    with pytest.raises(serreg.SerializationError, match="shapes.Everything.color"):
        registry.serialize(dataclasses.replace(everything(), color="GREEN"))
    with pytest.raises(serreg.SerializationError, match="shapes.Everything.origin"):
        registry.serialize(dataclasses.replace(everything(), origin=Pair("a")))


def test_registration_errors():
    registry = serreg.Registry()
    with pytest.raises(TypeError, match="not a dataclass"):
        registry.register_struct(int, "x.Int")

    @dataclasses.dataclass
    class Bad:
        a: Annotated[str, serreg.int32]

    with pytest.raises(TypeError, match="applies to int"):
        registry.register_struct(Bad, "x.Bad")
        registry.serialize(Bad("a"))


def test_unregistered_nested_struct_is_a_clear_error():
    registry = serreg.Registry()

    @dataclasses.dataclass
    class Outer:
        inner: Point

    registry.register_struct(Outer, "x.Outer")
    with pytest.raises(serreg.SerializationError, match="not a registered struct"):
        registry.serialize(Outer(Point(1, 2, 3)))


# ------------------------------------------------------------------------------ the carrier


def test_unknown_class_ids_become_carriers_that_relay_byte_for_byte(registry):
    value = {"e": everything(), "t": tree(), "w": [widths()], "p": Point(1, 2, 3)}
    data = frame(registry, value)
    relay = serreg.Registry()
    carried = relay.deserialize(data, trusted=False)
    assert isinstance(carried["p"], serreg.StructValue)
    assert carried["p"].class_id == "shapes.Point" and carried["p"]["x"] == 1
    assert carried["p"].fields == {"x": 1, "y": 2, "z": 3}
    assert carried["e"]["color"] == "GREEN" and carried["e"]["origin"] == carried["p"]
    assert frame(relay, carried) == data
    assert registry.deserialize(frame(relay, carried)) == value


def test_top_level_carrier_keeps_its_class_id(registry):
    data = frame(registry, Point(1, 2, 3))
    carried = serreg.Registry().deserialize(data)
    assert isinstance(carried, serreg.StructValue)
    assert serreg.Registry().serialize(carried).to_bytes() == data
