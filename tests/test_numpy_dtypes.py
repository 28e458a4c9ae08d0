"""numpy dtypes, layouts and flags on the wire (docs/FORMAT.md 6.2): what is sent, what readers refuse."""

from __future__ import annotations

import msgpack
import numpy as np
import pytest

import serreg
from serreg import CrossLanguageError, DeserializationError
from serreg.serializers.numpy_dtype import parse_dtype, wire_dtype
from test_hostile_frames import raw_frame


def test_broadcast_arrays_send_only_the_memory_that_exists_and_come_back_strided():
    row = np.arange(10, dtype="<f8")
    broadcast = np.broadcast_to(row, (1000, 10))
    frame = serreg.serialize(broadcast).to_bytes()
    assert len(frame) < 300, len(frame)  # 80 bytes of data, not 80,000
    back = serreg.deserialize(bytearray(frame))
    assert back.strides == (0, 8) and np.array_equal(back, broadcast) and not back.flags.writeable
    column = np.broadcast_to(np.arange(3, dtype=">i2")[:, None], (3, 5))
    back = serreg.deserialize(bytearray(serreg.serialize(column).to_bytes()))
    assert back.strides == (2, 0) and back.dtype.str == ">i2" and np.array_equal(back, column)


def test_read_only_arrays_stay_read_only_in_process_and_through_any_memory():
    a = np.arange(6, dtype="<i4").reshape(2, 3)
    a.flags.writeable = False
    in_process = serreg.deserialize(serreg.serialize(a))
    assert not in_process.flags.writeable and np.shares_memory(in_process, a)
    with pytest.raises(ValueError):
        in_process[0, 0] = 1
    assert not serreg.deserialize(bytearray(serreg.serialize(a).to_bytes())).flags.writeable
    writable = np.arange(3)
    assert serreg.deserialize(bytearray(serreg.serialize(writable).to_bytes())).flags.writeable
    assert bytes(serreg.serialize(writable).in_band_buffer)[8:9] == b"\x93", "a writable packed array keeps the 3-item form"


def test_structured_dtype_description_keeps_offsets_titles_nesting_and_order():
    inner = np.dtype([("a", "<i2"), ("b", ">U2")])
    dtype = np.dtype({"names": ["z", "a"], "formats": [("<f8", (2,)), inner], "offsets": [16, 0],
                      "titles": ["Zed", None], "itemsize": 40})
    spec, why = wire_dtype(dtype)
    assert why is None
    assert spec == [40, [["z", 16, "<f8", [2], "Zed"], ["a", 0, [10, [["a", 0, "<i2", [], None], ["b", 2, ">U2", [], None]], False], [], None]], False]
    assert parse_dtype(spec) == dtype and parse_dtype(spec).names == ("z", "a")
    aligned = np.dtype([("a", "i1"), ("b", "<i4")], align=True)
    assert parse_dtype(wire_dtype(aligned)[0]).isalignedstruct


@pytest.mark.parametrize("spec,message", [
    ([8, [["x", 0, "<i4", [], None], ["y", 2, "<i4", [], None]], False], "overlap"),
    ([4, [["x", 2, "<i4", [], None]], False], "run past the item"),
    ([4, [["x", 0, "<i4", [], "x"]], False], "title"),
    ([4, [["x", 0, "<f16", [], None]], False], "field 'x'"),
    ([4, [], False], "non-empty array of fields"),
    ("<M8[1s]", "not written as numpy writes it"),
    ("<U0", "not a standard dtype"),
    ("|U2", "not a standard dtype"),
])
def test_readers_refuse_dtype_descriptions_outside_the_format(spec, message):
    frame = raw_frame("numpy.ndarray", msgpack.packb([spec, [1], "C"]), [bytes(4)])
    with pytest.raises(DeserializationError, match=message):
        serreg.deserialize(frame, trusted=False)


def test_deeply_nested_structured_dtypes_are_refused_before_numpy_sees_them():
    spec = "<i4"
    for _ in range(40):
        spec = [4, [["f", 0, spec, [], None]], False]
    with pytest.raises(DeserializationError, match="nested more than 32"):
        serreg.deserialize(raw_frame("numpy.ndarray", msgpack.packb([spec, [1], "C"]), [bytes(4)]), trusted=False)


def test_strides_must_describe_exactly_the_buffer():
    for strides, size in (([0, 8], 24), ([8, 0], 8), ([-8, 8], 16), ([0, 8, 8], 16)):
        frame = raw_frame("numpy.ndarray", msgpack.packb(["<f8", [2, 2], "C", strides, True]), [bytes(size)])
        with pytest.raises(DeserializationError, match="strides|bytes"):
            serreg.deserialize(frame, trusted=False)


def test_cross_language_refusals_name_the_dtype_and_field():
    with pytest.raises(CrossLanguageError, match=r"field 'when': dtype .*metadata|field 'when'"):
        serreg.serialize(np.zeros(1, [("when", np.dtype("<i4", metadata={"unit": "s"}))]), cross_language=True)
    with pytest.raises(CrossLanguageError, match="dtype object"):
        serreg.serialize(np.array([object()]), cross_language=True)


def test_scalars_of_every_kind_keep_their_type_and_dtype():
    for value in (np.datetime64("2024-01-01T12", "h"), np.timedelta64(-5, "25s"), np.bytes_(b"ab\x00c"), np.str_(""),
                  np.str_("\U0001f600"), np.void(b"\x00\x01\x02"), np.zeros(1, [("a", ">i4"), ("b", "S2")])[0]):
        back = serreg.deserialize(serreg.serialize(value, cross_language=True).to_bytes())
        assert type(back) is type(value) and back.dtype == value.dtype and back.tobytes() == value.tobytes()
        assert serreg.digest(back) == serreg.digest(value)


def test_a_refused_dtype_never_stands_in_for_an_equal_one():
    # numpy's == and hash ignore metadata and isalignedstruct: a cache keyed by dtype mixed them up.
    with pytest.raises(CrossLanguageError, match="metadata"):
        serreg.serialize(np.zeros(2, np.dtype("<i4", metadata={"unit": "s"})), cross_language=True)
    back = serreg.deserialize(serreg.serialize(np.arange(2, dtype="<i4"), cross_language=True).to_bytes())
    assert back.dtype.metadata is None and list(back) == [0, 1]
    aligned = np.dtype([("a", "i1"), ("b", "<i4")], align=True)
    packed = np.dtype({"names": ["a", "b"], "formats": ["i1", "<i4"], "offsets": [0, 4], "itemsize": 8})
    assert aligned == packed
    for dtype in (aligned, packed, aligned):
        back = serreg.deserialize(serreg.serialize(np.zeros(1, dtype)).to_bytes())
        assert back.dtype.isalignedstruct == dtype.isalignedstruct
    if hasattr(np.dtypes, "StringDType"):
        with pytest.raises(CrossLanguageError, match="StringDType|dtype"):
            serreg.serialize(np.array(["a"], dtype=np.dtypes.StringDType()), cross_language=True)
