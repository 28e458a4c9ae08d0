"""Untrusted and hostile struct frames (docs/FORMAT.md, section 10): registered structs and carriers
read untrusted; faulty tables, instances (ext 1) and lists by columns (ext 2) refused naming the
struct, the field and the byte; depths and declared counts bounded before anything is allocated;
never an import by name."""

from __future__ import annotations

import msgpack
import pytest

import serreg
from serreg.wire.class_id import class_id_hash
from struct_round_trips import frame, registry  # noqa: F401  (registry: a fixture)
from struct_shapes import everything, register, tree


STRUCTS_HASH = class_id_hash("serreg.structs")


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
