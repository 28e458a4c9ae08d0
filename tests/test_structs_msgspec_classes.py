"""msgspec Structs as cross-language structs (docs/FORMAT.md, section 10): msgspec's own encoding
settings and Meta constraints change nothing in a serreg frame; odd field names; instances are
built through the class (``__post_init__`` runs, its errors are the frame's; default factories
give each instance its own value); msgspec Structs and dataclasses nest in each other; the
decorator declares a msgspec Struct. Skipped without msgspec.
"""

from __future__ import annotations

from typing import Annotated, Optional

import pytest

msgspec = pytest.importorskip("msgspec", reason="msgspec is not installed (pip install msgspec)")

import serreg  # noqa: E402
import struct_shapes  # noqa: E402
from struct_round_trips import frame  # noqa: E402


# ------------------------------------------------------------------------------ msgspec's own settings


class Plain(msgspec.Struct):
    user_id: int
    note: Optional[str] = None
    tags: list[str] = msgspec.field(default_factory=list)


class Dressed(msgspec.Struct, frozen=True, array_like=True, omit_defaults=True, tag="dressed", tag_field="kind",
              rename="camel", forbid_unknown_fields=True, gc=False, kw_only=True):
    user_id: Annotated[int, msgspec.Meta(ge=0)]
    note: Optional[str] = None
    tags: list[str] = msgspec.field(default_factory=list)


def test_msgspec_encoding_settings_do_not_change_the_serreg_frame():
    plain, dressed = serreg.Registry(), serreg.Registry()
    plain.register_struct(Plain, "x.User")
    dressed.register_struct(Dressed, "x.User")
    values = [Dressed(user_id=1), Dressed(user_id=2, note="n", tags=["a"])]
    data = frame(dressed, values)
    assert data == frame(plain, [Plain(1), Plain(2, "n", ["a"])])
    assert b"userId" not in data and b"dressed" not in data  # no rename, no tag: attribute names, class ID
    back = dressed.deserialize(data, trusted=False)
    assert back == values and all(type(v) is Dressed for v in back)
    assert plain.deserialize(data) == [Plain(1), Plain(2, "n", ["a"])]


def test_meta_constraints_are_left_to_msgspec():
    registry = serreg.Registry()
    registry.register_struct(Dressed, "x.User")
    value = Dressed(user_id=-1)  # msgspec checks Meta(ge=0) when it decodes, not in __init__
    assert registry.deserialize(frame(registry, value)) == value
    with pytest.raises(msgspec.ValidationError):
        msgspec.msgpack.decode(msgspec.msgpack.encode(value), type=Dressed)


def test_field_names_that_are_not_python_keywords_arguments():
    Odd = msgspec.defstruct("Odd", [("class", int), ("x", str, "dflt")])
    registry = serreg.Registry()
    registry.register_struct(Odd, "x.Odd")
    value = Odd(**{"class": 3})
    assert registry.deserialize(frame(registry, value)) == value


# ------------------------------------------------------------------------------ built through the class


class Checked(msgspec.Struct):
    low: int
    high: int
    built: int = 0

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError("low above high")
        self.built += 1


def test_instances_are_built_through_the_class():
    registry = serreg.Registry()
    registry.register_struct(Checked, "x.Checked")
    sent = Checked(1, 2)
    assert sent.built == 1
    back = registry.deserialize(frame(registry, sent))
    assert (back.low, back.high, back.built) == (1, 2, 2)  # __post_init__ ran once more, as when msgspec decodes


def test_post_init_errors_are_deserialization_errors_naming_the_struct():
    writer, reader = serreg.Registry(), serreg.Registry()

    class Loose(msgspec.Struct):
        low: int
        high: int

    writer.register_struct(Loose, "x.Checked")
    reader.register_struct(Checked, "x.Checked")
    data = frame(writer, [Loose(5, 1)])
    for trusted in (True, False):
        with pytest.raises(serreg.DeserializationError, match="'x.Checked': Checked refused.*ValueError: low above high"):
            reader.deserialize(data, trusted=trusted)


def test_default_factories_give_each_instance_its_own_value():
    writer, reader = serreg.Registry(), serreg.Registry()

    class Old(msgspec.Struct):
        user_id: int

    writer.register_struct(Old, "x.User")
    reader.register_struct(Plain, "x.User")
    first, second = reader.deserialize(frame(writer, [Old(1), Old(2)]))
    assert first == Plain(1) and first.tags == [] and first.tags is not second.tags


# ------------------------------------------------------------------------------ nesting with other kinds


class Inner(msgspec.Struct, frozen=True):
    label: str
    points: list[struct_shapes.Point]  # a dataclass struct inside a msgspec Struct


def test_msgspec_inside_dataclass_and_dataclass_inside_msgspec():
    import dataclasses

    @dataclasses.dataclass
    class Holder:
        inner: Inner
        many: list[Inner]
        pair: Optional[struct_shapes.Pair] = None

    registry = struct_shapes.register(serreg.Registry())
    registry.register_struct(Inner, "mixed.Inner")
    registry.register_struct(Holder, "mixed.Holder")
    value = Holder(Inner("a", [struct_shapes.Point(1, 2, 3)]), [Inner("b", []), Inner("c", [struct_shapes.Point(0, 0, 0)])],
                   struct_shapes.Pair("p", 1))
    data = frame(registry, value)
    back = registry.deserialize(data, trusted=False)
    assert back == value and type(back.inner) is Inner and type(back.inner.points[0]) is struct_shapes.Point
    assert frame(registry, back) == data


def test_decorator_declares_a_msgspec_struct_on_the_default_registry():
    @serreg.struct("test.DecoratedMsgspec")
    class Decorated(msgspec.Struct, frozen=True):
        a: Annotated[int, serreg.int32]
        b: Optional[str] = None

    assert serreg.deserialize(serreg.serialize([Decorated(5)]).to_bytes(), trusted=False) == [Decorated(5)]
