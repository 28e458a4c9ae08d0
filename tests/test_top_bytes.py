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
from serreg.result import python_to_bytes, with_class_hash
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


def _read(registry, frame, **options):
    try:
        return ("value", registry.deserialize(frame, **options))
    except Exception as error:  # noqa: BLE001  (the error is what is compared)
        return ("raised", type(error), str(error))


def _patched(frame: bytes, at: int, new: bytes) -> bytes:
    return frame[:at] + new + frame[at + len(new):]


def test_a_frame_of_large_bytes_is_read_as_the_full_path_reads_it():
    # The entry reads the frame to_bytes writes for large bytes (one buffer at 64, in-band: hash + nil) in one
    # check of that shape; anything else, and every limit and rule, as the full path (an option: the Python method).
    registry = serreg.Registry()
    frame = registry.serialize(LARGE).to_bytes()
    size = len(frame).to_bytes(8, "little")
    variants = [
        frame,
        _patched(frame, 60, b"\x01"),  # padding not zero
        _patched(frame, 63, b"\x80"),
        _patched(frame, 56, b"\xc2"),  # in-band: False, not nil
        _patched(frame, 48, b"\x00"),  # another ClassIDHash
        _patched(frame, 32, (128).to_bytes(8, "little")),  # the buffer elsewhere
        _patched(frame, 40, (len(LARGE) - 1).to_bytes(8, "little")),  # shorter than the rest of the frame
        _patched(frame, 24, (len(frame) + 1).to_bytes(8, "little")),  # total length wrong
        _patched(frame, 5, b"\x01"),  # a flag
        frame[:-1],
        frame + b"\x00",
        _patched(frame, 8, b"\x02"),  # two buffers
    ]
    assert frame[24:32] == size
    for variant in variants:
        for _ in range(2):
            assert _read(registry, variant) == _read(registry, variant, trusted=True)
    assert _read(registry, frame) == ("value", LARGE)


@pytest.mark.parametrize("limits", [dict(max_frame_size=len(LARGE)), dict(max_buffers=0), dict(max_depth=0),
                                    dict(max_frame_size=len(LARGE) + 64)])
def test_a_frame_of_large_bytes_keeps_the_registrys_limits(limits):
    frame = serreg.serialize(LARGE).to_bytes()
    registry = serreg.Registry(limits=serreg.Limits(**limits))
    for _ in range(2):
        assert _read(registry, frame) == _read(registry, frame, limits=registry.limits)


def test_a_frame_of_large_bytes_untrusted_signed_or_nested_takes_the_rules_of_its_call():
    registry = serreg.Registry(allowed_class_ids=())
    frame = registry.serialize(LARGE).to_bytes()
    registry.trusted = False
    for _ in range(2):
        assert _read(registry, frame) == _read(registry, frame, trusted=False)
        assert _read(registry, frame)[0] == "raised"
    registry.trusted = True
    signed = registry.serialize(LARGE, key=b"k" * 32).to_bytes()
    assert _read(registry, signed) == _read(registry, signed, trusted=True)
    assert registry.deserialize(signed, key=b"k" * 32) == LARGE

    class Outer:  # reads a large-bytes frame inside its own call: the outer call's rules
        def serialize(self, obj):
            return registry.serialize(obj.data).to_bytes()

        def deserialize(self, in_band, oob):
            return Holder(registry.deserialize(bytes(in_band)))

    registry.register_serializer("test.outer", Holder, Outer())
    boxed = registry.serialize(Holder(LARGE)).to_bytes()
    assert registry.deserialize(boxed).data == LARGE
    with pytest.raises(serreg.UntrustedClassIDError):
        registry.deserialize(boxed, trusted=False)
    registry.allow_class_ids("test.outer")
    with pytest.raises(serreg.UntrustedClassIDError):  # bytes is not allowed: the nested call refuses it
        registry.deserialize(boxed, trusted=False)


@pytest.mark.parametrize("in_band", [b"", b"\xc0", b"x" * 7, b"y" * 8, b"z" * 55, b"w" * 56, b"v" * 100])
def test_to_bytes_of_a_bytes_buffer_writes_the_python_methods_frame(in_band):
    for class_hash in (class_id_hash("bytes"), b"", b"abc"):
        result = with_class_hash(class_hash, in_band, LARGE)  # type: ignore[arg-type]  # the codec's stand-in
        expected = python_to_bytes(with_class_hash(class_hash, in_band, [memoryview(LARGE)]))
        assert result.to_bytes() == expected
        assert result._buffers is LARGE or not COMPILED  # the compiled method reads the stand-in as it is
