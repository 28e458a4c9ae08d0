"""The top-level entry of a value its serializer reads: the compiled ``MsgpackCodec.top_value`` and its twin.

``Registry.deserialize(data)`` in a trusted registry reads a frame (with out-of-band buffers or
not) or an in-process result whose value is not plain msgpack through ``top_value`` in C
(``_core_top_value.h``, the twin of ``Decoder._top_value``): the layout checks of docs/FORMAT.md
section 4 in C (``_frame_layout.h``), the serializer found by ClassIDHash and called with
memoryviews of the frame. Every frame it does not take (hostile, signed, over a limit) goes down
the full path, which says what is wrong as it always has. These tests check that it takes exactly
the valid frames, that hostile ones give the full path's error, and that what the serializer is
handed (views, call state, buffers) and what its errors become are those of the full path. The
module runs on both codecs; with the pure one ``top_value`` answers NotImplemented.
"""

from __future__ import annotations

import struct
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg
from serreg import DeserializationError, LimitExceededError, Limits
from serreg.codec import COMPILED
from serreg.limits import DECODE_STATE
from serreg.bench.payloads import Record
from serreg.result import SerializationResult, with_class_hash
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import HEADER, FrameView, parse_frame, parse_frame_python

from strategies import mutations

compiled_only = pytest.mark.skipif(not COMPILED, reason="top_value is the compiled codec's")

ARRAY = np.arange(1000, dtype=np.float64)


class Recorder:
    """Takes every buffer it is told to and records what it was handed and the call's state."""

    def __init__(self, take: int = 1) -> None:
        self.take = take
        self.seen: list[tuple] = []

    def serialize(self, obj):
        return serreg.SerializationResult(b"R", [memoryview(b) for b in obj.parts])

    def deserialize(self, in_band, oob):
        state = DECODE_STATE.get()
        buffers = [next(oob) for _ in range(self.take)]
        self.seen.append((in_band, buffers, state.depth, state.budget, state.frame_size, state.allowed))
        return ("parts", [bytes(b) for b in buffers])


class Parts:
    def __init__(self, *parts: bytes) -> None:
        self.parts = parts


def recording_registry(take: int = 1, **kwargs) -> tuple[serreg.Registry, Recorder]:
    registry = serreg.Registry(**kwargs)
    recorder = Recorder(take)
    registry.register_serializer("test.parts", Parts, recorder)
    return registry, recorder


def error_of(call, *args, **kwargs) -> DeserializationError:
    with pytest.raises(DeserializationError) as caught:
        call(*args, **kwargs)
    return caught.value


def same_error(a: BaseException, b: BaseException) -> None:
    assert (type(a), str(a), getattr(a, "offset", None)) == (type(b), str(b), getattr(b, "offset", None))


# ----------------------------------------------------------------- what it reads


@compiled_only
def test_results_without_buffers_are_read_in_c_when_their_in_band_is_bytes():
    codec = serreg.default_registry().codec
    for value in (Decimal("1.5"), Record(7, "user7", 3.5, True, ["a", "b"])):
        result = serreg.serialize(value)
        assert result._buffers in (None, [])
        read = codec.top_value(result)
        assert type(read) is type(value) and read == value
        assert result._buffers in (None, [])  # nothing asked of the result on the way
        signed = serreg.serialize(value, key=b"k" * 32)
        assert codec.top_value(signed) == value == serreg.deserialize(signed, key=b"k" * 32)
        # An in-band kept in another form (here a bytearray, or the frame's own slice) is the full path's.
        other = with_class_hash(result._class_hash, bytearray(result._in_band), [])
        assert codec.top_value(other) is NotImplemented
        assert serreg.deserialize(other) == value


@compiled_only
def test_values_read_in_c_equal_the_full_paths():
    codec = serreg.default_registry().codec
    for value in (b"x" * 100_000, bytearray(b"y" * 100_000), ARRAY, {"a": ARRAY, "b": b"z" * 70_000}, Decimal("1.5")):
        result = serreg.serialize(value)
        frame = result.to_bytes()
        for data in (frame, bytearray(frame), memoryview(frame), result):
            read = codec.top_value(data)
            assert read is not NotImplemented, (type(value), type(data))
            expected = serreg.deserialize(data, limits=serreg.default_registry().limits)  # the long way
            assert type(read) is type(expected)
            if isinstance(value, dict):
                assert read.keys() == expected.keys() and np.array_equal(read["a"], expected["a"])
            elif isinstance(value, np.ndarray):
                assert np.array_equal(read, expected)
            else:
                assert read == expected


@compiled_only
def test_arrays_are_views_of_the_frame_writable_as_the_frame_is():
    codec = serreg.default_registry().codec
    frame = serreg.serialize(ARRAY).to_bytes()
    whole = np.frombuffer(frame, dtype=np.uint8)
    read = codec.top_value(frame)
    assert np.shares_memory(read, whole) and not read.flags.writeable
    writable = bytearray(frame)
    read = codec.top_value(writable)
    assert np.shares_memory(read, np.frombuffer(writable, dtype=np.uint8)) and read.flags.writeable
    read[0] = 42.0
    assert serreg.deserialize(writable)[0] == 42.0


@compiled_only
def test_bytes_and_bytearray_in_process_come_back_as_the_very_object():
    codec = serreg.default_registry().codec
    for value in (b"x" * 100_000, bytearray(b"y" * 100_000)):
        assert codec.top_value(serreg.serialize(value)) is value
        assert serreg.deserialize(serreg.serialize(value)) is value
        copied = codec.top_value(serreg.serialize(value).to_bytes())
        assert copied == value and copied is not value and type(copied) is type(value)


@compiled_only
def test_a_serializer_registered_for_bytes_is_called():
    registry = serreg.Registry()
    registry.register_serializer("bytes", bytes, Tagged())
    frame = registry.serialize(b"x" * 100_000).to_bytes()
    assert registry.codec.top_value(frame) == ("tagged", 100_000)
    assert registry.deserialize(frame) == ("tagged", 100_000)


class Tagged:
    def serialize(self, obj):
        return serreg.SerializationResult(b"", [memoryview(obj)])

    def deserialize(self, in_band, oob):
        return ("tagged", next(oob).nbytes)


@pytest.mark.parametrize("as_result", [False, True])
def test_the_serializer_gets_views_and_the_calls_state(as_result):
    registry, recorder = recording_registry(take=2)
    result = registry.serialize(Parts(b"a" * 100, b"b" * 7))
    frame = result.to_bytes()
    data = result if as_result else frame
    assert registry.deserialize(data) == ("parts", [b"a" * 100, b"b" * 7])
    in_band, buffers, depth, budget, frame_size, allowed = recorder.seen[-1]
    limits = registry.limits
    assert type(in_band) is memoryview and bytes(in_band) == b"R"
    assert all(type(b) is memoryview for b in buffers)
    assert (depth, frame_size, allowed) == (1, len(frame), None)
    assert budget == limits.memory_allowance + limits.memory_per_byte * len(frame)
    if not as_result:
        assert all(b.obj is frame for b in buffers) and in_band.obj is frame
    assert DECODE_STATE.get() is None
    if COMPILED:
        assert registry.codec.top_value(data) == ("parts", [b"a" * 100, b"b" * 7])


def test_limits_and_trust_changed_between_calls_are_seen():
    registry, recorder = recording_registry()
    frame = registry.serialize(Parts(b"a" * 100)).to_bytes()
    assert registry.deserialize(frame) == ("parts", [b"a" * 100])
    registry.limits = Limits(memory_per_byte=None)
    assert registry.deserialize(frame) == ("parts", [b"a" * 100]) and recorder.seen[-1][3] is None
    registry.limits = Limits(max_buffers=0)
    error = error_of(registry.deserialize, frame)
    assert isinstance(error, LimitExceededError) and error.offset == 8 and "max_buffers=0" in str(error)
    registry.limits = Limits(max_frame_size=len(frame) - 1)
    assert isinstance(error_of(registry.deserialize, frame), LimitExceededError)
    registry.limits = Limits(max_depth=0)
    assert "max_depth=0" in str(error_of(registry.deserialize, frame))
    registry.limits = Limits()
    registry.trusted = False
    assert type(error_of(registry.deserialize, frame)).__name__ == "UntrustedClassIDError"
    if COMPILED:
        assert registry.codec.top_value(frame) is NotImplemented


# ----------------------------------------------------------------- what its serializer's errors become


class Failing:
    def serialize(self, obj):
        return serreg.SerializationResult(b"F", [memoryview(obj.parts[0])])

    def deserialize(self, in_band, oob):
        next(oob)
        raise ValueError("bad part")


class Unused:
    def serialize(self, obj):
        return serreg.SerializationResult(b"U", [memoryview(p) for p in obj.parts])

    def deserialize(self, in_band, oob):
        return "unused"


@pytest.mark.parametrize("as_result", [False, True])
def test_a_serializers_error_names_its_class_id_and_offset(as_result):
    registry = serreg.Registry()
    registry.register_serializer("test.failing", Parts, Failing())
    result = registry.serialize(Parts(b"p" * 100))
    data = result if as_result else result.to_bytes()
    error = error_of(registry.deserialize, data)
    assert str(error).startswith("could not decode the value: ValueError: bad part")
    assert error.class_id == "test.failing" and error.offset == (None if as_result else 32 + 16)
    assert isinstance(error.__cause__, ValueError) and error.__context__ is error.__cause__
    assert DECODE_STATE.get() is None
    if COMPILED:
        same_error(error_of(registry.codec.top_value, data), error)


@pytest.mark.parametrize("as_result", [False, True])
def test_a_buffer_no_serializer_used_is_refused(as_result):
    registry = serreg.Registry()
    registry.register_serializer("test.unused", Parts, Unused())
    result = registry.serialize(Parts(b"p" * 100, b"q"))
    data = result if as_result else result.to_bytes()
    what = "serialization result" if as_result else "frame"
    error = error_of(registry.deserialize, data)
    assert str(error) == f"the {what} holds 2 out-of-band buffer(s) that no serializer used"
    if COMPILED:
        same_error(error_of(registry.codec.top_value, data), error)


def test_a_serializer_asking_for_a_buffer_too_many():
    registry, _ = recording_registry(take=2)
    frame = registry.serialize(Parts(b"a")).to_bytes()
    error = error_of(registry.deserialize, frame)
    assert str(error).startswith("the serializer asked for more out-of-band buffers than the frame holds")
    assert error.offset == 48 and error.class_id == "test.parts"
    if COMPILED:
        same_error(error_of(registry.codec.top_value, frame), error)


# ----------------------------------------------------------------- hostile frames: the full path's errors


def entries(frame: bytes) -> list[tuple[int, int]]:
    count = HEADER.unpack_from(frame, 0)[4]
    return [struct.unpack_from("<QQ", frame, 32 + 16 * i) for i in range(count)]


def with_entry(frame: bytes, i: int, offset: int, length: int) -> bytes:
    mutated = bytearray(frame)
    struct.pack_into("<QQ", mutated, 32 + 16 * i, offset, length)
    return bytes(mutated)


def with_header(frame: bytes, field: int, value: int) -> bytes:
    values = list(HEADER.unpack_from(frame, 0))
    values[field] = value
    return HEADER.pack(*values) + frame[32:]


def hostile_frames() -> dict[str, bytes]:
    frame = serreg.serialize({"a": np.arange(10_000), "b": np.ones(5000)}).to_bytes()
    (first, first_len), (second, second_len) = entries(frame)
    padded = bytearray(frame)
    padded[first - 1] = 1
    return {
        "truncated header": frame[:31],
        "truncated frame": frame[:-1],
        "trailing byte": frame + b"\x00",
        "table past the end": with_header(frame[:40], 7, 40),
        "huge count": with_header(frame, 4, 2**32 - 1),
        "count one short": with_header(frame, 4, 1),
        "in-band past the end": with_header(frame, 6, 2**63),
        "in-band shorter than a hash": with_header(frame, 6, 7),
        "total past the end": with_header(frame, 7, 2**63),
        "unaligned offset": with_entry(frame, 0, first + 8, first_len),
        "overlapping buffers": with_entry(frame, 1, first, second_len),
        "offset before the in-band's end": with_entry(frame, 0, first - 64, first_len),
        "length past the end": with_entry(frame, 1, second, 2**63),
        "huge length": with_entry(frame, 0, first, 2**64 - 1),
        "non-zero padding": bytes(padded),
        "unknown flag": frame[:5] + b"\x04" + frame[6:],
        "retired signature flag": frame[:5] + b"\x01" + frame[6:],
        "signed without a trailer": frame[:5] + b"\x02" + frame[6:],
        "reserved field": frame[:12] + b"\x01" + frame[13:],
        "version 2": frame[:4] + b"\x02" + frame[5:],
        "bad magic": b"SREF" + frame[4:],
    }


@pytest.mark.parametrize("name", sorted(hostile_frames()))
def test_hostile_frames_get_the_full_paths_error(name):
    frame = hostile_frames()[name]
    registry = serreg.Registry()
    expected = error_of(FrameView, frame, registry.limits)
    same_error(error_of(registry.deserialize, frame), expected)
    same_error(error_of(registry.deserialize, bytearray(frame)), expected)
    assert parse_frame(frame, None, None) is None
    if COMPILED:
        assert registry.codec.top_value(frame) is NotImplemented


def test_valid_frames_at_the_limits_are_read_and_one_byte_over_is_not():
    frame = serreg.serialize({"a": np.arange(10_000), "b": np.ones(5000)}).to_bytes()
    at = serreg.Registry(limits=Limits(max_frame_size=len(frame), max_buffers=2))
    assert np.array_equal(at.deserialize(frame)["a"], np.arange(10_000))
    if COMPILED:
        assert at.codec.top_value(frame) is not NotImplemented
    for limits, field in ((Limits(max_frame_size=len(frame) - 1), 24), (Limits(max_buffers=1), 8)):
        over = serreg.Registry(limits=limits)
        error = error_of(over.deserialize, frame)
        assert isinstance(error, LimitExceededError) and error.offset == field
        if COMPILED:
            assert over.codec.top_value(frame) is NotImplemented


def test_signed_frames_are_left_to_the_full_path():
    key = b"k" * 32
    frame = serreg.serialize(ARRAY, key=key).to_bytes()
    assert np.array_equal(serreg.deserialize(frame), ARRAY)  # no key given: the trailer is ignored
    assert np.array_equal(serreg.deserialize(frame, key=key), ARRAY)
    if COMPILED:
        assert serreg.default_registry().codec.top_value(frame) is NotImplemented


def test_a_frame_of_an_unknown_class_id_is_left_to_the_full_path():
    frame = SerializationResult(class_id_hash("test.nobody") + b"\xc0", [memoryview(b"x" * 10)]).to_bytes()
    error = error_of(serreg.deserialize, frame)
    assert type(error).__name__ == "UnknownClassIDError" and error.offset == 48
    if COMPILED:
        assert serreg.default_registry().codec.top_value(frame) is NotImplemented


BUFFER_FRAMES = [serreg.serialize(v).to_bytes() for v in (
    np.arange(20, dtype=np.int16), {"a": np.ones(3), "b": [np.zeros(2), bytearray(b"ab")]}, b"q" * 70_000,
    Decimal("2.5"), [np.arange(4), (np.arange(2), "x")],
)]


@compiled_only
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations(BUFFER_FRAMES), st.sampled_from([None, 0, 1, 100_000]), st.sampled_from([None, 64, 4 * 2**30]))
def test_the_c_reader_takes_no_frame_frameview_refuses(frame, max_buffers, max_frame_size):
    registry = serreg.Registry(limits=Limits(max_buffers=max_buffers, max_frame_size=max_frame_size))
    if parse_frame_python(frame, max_frame_size, max_buffers) is not None:
        return  # a valid frame: what it decodes to is the mutated-frame tests' business
    assert registry.codec.top_value(frame) is NotImplemented
    assert registry.codec.top_value(bytearray(frame)) is NotImplemented
    try:
        FrameView(frame, registry.limits)
    except DeserializationError as expected:
        same_error(error_of(registry.deserialize, frame), expected)
    # else: a signed frame, valid as such; only FrameView reads those


def test_frames_in_other_memoryviews_are_read_by_the_full_path():
    frame = serreg.serialize(ARRAY).to_bytes()
    assert len(frame) % 64 == 0
    shaped = memoryview(frame).cast("B", (len(frame) // 64, 64))  # 2-d: FrameView casts it
    words = memoryview(bytearray(frame)).cast("Q")  # 8-byte items: the same
    for data in (shaped, words):
        assert np.array_equal(serreg.deserialize(data), ARRAY)
        if COMPILED:
            assert serreg.default_registry().codec.top_value(data) is NotImplemented
    strided = memoryview(frame + frame)[::2]
    assert "contiguous" in str(error_of(serreg.deserialize, strided))
