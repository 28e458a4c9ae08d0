"""ndarray and Arrow: every dtype and layout, type-exact, zero-copy in process and from frames."""

import mmap

import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg.wire.frame import FrameView

from values import arrow_table

DTYPES = ["?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"]


def make_array(dtype, shape):
    count = int(np.prod(shape))
    return (np.arange(count) % 7 - 3).astype(dtype).reshape(shape)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 0, 3), (2, 3, 4)])
def test_ndarray_every_dtype_and_rank(dtype, shape):
    array = make_array(dtype, shape)
    for layout in (array, np.asfortranarray(array), array.astype(np.dtype(dtype).newbyteorder(">"))):
        result = serreg.serialize(layout)
        for back in (serreg.deserialize(result), serreg.deserialize(result.to_bytes())):
            assert type(back) is np.ndarray
            assert back.dtype == layout.dtype and back.shape == layout.shape
            assert np.array_equal(back, layout)


def test_non_contiguous_view_round_trips():
    base = np.arange(100, dtype=np.int32).reshape(10, 10)
    view = base[::2, 1::3]
    back = serreg.deserialize(serreg.serialize(view).to_bytes())
    assert np.array_equal(back, view) and back.flags.c_contiguous


@pytest.mark.parametrize("order", ["C", "F"])
def test_in_process_round_trip_shares_memory(order):
    array = np.ones((500, 300), order=order)
    back = serreg.deserialize(serreg.serialize(array))
    assert np.shares_memory(back, array)
    assert back.flags.f_contiguous == array.flags.f_contiguous
    array[0, 0] = 42
    assert back[0, 0] == 42 and back.flags.writeable


def test_views_into_a_bytearray_frame_are_aligned_and_writable():
    value = {"a": np.arange(1000.0), "b": np.arange(77, dtype=np.int8), "t": arrow_table(100)}
    frame = bytearray(serreg.serialize(value).to_bytes())
    back = serreg.deserialize(frame)
    start = np.frombuffer(frame, np.uint8).ctypes.data
    for array in (back["a"], back["b"]):
        assert start <= array.ctypes.data < start + len(frame)  # a view into the frame
        assert (array.ctypes.data - start) % 64 == 0
        assert array.flags.writeable
    column = back["t"].column("i").chunk(0)
    assert start <= column.buffers()[1].address < start + len(frame)


def test_bytes_frame_gives_read_only_arrays():
    back = serreg.deserialize(serreg.serialize(np.arange(10)).to_bytes())
    assert not back.flags.writeable
    with pytest.raises(ValueError):
        back[0] = 1


def test_mmap_frame_is_read_in_place(tmp_path):
    array = np.arange(1_000_000, dtype=np.float64)
    path = tmp_path / "value.srg"
    with open(path, "wb") as file:
        written = serreg.serialize({"x": array, "t": arrow_table(1000)}).write_to(file)
    assert written == path.stat().st_size
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        back = serreg.deserialize(mapped)
        base = np.frombuffer(mapped, np.uint8).ctypes.data
        assert base <= back["x"].ctypes.data < base + len(mapped)
        assert not back["x"].flags.writeable
        assert np.array_equal(back["x"], array) and back["t"].equals(arrow_table(1000))
        del back


def test_object_arrays_go_to_the_fallback_and_are_refused_cross_language():
    array = np.array([{"a": 1}, None], dtype=object)
    back = serreg.deserialize(serreg.serialize(array).to_bytes())
    assert back.dtype == object and back[0] == {"a": 1}
    with pytest.raises(serreg.CrossLanguageError):
        serreg.serialize(array, cross_language=True)


def test_write_to_matches_to_bytes_and_nbytes():
    import io

    result = serreg.serialize({"a": np.arange(10), "b": bytearray(b"xyz"), "c": "text"})
    sink = io.BytesIO()
    assert result.write_to(sink) == result.nbytes == len(result.to_bytes())
    assert sink.getvalue() == result.to_bytes()


# --- Arrow -------------------------------------------------------------------------


def nested_table():
    return pa.table({
        "list": pa.array([[1, 2], None, [], [3]], pa.list_(pa.int32())),
        "struct": pa.array([{"x": 1, "y": "a"}, None, {"x": 3, "y": None}, {"x": 4, "y": "d"}]),
        "map": pa.array([[("k", 1)], None, [], [("a", 2), ("b", 3)]], pa.map_(pa.string(), pa.int64())),
        "fixed": pa.array([[1, 2], [3, 4], None, [5, 6]], pa.list_(pa.int8(), 2)),
        "large": pa.array(["a", None, "ccc", ""], pa.large_string()),
        "bin": pa.array([b"x", None, b"", b"yz"], pa.binary()),
        "null": pa.nulls(4),
        "bool": pa.array([True, None, False, True]),
        "ts": pa.array([0, None, 2, 3], pa.timestamp("us", tz="UTC")),
        "dec": pa.array([None, 1, 2, 3], pa.decimal128(10, 2)),
        "date": pa.array([0, 1, None, 3], pa.date32()),
    })


@pytest.mark.parametrize("make", [arrow_table, nested_table], ids=["flat", "nested"])
def test_arrow_table_and_record_batch_round_trip(make):
    table = make()
    batch = table.combine_chunks().to_batches()[0]
    for value in (table, batch, table.slice(1, 2), batch.slice(2)):
        result = serreg.serialize(value)
        for back in (serreg.deserialize(result), serreg.deserialize(result.to_bytes())):
            assert type(back) is type(value)
            assert back.schema == value.schema
            assert back.equals(value)


def test_multi_chunk_table_keeps_its_chunks():
    table = pa.concat_tables([arrow_table(3), arrow_table(4)])
    back = serreg.deserialize(serreg.serialize(table).to_bytes())
    assert back.equals(table) and back.column(0).num_chunks == 2


def test_arrow_in_process_round_trip_shares_buffers():
    table = arrow_table(100_000)
    back = serreg.deserialize(serreg.serialize(table))
    for original, copy in zip(table.columns, back.columns):
        assert [b.address for b in original.chunk(0).buffers() if b is not None] == [
            b.address for b in copy.chunk(0).buffers() if b is not None
        ]


def test_dictionary_columns_are_carried_natively_and_refused_cross_language_only_in_several_batches():
    table = pa.table({"d": pa.array(["a", "b", "a"]).dictionary_encode()})
    back = serreg.deserialize(serreg.serialize(table).to_bytes(), trusted=False)  # native: no pickle
    assert back.equals(table)
    serreg.serialize(table, cross_language=True)  # one batch: Java reads it
    two = pa.concat_tables([table, table])
    with pytest.raises(serreg.CrossLanguageError, match="column 'd'"):
        serreg.serialize(two, cross_language=True)


def test_arrow_frame_layout_follows_the_ipc_buffer_order():
    table = pa.table({"s": pa.array(["ab", None, "c"])})
    frame = FrameView(serreg.serialize(table).to_bytes())
    # string column: validity, offsets, data
    assert [b.nbytes for b in frame.buffers][:1] == [1] and len(frame.buffers) == 3


def test_round_trip_cost_does_not_grow_with_array_size():
    """Measured in bytes allocated, not seconds: a 100 MB array round trip allocates no payload."""
    import tracemalloc

    peaks = []
    for size in (1_000, 12_500_000):  # 8 KB and 100 MB of float64
        array = np.zeros(size)
        serreg.deserialize(serreg.serialize(array))  # warm caches
        tracemalloc.start()
        back = serreg.deserialize(serreg.serialize(array))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert np.shares_memory(back, array)
    assert peaks[1] < 1024 * 1024, peaks  # fixed overhead (msgpack packer buffer), not payload
    assert peaks[1] <= peaks[0] + 4096, peaks
