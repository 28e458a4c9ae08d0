"""Struct classes in the compiled codec: what it writes and reads without its pure twin, and when.

Registered classes are written and read in C; a class is compiled once its nested struct classes
are registered; msgspec Structs are built by their constructor; slots are read directly until the
class changes; set fields keep the Python writer's table order; a definition read before its
class is registered reads as the class afterwards (docs/FORMAT.md 10).
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Optional
from unittest import mock

import pytest

import serreg
import serreg.registry
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec

from struct_hostile_in_bands import HOSTILE, ext1, listed, table_frame
from struct_registries import COMPILED_REGISTRY, PURE_REGISTRY, Frozen, Row, outcome, twin_registries, written
from struct_shapes import Pair, Point, everything, tree, widths

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")


def test_registered_structs_are_written_and_read_without_the_pure_codec():
    values = [[Point(i, -i, 2**40) for i in range(50)], [Frozen(1, None, "x"), Row("k", 3)], widths(),
              [everything(), tree(), Pair("a", 3)]]
    frames = [COMPILED_REGISTRY.serialize(v).to_bytes() for v in values]
    # Evolved definitions and carriers of scalar fields: read in C, built by their Python readers.
    others = [HOSTILE["evolved definition"], HOSTILE["unknown class"], HOSTILE["structs inside structs"]]
    expected = [PURE_REGISTRY.deserialize(f) for f in others]
    refuse = mock.Mock(side_effect=AssertionError("the pure codec was asked"))
    with mock.patch.object(PureMsgpackCodec, "pack", refuse), mock.patch.object(PureMsgpackCodec, "unpack", refuse):
        assert [COMPILED_REGISTRY.serialize(v).to_bytes() for v in values] == frames
        assert [COMPILED_REGISTRY.deserialize(f) for f in frames] == values
        assert [COMPILED_REGISTRY.deserialize(f) for f in others] == expected
    assert frames == [PURE_REGISTRY.serialize(v).to_bytes() for v in values]
    assert expected[0] == [Point(6, 5, 7)]


def test_a_class_registered_before_its_nested_struct_class_is_compiled_once_that_is_registered():
    @dataclasses.dataclass
    class Segment:
        start: Point
        end: Optional[Point]

    registries = []
    for codec in (None, PureMsgpackCodec):
        with mock.patch.object(serreg.registry, "MsgpackCodec", codec or serreg.registry.MsgpackCodec):
            registry = serreg.Registry()
        registry.register_struct(Segment, "t.Segment")  # Point is not registered yet
        with pytest.raises(serreg.SerializationError, match="not a registered struct"):
            registry.serialize(Segment(Point(1, 2, 3), None))
        registry.register_struct(Point, "shapes.Point")
        registries.append(registry)
    value = [Segment(Point(1, 2, 3), None), Segment(Point(4, 5, 6), Point(7, 8, 9))]
    frame = registries[1].serialize(value).to_bytes()
    refuse = mock.Mock(side_effect=AssertionError("the pure codec was asked"))
    with mock.patch.object(PureMsgpackCodec, "pack", refuse), mock.patch.object(PureMsgpackCodec, "unpack", refuse):
        assert registries[0].serialize(value).to_bytes() == frame
        assert registries[0].deserialize(frame) == value


def test_msgspec_structs_are_built_by_their_constructor_alike():
    msgspec = pytest.importorskip("msgspec")

    class Reading(msgspec.Struct):
        sensor: str
        value: Annotated[int, serreg.int16]

        def __post_init__(self):
            if self.value < 0:
                raise ValueError("negative reading")

    registries = twin_registries((Reading, "t.Reading"))
    good = [Reading("a", 1), Reading("b", 2)]
    frame = registries[1].serialize(good).to_bytes()
    refuse = mock.Mock(side_effect=AssertionError("the pure codec was asked"))
    with mock.patch.object(PureMsgpackCodec, "pack", refuse), mock.patch.object(PureMsgpackCodec, "unpack", refuse):
        assert registries[0].serialize(good).to_bytes() == frame
        assert registries[0].deserialize(frame) == good
    bad = table_frame([["t.Reading", [["sensor", "str"], ["value", "int16"]]]], listed(ext1([0, "c", -5])))
    compiled = outcome(lambda: registries[0].deserialize(bad))
    assert compiled == outcome(lambda: registries[1].deserialize(bad))
    assert compiled[:2] == ("error", "DeserializationError") and "negative reading" in compiled[2]


def test_slots_are_read_directly_until_the_class_changes():
    @dataclasses.dataclass(slots=True)
    class Cell:
        a: int
        b: str

    registries = twin_registries((Cell, "t.Cell"))
    cell = Cell(1, "x")
    frames = [r.serialize([cell, Cell(2, "y")]).to_bytes() for r in registries]
    assert frames[0] == frames[1]
    unset = Cell.__new__(Cell)
    unset.a = 3
    errors = [written(r, unset) for r in registries]  # an unset slot: refused alike
    assert errors[0] == errors[1] and errors[0][0] == "error" and "has no attribute 'b'" in errors[0][2]
    Cell.b = property(lambda self: "changed")  # the slot's descriptor replaced: read through the attribute
    frames = [r.serialize(cell).to_bytes() for r in registries]
    assert frames[0] == frames[1]
    assert b"changed" in frames[0]


@dataclasses.dataclass(frozen=True)
class Mark:
    s: str


@dataclasses.dataclass
class Marked:
    first: Point
    marks: frozenset[Mark]


def test_structs_in_set_fields_take_their_table_indices_as_the_python_writer_gives_them():
    # The Python writer packs a set field's members (to sort them) while converting the fields, so
    # a struct first met there comes before one met in an earlier field; the C writer hands such
    # a value to the pure codec, forgetting the definitions it had added.
    registries = twin_registries((Point, "shapes.Point"), (Mark, "t.Mark"), (Marked, "t.Marked"))
    for value in (Marked(Point(1, 2, 3), frozenset({Mark("q"), Mark("r")})),
                  [Point(0, 0, 0), Marked(Point(1, 2, 3), frozenset({Mark("q")}))]):
        frames = [r.serialize(value).to_bytes() for r in registries]
        assert frames[0] == frames[1]
        assert registries[0].deserialize(frames[0]) == value


def test_a_definition_read_before_its_class_is_registered_reads_as_the_class_after():
    @dataclasses.dataclass
    class Late:
        n: int

    frame = table_frame([["t.Late", [["n", "int64"]]]], listed(ext1([0, 5])))
    registry = serreg.Registry()
    first = registry.deserialize(frame)
    assert isinstance(first[0], serreg.StructValue) and first[0]["n"] == 5
    registry.register_struct(Late, "t.Late")
    assert registry.deserialize(frame) == [Late(5)]
