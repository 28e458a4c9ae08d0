"""Large bytes copied out of a frame with streaming stores (``serreg/codec/_core_copy.h``).

``deserialize`` of a frame holding top-level bytes of at least ``stream_copy_threshold()`` bytes
(8 MiB where the CPU has AVX2) fills the new bytes object with streaming stores instead of
``memcpy``. These tests lower the threshold so that frames of every length around the
copy loop's 128-byte steps take that path, read from bytes (the one-buffer shape) and from
bytearray and memoryview frames (the general frame reader), and check the value byte for byte
against the one the ordinary copy makes. Compiled codec only: the pure one has no such copy.
"""

from __future__ import annotations

import pytest

import serreg
from serreg.codec import COMPILED
from serreg.codec.layout import BYTES_OUT_OF_BAND_THRESHOLD

pytestmark = pytest.mark.skipif(not COMPILED, reason="the streaming copy is the compiled codec's")

if COMPILED:
    from serreg.codec import _core


def pattern(size: int) -> bytes:
    # Every byte differs from its neighbours, so a chunk copied to the wrong place or left out shows.
    return bytes((i * 7 + i // 251) & 0xFF for i in range(size))


@pytest.fixture
def streaming():
    """The threshold lowered so that every out-of-band bytes value is copied with streaming stores."""
    threshold = _core.stream_copy_threshold()
    if threshold == 0:
        pytest.skip("no streaming copy on this CPU (no AVX2)")
    _core.stream_copy_threshold(1)
    try:
        yield
    finally:
        _core.stream_copy_threshold(-1)


LENGTHS = [BYTES_OUT_OF_BAND_THRESHOLD + k for k in (0, 1, 31, 32, 33, 127, 128, 129, 255, 256, 257, 300)]


@pytest.mark.parametrize("size", LENGTHS)
def test_frames_of_bytes_read_with_streaming_stores_equal_the_value(streaming, size):
    value = pattern(size)
    frame = serreg.serialize(value).to_bytes()
    for data in (frame, bytearray(frame), memoryview(frame)):
        made = serreg.deserialize(data)
        assert type(made) is bytes and made == value


def test_the_same_frame_read_both_ways_gives_the_same_bytes():
    value = pattern(BYTES_OUT_OF_BAND_THRESHOLD + 77)
    frame = serreg.serialize(value).to_bytes()
    _core.stream_copy_threshold(0)  # never: PyBytes_FromStringAndSize's copy
    try:
        plain = serreg.deserialize(frame)
        if _core.stream_copy_threshold(1) == 0:
            pytest.skip("no streaming copy on this CPU (no AVX2)")
        streamed = serreg.deserialize(frame)
    finally:
        _core.stream_copy_threshold(-1)
    assert plain == streamed == value


def test_a_value_above_the_machines_threshold_round_trips():
    threshold = _core.stream_copy_threshold()
    value = pattern(256) * ((max(threshold, BYTES_OUT_OF_BAND_THRESHOLD) + 1000) // 256)
    assert serreg.deserialize(serreg.serialize(value).to_bytes()) == value


def test_the_threshold_is_read_set_and_restored():
    found = _core.stream_copy_threshold()
    assert found in (0, 8 << 20)
    try:
        assert _core.stream_copy_threshold(0) == 0
        assert _core.stream_copy_threshold(None) == 0
        assert _core.stream_copy_threshold(12345) == (12345 if found else 0)  # without AVX2 it stays off
    finally:
        assert _core.stream_copy_threshold(-1) == found
    with pytest.raises(ValueError, match="threshold must be -1 or more, got -2"):
        _core.stream_copy_threshold(-2)
    with pytest.raises(TypeError):
        _core.stream_copy_threshold(1, 2)
    assert _core.stream_copy_threshold() == found
