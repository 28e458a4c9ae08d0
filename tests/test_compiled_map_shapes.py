"""Maps of one shape read by the compiled codec: a copy of the shape's dict with its values put in.

A document that repeats a map's keys in one order (records) has its maps after the first read as copies
of a kept dict of those keys (serreg/codec/_core_decode_values.h). These tests hold those dicts to the
pure codec's: equal, keys in the document's order, tracked by the garbage collector alike, collected in
cycles, no reference kept or lost, and maps of other keys, orders or repeated keys read as before.
"""

from __future__ import annotations

import gc
import sys
import weakref
from unittest import mock

import pytest

import serreg
import serreg.registry
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import frame_pieces

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")

COMPILED_REGISTRY = serreg.Registry()
with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
    PURE_REGISTRY = serreg.Registry()


def _both(value):
    frame = COMPILED_REGISTRY.serialize(value).to_bytes()
    assert frame == PURE_REGISTRY.serialize(value).to_bytes()
    return COMPILED_REGISTRY.deserialize(frame), PURE_REGISTRY.deserialize(frame)


def test_records_of_one_shape_come_back_equal_in_their_key_order():
    value = [{"id": i, "name": f"user{i}", "score": i * 0.5, "tags": ["a", "b"][: i % 3], "none": None}
             for i in range(300)]
    got, pure = _both(value)
    assert got == value == pure
    assert all(list(d) == ["id", "name", "score", "tags", "none"] for d in got)
    got[7]["extra"] = 1  # each dict its own: growing one leaves the others as they were
    got[8]["id"] = -1
    assert "extra" not in got[9] and got[9]["id"] == 9 and got[7]["id"] == 7


def test_shaped_dicts_are_tracked_by_the_collector_as_the_pure_codecs_are():
    value = [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": [1], "b": "z"}, {"a": 3, "b": (1, 2)},
             {"a": {"k": 1}, "b": None}, {"a": 4.5, "b": b"raw"}]
    for _ in range(2):  # the second time every map is a copy of a kept shape
        got, pure = _both(value)
        assert got == pure == value
        assert [gc.is_tracked(d) for d in got] == [gc.is_tracked(d) for d in pure]
        assert gc.is_tracked(got[2]) and not gc.is_tracked(got[1])


class Sentinel:
    pass


def test_a_shaped_dict_in_a_cycle_is_collected():
    frame = COMPILED_REGISTRY.serialize([{"items": [], "id": i} for i in range(20)]).to_bytes()
    got = COMPILED_REGISTRY.deserialize(frame)
    record = got[10]
    marker = Sentinel()
    alive = weakref.ref(marker)
    record["items"].append(record)
    record["items"].append(marker)
    del got, record, marker
    gc.collect()
    assert alive() is None


def test_no_reference_is_kept_or_lost():
    frame = COMPILED_REGISTRY.serialize([{"key_one": [i], "key_two": f"v{i}"} for i in range(50)]).to_bytes()
    got = COMPILED_REGISTRY.deserialize(frame)
    key = next(iter(got[3]))
    before = sys.getrefcount(key)
    for _ in range(20):
        again = COMPILED_REGISTRY.deserialize(frame)
        del again
    assert sys.getrefcount(key) == before
    pure = PURE_REGISTRY.deserialize(frame)
    counts = [sys.getrefcount(d[name]) for d in got for name in ("key_one", "key_two")]
    assert counts == [sys.getrefcount(d[name]) for d in pure for name in ("key_one", "key_two")]
    assert max(counts) - min(counts) == 0


def test_maps_of_other_orders_counts_and_repeated_keys_read_as_before():
    value = [{"ab": 1, "cd": 2}, {"cd": 3, "ab": 4}, {"ab": 5, "cd": 6, "ef": 7}, {"ab": 8}, {"ab": 9, "cd": 10}]
    got, pure = _both(value * 3)
    assert got == pure == value * 3
    assert [list(d) for d in got] == [list(d) for d in value * 3]
    # The map {"ab", "cd"} (its shape kept), then one of two keys repeating "ab": the last value wins.
    frame = frame_of("list", b"\x93\x82\xa2ab\x01\xa2cd\x02\x82\xa2ab\x01\xa2ab\x02\x82\xa2ab\x03\xa2cd\x04")
    expected = [{"ab": 1, "cd": 2}, {"ab": 2}, {"ab": 3, "cd": 4}]
    for _ in range(2):
        assert COMPILED_REGISTRY.deserialize(frame) == PURE_REGISTRY.deserialize(frame) == expected


def frame_of(class_id: str, in_band: bytes) -> bytes:
    pieces, _ = frame_pieces([class_id_hash(class_id), in_band], [])
    return b"".join(pieces)


class Holder:
    def __init__(self, i: int) -> None:
        self.a, self.b, self.c = i, f"s{i}", [i]


def test_dicts_with_deleted_entries_other_keys_and_shared_key_tables_are_written_as_the_pure_codec_writes_them():
    holes = {f"k{i}": i for i in range(40)}
    for i in range(0, 40, 3):
        del holes[f"k{i}"]
    holes["late"] = "added after the deletions"
    mixed = {1: "one", "two": 2, (3, 4): [5], None: b"x", 2.5: None}
    mixed_holes = dict(mixed)
    del mixed_holes["two"]
    emptied = {"a": 1}
    del emptied["a"]
    instances = [vars(Holder(i)) for i in range(5)]  # instance dicts: tables shared by their class
    value = [holes, mixed, mixed_holes, emptied, instances, {"nested": holes}]
    got, pure = _both(value)
    assert got == pure == value
    assert [list(d) for d in got[:4]] == [list(d) for d in value[:4]]
