"""Errors of msgspec-declared cross-language structs (docs/FORMAT.md, section 10): out-of-range
widths and registration errors name the struct and field; untrusted hostile frames are refused
naming the struct; untrusted mode builds only registered classes. Skipped without msgspec.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgpack
import pytest

msgspec = pytest.importorskip("msgspec", reason="msgspec is not installed (pip install msgspec)")

import serreg  # noqa: E402
from serreg.wire.class_id import class_id_hash  # noqa: E402
import struct_shapes  # noqa: E402
from struct_round_trips import frame  # noqa: E402
from struct_shapes_msgspec import MPoint, as_twin, twins  # noqa: E402

STRUCTS_HASH = class_id_hash("serreg.structs")


@pytest.mark.parametrize("field, value", [("i8", 128), ("u8", -1), ("i32", 2**31), ("u64", 2**64), ("f32", 1e300),
                                          ("i16", 1.0), ("i64", True)])
def test_out_of_range_width_names_struct_field_and_value(field, value):
    bad = msgspec.structs.replace(as_twin(struct_shapes.widths()), **{field: value})  # msgspec's __init__ checks no type
    with pytest.raises(serreg.SerializationError) as error:
        twins().serialize(bad)
    message = str(error.value)
    assert f"shapes.Widths.{field}" in message and repr(value) in message


def test_registration_errors_name_the_field():
    registry = serreg.Registry()

    class Unset(msgspec.Struct):
        a: int | msgspec.UnsetType = msgspec.UNSET

    with pytest.raises(TypeError, match="x.Unset.a.*union"):
        registry.register_struct(Unset, "x.Unset")
        registry.serialize(Unset(1))

    class Later(msgspec.Struct):
        a: "NotDefinedAnywhere"  # noqa: F821

    with pytest.raises(TypeError, match="Later name something not defined"):
        registry.register_struct(Later, "x.Later")

    class Wrong(msgspec.Struct):
        a: Annotated[str, serreg.int32]

    with pytest.raises(TypeError, match="x.Wrong.a.*applies to int"):
        registry.register_struct(Wrong, "x.Wrong")
        registry.serialize(Wrong("a"))


WIDTHS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64")


def _hostile(definition: list[Any], items: list[Any]) -> bytes:
    inner = b"\x91" + msgpack.packb(msgpack.ExtType(1, msgpack.packb(items)))
    return serreg.SerializationResult(
        STRUCTS_HASH + msgpack.packb([definition]) + class_id_hash("list") + inner
    ).to_bytes()


@pytest.mark.parametrize("definition, items, message", [
    (["shapes.Point", [["x", "int64"], ["y", "int64"], ["z", "int64"]]], [0, "1", 2, 3], "shapes.Point.x"),
    (["shapes.Point", [["x", "int64"], ["y", "int64"], ["z", "int64"]]], [0, 1, 2], "holds 2 field value"),
    (["shapes.Point", [["x", "int64"], ["y", "int64"]]], [0, 1, 2], "no field 'z'"),
    (["shapes.Point", [["x", "str"], ["y", "int64"], ["z", "int64"]]], [0, "a", 2, 3], "'x'.*str.*int64"),
    (["shapes.Widths", [[n, {"i": "int", "u": "uint", "f": "float"}[n[0]] + n[1:]] for n in WIDTHS]],
     [0, 300, *([0] * 7), 0.0, 0.0], "shapes.Widths.i8"),
])
def test_untrusted_hostile_frames_are_refused_naming_the_struct(definition, items, message):
    with pytest.raises(serreg.DeserializationError, match=message):
        twins().deserialize(_hostile(definition, items), trusted=False)


def test_untrusted_mode_allows_only_registered_class_ids():
    data = frame(twins(), [MPoint(1, 2, 3)])
    carried = serreg.Registry().deserialize(data, trusted=False)  # unregistered: a carrier, not a class
    assert isinstance(carried[0], serreg.StructValue) and carried[0].fields == {"x": 1, "y": 2, "z": 3}
    assert twins().deserialize(frame(serreg.Registry(), carried), trusted=False) == [MPoint(1, 2, 3)]
