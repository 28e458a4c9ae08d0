"""Cross-language structs in Python (docs/FORMAT.md, section 10): declaring, every field type,
exact widths, schema evolution, the data carrier, untrusted and hostile frames."""

from __future__ import annotations

import dataclasses
import sys
from typing import Annotated, NamedTuple, Optional

import attrs
import msgpack
import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg.wire.class_id import class_id_hash
from struct_shapes import (
    Color, Everything, Node, Pair, Point, Widths, everything, register, tree, widths,
)


STRUCTS_HASH = class_id_hash("serreg.structs")


@pytest.fixture
def registry():
    return register(serreg.Registry())


def frame(registry, value) -> bytes:
    return registry.serialize(value).to_bytes()


def round_trip(registry, value):
    data = frame(registry, value)
    back = registry.deserialize(data)
    assert frame(registry, back) == data
    return back


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


# ------------------------------------------------------------------------------ evolution


@dataclasses.dataclass
class V1:
    id: Annotated[int, serreg.int32]
    name: str
    weight: Annotated[float, serreg.float32]


@dataclasses.dataclass
class V2:
    id: int  # int32 -> int64: widening
    weight: float  # float32 -> float64: widening
    tags: list[str] = dataclasses.field(default_factory=list)  # new, with a default
    note: Optional[str] = None


@dataclasses.dataclass
class V3Required:
    id: int
    required: str


@dataclasses.dataclass
class V3Changed:
    id: str
    name: str
    weight: float


def _registry(cls) -> serreg.Registry:
    registry = serreg.Registry()
    registry.register_struct(cls, "evolve.Item")
    return registry


def test_v1_writer_v2_reader_widens_skips_and_defaults():
    data = frame(_registry(V1), [V1(7, "seven", 0.5)])
    assert _registry(V2).deserialize(data) == [V2(7, 0.5, [], None)]


@dataclasses.dataclass
class V1Wide:
    id: int
    weight: float
    name: str = "?"


@dataclasses.dataclass
class V1NoDefault:
    id: int
    weight: float
    name: str


def test_v2_writer_v1_reader_skips_extra_fields_and_defaults_missing_ones():
    data = frame(_registry(V2), V2(7, 0.5, ["a"], "n"))
    assert _registry(V1Wide).deserialize(data) == V1Wide(7, 0.5, "?")
    with pytest.raises(serreg.DeserializationError, match="no field 'name'.*no default"):
        _registry(V1NoDefault).deserialize(data)


def test_narrowing_is_refused():
    data = frame(_registry(V2), V2(7, 0.5))

    @dataclasses.dataclass
    class Narrow:
        id: Annotated[int, serreg.int32]
        weight: float

    with pytest.raises(serreg.DeserializationError) as error:
        _registry(Narrow).deserialize(data)
    message = str(error.value)
    assert "evolve.Item" in message and "'id'" in message and "int64" in message and "int32" in message


def test_other_type_change_names_both_types():
    data = frame(_registry(V1), V1(7, "seven", 0.5))
    with pytest.raises(serreg.DeserializationError, match="'id'.*int32.*str"):
        _registry(V3Changed).deserialize(data)
    with pytest.raises(serreg.DeserializationError, match="'required'"):
        _registry(V3Required).deserialize(data)


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


# ------------------------------------------------------------------------------ untrusted and hostile


def test_untrusted_reads_registered_structs_and_carriers(registry):
    data = frame(registry, [everything(), tree()])
    assert registry.deserialize(data, trusted=False) == [everything(), tree()]


def _table_frame(definitions, inner_class: str, inner) -> bytes:
    in_band = (
        STRUCTS_HASH + msgpack.packb(definitions) + class_id_hash(inner_class) + inner
    )
    return serreg.SerializationResult(in_band).to_bytes()


POINT_DEF = ["shapes.Point", [["x", "int64"], ["y", "int64"], ["z", "int64"]]]


def _ext1(items) -> bytes:
    return msgpack.packb(msgpack.ExtType(1, msgpack.packb(items)))


@pytest.mark.parametrize(
    "definitions, inner, message",
    [
        ([POINT_DEF], b"\x91" + _ext1([0, 1, 2]), "holds 2 field value"),
        ([POINT_DEF], b"\x91" + _ext1([0, 1, 2, 3, 4]), "holds 4 field value"),
        ([POINT_DEF], b"\x91" + _ext1([5, 1, 2, 3]), "names definition 5"),
        ([POINT_DEF], b"\x91" + _ext1([0, "1", 2, 3]), "shapes.Point.x"),
        ([POINT_DEF], b"\x91" + _ext1([0, 2**63, 2, 3]), "shapes.Point.x"),
        ([["a.B", [["x", "int64"], ["x", "str"]]]], b"\x90", "field names repeat"),
        ([["a.B", [["x", "float128"]]]], b"\x90", "unknown field type"),
        ([["a.B", [["x", ["list"]]]]], b"\x90", "type argument"),
        ([["a.B"]], b"\x90", "class ID: str"),
        ([["a.B", [["", "int64"]]]], b"\x90", "non-empty"),
        ([["a.B", [["x", ["struct", "a.B"]]]]], b"\x91" + _ext1([0, 1]), "a.B.x"),
        ([], b"\x91" + _ext1([0, 1]), "names definition 0"),
        ([["a.B", [["x", "int8"]]]], b"\x91" + _ext1([0, 300]), "a.B.x"),
    ],
)
def test_hostile_struct_frames_are_refused_clearly(registry, definitions, inner, message):
    data = _table_frame(definitions, "list", inner)
    for reader in (registry, serreg.Registry()):
        with pytest.raises(serreg.DeserializationError, match=message):
            reader.deserialize(data, trusted=False)


def _ext2(*items) -> bytes:
    return msgpack.packb(msgpack.ExtType(2, msgpack.packb(list(items), use_bin_type=True)))


U8_DEF = ["a.U", [["u", "uint8"]]]
I8_DEF = ["a.I", [["i", "int8"]]]
MIXED_DEF = ["a.M", [["f", "float64"], ["g", "float32"], ["b", "bool"], ["s", "str"]]]
OK_POINTS = (b"\x00\x01", b"\x00\x02", b"\x00\x03")


@pytest.mark.parametrize(
    "definitions, inner, message",
    [
        ([POINT_DEF], _ext2(0, 2**32 - 1, *OK_POINTS), r"shapes\.Point.*declares 4294967295 instances"),
        ([POINT_DEF], _ext2(0, 0, b"\x00", b"\x00", b"\x00"), r"declares 0 instances"),
        ([POINT_DEF], _ext2(0, "1", *OK_POINTS), r"declares '1' instances"),
        ([POINT_DEF], _ext2(0, 1, b"\x02\x01", b"\x00\x02", b"\x00\x03"),
         r"shapes\.Point', field 'x'.*kind byte 0x02.*byte 5 of the ext 2 payload"),
        ([POINT_DEF], _ext2(0, 1, b"\x00\x01", b"\x01\x02", b"\x00\x03"),
         r"field 'y'.*0x01 \(zigzag\) in a column without a negative"),
        ([U8_DEF], _ext2(0, 1, b"\x01\x01"), r"a\.U', field 'u'.*zigzag\) in a column of an unsigned type"),
        ([POINT_DEF], _ext2(0, 1, b"\x00\x81\x00", b"\x00\x02", b"\x00\x03"), r"field 'x'.*not minimal.*byte 6 of"),
        ([POINT_DEF], _ext2(0, 1, b"\x00" + b"\xff" * 10 + b"\x01", b"\x00\x02", b"\x00\x03"),
         r"field 'x'.*does not fit 64 bits"),
        ([POINT_DEF], _ext2(0, 1, b"\x00" + b"\xff" * 9 + b"\x02", b"\x00\x02", b"\x00\x03"),
         r"field 'x'.*does not fit 64 bits"),
        ([POINT_DEF], _ext2(0, 1, b"\x00\x81", b"\x00\x02", b"\x00\x03"), r"field 'x'.*ends inside a varint"),
        ([POINT_DEF], _ext2(0, 2, b"\x00\x01", b"\x00\x02\x02", b"\x00\x03\x03"), r"field 'x'.*holds 1 values, the list 2"),
        ([POINT_DEF], _ext2(0, 1, b"\x00\x01\x01", b"\x00\x02", b"\x00\x03"), r"field 'x'.*holds 2 values, the list 1"),
        ([POINT_DEF], _ext2(0, 1, b"\x00" + b"\x80" * 9 + b"\x01", b"\x00\x02", b"\x00\x03"),
         r"field 'x'.*outside -9223372036854775808"),
        ([I8_DEF], _ext2(0, 1, b"\x00\xac\x02"), r"a\.I', field 'i'.*300, outside -128 \.\.\. 127"),
        ([MIXED_DEF], _ext2(0, 1, b"\x00" * 7, b"\x00" * 4, b"\x01", ["s"]), r"field 'f'.*holds 8 bytes, not 7"),
        ([MIXED_DEF], _ext2(0, 1, b"\x00" * 8, b"\x00" * 8, b"\x01", ["s"]), r"field 'g'.*holds 4 bytes, not 8"),
        ([MIXED_DEF], _ext2(0, 1, b"\x00" * 8, b"\x00" * 4, b"\x02", ["s"]), r"field 'b'.*bool byte 0x02"),
        ([MIXED_DEF], _ext2(0, 1, b"\x00" * 8, b"\x00" * 4, b"\x01\x01", ["s"]), r"field 'b'.*holds 1 bytes, not 2"),
        ([MIXED_DEF], _ext2(0, 2, b"\x00" * 16, b"\x00" * 8, b"\x01\x00", ["s"]), r"field 's'.*holds 1 values, the list 2"),
        ([MIXED_DEF], _ext2(0, 1, [1.0], b"\x00" * 4, b"\x01", ["s"]), r"field 'f'.*must be a msgpack bin"),
        ([MIXED_DEF], _ext2(0, 1, b"\x00" * 8, b"\x00" * 4, b"\x01", b"s"), r"field 's'.*must be a msgpack array"),
        ([MIXED_DEF], _ext2(0, 1, b"\x00" * 8, b"\x00" * 4, b"\x01", [1]), r"a\.M\.s: the frame holds a int"),
        ([MIXED_DEF], msgpack.packb(msgpack.ExtType(2, b"\x96" + msgpack.packb([0, 1, b"\x00" * 8, b"\x00" * 4, b"\x01"],
                                                                     use_bin_type=True)[1:] + b"\xdd\xff\xff\xff\xff")),
         r"field 's'.*holds 4294967295 values, the list 1"),
        ([POINT_DEF], _ext2(3, 1, *OK_POINTS), r"names definition 3, but the table holds 1"),
        ([POINT_DEF], _ext2(-1, 1, *OK_POINTS), r"names definition -1"),
        ([POINT_DEF], _ext2(0, 1, *OK_POINTS[:2]), r"shapes\.Point.*array of 4 items.*make 5"),
        ([POINT_DEF], _ext2(0), r"must be an array \[index, count, columns\.\.\.\]"),
        ([POINT_DEF], msgpack.packb(msgpack.ExtType(2, b"")), r"ext 2.*not valid msgpack"),
        ([POINT_DEF], msgpack.packb(msgpack.ExtType(2, msgpack.packb([0, 1, *OK_POINTS], use_bin_type=True) + b"\x00")),
         r"1 bytes left over after its last column"),
        ([["a.E", []]], _ext2(0, 1), r"a\.E.*definition has no fields"),
        ([["a.L", [["p", ["list", ["struct", "shapes.Point"]]]]], POINT_DEF],
         _ext2(0, 1, [msgpack.ExtType(2, msgpack.packb([0, 1, [[]]]))]), r"a\.L.*field 'p'|a\.L\.p"),
    ],
)
def test_hostile_ext2_lists_are_refused_clearly(registry, definitions, inner, message):
    data = _table_frame(definitions, "list", inner)
    for reader in (registry, serreg.Registry()):
        for trusted in (True, False):
            with pytest.raises(serreg.DeserializationError, match=message):
                reader.deserialize(data, trusted=trusted)


def test_a_huge_ext2_count_is_refused_before_anything_is_allocated():
    import tracemalloc

    data = _table_frame([POINT_DEF], "list", _ext2(0, 2**32 - 1, *OK_POINTS))
    tracemalloc.start()
    try:
        with pytest.raises(serreg.DeserializationError, match="declares 4294967295 instances"):
            serreg.Registry().deserialize(data, trusted=False)
        assert tracemalloc.get_traced_memory()[1] < 1 << 20
    finally:
        tracemalloc.stop()


def test_nested_ext2_lists_stop_at_max_depth():
    rec = ["a.Rec", [["v", "int64"], ["kids", ["list", ["struct", "a.Rec"]]]]]
    level = _ext2(0, 1, b"\x00\x01", [[]])
    for _ in range(40):
        level = _ext2(0, 1, b"\x00\x01", [msgpack.unpackb(level, ext_hook=msgpack.ExtType)])
    data = _table_frame([rec], "list", level)
    for reader in (serreg.Registry(), register(serreg.Registry())):
        with pytest.raises(serreg.LimitExceededError, match="max_depth"):
            reader.deserialize(data, trusted=False, limits=serreg.Limits(max_depth=30))
        assert len(reader.deserialize(data, trusted=False, limits=serreg.Limits(max_depth=100))) == 1


def test_recursive_instances_stop_at_max_depth():
    data_type = ["a.Rec", [["next", ["optional", ["struct", "a.Rec"]]]]]
    payload = msgpack.packb([0, None])
    for _ in range(300):
        payload = msgpack.packb([0, msgpack.ExtType(1, payload)])
    inner = msgpack.packb(msgpack.ExtType(1, payload))
    data = _table_frame([data_type], "list", b"\x91" + inner)
    with pytest.raises(serreg.LimitExceededError, match="max_depth"):
        serreg.Registry().deserialize(data, trusted=False)


def test_huge_declared_counts_are_refused_before_allocating():
    table = b"\xdd\xff\xff\xff\xff"  # an array of 2^32 - 1 definitions, none present
    data = serreg.SerializationResult(STRUCTS_HASH + table + class_id_hash("list") + b"\x90").to_bytes()
    with pytest.raises(serreg.DeserializationError, match="definitions"):
        serreg.Registry().deserialize(data, trusted=False)
    definition = b"\x92" + msgpack.packb("a.B") + b"\xdd\xff\xff\xff\xff"  # 2^32 - 1 fields, none present
    data = serreg.SerializationResult(STRUCTS_HASH + b"\x91" + definition + class_id_hash("list") + b"\x90").to_bytes()
    with pytest.raises(serreg.DeserializationError, match="definition 0"):
        serreg.Registry().deserialize(data, trusted=False)


def test_ext1_and_ext2_outside_a_table_and_ext3_are_refused():
    data = serreg.SerializationResult(class_id_hash("list") + b"\x91" + _ext1([0, 1])).to_bytes()
    with pytest.raises(serreg.DeserializationError, match="outside any struct table"):
        serreg.Registry().deserialize(data)
    ext2 = msgpack.packb(msgpack.ExtType(2, msgpack.packb([0, 1, b"\x00\x01"])))
    data = serreg.SerializationResult(class_id_hash("list") + ext2).to_bytes()
    with pytest.raises(serreg.DeserializationError, match=r"ext 2\) outside any struct table"):
        serreg.Registry().deserialize(data)
    data = serreg.SerializationResult(class_id_hash("list") + b"\x91" + msgpack.packb(msgpack.ExtType(3, b"\x90"))).to_bytes()
    with pytest.raises(serreg.DeserializationError, match="ext type 3"):
        serreg.Registry().deserialize(data)


def test_never_imports_by_name(registry, monkeypatch):
    import importlib

    def refuse(*args, **kwargs):
        raise AssertionError("a struct frame made serreg import a module")

    monkeypatch.setattr(importlib, "import_module", refuse)
    data = _table_frame([["os.system", [["x", "int64"]]]], "list", b"\x91" + _ext1([0, 1]))
    assert serreg.Registry().deserialize(data, trusted=False)[0].class_id == "os.system"


# ------------------------------------------------------------------------------ golden vectors

_VECTORS = __import__("pathlib").Path(__file__).resolve().parent / "vectors" / "structs"
_MANIFEST = __import__("json").loads((_VECTORS / "manifest.json").read_text())


@pytest.mark.parametrize("entry", _MANIFEST, ids=lambda e: e["name"])
def test_golden_vectors_read_and_write_back_byte_for_byte(registry, entry):
    data = (_VECTORS / entry["file"]).read_bytes()
    assert __import__("hashlib").sha256(data).hexdigest() == entry["digest"]
    # A legacy vector (arrays of ext 1, written before ext 2) is written again as the vector it rewrites to.
    expected = (_VECTORS / entry.get("rewrites_to", entry["file"])).read_bytes()
    assert entry.get("legacy", False) == (expected != data)
    value, carried = registry.deserialize(data, trusted=False), serreg.Registry().deserialize(data, trusted=False)
    assert value == registry.deserialize(expected)
    assert frame(registry, value) == expected
    assert frame(serreg.Registry(), carried) == expected


def test_golden_vectors_are_what_python_writes_today(registry, tmp_path):
    sys.path.insert(0, str(_VECTORS.parent))
    import make_struct_vectors

    make_struct_vectors.main(tmp_path)
    for entry in _MANIFEST:
        assert entry.get("legacy") or (tmp_path / entry["file"]).read_bytes() == (_VECTORS / entry["file"]).read_bytes(), entry["name"]
