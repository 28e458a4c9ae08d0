"""msgspec Structs declared as cross-language structs (docs/FORMAT.md, section 10).

A msgspec twin of a shape in tests/struct_shapes.py writes the same bytes as the dataclass
(every golden vector reads and writes back through the twins); every field type of the 10.2
grammar round-trips; msgspec's own encoding settings change nothing in a serreg frame;
instances are built through the class (``__post_init__`` runs, its errors are the frame's);
evolution between dataclass and msgspec versions; the Java fixture echoes a msgspec-declared
struct through its shapes.Point, Widths, Node and Pair classes. Skipped without msgspec.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import msgpack
import pytest

msgspec = pytest.importorskip("msgspec", reason="msgspec is not installed (pip install msgspec)")

import numpy as np  # noqa: E402

import serreg  # noqa: E402
from serreg.structs.types import ATOMS, parse  # noqa: E402
from serreg.wire.class_id import class_id_hash  # noqa: E402
import struct_shapes  # noqa: E402
from struct_shapes import Color  # noqa: E402
from struct_shapes_msgspec import MAll, MEverything, MLeaf, MNode, MPair, MPoint, MWidths, all_value, as_twin, twins  # noqa: E402

STRUCTS_HASH = class_id_hash("serreg.structs")
VECTORS = Path(__file__).resolve().parent / "vectors" / "structs"


def frame(registry: serreg.Registry, value: Any) -> bytes:
    return registry.serialize(value).to_bytes()


SHAPE_VALUES = [
    ("point", lambda: struct_shapes.Point(1, -2, 3)),
    ("widths", struct_shapes.widths),
    ("everything", struct_shapes.everything),
    ("tree", struct_shapes.tree),
    ("pair", lambda: struct_shapes.Pair("left", -5)),
    ("mixed", lambda: {"pairs": [struct_shapes.Pair("a")], "nested": (struct_shapes.tree(), [struct_shapes.Point(0, 0, 0)])}),
]


@pytest.mark.parametrize("name,make", SHAPE_VALUES, ids=[s[0] for s in SHAPE_VALUES])
def test_twins_write_the_dataclass_bytes_and_read_them_back(name, make):
    shapes = struct_shapes.register(serreg.Registry())
    value = make()
    twin = as_twin(value)
    assert type(twin) is not type(value) or isinstance(value, (list, dict))
    data = frame(twins(), twin)
    assert data == frame(shapes, value)
    assert twins().deserialize(data) == twin
    assert twins().deserialize(data, trusted=False) == twin
    assert shapes.deserialize(data) == value


@pytest.mark.parametrize("entry", json.loads((VECTORS / "manifest.json").read_text()), ids=lambda e: e["name"])
def test_golden_vectors_read_and_write_back_through_the_twins(entry):
    data = (VECTORS / entry["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == entry["digest"]
    value = twins().deserialize(data, trusted=False)
    # A legacy vector (arrays of ext 1, written before ext 2) is written again as the vector it rewrites to.
    assert frame(twins(), value) == (VECTORS / entry.get("rewrites_to", entry["file"])).read_bytes()


def test_twins_keep_their_kind():
    back = twins().deserialize(frame(twins(), [as_twin(struct_shapes.widths()), as_twin(struct_shapes.everything())]))
    widths, everything = back
    assert type(widths) is MWidths and type(everything) is MEverything and type(everything.origin) is MPoint
    with pytest.raises(AttributeError):
        widths.i8 = 1  # frozen
    assert type(everything.members) is frozenset and type(everything.pair) is tuple and everything.color is Color.GREEN


# ------------------------------------------------------------------------------ every field type


def _table_types(data: bytes) -> dict[str, Any]:
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data[data.index(STRUCTS_HASH) + 8:])
    return {class_id: {name: parse(t, name) for name, t in fields} for class_id, fields in unpacker.unpack()}


def _kinds(ftype: Any) -> set[str]:
    return {ftype.kind}.union(*(_kinds(a) for a in ftype.args if not isinstance(a, str)))


def test_every_field_type_of_the_grammar_round_trips():
    registry = serreg.Registry()
    registry.register_struct(MLeaf, "all.Leaf")
    registry.register_struct(MAll, "all.All")
    value = all_value()
    data = frame(registry, value)
    kinds = set().union(*(_kinds(t) for t in _table_types(data)["all.All"].values()))
    assert kinds >= ATOMS | {"optional", "list", "set", "map", "tuple", "struct"}
    for trusted in (True, False):
        back = registry.deserialize(bytearray(data), trusted=trusted)
        assert type(back) is MAll and frame(registry, back) == data
        for name in MAll.__struct_fields__:
            got, sent = getattr(back, name), getattr(value, name)
            if name == "array":
                assert np.array_equal(got, sent) and got.dtype == sent.dtype
            elif name in ("table", "batch"):
                assert got.equals(sent)
            else:
                assert got == sent and type(got) is type(sent), name
    assert str(back.f64) == "-0.0"


def test_float32_rounds_to_binary32():
    registry = serreg.Registry()
    registry.register_struct(MWidths, "shapes.Widths")
    value = msgspec.structs.replace(as_twin(struct_shapes.widths()), f32=0.1)
    assert registry.deserialize(frame(registry, value)).f32 == np.float32(0.1)


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


class KwBase(msgspec.Struct, kw_only=True):
    a: int = 0
    b: str


class KwSub(KwBase):
    c: float
    d: bool = False


def test_kw_only_fields_follow_msgspec_field_order():
    registry = serreg.Registry()
    registry.register_struct(KwSub, "x.Kw")
    data = frame(registry, KwSub(1.5, b="b"))
    assert list(_table_types(data)["x.Kw"]) == list(KwSub.__struct_fields__) == ["c", "d", "a", "b"]
    assert registry.deserialize(data) == KwSub(1.5, b="b")


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


# ------------------------------------------------------------------------------ evolution


class ItemV2(msgspec.Struct):
    """evolve.Item, version 2 (a msgspec Struct) of the dataclass version 1 below."""

    id: int  # int32 -> int64: widening
    weight: float  # float32 -> float64: widening
    tags: list[str] = msgspec.field(default_factory=list)  # new, with a default factory
    note: Optional[str] = None  # new, with a default


def _item_registry(cls: type) -> serreg.Registry:
    registry = serreg.Registry()
    registry.register_struct(cls, "evolve.Item")
    return registry


def test_msgspec_v2_reads_a_dataclass_v1_frame():
    import dataclasses

    @dataclasses.dataclass
    class ItemV1:
        id: Annotated[int, serreg.int32]
        name: str  # gone in v2: skipped
        weight: Annotated[float, serreg.float32]

    data = frame(_item_registry(ItemV1), [ItemV1(7, "seven", 0.5), ItemV1(-1, "", 0.25)])
    assert _item_registry(ItemV2).deserialize(data, trusted=False) == [ItemV2(7, 0.5), ItemV2(-1, 0.25)]

    class ItemV2Required(msgspec.Struct):
        id: int
        weight: float
        required: str

    with pytest.raises(serreg.DeserializationError, match="no field 'required'.*no default"):
        _item_registry(ItemV2Required).deserialize(data)

    class ItemNarrow(msgspec.Struct):
        id: Annotated[int, serreg.int8]

    with pytest.raises(serreg.DeserializationError, match="'id'.*int32.*int8"):
        _item_registry(ItemNarrow).deserialize(data)


def test_dataclass_reads_a_msgspec_frame():
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class ItemV1Wide:
        id: int
        weight: float
        name: str = "?"

    data = frame(_item_registry(ItemV2), ItemV2(7, 0.5, ["t"], "n"))
    assert _item_registry(ItemV1Wide).deserialize(data) == ItemV1Wide(7, 0.5)


# ------------------------------------------------------------------------------ errors


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


# ------------------------------------------------------------------------------ without msgspec

_WITHOUT_MSGSPEC = """
import dataclasses, sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name == "msgspec" or name.startswith("msgspec."):
            raise ImportError("msgspec is blocked")
sys.meta_path.insert(0, Refuse())
import serreg

@dataclasses.dataclass
class P:
    x: int

registry = serreg.Registry()
registry.register_struct(P, "x.P")
assert registry.deserialize(registry.serialize([P(1)]).to_bytes(), trusted=False) == [P(1)]
try:
    registry.register_struct(int, "x.Int")
except TypeError as error:
    assert "msgspec.Struct" in str(error), error
assert "msgspec" not in sys.modules
print("ok")
"""


def test_serreg_works_and_never_imports_msgspec_without_a_struct_of_it():
    proc = subprocess.run([sys.executable, "-c", _WITHOUT_MSGSPEC], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


# ------------------------------------------------------------------------------ through Java


def test_msgspec_declared_structs_echo_through_java(java_echo):
    """Java's fixture registers StructShapes (records Point, Widths, Pair; class Node): it builds
    its own objects from a msgspec-declared frame and writes the same bytes back."""
    registry = twins()
    value = [MPoint(1, -2, 3), as_twin(struct_shapes.widths()), as_twin(struct_shapes.tree()), MPair("l", 9),
             {"nested": [MPoint(i, i, -i) for i in range(5)]}]
    sent = frame(registry, value)
    reply = java_echo.round_trip(sent)
    assert bytes(reply) == sent
    back = registry.deserialize(reply, trusted=False)
    assert back == value and type(back[1]) is MWidths and type(back[2].children[0]) is MNode


# ------------------------------------------------------------------------------ canonical form


def test_canonical_form_and_digest_are_the_dataclass_ones():
    """Whatever serreg does for a struct's canonical form (docs/FORMAT.md 10.5), a msgspec twin gets
    the same: the same digest, or the same refusal."""

    def digest(registry: serreg.Registry, value: Any) -> Any:
        try:
            return registry.digest(value)
        except serreg.CanonicalFormError as error:
            return type(error)

    shapes = struct_shapes.register(serreg.Registry())
    for make in (struct_shapes.everything, struct_shapes.tree, struct_shapes.widths):
        assert digest(twins(), as_twin(make())) == digest(shapes, make())
