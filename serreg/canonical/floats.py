"""Canonical floats: -0.0 written as 0.0 and every NaN as one quiet NaN (docs/FORMAT.md, section 9.2).

Shared by the canonical writers of the standard types and of the plug-ins
(numpy arrays and scalars, Arrow columns).
"""

from __future__ import annotations

from typing import Any

import struct

__all__ = ["CANONICAL_NAN_BITS", "canonical_float", "canonical_float_bits", "normalize_float_array", "pack_float"]

# The one NaN of the canonical form, per float width (quiet, sign clear, payload 0).
CANONICAL_NAN_BITS = {2: 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}
_FLOAT64_ZERO = b"\xcb" + bytes(8)
_FLOAT64_NAN = b"\xcb" + CANONICAL_NAN_BITS[8].to_bytes(8, "big")

# Elements checked per step: small enough to stay in cache, large enough for numpy to be quick.
_FLOAT_CHECK_CHUNK = 1 << 16


_NAN: float = struct.unpack(">d", CANONICAL_NAN_BITS[8].to_bytes(8, "big"))[0]


def canonical_float(value: float) -> float:
    """``value`` with -0.0 made 0.0 and every NaN the canonical NaN (msgpack packs its bits as they are)."""
    if value != value:
        return _NAN
    if value == 0.0:
        return 0.0
    return value


def pack_float(value: float) -> bytes:
    """msgpack float 64 with -0.0 written as 0.0 and every NaN as the canonical quiet NaN."""
    if value != value:
        return _FLOAT64_NAN
    if value == 0.0:
        return _FLOAT64_ZERO
    return struct.pack(">Bd", 0xCB, value)


def canonical_float_bits(bits: int, width: int) -> int:
    """The canonical bit pattern for an IEEE float of ``width`` bytes given as an unsigned int."""
    exponent_bits = {2: 5, 4: 8, 8: 11}[width]
    mantissa_bits = 8 * width - 1 - exponent_bits
    sign = 1 << (8 * width - 1)
    exponent_mask = ((1 << exponent_bits) - 1) << mantissa_bits
    if bits & exponent_mask == exponent_mask and bits & ((1 << mantissa_bits) - 1):
        return CANONICAL_NAN_BITS[width]
    if bits == sign:
        return 0
    return bits


def normalize_float_array(values: Any) -> Any:
    """Return ``values`` (a 1-d C-contiguous little-endian numpy float array) with -0.0
    made 0.0 and every NaN made the canonical NaN; the same array when nothing changes."""
    import numpy as np  # only ever given numpy arrays, so numpy is installed

    width = values.dtype.itemsize
    bits_type = np.dtype(f"<u{width}")
    bits = values.view(bits_type)
    negative_zero = bits_type.type(1 << (8 * width - 1))
    canonical_nan = bits_type.type(CANONICAL_NAN_BITS[width])
    for start in range(0, values.size, _FLOAT_CHECK_CHUNK):
        chunk_bits = bits[start : start + _FLOAT_CHECK_CHUNK]
        nan = np.isnan(values[start : start + _FLOAT_CHECK_CHUNK])
        if (chunk_bits == negative_zero).any() or (nan.any() and (chunk_bits[nan] != canonical_nan).any()):
            break
    else:
        return values
    fixed = values.copy()
    fixed_bits = fixed.view(bits_type)
    fixed_bits[fixed_bits == negative_zero] = 0
    fixed_bits[np.isnan(fixed)] = canonical_nan
    return fixed
