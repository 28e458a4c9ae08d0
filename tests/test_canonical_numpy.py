"""The canonical form of numpy arrays and scalars (docs/FORMAT.md, section 9): one frame per
layout and byte order, -0.0 and NaN normalized without touching the input, odd bool bytes, no
copy of a C-contiguous little-endian array, different values differ."""

import struct

import msgpack
import numpy as np
import pytest

import serreg
from serreg.wire.frame import FrameView

from canonical_frames import canonical, in_band


@pytest.mark.parametrize("dtype", ["?", "i1", "<i2", ">i4", "<u8", "<f2", ">f4", "<f8", ">c8", "<c16"])
def test_array_layouts_have_one_frame(dtype):
    base = (np.arange(24) % 5).astype(dtype).reshape(2, 3, 4)
    little = base.astype(base.dtype.newbyteorder("<"))
    variants = [
        base,
        np.asfortranarray(base),
        base.astype(base.dtype.newbyteorder(">")),
        np.repeat(base, 2, axis=2)[:, :, ::2],
        np.ascontiguousarray(base.transpose(2, 1, 0)).transpose(2, 1, 0),
    ]
    frames = {canonical(v) for v in variants}
    assert len(frames) == 1
    meta = msgpack.unpackb(in_band(variants[1]))
    assert meta == [little.dtype.str, [2, 3, 4], "C"]
    back = serreg.deserialize(frames.pop())
    assert back.dtype == little.dtype and np.array_equal(back, base)


def test_float_arrays_normalize_zero_and_nan_without_touching_the_input():
    a = np.array([0.0, -0.0, np.nan, 1.5, -np.nan])
    a[4] = np.frombuffer(struct.pack("<Q", 0xFFF0000000000123), dtype="<f8")[0]
    before = a.tobytes()
    assert canonical(a) == canonical(np.array([0.0, 0.0, np.nan, 1.5, np.nan]))
    assert a.tobytes() == before
    buffer = FrameView(canonical(a)).buffers[0]
    assert bytes(buffer[8:16]) == bytes(8)
    assert bytes(buffer[16:24]) == struct.pack("<Q", 0x7FF8000000000000)


def test_half_and_complex_arrays_and_scalars():
    half = np.array([-0.0, np.nan], dtype="<f2")
    half.view("<u2")[1] = 0xFE01  # negative signaling-looking NaN
    assert canonical(half) == canonical(np.array([0.0, np.nan], dtype="<f2"))
    assert canonical(np.complex64(complex(-0.0, 1))) == canonical(np.complex64(complex(0.0, 1)))
    assert canonical(np.float32(-0.0)) == canonical(np.float32(0.0))
    assert canonical(np.float16(-0.0)) == canonical(np.float16(0.0))
    assert canonical(np.float16(1)) != canonical(np.float16(0.0))
    nan32 = np.frombuffer(struct.pack("<I", 0xFFC00001), dtype="<f4")[0]
    assert canonical(nan32) == canonical(np.float32("nan"))


def test_bool_arrays_made_from_other_bytes():
    odd = np.array([0, 2, 255, 1], dtype=np.uint8).view(np.bool_)
    assert canonical(odd) == canonical(np.array([False, True, True, True]))


def test_c_contiguous_little_endian_arrays_are_not_copied():
    array = np.arange(1000, dtype=np.float64)
    result = serreg.serialize(array, canonical=True)
    assert np.shares_memory(np.asarray(result.out_of_band_buffers[0]), array)


def test_array_values_differ():
    base = np.arange(6, dtype=np.int32)
    assert canonical(base) != canonical(base.astype(np.int64))
    assert canonical(base) != canonical(base.reshape(2, 3))
    changed = base.copy()
    changed[5] = 7
    assert canonical(base) != canonical(changed)
