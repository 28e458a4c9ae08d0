"""Every built-in type comes back as the same type and value, in-process and through a frame."""

import collections
import threading

import numpy as np
import pytest

import serreg
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import FrameView

from values import NUMPY_SCALARS, STANDARD_VALUES, SUBCLASS_VALUES, assert_same


def round_trips(value):
    result = serreg.serialize(value)
    yield "in-process", serreg.deserialize(result)
    frame = result.to_bytes()
    yield "bytes frame", serreg.deserialize(frame)
    yield "bytearray frame", serreg.deserialize(bytearray(frame))


@pytest.mark.parametrize("name", sorted(STANDARD_VALUES))
def test_standard_value_round_trips_type_exact(name):
    value = STANDARD_VALUES[name]
    for how, back in round_trips(value):
        assert_same(back, value, f"{name} ({how})")


@pytest.mark.parametrize("scalar", NUMPY_SCALARS, ids=lambda s: type(s).__name__)
def test_numpy_scalar_keeps_its_width(scalar):
    for how, back in round_trips(scalar):
        assert type(back) is type(scalar), how
        assert back.tobytes() == scalar.tobytes(), how


def test_numpy_scalars_inside_containers_keep_their_width():
    value = {"xs": NUMPY_SCALARS, "pair": (np.int8(1), np.uint64(2))}
    for how, back in round_trips(value):
        assert [type(x) for x in back["xs"]] == [type(x) for x in NUMPY_SCALARS], how
        assert type(back["pair"][0]) is np.int8


def test_float_nan_payload_is_kept():
    import struct

    nan = struct.unpack("<d", struct.pack("<Q", 0x7FF8_0000_DEAD_BEEF))[0]
    back = serreg.deserialize(serreg.serialize(nan).to_bytes())
    assert struct.pack("<d", back) == struct.pack("<d", nan)


@pytest.mark.parametrize("name", sorted(SUBCLASS_VALUES))
def test_subclasses_of_builtins_are_not_turned_into_their_base(name):
    value = SUBCLASS_VALUES[name]
    result = serreg.serialize({"inside": [value]})
    back = serreg.deserialize(result.to_bytes())["inside"][0]
    assert type(back) is type(value)
    assert back == value
    if isinstance(value, collections.defaultdict):
        assert back.default_factory is list


def test_plain_values_in_containers_have_no_per_element_frame():
    values = list(range(100))
    in_band = bytes(serreg.serialize(values).in_band_buffer)
    import msgpack

    # ClassIDHash then exactly the msgpack array: no headers around the elements.
    assert in_band[8:] == msgpack.packb(values)


def test_large_bytes_and_bytearray_are_not_copied_in_process():
    data = b"x" * 1_000_000
    assert serreg.deserialize(serreg.serialize(data)) is data
    mutable = bytearray(1_000_000)
    back = serreg.deserialize(serreg.serialize(mutable))
    mutable[0] = 7
    assert back[0] == 7


def test_memoryview_round_trip_keeps_format_and_shape():
    view = memoryview(np.arange(12, dtype=np.int32).reshape(3, 4))
    for how, back in round_trips(view):
        assert type(back) is memoryview, how
        assert back.format == "i" and back.shape == (3, 4), how
        assert back.tolist() == view.tolist(), how
    original = bytearray(b"abcdef")
    back = serreg.deserialize(serreg.serialize(memoryview(original)))
    original[0] = ord("z")
    assert bytes(back) == b"zbcdef"  # in-process: a view of the same memory


def test_same_value_gives_same_bytes_every_time():
    value = {"s": {"b", "a", "c", (1, 2)}, "f": frozenset(range(40)), "t": STANDARD_VALUES["nested"]}
    frames = {serreg.serialize(value).to_bytes() for _ in range(3)}
    assert len(frames) == 1


def test_set_bytes_do_not_depend_on_iteration_order():
    a = {"alpha", "beta", "gamma", 1, 2}
    b = set()
    for member in [2, "gamma", 1, "beta", "alpha"]:
        b.add(member)
    assert serreg.serialize(a).to_bytes() == serreg.serialize(b).to_bytes()


def test_unknown_tzinfo_type_goes_to_the_fallback():
    import datetime

    class Fixed(datetime.tzinfo):
        def utcoffset(self, dt):
            return datetime.timedelta(hours=3)

        def dst(self, dt):
            return None

        def __reduce__(self):
            return (Fixed, ())

    value = datetime.datetime(2024, 1, 1, tzinfo=Fixed())
    result = serreg.serialize(value)
    assert bytes(result.in_band_buffer[:8]) == class_id_hash("serreg.pickle5")
    with pytest.raises(serreg.CrossLanguageError):
        serreg.serialize(value, cross_language=True)


def test_str_with_lone_surrogate_is_refused_with_its_path():
    with pytest.raises(serreg.SerializationError) as info:
        serreg.serialize({"rows": ["ok", "bad \udc80"]})
    assert info.value.path == 'obj["rows"][1]'
    assert "UTF-8" in str(info.value)


def test_frame_view_exposes_aligned_buffers():
    result = serreg.serialize([bytearray(b"a" * 10), bytearray(b"b" * 100), b"c" * 70000])
    frame = FrameView(result.to_bytes())
    assert frame.buffer_offsets and all(offset % 64 == 0 for offset in frame.buffer_offsets)
    assert [b.nbytes for b in frame.buffers] == [10, 100]  # nested bytes stay in-band (FORMAT.md 6.1)


def test_buffer_order_is_document_order_when_the_tree_is_rewritten():
    # Found by hypothesis: a bytearray after an ndarray made the codec rewrite the
    # tree, which used to take the bytearray's buffer before the array's.
    value = [[np.array(False)], bytearray(b""), [np.arange(3)], bytearray(b"xy")]
    back = serreg.deserialize(serreg.serialize(value).to_bytes())
    assert back[0][0] == np.array(False) and back[1] == bytearray()
    assert list(back[2][0]) == [0, 1, 2] and back[3] == bytearray(b"xy")
