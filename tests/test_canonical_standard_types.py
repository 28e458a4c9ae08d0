"""The canonical form of the standard types (docs/FORMAT.md, section 9): dict and set order, keys
sorted by their bytes, -0.0 and NaN payloads, integer widths, types kept, decimal text, fold and
fixed offsets of datetimes, memoryview layouts and formats, bytes and bytearray."""

import datetime
import decimal
import random
import struct
import zoneinfo

import msgpack
import numpy as np

import serreg
from serreg.canonical import canonical_decimal_text

from canonical_frames import canonical, in_band
from histories import other_nan


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
