"""msgspec Structs declared as cross-language structs (docs/FORMAT.md, section 10).

A msgspec twin of a shape in tests/struct_shapes.py writes the same bytes as the dataclass
(every golden vector reads and writes back through the twins); every field type of the 10.2
grammar round-trips, and kw_only fields keep msgspec's field order; serreg never imports msgspec
for a registry without a Struct of it; the Java fixture echoes a msgspec-declared struct through
its shapes.Point, Widths, Node and Pair classes; the canonical form is the dataclass one.
msgspec's own settings and building through the class: test_structs_msgspec_classes.py;
evolution: test_structs_msgspec_evolution.py; errors: test_structs_msgspec_errors.py. Skipped
without msgspec.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgpack
import pytest

msgspec = pytest.importorskip("msgspec", reason="msgspec is not installed (pip install msgspec)")

import numpy as np  # noqa: E402

import serreg  # noqa: E402
from serreg.structs.types import ATOMS, parse  # noqa: E402
from serreg.wire.class_id import class_id_hash  # noqa: E402
import struct_shapes  # noqa: E402
from struct_round_trips import frame  # noqa: E402
from struct_shapes import Color  # noqa: E402
from struct_shapes_msgspec import MAll, MEverything, MLeaf, MNode, MPair, MPoint, MWidths, all_value, as_twin, twins  # noqa: E402

STRUCTS_HASH = class_id_hash("serreg.structs")
VECTORS = Path(__file__).resolve().parent / "vectors" / "structs"


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
