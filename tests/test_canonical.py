"""The canonical form (docs/FORMAT.md, section 9): one frame per value, whatever its history."""

import datetime
import decimal
import hashlib
import random
import struct
import zoneinfo

import msgpack
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import serreg
from serreg.canonical import canonical_decimal_text
from serreg.wire.frame import FrameView

from histories import other_nan, rechunk, rehistory
from strategies import canonical_values, plain_values


def canonical(value) -> bytes:
    return serreg.serialize(value, canonical=True).to_bytes()


def in_band(value) -> bytes:
    """The canonical serializer in-band of a value (after the 8-byte ClassIDHash)."""
    return bytes(FrameView(canonical(value)).in_band[8:])


def plain_equal(a, b) -> bool:
    """Equality of plain_values under the canonical rules: exact types, == for leaves."""
    if type(a) is not type(b):
        return False
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(plain_equal(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(plain_equal(a[k], b[k]) for k in a)
    return a == b


# ---------------------------------------------------------------------- properties


@settings(max_examples=300, deadline=None)
@given(canonical_values, st.randoms(use_true_random=False))
def test_equal_values_with_other_histories_have_one_frame_and_digest(value, rnd):
    other = rehistory(value, rnd)
    assert canonical(other) == canonical(value)
    assert serreg.digest(other) == serreg.digest(value)


@settings(max_examples=300, deadline=None)
@given(canonical_values)
def test_canonical_frames_deserialize_normally_and_are_stable(value):
    frame = canonical(value)
    back = serreg.deserialize(frame)
    assert type(back) is type(value)
    assert canonical(back) == frame  # reading and writing again changes nothing
    assert serreg.digest(value) == hashlib.sha256(frame).digest()


@settings(max_examples=500, deadline=None)
@given(plain_values, plain_values)
def test_digests_are_equal_exactly_when_values_are(a, b):
    assert (serreg.digest(a) == serreg.digest(b)) == plain_equal(a, b)


@settings(max_examples=200, deadline=None)
@given(plain_values, st.randoms(use_true_random=False))
def test_changing_any_leaf_changes_the_digest(value, rnd):
    changed = _change_one_leaf(value, rnd)
    assert not plain_equal(changed, value)
    assert serreg.digest(changed) != serreg.digest(value)


def _change_one_leaf(value, rnd):
    kind = type(value)
    if kind in (list, tuple) and value:
        i = rnd.randrange(len(value))
        items = list(value)
        items[i] = _change_one_leaf(items[i], rnd)
        return kind(items)
    if kind is dict and value:
        key = rnd.choice(sorted(value))
        return {**value, key: _change_one_leaf(value[key], rnd)}
    if kind in (list, tuple, dict):
        return kind([None]) if kind is not dict else {"": None}
    if value is None:
        return False
    if kind is bool:
        return not value
    if kind is int:
        return value + 1
    if kind is float:
        return value + 1 if abs(value) < 2**52 else 0.0
    return value + (b"x" if kind is bytes else "x")


# ---------------------------------------------------------------------- standard types


def test_dict_order_does_not_matter_and_keys_are_sorted_by_their_bytes():
    forward = {"b": 1, "a": 2, 10: 3, -1: 4}
    backward = dict(reversed(list(forward.items())))
    assert canonical(forward) == canonical(backward)
    decoded = msgpack.unpackb(in_band(forward), strict_map_key=False)
    keys = list(decoded)
    assert [msgpack.packb(k) for k in keys] == sorted(msgpack.packb(k) for k in keys)
    assert keys == [10, "a", "b", -1]  # 0x0a < 0xa1 0x61 < 0xa1 0x62 < 0xff


def test_a_prefix_key_sorts_before_longer_keys():
    assert list(msgpack.unpackb(in_band({"ab": 1, "a": 2, "b": 3}))) == ["a", "b", "ab"]


def test_set_order_does_not_matter():
    members = [f"member-{i}" for i in range(40)]
    a = set(members)
    b = set(reversed(members))
    b.update(range(100))
    b.difference_update(range(100))
    assert canonical(a) == canonical(b)
    assert canonical(frozenset(members)) != canonical(a)  # another type, another value


def test_negative_zero_and_nan_payloads_are_one_value():
    assert canonical(-0.0) == canonical(0.0)
    assert in_band(-0.0) == b"\xcb" + bytes(8)
    nans = [float("nan"), -float("nan"), other_nan(random.Random(1)), other_nan(random.Random(2))]
    assert len({struct.pack("<d", n) for n in nans}) == 4
    assert len({canonical(n) for n in nans}) == 1
    assert in_band(float("nan")) == bytes.fromhex("cb7ff8000000000000")
    assert canonical(complex(-0.0, other_nan(random.Random(3)))) == canonical(complex(0.0, float("nan")))
    assert canonical(1.0) != canonical(-1.0)


def test_integer_widths_follow_the_value():
    assert in_band(1) == b"\x01"
    assert in_band(200) == b"\xcc\xc8"
    assert in_band(-33) == b"\xd0\xdf"
    assert in_band(2**64 - 1) == b"\xcf" + b"\xff" * 8
    assert canonical(np.int64(5)) != canonical(5)  # numpy.int64 keeps its type


def test_types_are_kept():
    assert len({canonical(v) for v in (1, 1.0, True, [1], (1,), {1}, frozenset({1}))}) == 7


def test_decimal_text_is_canonical():
    D = decimal.Decimal
    assert canonical_decimal_text(D("1.50")) == "1.5"
    assert canonical_decimal_text(D("100")) == "1E+2"
    assert canonical_decimal_text(D("-0.0100")) == "-0.01"
    assert canonical_decimal_text(D("-0E+7")) == "0"
    assert canonical_decimal_text(D("-NaN12")) == "NaN"
    assert canonical_decimal_text(D("sNaN3")) == "sNaN"
    assert canonical_decimal_text(D("-Infinity")) == "-Infinity"
    assert canonical(D("1.500")) == canonical(D("1.5"))
    assert canonical(D("1.5")) != canonical(D("1.6"))
    assert serreg.deserialize(canonical(D("2.50"))) == D("2.5")


def test_fold_is_kept_only_where_it_selects_another_offset():
    naive = datetime.datetime(2024, 1, 1, 12)
    assert canonical(naive) == canonical(naive.replace(fold=1))
    zone = zoneinfo.ZoneInfo("America/New_York")
    ambiguous = datetime.datetime(2024, 11, 3, 1, 30, tzinfo=zone)
    assert canonical(ambiguous) != canonical(ambiguous.replace(fold=1))
    assert serreg.deserialize(canonical(ambiguous.replace(fold=1))).fold == 1
    plain = datetime.datetime(2024, 6, 1, 1, 30, tzinfo=zone)
    assert canonical(plain) == canonical(plain.replace(fold=1))
    assert canonical(datetime.time(1, 2)) == canonical(datetime.time(1, 2, fold=1))


def test_fixed_offset_names_are_dropped_but_instants_are_not_merged():
    hour = datetime.timedelta(hours=1)
    named = datetime.datetime(2024, 1, 1, 12, tzinfo=datetime.timezone(hour, "CET"))
    unnamed = datetime.datetime(2024, 1, 1, 12, tzinfo=datetime.timezone(hour))
    assert canonical(named) == canonical(unnamed)
    utc = datetime.datetime(2024, 1, 1, 11, tzinfo=datetime.timezone.utc)
    assert utc == unnamed and canonical(utc) != canonical(unnamed)


def test_memoryview_layout_and_format_aliases():
    data = np.arange(12, dtype=np.int64).reshape(3, 4)
    as_q = memoryview(data.tobytes()).cast("q", (3, 4))
    as_l = memoryview(data.tobytes()).cast("l", (3, 4))
    assert as_q.format != as_l.format
    assert canonical(as_q) == canonical(as_l)
    strided = memoryview(data[:, ::2])
    assert not strided.c_contiguous
    assert canonical(strided) == canonical(memoryview(np.ascontiguousarray(data[:, ::2])))
    assert canonical(strided) != canonical(as_q)
    floats = memoryview(np.array([-0.0, 1.0]))
    assert canonical(floats) == canonical(memoryview(np.array([0.0, 1.0])))


def test_bytes_and_bytearray_large_and_small():
    assert canonical(b"x" * 70000) == canonical(bytes(bytearray(b"x" * 70000)))
    assert canonical(bytearray(b"ab")) != canonical(b"ab")


# ---------------------------------------------------------------------- numpy


@pytest.mark.parametrize("dtype", ["?", "i1", "<i2", ">i4", "<u8", "<f2", ">f4", "<f8", ">c8", "<c16"])
def test_array_layouts_have_one_frame(dtype):
    base = (np.arange(24) % 5).astype(dtype).reshape(2, 3, 4)
    little = base.astype(base.dtype.newbyteorder("<"))
    variants = [
        base,
        np.asfortranarray(base),
        base.astype(base.dtype.newbyteorder(">")),
        np.repeat(base, 2, axis=2)[:, :, ::2],
        np.ascontiguousarray(base.transpose(2, 1, 0)).transpose(2, 1, 0),
    ]
    frames = {canonical(v) for v in variants}
    assert len(frames) == 1
    meta = msgpack.unpackb(in_band(variants[1]))
    assert meta == [little.dtype.str, [2, 3, 4], "C"]
    back = serreg.deserialize(frames.pop())
    assert back.dtype == little.dtype and np.array_equal(back, base)


def test_float_arrays_normalize_zero_and_nan_without_touching_the_input():
    a = np.array([0.0, -0.0, np.nan, 1.5, -np.nan])
    a[4] = np.frombuffer(struct.pack("<Q", 0xFFF0000000000123), dtype="<f8")[0]
    before = a.tobytes()
    assert canonical(a) == canonical(np.array([0.0, 0.0, np.nan, 1.5, np.nan]))
    assert a.tobytes() == before
    buffer = FrameView(canonical(a)).buffers[0]
    assert bytes(buffer[8:16]) == bytes(8)
    assert bytes(buffer[16:24]) == struct.pack("<Q", 0x7FF8000000000000)


def test_half_and_complex_arrays_and_scalars():
    half = np.array([-0.0, np.nan], dtype="<f2")
    half.view("<u2")[1] = 0xFE01  # negative signaling-looking NaN
    assert canonical(half) == canonical(np.array([0.0, np.nan], dtype="<f2"))
    assert canonical(np.complex64(complex(-0.0, 1))) == canonical(np.complex64(complex(0.0, 1)))
    assert canonical(np.float32(-0.0)) == canonical(np.float32(0.0))
    assert canonical(np.float16(-0.0)) == canonical(np.float16(0.0))
    assert canonical(np.float16(1)) != canonical(np.float16(0.0))
    nan32 = np.frombuffer(struct.pack("<I", 0xFFC00001), dtype="<f4")[0]
    assert canonical(nan32) == canonical(np.float32("nan"))


def test_bool_arrays_made_from_other_bytes():
    odd = np.array([0, 2, 255, 1], dtype=np.uint8).view(np.bool_)
    assert canonical(odd) == canonical(np.array([False, True, True, True]))


def test_c_contiguous_little_endian_arrays_are_not_copied():
    array = np.arange(1000, dtype=np.float64)
    result = serreg.serialize(array, canonical=True)
    assert np.shares_memory(np.asarray(result.out_of_band_buffers[0]), array)


def test_array_values_differ():
    base = np.arange(6, dtype=np.int32)
    assert canonical(base) != canonical(base.astype(np.int64))
    assert canonical(base) != canonical(base.reshape(2, 3))
    changed = base.copy()
    changed[5] = 7
    assert canonical(base) != canonical(changed)


# ---------------------------------------------------------------------- Arrow


def sample_table() -> pa.Table:
    return pa.table({
        "i": pa.array([1, None, 3, 4, 5], pa.int32()),
        "f": pa.array([0.0, -0.0, float("nan"), None, 2.5], pa.float64()),
        "s": pa.array(["a", None, "ccc", "", "ee"]),
        "b": pa.array([True, None, False, True, True]),
        "l": pa.array([[1, 2], None, [], [3], [4, 5, 6]], pa.list_(pa.int16())),
        "st": pa.array([{"x": 1, "y": "p"}, None, {"x": 3, "y": None}, {"x": 4, "y": "q"}, {"x": 5, "y": "r"}],
                       pa.struct([("x", pa.int64()), ("y", pa.string())])),
        "m": pa.array([[("k", 1)], [], None, [("a", 2), ("b", 3)], [("z", 0)]], pa.map_(pa.string(), pa.int8())),
        "fsl": pa.array([[1, 2], [3, 4], None, [5, 6], [7, 8]], pa.list_(pa.float32(), 2)),
        "d": pa.array([decimal.Decimal("1.10"), None, decimal.Decimal("-2"), decimal.Decimal("0"), None],
                      pa.decimal128(10, 2)),
        "ts": pa.array([0, 1, None, 3, 4], pa.timestamp("us", "UTC")),
        "n": pa.nulls(5),
    }).replace_schema_metadata({"owner": "tests", "a": "b"})


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False))
def test_sliced_and_rechunked_tables_have_one_frame(rnd):
    table = sample_table()
    assert canonical(rechunk(table, rnd)) == canonical(table)


def test_canonical_table_round_trips_as_one_batch():
    table = sample_table()
    frame = canonical(pa.concat_tables([table.slice(0, 2), table.slice(2)]))
    back = serreg.deserialize(frame)
    assert back.schema.equals(table.schema, check_metadata=True)
    assert all(column.num_chunks == 1 for column in back.columns)
    expected = table.to_pylist()
    expected[1]["f"] = 0.0
    got = back.to_pylist()
    assert str(got) == str(expected)  # NaN compares by its text
    assert canonical(back) == frame
    meta = msgpack.unpackb(in_band(table), strict_map_key=False)
    assert type(meta[0]) is list and len(meta[1]) == 1


def test_garbage_under_nulls_and_padding_is_ignored():
    clean = pa.array([1, None, 3], pa.int64())
    validity = clean.buffers()[0]
    garbage = pa.py_buffer(struct.pack("<3q", 1, 999, 3) + b"\xee" * 40)  # a value under the null, trailing bytes
    dirty = pa.Array.from_buffers(pa.int64(), 3, [validity, garbage], 1)
    assert dirty.equals(clean)
    assert canonical(pa.table({"c": dirty})) == canonical(pa.table({"c": clean}))

    strings = pa.array(["ab", None, "c"])
    offsets = pa.py_buffer(struct.pack("<4i", 0, 2, 5, 6))  # the null slot covers 3 bytes
    dirty_strings = pa.Array.from_buffers(pa.string(), 3, [strings.buffers()[0], offsets, pa.py_buffer(b"abxyzc")], 1)
    assert dirty_strings.equals(strings)
    assert canonical(pa.table({"s": dirty_strings})) == canonical(pa.table({"s": strings}))

    mask = pa.array([False, True])
    child_a = pa.StructArray.from_arrays([pa.array([1, 2])], ["v"], mask=mask)
    child_b = pa.StructArray.from_arrays([pa.array([1, 77])], ["v"], mask=mask)
    assert child_a.equals(child_b)
    assert canonical(pa.table({"st": child_a})) == canonical(pa.table({"st": child_b}))

    all_valid = pa.Array.from_buffers(pa.int64(), 2, [pa.py_buffer(b"\xff"), pa.py_buffer(struct.pack("<2q", 5, 6))], 0)
    assert canonical(pa.table({"c": all_valid})) == canonical(pa.table({"c": pa.array([5, 6], pa.int64())}))


def test_list_child_names_do_not_matter_but_nullability_does():
    named = pa.array([[1], [2, 3]], pa.list_(pa.field("element", pa.int64())))
    default = pa.array([[1], [2, 3]], pa.list_(pa.int64()))
    assert named.type == default.type
    assert canonical(pa.table({"l": named})) == canonical(pa.table({"l": default}))
    strict = pa.array([[1], [2, 3]], pa.list_(pa.field("item", pa.int64(), nullable=False)))
    assert canonical(pa.table({"l": strict})) != canonical(pa.table({"l": default}))


def test_table_metadata_and_values_change_the_digest():
    table = sample_table()
    assert serreg.digest(table) != serreg.digest(table.replace_schema_metadata({"owner": "other"}))
    assert serreg.digest(table) != serreg.digest(table.slice(1))
    changed = table.set_column(0, "i", pa.array([1, None, 3, 4, 6], pa.int32()))
    assert serreg.digest(table) != serreg.digest(changed)
    assert serreg.digest(table) != serreg.digest(table.to_batches()[0])  # a RecordBatch is another type


def test_schema_description_is_read_back_for_every_type():
    table = sample_table()
    frame = canonical(table)
    assert serreg.deserialize(frame).schema.equals(table.schema, check_metadata=True)


def test_corrupt_schema_description_is_a_clear_error():
    result = serreg.serialize(pa.table({"a": [1]}), canonical=True)
    meta = msgpack.unpackb(bytes(result.in_band_buffer)[8:])
    meta[0][0][0][1] = ["NoSuchType"]
    broken = serreg.SerializationResult(bytes(result.in_band_buffer)[:8] + msgpack.packb(meta),
                                        result.out_of_band_buffers)
    with pytest.raises(serreg.DeserializationError, match="NoSuchType"):
        serreg.deserialize(broken)


# ---------------------------------------------------------------------- refusals


class Opaque:
    pass


def test_values_needing_the_fallback_are_refused_with_their_path():
    value = {"rows": [1, 2, {"x": Opaque()}]}
    with pytest.raises(serreg.CanonicalFormError) as caught:
        serreg.serialize(value, canonical=True)
    assert caught.value.path == 'obj["rows"][2]["x"]'
    assert "Opaque" in str(caught.value) and "serialize_canonical" in str(caught.value)
    with pytest.raises(serreg.CanonicalFormError):
        serreg.digest([np.array([object()])])
    # (Dictionary-encoded Arrow columns have a canonical form now: tests/test_arrow_corpus.py.)


def test_two_nan_keys_are_refused():
    with pytest.raises(serreg.CanonicalFormError, match="same canonical form"):
        serreg.digest({float("nan"): 1, float("nan"): 2})


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class PlainPointSerializer(serreg.Serializer):
    def serialize(self, p):
        return serreg.SerializationResult(msgpack.packb([p.x, p.y]))

    def deserialize(self, in_band, oob):
        return Point(*msgpack.unpackb(in_band))


class CanonicalPointSerializer(PlainPointSerializer):
    def serialize_canonical(self, p):
        return serreg.SerializationResult(serreg.serialize([p.x, p.y], canonical=True).in_band_buffer)

    def deserialize(self, in_band, oob):
        if bytes(in_band[:8]) == serreg.serialize([]).in_band_buffer[:8]:
            return Point(*serreg.deserialize(serreg.SerializationResult(bytes(in_band))))
        return super().deserialize(in_band, oob)


def test_user_serializers_take_part_only_with_serialize_canonical():
    registry = serreg.Registry()
    registry.register_serializer("tests.Point", Point, PlainPointSerializer())
    with pytest.raises(serreg.CanonicalFormError, match="tests.Point"):
        registry.digest([Point(1, 2)])
    registry.register_serializer("tests.Point", Point, CanonicalPointSerializer())
    assert registry.digest([Point(-0.0, 2)]) == registry.digest([Point(0.0, 2)])
    back = registry.deserialize(registry.serialize([Point(1.5, 2)], canonical=True).to_bytes())
    assert (back[0].x, back[0].y) == (1.5, 2)


def test_digest_is_sha256_of_the_frame_and_normal_serialize_is_unchanged():
    value = {"b": [np.arange(3.0)], "a": pa.table({"x": [1, 2]})}
    assert serreg.digest(value) == hashlib.sha256(canonical(value)).digest()
    assert len(serreg.digest(value)) == 32
    ordered = serreg.serialize({"b": 1, "a": 2}).to_bytes()
    assert msgpack.unpackb(bytes(FrameView(ordered).in_band[8:])) == {"b": 1, "a": 2}
    assert list(msgpack.unpackb(bytes(FrameView(ordered).in_band[8:]))) == ["b", "a"]
