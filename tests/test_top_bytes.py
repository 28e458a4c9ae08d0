"""Large bytes at the top level, written by the compiled codec's ``serialize_top``.

``Registry.serialize(value)`` of bytes at least ``BYTES_OUT_OF_BAND_THRESHOLD`` long makes,
in C, the result the standard bytes serializer and the full path make: the in-band section
ClassIDHash + msgpack nil, one out-of-band buffer that is a view of the very object (no copy),
no frame kept. These tests check that the result, its frame and its value are the full path's,
that the boundary is the threshold, and that a bytes subclass or a serializer registered for
bytes still takes the full path. The module runs on both codecs (with the pure one
``serialize_top`` does not exist and only the full-path checks run).
"""

from __future__ import annotations

import gc

import pytest

import serreg
from serreg.codec import COMPILED
from serreg.codec.layout import BYTES_OUT_OF_BAND_THRESHOLD
from serreg.wire.class_id import class_id_hash

compiled_only = pytest.mark.skipif(not COMPILED, reason="serialize_top is the compiled codec's")

LARGE = bytes(range(256)) * (BYTES_OUT_OF_BAND_THRESHOLD // 256 + 3)


def full_path(registry, value):
    # cross_language=True never takes the top-level entry; bytes are written the same way.
    return registry.serialize(value, cross_language=True)


@compiled_only
@pytest.mark.parametrize("size", [BYTES_OUT_OF_BAND_THRESHOLD, len(LARGE)])
def test_serialize_top_writes_large_bytes_as_their_serializer_does(size):
    registry = serreg.Registry()
    value = LARGE[:size]
    result = registry.codec.serialize_top(value)
    assert type(result) is serreg.SerializationResult and not result.signed
    expected = full_path(registry, value)
    assert result.in_band_buffer == expected.in_band_buffer == class_id_hash("bytes") + b"\xc0"
    [view] = result.out_of_band_buffers
    assert view.obj is value and view.readonly and view.nbytes == size  # the very object, not a copy
    assert result.to_bytes() == expected.to_bytes()
    assert result.nbytes == expected.nbytes
    assert gc.is_tracked(result)


@compiled_only
def test_below_the_threshold_bytes_stay_in_band():
    registry = serreg.Registry()
    value = LARGE[: BYTES_OUT_OF_BAND_THRESHOLD - 1]
    result = registry.codec.serialize_top(value)
    assert result.out_of_band_buffers == []
    assert result.to_bytes() == full_path(registry, value).to_bytes()


def test_round_trips_give_the_object_in_process_and_a_copy_through_bytes():
    registry = serreg.Registry()
    result = registry.serialize(LARGE)
    assert registry.deserialize(result) is LARGE
    frame = result.to_bytes()
    assert frame == full_path(registry, LARGE).to_bytes()
    copied = registry.deserialize(frame)
    assert copied == LARGE and copied is not LARGE


def test_the_results_buffers_are_the_callers_list():
    result = serreg.Registry().serialize(LARGE)
    buffers = result.out_of_band_buffers
    buffers.append(memoryview(b"more"))
    assert result.out_of_band_buffers is buffers and len(result.out_of_band_buffers) == 2


class Sub(bytes):
    pass


@compiled_only
def test_a_bytes_subclass_takes_the_full_path():
    registry = serreg.Registry()
    value = Sub(LARGE)
    assert registry.codec.serialize_top(value) is NotImplemented
    back = registry.deserialize(registry.serialize(value).to_bytes())  # (the pickle fallback's)
    assert back == value and type(back) is Sub


class Tagged:
    def __init__(self) -> None:
        self.calls = 0

    def serialize(self, obj):
        self.calls += 1
        return serreg.SerializationResult(b"T", [memoryview(obj)])

    def deserialize(self, in_band, oob):
        return ("tagged", bytes(in_band), next(oob).nbytes)


def test_a_serializer_registered_for_bytes_is_called():
    registry = serreg.Registry()
    tagged = Tagged()
    registry.register_serializer("bytes", bytes, tagged)
    if COMPILED:
        assert registry.codec.serialize_top(LARGE) is NotImplemented
    result = registry.serialize(LARGE)
    assert tagged.calls == 1
    assert registry.deserialize(result.to_bytes()) == ("tagged", b"T", len(LARGE))


@compiled_only
def test_the_list_and_the_view_are_made_only_when_asked_for():
    registry = serreg.Registry()
    result = registry.serialize(LARGE)
    # Until Python code asks, the buffer is the very object, held as it is (tracked as a result without buffers).
    assert result._buffers is LARGE
    assert gc.is_tracked(result) == gc.is_tracked(registry.serialize(1.5))
    assert registry.deserialize(result) is LARGE
    assert result.to_bytes() == full_path(registry, LARGE).to_bytes()
    assert result._buffers is LARGE  # neither the read nor the frame made the list
    assert result.nbytes == full_path(registry, LARGE).nbytes
    [view] = result.out_of_band_buffers
    assert view.obj is LARGE and view.readonly and gc.is_tracked(result)
    assert result.out_of_band_buffers is result.out_of_band_buffers
    assert registry.deserialize(result) is LARGE and registry.deserialize(result.to_bytes()) == LARGE


class Holder:
    def __init__(self, data: bytes) -> None:
        self.data = data


def test_a_serializer_may_return_the_result_of_large_bytes():
    registry = serreg.Registry()

    class HolderSerializer:
        def serialize(self, obj):
            return registry.serialize(obj.data)

        def deserialize(self, in_band, oob):
            return Holder(registry.deserialize(serreg.SerializationResult(in_band, list(oob))))

    registry.register_serializer("test.Holder", Holder, HolderSerializer())
    holder = Holder(LARGE)
    assert registry.deserialize(registry.serialize(holder)).data == LARGE
    assert registry.deserialize(registry.serialize(holder).to_bytes()).data == LARGE
