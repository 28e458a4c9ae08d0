"""The canonical form of Arrow tables (docs/FORMAT.md, section 9): one frame whatever the slicing
and chunking, one batch back, garbage under nulls and padding ignored, list child names
dropped, metadata and values in the digest, the schema description read back or refused."""

import decimal
import struct

import msgpack
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import serreg

from canonical_frames import canonical, in_band
from histories import rechunk


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
