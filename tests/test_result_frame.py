"""A result of the one-call path carries its frame: the compiled codec writes the in-band section into
a bytes object with room for the frame header, ``to_bytes`` hands that object out, and everything
else a result offers (its parts, size, repr, ``write_to``, pickling, copies, changes) reads or drops
it as if the parts had been kept apart. Such a result without buffers is not tracked by the garbage
collector until it is given a container. Runs on both codecs (with ``SERREG_PURE_PYTHON=1`` no result
carries a frame, and every answer is the same).
"""

from __future__ import annotations

import copy
import gc
import io
import pickle
import weakref

import numpy as np
import pytest

import serreg
from serreg.codec import COMPILED
from serreg.result import SerializationResult, python_to_bytes, sections
from serreg.wire.frame import HEADER_SIZE, join_frame

VALUE = {"a": 1, "b": 2.5, "c": "hello", "d": [1, 2, 3], "e": True}
ARRAY = np.arange(10.0)  # travels out of band


def _python_frame(result: SerializationResult) -> bytes:
    """The frame as the Python method writes it from the parts."""
    parts = [part for part in (result.in_band_buffer,) if part is not None]
    return join_frame(parts, [memoryview(b).cast("B") for b in result.out_of_band_buffers])


def test_to_bytes_hands_out_the_frame_written_with_the_result():
    result = serreg.serialize(VALUE)
    frame = result.to_bytes()
    assert type(frame) is bytes and frame == _python_frame(serreg.serialize(VALUE)) and len(frame) == result.nbytes
    if COMPILED:
        assert result.to_bytes() is frame  # no second allocation and copy
    assert serreg.deserialize(result) == serreg.deserialize(frame) == VALUE


def test_the_parts_of_a_result_are_read_from_its_frame():
    result = serreg.serialize(VALUE)
    frame = result.to_bytes()
    class_hash, in_band = sections(result)
    assert class_hash is not None and bytes(class_hash) + bytes(in_band) == frame[HEADER_SIZE:]
    assert repr(result) == f"SerializationResult(in_band={len(frame) - HEADER_SIZE} bytes, out_of_band=[])"
    out = io.BytesIO()
    assert result.write_to(out) == len(frame) and out.getvalue() == frame
    assert result.in_band_buffer == frame[HEADER_SIZE:]
    assert result.to_bytes() == frame and result.nbytes == len(frame)
    assert serreg.deserialize(result) == VALUE


def test_buffers_given_to_a_fresh_result_join_its_in_band():
    result = serreg.serialize(VALUE)
    frame = result.to_bytes()
    result.out_of_band_buffers.append(memoryview(b"buffer"))
    with_buffer = result.to_bytes()
    assert with_buffer != frame and with_buffer == _python_frame(result) and len(with_buffer) == result.nbytes
    result.out_of_band_buffers.clear()
    assert result.to_bytes() == frame and serreg.deserialize(result) == VALUE


def test_a_new_in_band_replaces_the_frame():
    result = serreg.serialize(VALUE)
    other = serreg.serialize([1, 2, 3])
    result.in_band_buffer = other.in_band_buffer
    assert result.to_bytes() == other.to_bytes() and result.nbytes == other.nbytes
    assert serreg.deserialize(result) == [1, 2, 3]


def test_copies_and_pickles_carry_the_same_frame():
    result = serreg.serialize(VALUE)
    for twin in (pickle.loads(pickle.dumps(result)), copy.copy(result), copy.deepcopy(result)):
        assert twin.out_of_band_buffers == [] and twin.to_bytes() == result.to_bytes()
        assert serreg.deserialize(twin) == VALUE


def test_out_of_band_buffers_are_a_list_of_each_result():
    first, second = serreg.serialize({"big": ARRAY}), serreg.serialize({"big": ARRAY})
    plain = serreg.serialize(VALUE)
    assert [b.nbytes for b in first.out_of_band_buffers] == [ARRAY.nbytes] == [b.nbytes for b in second.out_of_band_buffers]
    assert first.out_of_band_buffers is not second.out_of_band_buffers
    assert plain.out_of_band_buffers == [] and plain.out_of_band_buffers is plain.out_of_band_buffers
    assert plain.out_of_band_buffers is not first.out_of_band_buffers
    for back in (serreg.deserialize(first), serreg.deserialize(second.to_bytes())):
        assert list(back) == ["big"] and (back["big"] == ARRAY).all()
    replaced = serreg.serialize(VALUE)
    replaced.out_of_band_buffers = [memoryview(b"x")]
    assert replaced.to_bytes() == _python_frame(replaced)


@pytest.mark.skipif(not COMPILED, reason="the pure codec makes every result through the Python class: all tracked")
def test_a_result_is_tracked_once_it_can_hold_a_container():
    fresh = serreg.serialize(VALUE)
    assert not gc.is_tracked(fresh)  # bytes and None only
    fresh.out_of_band_buffers
    assert gc.is_tracked(fresh)
    replaced = serreg.serialize(VALUE)
    replaced.out_of_band_buffers = []
    assert gc.is_tracked(replaced)
    in_band = serreg.serialize(VALUE)
    in_band.in_band_buffer = memoryview(b"x")
    assert gc.is_tracked(in_band)
    assert gc.is_tracked(serreg.serialize({"big": ARRAY}))  # holds its list of buffers


@pytest.mark.parametrize("attach", ["append", "assign", "in_band"])
def test_a_fresh_result_in_a_cycle_is_collected(attach):
    class Holder:
        pass

    probe = Holder()
    alive = weakref.ref(probe)
    result = serreg.serialize(VALUE)
    if attach == "append":
        result.out_of_band_buffers.append(result)  # type: ignore[arg-type]
        result.out_of_band_buffers.append(probe)  # type: ignore[arg-type]
    elif attach == "assign":
        result.out_of_band_buffers = [result, probe]  # type: ignore[list-item]
    else:
        held = np.zeros(3, dtype=np.uint8).view(_Held)
        held.refs = [result, probe]  # the view holds the array, which holds the result
        result.in_band_buffer = memoryview(held)
        del held
    del result, probe
    gc.collect()
    assert alive() is None


class _Held(np.ndarray):  # type: ignore[type-arg]
    """An array with a __dict__: what a memoryview of it holds can lead back to the result."""


def test_a_plain_value_with_a_buffer_keeps_its_in_band_apart():
    value = {"a": bytearray(b"xyz"), "b": [1, 2]}  # the bytearray travels out of band
    result = serreg.serialize(value)
    assert [bytes(b) for b in result.out_of_band_buffers] == [b"xyz"]
    class_hash, in_band = sections(result)
    assert class_hash is not None and in_band is not None
    frame = result.to_bytes()
    assert frame == python_to_bytes(result) == _python_frame(result) and len(frame) == result.nbytes
    assert serreg.deserialize(result) == value == serreg.deserialize(frame)
