"""The canonical form and digest of values holding structs (docs/FORMAT.md, section 10.5).

Golden vectors (tests/vectors/structs/canonical.json) are written byte for byte from scratch,
from other histories, after a read through the registered classes and after a read through
the data carrier; one value gives one frame whatever the order of its sets, dicts and the
first use of its definitions (also across hash seeds, in subprocesses); the table is sorted
and every index follows it; frames decode to equal values; bad field values are refused
naming the field.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import msgpack
import pytest

import serreg
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import FrameView
from struct_shapes import Group, Pair, Point, everything, register, tree, widths

TESTS = Path(__file__).resolve().parent
VECTORS = TESTS / "vectors" / "structs"
sys.path.insert(0, str(VECTORS.parent))
import make_struct_vectors  # noqa: E402

CANONICAL = json.loads((VECTORS / "canonical.json").read_text())
BUILDERS = {name: build for name, build, _ in make_struct_vectors.canonical_vectors()}
STRUCTS_HASH = class_id_hash("serreg.structs")


@pytest.fixture(scope="module")
def shapes():
    return register(serreg.Registry())


def table_of(frame: bytes) -> tuple[list[bytes], bytes]:
    """(definitions as raw bytes, the inner section) of a canonical frame holding structs."""
    in_band = bytes(FrameView(frame).in_band)
    assert in_band[:8] == STRUCTS_HASH
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(in_band[8:])
    count = unpacker.read_array_header()
    definitions, start = [], unpacker.tell()
    for _ in range(count):
        unpacker.skip()
        definitions.append(in_band[8 + start:8 + unpacker.tell()])
        start = unpacker.tell()
    return definitions, in_band[8 + start:]


def indices_in(section: bytes) -> set[int]:
    """Every definition index of an ext 1 or ext 2 in a msgpack section (nested ext 0 payloads included)."""
    found: set[int] = set()

    def hook(code: int, data: bytes) -> Any:
        if code in (1, 2):
            items = msgpack.unpackb(data, ext_hook=hook, raw=False, strict_map_key=False)
            found.add(items[0])
        elif code == 0:
            msgpack.unpackb(data[8:], ext_hook=hook, raw=False, strict_map_key=False) if len(data) > 8 else None
        return None

    unpacker = msgpack.Unpacker(ext_hook=hook, raw=False, strict_map_key=False)
    unpacker.feed(section[8:])
    for _ in unpacker:
        pass
    return found


# ---------------------------------------------------------------------------------- golden vectors


@pytest.mark.parametrize("entry", CANONICAL, ids=lambda e: e["name"])
def test_canonical_vector(shapes, entry):
    frame = (VECTORS / entry["file"]).read_bytes()
    digest = bytes.fromhex(entry["digest"])
    assert hashlib.sha256(frame).digest() == digest
    build = BUILDERS[entry["name"]]
    for history in (False, True):
        assert shapes.serialize(build(history), canonical=True).to_bytes() == frame
        assert shapes.digest(build(history)) == digest
    # Read (trusted and untrusted) and written again: the same frame.
    for trusted in (True, False):
        assert shapes.serialize(shapes.deserialize(frame, trusted=trusted), canonical=True).to_bytes() == frame
    # A relay that registers none of the classes: its carriers give the same frame and digest.
    relay = serreg.Registry()
    carried = relay.deserialize(frame, trusted=False)
    assert relay.serialize(carried, canonical=True).to_bytes() == frame
    assert relay.digest(carried) == digest


def test_canonical_vectors_are_reproducible(tmp_path):
    make_struct_vectors.main(tmp_path)
    for entry in CANONICAL:
        assert (tmp_path / entry["file"]).read_bytes() == (VECTORS / entry["file"]).read_bytes(), entry["name"]
    assert json.loads((tmp_path / "canonical.json").read_text()) == CANONICAL


@pytest.mark.parametrize("entry", CANONICAL, ids=lambda e: e["name"])
def test_table_is_sorted_and_every_definition_is_used(entry):
    frame = (VECTORS / entry["file"]).read_bytes()
    definitions, inner = table_of(frame)
    assert definitions == sorted(definitions) and len(set(definitions)) == len(definitions)
    found = indices_in(inner)
    if inner[:8] in {class_id_hash(msgpack.unpackb(d)[0]) for d in definitions}:  # a top-level struct
        found.add(msgpack.unpackb(inner[8:], ext_hook=lambda code, data: None)[0])
    assert found == set(range(len(definitions)))


def test_reverse_first_use_vector_has_its_indices_swapped():
    frame = (VECTORS / "canonical_reverse_first_use.srg").read_bytes()
    definitions, inner = table_of(frame)
    assert [msgpack.unpackb(d)[0] for d in definitions] == ["shapes.Pair", "shapes.Point"]
    items = msgpack.unpackb(inner[8:], ext_hook=lambda code, data: (code, msgpack.unpackb(data)))
    assert items == [(1, [1, 0, 0, 0]), (1, [0, "a", 1])]  # the Point first, naming definition 1


@pytest.mark.parametrize("name", ["point", "tree", "reverse_first_use", "everything", "mixed"])
def test_canonical_frames_decode_to_equal_values(shapes, name):
    frame = (VECTORS / f"canonical_{name}.srg").read_bytes()
    assert shapes.deserialize(frame, trusted=False) == BUILDERS[name](False)


# ---------------------------------------------------------------------------------- one frame per value


def test_set_and_dict_orders_and_first_use_make_no_difference(shapes):
    a, b = make_struct_vectors.group(False), make_struct_vectors.group(True)
    assert list(a.weights) != list(b.weights)
    assert shapes.serialize(a, canonical=True).to_bytes() == shapes.serialize(b, canonical=True).to_bytes()
    # First use: the set member met first decides the provisional table; the frame is the same.
    members = [Pair("x"), dataclasses.replace(widths(), f32=1.5), Point(0, 0, 0)]
    frames = {
        shapes.serialize({"s": [m for m in order]}, canonical=True).to_bytes()
        for order in ([members[0], members[1]], [members[1], members[0]])
    }
    assert len(frames) == 2  # lists keep their order: two values
    one = frozenset(members[:2])
    sets = {shapes.serialize(frozenset(order), canonical=True).to_bytes()
            for order in ([members[0], members[1]], [members[1], members[0]])}
    assert len(sets) == 1 and shapes.deserialize(sets.pop()) == one


def test_digest_is_the_same_under_every_hash_seed():
    # Set iteration order of str-keyed members changes with the hash seed: the digest must not.
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
        "import serreg, make_struct_vectors\n"
        "from struct_shapes import register\n"
        "r = register(serreg.Registry())\n"
        "print(r.digest(make_struct_vectors.group()).hex(), r.digest(make_struct_vectors.mixed()).hex())\n"
    )
    digests = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code, str(TESTS), str(VECTORS.parent)], env=env,
                             capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1
    expected = {e["name"]: e["digest"] for e in CANONICAL}
    assert digests.pop().split() == [expected["group"], expected["mixed"]]


def test_float32_fields_are_rounded_and_canonical(shapes):
    frame = shapes.serialize(make_struct_vectors.group(), canonical=True).to_bytes()
    back = shapes.deserialize(frame)
    assert back.weights["w"] == struct.unpack("<f", struct.pack("<f", 0.1))[0] != 0.1
    assert math.copysign(1.0, back.weights["z"]) == 1.0
    in_band = bytes(FrameView(frame).in_band)
    assert b"\xcb\x7f\xf8" + bytes(6) in in_band and b"\xcb\x80" + bytes(7) not in in_band
    assert b"\xca" not in in_band.split(class_id_hash("shapes.Group"))[1][:1]


def test_unsorted_table_is_rewritten_sorted(shapes):
    # An ordinary frame keeps first-use order; its canonical rewrite (by either side) is sorted.
    value = [Point(0, 0, 0), Pair("a", 1)]
    ordinary = shapes.serialize(value).to_bytes()
    canonical = (VECTORS / "canonical_reverse_first_use.srg").read_bytes()
    assert ordinary != canonical
    definitions, _ = table_of(ordinary)
    assert definitions != sorted(definitions)
    assert shapes.serialize(shapes.deserialize(ordinary), canonical=True).to_bytes() == canonical
    relay = serreg.Registry()
    assert relay.serialize(relay.deserialize(ordinary), canonical=True).to_bytes() == canonical


def test_carrier_with_a_non_shortest_definition_is_written_canonically(shapes):
    # A writer that spelled "shapes.Point" as str 8 (d9) rather than fixstr: same definition, other bytes.
    canonical = shapes.serialize(Point(1, 2, 3), canonical=True).to_bytes()
    definitions, inner = table_of(canonical)
    long_form = definitions[0].replace(b"\xacshapes.Point", b"\xd9\x0cshapes.Point", 1)
    assert long_form != definitions[0]
    in_band = STRUCTS_HASH + b"\x91" + long_form + inner
    frame = _frame(in_band)
    carried = serreg.Registry().deserialize(frame, trusted=False)
    assert isinstance(carried, serreg.StructValue)
    assert serreg.Registry().serialize(carried, canonical=True).to_bytes() == canonical
    assert shapes.serialize(shapes.deserialize(frame), canonical=True).to_bytes() == canonical


def _frame(in_band: bytes) -> bytes:
    """A frame holding ``in_band`` and no buffer (docs/FORMAT.md, section 4)."""
    from serreg.wire.frame import frame_pieces

    pieces, _ = frame_pieces([in_band], [])
    return b"".join(bytes(p) for p in pieces)


# ---------------------------------------------------------------------------------- evolution, nesting


def test_the_writer_definition_decides_the_digest():
    v1, v2 = serreg.Registry(), serreg.Registry()

    @dataclasses.dataclass
    class Old:
        x: int

    @dataclasses.dataclass
    class New:
        x: int
        note: Optional[str] = None

    v1.register_struct(Old, "evolve.Thing")
    v2.register_struct(New, "evolve.Thing")
    frame = v1.serialize(Old(5)).to_bytes()
    upgraded = v2.deserialize(frame)
    assert upgraded == New(5)
    assert v2.digest(upgraded) != v1.digest(Old(5))  # v2 holds a value of its own definition
    assert v2.digest(upgraded) == v2.digest(New(5))
    relay = serreg.Registry()
    assert relay.digest(relay.deserialize(frame)) == v1.digest(Old(5))  # a relay keeps the writer's


def test_structs_inside_nested_values_share_the_table(shapes):
    value = (Pair("t"), {Pair("k"): [Point(1, 1, 1)]}, frozenset({Pair("s")}))
    frame = shapes.serialize(value, canonical=True).to_bytes()
    definitions, inner = table_of(frame)
    assert [msgpack.unpackb(d)[0] for d in definitions] == ["shapes.Pair", "shapes.Point"]
    assert shapes.deserialize(frame) == value
    assert serreg.Registry().serialize(serreg.Registry().deserialize(frame), canonical=True).to_bytes() == frame


def test_values_without_structs_are_unchanged(shapes):
    value = {"a": [1, 2.5, -0.0], "b": {3, 1}}
    assert shapes.serialize(value, canonical=True).to_bytes() == serreg.Registry().serialize(value, canonical=True).to_bytes()
    assert bytes(FrameView(shapes.serialize(value, canonical=True).to_bytes()).in_band[:8]) != STRUCTS_HASH


# ---------------------------------------------------------------------------------- refusals


@dataclasses.dataclass
class Keyed:
    by_float: dict[float, int]
    small: Annotated[int, serreg.int8] = 0
    extra: Any = None


def test_two_map_keys_with_one_canonical_form_are_refused():
    registry = serreg.Registry()
    registry.register_struct(Keyed, "tests.Keyed")
    value = Keyed({float("nan"): 1, struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000001))[0]: 2})
    with pytest.raises(serreg.CanonicalFormError, match=r"tests\.Keyed\.by_float: two keys"):
        registry.digest(value)
    assert registry.digest(Keyed({-0.0: 1})) == registry.digest(Keyed({0.0: 1}))


def test_field_values_outside_their_type_are_refused_naming_the_field():
    registry = serreg.Registry()
    registry.register_struct(Keyed, "tests.Keyed")
    with pytest.raises(serreg.SerializationError, match=r"tests\.Keyed\.small: 300"):
        registry.digest([Keyed({}, small=300)])
    with pytest.raises(serreg.SerializationError, match=r"tests\.Keyed\.by_float"):
        registry.serialize(Keyed([]), canonical=True)  # type: ignore[arg-type]


def test_pickled_values_inside_a_struct_are_refused():
    registry = serreg.Registry()
    registry.register_struct(Keyed, "tests.Keyed")
    with pytest.raises(serreg.CanonicalFormError, match="no canonical form"):
        registry.digest(Keyed({}, extra=object()))


def test_a_struct_holding_itself_is_refused():
    registry = register(serreg.Registry())
    node = tree()
    node.children.append(node)
    with pytest.raises(serreg.SerializationError, match="nested"):
        registry.digest(node)


def test_the_value_is_written_again_only_when_first_use_is_not_sorted():
    registry = register(serreg.Registry())
    calls = []

    class Counted:
        pass

    class CountedSerializer(serreg.Serializer):
        def serialize(self, obj):
            return b""

        def serialize_canonical(self, obj):
            calls.append(obj)
            return b""

        def deserialize(self, in_band, oob):
            return Counted()

    registry.register_serializer("tests.Counted", Counted, CountedSerializer())
    registry.digest([Pair("a"), Point(0, 0, 0), Counted()])  # shapes.Pair sorts first: one pass
    assert len(calls) == 1
    registry.digest([Point(0, 0, 0), Pair("a"), Counted()])  # met in reverse: written twice
    assert len(calls) == 3
    registry.digest([Counted()])  # no struct: one pass, no table
    assert len(calls) == 4


def _carrier_frame(field_type: Any, value: Any) -> bytes:
    definition = msgpack.packb(["hostile.F", [["f", field_type]]])
    instance = msgpack.packb([0, value])
    return _frame(STRUCTS_HASH + b"\x91" + definition + class_id_hash("hostile.F") + instance)


def test_hostile_carrier_values_outside_their_type_have_no_canonical_form():
    relay = serreg.Registry()
    carried = relay.deserialize(_carrier_frame("float32", 1e300), trusted=False)  # readers accept any float 64
    with pytest.raises(serreg.CanonicalFormError, match=r"hostile\.F\.f: 1e\+300 does not fit"):
        relay.digest(carried)
    # Not binary32 but within its range: rounded like a Python float, and a fixed point from then on.
    carried = relay.deserialize(_carrier_frame("float32", 0.1), trusted=False)
    frame = relay.serialize(carried, canonical=True).to_bytes()
    again = relay.deserialize(frame, trusted=False)
    assert again["f"] == struct.unpack("<f", struct.pack("<f", 0.1))[0]
    assert relay.serialize(again, canonical=True).to_bytes() == frame


def test_a_carrier_and_a_registered_class_with_one_definition_share_its_entry(shapes):
    carried = serreg.Registry().deserialize(shapes.serialize(everything()).to_bytes())
    assert isinstance(carried, serreg.StructValue) and carried["color"] == "GREEN"  # an enum's name, not its member
    expected = shapes.serialize([everything(), everything()], canonical=True).to_bytes()
    assert shapes.serialize([everything(), carried], canonical=True).to_bytes() == expected
    assert shapes.serialize([carried, everything()], canonical=True).to_bytes() == expected
    assert len(table_of(expected)[0]) == 2  # shapes.Everything and shapes.Point, once each


def test_content_addressed_store_keeps_structs_under_their_digest(shapes, tmp_path):
    from serreg.cas import Store

    value = make_struct_vectors.mixed()
    store = Store(tmp_path / "cas", registry=shapes)
    digest = store.put(value)
    assert digest == shapes.digest(value) == bytes.fromhex({e["name"]: e["digest"] for e in CANONICAL}["mixed"])
    assert store.get(digest) == value
    relay = Store(tmp_path / "cas", registry=serreg.Registry())  # no class registered: carriers
    assert relay.put(relay.get(digest)) == digest
