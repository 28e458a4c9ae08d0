"""``to_bytes`` of results with out-of-band buffers: written in C when every buffer is a memoryview of
contiguous bytes, by the Python method otherwise; the frames and the errors are the Python method's.
Runs on both codecs (with ``SERREG_PURE_PYTHON=1`` there is only the Python method)."""

from __future__ import annotations

import array

import numpy as np
import pytest

import serreg
from serreg import DeserializationError, SerializationError
from serreg.result import SerializationResult, python_to_bytes

PYTHON_TO_BYTES = python_to_bytes  # the Python method (compiled, SerializationResult.to_bytes is in C)


def _results() -> list[SerializationResult]:
    pattern = bytes(range(256)) * 40
    return [
        serreg.serialize(np.arange(1000.0)),
        serreg.serialize(np.arange(24, dtype=">i4").reshape(2, 3, 4)),
        serreg.serialize(pattern),
        serreg.serialize(bytearray(b"abc")),
        serreg.serialize({"a": np.arange(3.0), "b": pattern, "c": np.zeros(0)}),
        SerializationResult(b"in-band", [memoryview(b"x" * 70), memoryview(bytearray(5)), memoryview(b"")]),
        SerializationResult(None, [memoryview(b"only a buffer")]),
        SerializationResult(b"not views", [b"bytes", bytearray(b"bytearray")]),  # the Python method's way
        SerializationResult(b"cast", [memoryview(array.array("d", [1.5, 2.5])), memoryview(b"abcd").cast("B", (2, 2))]),
        SerializationResult(b"numpy", [memoryview(np.arange(4.0))]),
        SerializationResult(b"many", [memoryview(bytes([i]) * (7 * i)) for i in range(9)]),  # more views than kept on the stack
    ]


@pytest.mark.parametrize("index", range(len(_results())))
def test_frames_are_the_python_methods(index):
    result = _results()[index]
    frame = result.to_bytes()
    assert frame == PYTHON_TO_BYTES(result) and len(frame) == result.nbytes
    result.in_band_buffer  # joins the ClassIDHash into the in-band: the frame is the same
    assert result.to_bytes() == frame


def test_frames_follow_every_change_of_the_buffers():
    result = serreg.serialize(np.arange(100.0))
    frame = result.to_bytes()
    assert serreg.deserialize(frame).tolist() == list(range(100))
    result.out_of_band_buffers.append(memoryview(b"tail"))
    assert result.to_bytes() == PYTHON_TO_BYTES(result) != frame
    result.out_of_band_buffers = [memoryview(np.arange(100.0).view(np.uint8))]
    assert result.to_bytes() == frame


def test_buffers_the_python_method_refuses_are_refused_as_before():
    data = bytearray(range(10))
    released = memoryview(data)
    released.release()
    cases = [
        (memoryview(data)[::2], DeserializationError, "not contiguous"),
        (memoryview(np.array([object()])), SerializationError, "addresses of Python objects"),
        # Was Python's plain ValueError; a SerializationError naming the buffer since.
        (released, SerializationError, "out-of-band buffer {before} is a memoryview that was released"),
    ]
    for buffer, error, message in cases:
        for to_bytes in (SerializationResult.to_bytes, PYTHON_TO_BYTES):
            for before in (1, 6):  # (6: more views than kept on the stack)
                with pytest.raises(error, match=message.format(before=before)):
                    to_bytes(SerializationResult(b"x", [memoryview(b"fine")] * before + [buffer]))


def test_a_signed_result_with_buffers_is_signed():
    key = b"k" * 32
    result = serreg.serialize(np.arange(10.0), key=key)
    frame = result.to_bytes()
    assert frame == PYTHON_TO_BYTES(result) and len(frame) == result.nbytes
    assert frame != serreg.serialize(np.arange(10.0)).to_bytes()
    assert serreg.deserialize(frame, key=key).tolist() == list(range(10))
