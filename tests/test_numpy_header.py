"""The ndarray header's short ways (docs/FORMAT.md 6.2): written without msgpack's Packer, dtypes kept per
dtype object and per spec, and a leaf serializer's top-level value sent straight to it. Each must give
the bytes and the refusals of the long way."""

from __future__ import annotations

import msgpack
import numpy as np
import pytest

import serreg
from serreg import CrossLanguageError, DeserializationError, SerializationError
from serreg.serializer import Serializer, hooks_of
from serreg.serializers.numpy_array import array_meta, packed_header
from serreg.serializers.numpy_dtype import packed_plain_spec, parse_dtype, wire_dtype
from test_hostile_frames import raw_frame


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


CONTIGUOUS = [
    *(np.arange(n).astype(dtype) for n in (0, 1, 127, 128, 255, 256, 65535, 65536, 70000) for dtype in ("<f8", ">i4", "u1", "?")),
    np.arange(24.0).reshape(2, 3, 4), np.asfortranarray(np.arange(24.0).reshape(2, 3, 4)), np.zeros((0, 3)),
    np.array(3.5), np.array("abc"), np.array(["a", "bcd"]), np.array([b"ab", b"c"]),
    np.array(["2020-01-01"], dtype="M8[D]"), np.array([1, 2], dtype=">m8[25s]"), np.zeros(3, dtype="V8"),
    np.arange(10.0)[::3][:1], np.zeros((1,) * 20), np.zeros((2,) * 16), np.zeros((3, 1, 2), dtype="<c16"),
    _read_only(np.arange(10.0)), _read_only(np.arange(12.0).reshape(3, 4)), _read_only(np.zeros((2, 2), order="F")),
]


@pytest.mark.parametrize("array", CONTIGUOUS, ids=lambda a: f"{a.dtype.str}{a.shape}{'' if a.flags.writeable else 'ro'}")
def test_the_packed_header_is_what_msgpack_writes_and_the_buffer_is_the_same_memory(array):
    packed = packed_header(array)
    assert packed is not None
    meta, data = array_meta(array)
    assert packed[0] == msgpack.packb(meta)
    assert (packed[1].format, packed[1].shape, packed[1].readonly) == (data.format, data.shape, data.readonly)
    assert packed[1].tobytes() == data.tobytes()
    if array.size:
        assert np.shares_memory(np.frombuffer(packed[1], np.uint8), array)
    back = serreg.deserialize(serreg.serialize(array).to_bytes())
    assert back.dtype.str == array.dtype.str and back.shape == array.shape and back.tobytes() == array.tobytes()


@pytest.mark.parametrize("array", [
    np.arange(10.0)[::2], np.arange(10.0)[::-1], np.broadcast_to(np.arange(3.0), (4, 3)),
    np.zeros(3, dtype=[("a", "<i4"), ("b", ">f8")]), np.zeros(2, dtype=np.dtype("<f8", metadata={"unit": "s"})),
    np.zeros(2, dtype=np.longdouble), np.array([1, None], dtype=object),
])
def test_other_arrays_take_the_long_way(array):
    assert packed_header(array) is None


@pytest.mark.parametrize("dtype", [
    "<f8", ">f8", "<i2", ">u8", "|b1", "<c8", ">c16", "<M8[ns]", ">m8[25s]", "<M8", "|S3", ">U2", "|V4",
    [("a", "<i4"), ("b", ">f8", (2,))], {"names": ["x"], "formats": ["<i2"], "offsets": [2], "itemsize": 6},
])
def test_dtypes_round_trip_every_time_whether_kept_or_not(dtype):
    dtype = np.dtype(dtype)
    array = np.zeros(3, dtype)
    array.view(np.uint8)[:] = np.arange(array.nbytes) % 251
    for _ in range(3):  # the first call keeps the dtype, the next ones find it
        assert wire_dtype(dtype)[1] is None
        for back in (serreg.deserialize(serreg.serialize(array)), serreg.deserialize(serreg.serialize(array).to_bytes()),
                     serreg.deserialize(serreg.serialize(array, cross_language=True).to_bytes(), trusted=False)):
            assert back.dtype == dtype and back.dtype.str == dtype.str and back.tobytes() == array.tobytes()
    assert (packed_plain_spec(dtype) is None) == (dtype.names is not None)


def test_refused_dtypes_are_refused_every_time():
    for dtype in (np.dtype(object), np.dtype(np.longdouble), np.dtype("<f8", metadata={"unit": "s"})):
        for _ in range(2):
            spec, why = wire_dtype(dtype)
            assert spec is None and why and packed_plain_spec(dtype) is None
            with pytest.raises(CrossLanguageError, match="dtype"):
                serreg.serialize(np.zeros(2, dtype), cross_language=True)
    objects = np.array([1, "a", None], dtype=object)
    back = serreg.deserialize(serreg.serialize(objects).to_bytes())  # the fallback's, as before
    assert back.dtype == object and list(back) == [1, "a", None]


def test_a_structured_dtype_renamed_after_a_call_is_described_again():
    dtype = np.dtype([("a", "<i4"), ("b", "<f8")])
    array = np.zeros(2, dtype)
    assert serreg.deserialize(serreg.serialize(array)).dtype.names == ("a", "b")
    dtype.names = ("c", "d")  # numpy lets a structured dtype's names be replaced in place
    assert serreg.deserialize(serreg.serialize(array).to_bytes()).dtype.names == ("c", "d")


@pytest.mark.parametrize("spec,message", [
    ("<f8 ", "not a standard dtype"), ("<f16", "not a standard dtype"), ("|O", "not a standard dtype"),
    ("<M8[1s]", "not written as numpy writes it"), ("=f8", "not a standard dtype"), (">U1000000000", "not a standard dtype"),
])
def test_hostile_specs_are_refused_after_good_ones_were_read(spec, message):
    good = raw_frame("numpy.ndarray", msgpack.packb(["<f8", [1], "C"]), [bytes(8)])
    bad = raw_frame("numpy.ndarray", msgpack.packb([spec, [1], "C"]), [bytes(8)])
    for _ in range(2):
        assert serreg.deserialize(good, trusted=False).dtype.str == "<f8"
        with pytest.raises(DeserializationError, match=message):
            serreg.deserialize(bad, trusted=False)
        with pytest.raises(DeserializationError, match=message):
            parse_dtype(spec)


@pytest.mark.parametrize("header,buffer,message", [
    (["<f8", [2], "C"], 8, r"needs 16 bytes, but its buffer has 8"),
    (["<f8", [True], "C"], 8, "invalid ndarray shape"),
    (["<f8", [-1], "C"], 8, "invalid ndarray shape"),
    (["<f8", [1.0], "C"], 8, "invalid ndarray shape"),
    (["<f8", [1] * 65, "C"], 8, "65 dimensions"),
    (["<f8", [1], "K"], 8, "invalid ndarray header"),
    (["<f8", [1], "C", None, 1], 8, "invalid ndarray header"),
    (["<f8", [1], "C", None], 8, r"\[dtype, shape, order\]"),
    (["<f8", (1 << 62, 1 << 62), "C"], 8, "needs"),
    ([["<f8"], [1], "C"], 8, "string or"),
])
def test_hostile_headers_are_refused_with_the_same_errors(header, buffer, message):
    frame = raw_frame("numpy.ndarray", msgpack.packb(header), [bytes(buffer)])
    for trusted in (False, True):
        with pytest.raises(DeserializationError, match=message):
            serreg.deserialize(frame, trusted=trusted)


def test_arrays_of_one_dimension_come_back_in_any_order_and_over_the_frame():
    frame = raw_frame("numpy.ndarray", msgpack.packb(["<i2", [3], "F"]), [b"\x01\x00\x02\x00\x03\x00"])
    back = serreg.deserialize(bytearray(frame))
    assert list(back) == [1, 2, 3] and back.flags.writeable and back.flags.c_contiguous
    assert not serreg.deserialize(frame).flags.writeable  # over read-only bytes


def test_the_leaf_way_writes_the_bytes_of_the_long_way():
    for array in CONTIGUOUS[:4] + [np.arange(10.0)[::2], np.zeros(2, [("a", "<i4")])]:
        assert serreg.serialize(array).to_bytes() == serreg.serialize(array, cross_language=True).to_bytes()
    holder = {"a": np.arange(3.0)}  # nested: the codec calls the serializer as before
    assert np.array_equal(serreg.deserialize(serreg.serialize(holder).to_bytes())["a"], holder["a"])
    assert hooks_of(serreg.serializers.numpy.NDArraySerializer()).leaf


class _Box:
    def __init__(self, payload: object) -> None:
        self.payload = payload


class _LeafBox(Serializer):
    leaf = True

    def accepts(self, box: _Box) -> bool:
        return box.payload != "pickle me"

    def serialize(self, box: _Box) -> bytes:
        if box.payload == "fail":
            raise ValueError("no")
        return msgpack.packb(box.payload)

    def deserialize(self, in_band, oob):
        return _Box(msgpack.unpackb(in_band))


class _NotQuiteLeaf(_LeafBox):
    leaf = 1  # only True turns the short way on


def test_a_leaf_serializer_of_the_users_gets_its_values_accepts_and_errors_as_before():
    registry = serreg.Registry()
    registry.register_serializer("test.LeafBox", _Box, _LeafBox())
    assert registry.deserialize(registry.serialize(_Box([1, 2])).to_bytes()).payload == [1, 2]
    assert registry.deserialize(registry.serialize(_Box("pickle me"))).payload == "pickle me"  # the fallback's
    with pytest.raises(SerializationError, match="test.LeafBox.*ValueError: no"):
        registry.serialize(_Box("fail"))
    assert not hooks_of(_NotQuiteLeaf()).leaf and hooks_of(_LeafBox()).leaf
    assert not hooks_of(Serializer()).leaf


def test_a_msgpack_timestamp_in_the_header_is_refused_as_a_timestamp():
    for header in (["<f8", [msgpack.Timestamp(1)], "C"], [msgpack.Timestamp(1), [1], "C"], ["<f8", [1], "C", None, msgpack.Timestamp(0)]):
        frame = raw_frame("numpy.ndarray", msgpack.packb(header, datetime=False), [bytes(8)])
        for trusted in (False, True):
            with pytest.raises(DeserializationError, match="timestamp"):
                serreg.deserialize(frame, trusted=trusted)


def test_arrow_tables_and_batches_written_the_leaf_way_are_the_bytes_of_the_long_way():
    pa = pytest.importorskip("pyarrow")
    from serreg.serializers.pyarrow import ArrowRecordBatchSerializer, ArrowTableSerializer
    from serreg.standard import ARROW_RECORD_BATCH_CLASS_ID, ARROW_TABLE_CLASS_ID

    class LongTable(ArrowTableSerializer):
        leaf = False

    class LongBatch(ArrowRecordBatchSerializer):
        leaf = False

    long_way = serreg.Registry()
    long_way.register_serializer(ARROW_TABLE_CLASS_ID, pa.Table, LongTable())
    long_way.register_serializer(ARROW_RECORD_BATCH_CLASS_ID, pa.RecordBatch, LongBatch())
    table = pa.table({"i": pa.array([1, None, 3]), "s": pa.array(["a", "bc", None]),
                      "d": pa.array(["x", "y", "x"]).dictionary_encode()})
    chunked = pa.concat_tables([table, table.slice(1)])
    serreg.serialize(table)  # the plug-in is loaded: the calls below take the leaf way
    for value in (table, chunked, table.to_batches()[0]):
        frame = serreg.serialize(value).to_bytes()
        assert frame == long_way.serialize(value).to_bytes()
        assert serreg.deserialize(frame).equals(value) and long_way.deserialize(frame).equals(value)
    assert hooks_of(ArrowTableSerializer()).leaf and not hooks_of(LongTable()).leaf
