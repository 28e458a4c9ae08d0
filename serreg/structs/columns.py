"""The columns of an ext 2 list of struct instances, to and from their bytes (docs/FORMAT.md, 10.3).

An integer column is a bin: one kind byte (``0x00``: every value >= 0, written
as an unsigned LEB128 varint; ``0x01``: some value < 0, every value written
as the varint of its zigzag form), then one varint per instance. A ``float64``
or ``float32`` column is a bin of the values' little-endian bit patterns, a
``bool`` column a bin of one byte (0 or 1) per instance. Every other field type
is a msgpack array column, which the list writer and reader handle themselves.

Encoders take values already checked against the field's type; decoders check
everything and raise :class:`ColumnError` saying what is wrong and at which
byte of the column, which the list reader turns into a DeserializationError
naming the struct, the field and the offset.
"""

from __future__ import annotations

import re
import struct

__all__ = [
    "BIN_COLUMN_KINDS", "ColumnError", "bin_header", "decode_bools", "decode_floats", "decode_ints",
    "encode_bools", "encode_float32", "encode_float64", "encode_ints",
]

# Field kinds written as a bin column (every other kind is an array column).
BIN_COLUMN_KINDS = frozenset((
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "bool",
))
_UNSIGNED_KIND = 0x00
_ZIGZAG_KIND = 0x01
_FLOAT_SIZES = {"float64": (8, "d"), "float32": (4, "f")}
_VARINT = re.compile(rb"[\x80-\xff]*[\x00-\x7f]")
_MAX_VARINT_BYTES = 10


class ColumnError(ValueError):
    """A column's bytes are not what its field type allows; ``at`` is the byte of the column."""

    def __init__(self, message: str, at: int) -> None:
        super().__init__(message)
        self.message = message
        self.at = at


def bin_header(size: int) -> bytes:
    """The msgpack header of a bin of ``size`` bytes."""
    if size < 256:
        return bytes((0xC4, size))
    if size < 65536:
        return b"\xc5" + size.to_bytes(2, "big")
    return b"\xc6" + size.to_bytes(4, "big")


# ---------------------------------------------------------------------------------- writing


def encode_ints(values: list[int]) -> bytes:
    """An integer column's bytes (kind byte and varints) of values already in their field's range."""
    if not values or min(values) >= 0:
        if max(values, default=0) < 0x80:
            return b"\x00" + bytes(values)
        return b"\x00" + _varints(values)
    zigzag = [(v << 1) if v >= 0 else ((-v) << 1) - 1 for v in values]
    if max(zigzag) < 0x80:
        return b"\x01" + bytes(zigzag)
    return b"\x01" + _varints(zigzag)


def _varints(values: list[int]) -> bytes:
    out = bytearray()
    append = out.append
    for value in values:
        while value >= 0x80:
            append((value & 0x7F) | 0x80)
            value >>= 7
        append(value)
    return bytes(out)


def encode_float64(values: list[float]) -> bytes:
    """A ``float64`` column: each value's binary64 bit pattern, little-endian."""
    return struct.pack(f"<{len(values)}d", *values)


def encode_float32(values: list[float]) -> bytes:
    """A ``float32`` column of values that are binary32 values already (each rounds to itself)."""
    return struct.pack(f"<{len(values)}f", *values)


def encode_bools(values: list[bool]) -> bytes:
    """A ``bool`` column: one byte per value, 0 or 1."""
    return bytes(values)


# ---------------------------------------------------------------------------------- reading


def decode_ints(data: bytes, count: int, low: int, high: int) -> list[int]:
    """The ``count`` values of an integer column whose field holds ``low`` ... ``high``."""
    if not data:
        raise ColumnError("an integer column needs its kind byte", 0)
    kind = data[0]
    if kind not in (_UNSIGNED_KIND, _ZIGZAG_KIND):
        raise ColumnError(f"kind byte 0x{kind:02x} (an integer column's is 0x00 or 0x01)", 0)
    if kind == _ZIGZAG_KIND and low >= 0:
        raise ColumnError("kind byte 0x01 (zigzag) in a column of an unsigned type", 0)
    body = data[1:]
    if len(body) == count and (not body or max(body) < 0x80):
        raw = list(body)  # every varint one byte: below 0x80, in every integer type's range unsigned
        if kind == _UNSIGNED_KIND:
            return raw
    else:
        raw = _read_varints(body, count)
    if kind == _ZIGZAG_KIND:
        values = [(v >> 1) ^ -(v & 1) for v in raw]
        if min(values) >= 0:
            raise ColumnError("kind byte 0x01 (zigzag) in a column without a negative value", 0)
        out_of_range = min(values) < low or max(values) > high
    else:
        values = raw
        out_of_range = bool(values) and max(values) > high  # every value >= 0 >= low
    if out_of_range:
        bad = next(i for i, v in enumerate(values) if not low <= v <= high)
        raise ColumnError(f"value {bad} of the column is {values[bad]}, outside {low} ... {high}", 1)
    return values


def _read_varints(body: bytes, count: int) -> list[int]:
    """``count`` minimal unsigned LEB128 varints filling ``body`` exactly (offsets count the kind byte).

    A regular expression splits the varints (continuation bytes, then one byte below 0x80); a table
    gives the value of each of one or two bytes, and works out (and checks) a longer or non-minimal one."""
    if body and body[-1] >= 0x80:
        raise ColumnError("the column ends inside a varint", len(body))
    tokens = _VARINT.findall(body)
    if len(tokens) != count:
        raise ColumnError(f"the column holds {len(tokens)} values, the list {count}", 1 + len(body))
    try:
        return list(map(_short_varints().__getitem__, tokens))
    except _BadVarint as error:
        at = tokens.index(error.token)
        raise ColumnError(error.why, 1 + sum(map(len, tokens[:at]))) from None


class _BadVarint(Exception):
    def __init__(self, why: str, token: bytes) -> None:
        super().__init__(why)
        self.why = why
        self.token = token


class _Varints(dict[bytes, int]):
    """Every minimal varint of one or two bytes -> its value; any other is worked out (and not kept)."""

    def __missing__(self, token: bytes) -> int:
        if token[-1] == 0:
            raise _BadVarint("a varint that is not minimal (its last byte is 0x00)", token)
        if len(token) > _MAX_VARINT_BYTES or (len(token) == _MAX_VARINT_BYTES and token[-1] > 0x01):
            raise _BadVarint("a varint that does not fit 64 bits (more than 10 bytes, or a 10th byte above 0x01)",
                             token)
        value = 0
        for shift, byte in enumerate(token):
            value |= (byte & 0x7F) << (7 * shift)
        return value


_SHORT_VARINTS: list[_Varints] = []


def _short_varints() -> _Varints:
    """The table of the 16,384 minimal varints of one or two bytes (about 1 MB), made on first use."""
    if not _SHORT_VARINTS:
        table = _Varints({bytes((low,)): low for low in range(0x80)})
        table.update({bytes((0x80 | low, high)): low | (high << 7) for high in range(1, 0x80) for low in range(0x80)})
        _SHORT_VARINTS.append(table)
    return _SHORT_VARINTS[0]


def decode_floats(data: bytes, count: int, kind: str) -> list[float]:
    """The ``count`` values of a ``float64`` or ``float32`` column (exactly 8 or 4 bytes each)."""
    size, code = _FLOAT_SIZES[kind]
    if len(data) != size * count:
        raise ColumnError(f"a {kind} column of {count} values holds {size * count} bytes, not {len(data)}", 0)
    return list(struct.unpack(f"<{count}{code}", data))


def decode_bools(data: bytes, count: int) -> list[bool]:
    """The ``count`` values of a ``bool`` column (each byte 0 or 1)."""
    if len(data) != count:
        raise ColumnError(f"a bool column of {count} values holds {count} bytes, not {len(data)}", 0)
    if data.translate(None, b"\x00\x01"):
        at = next(i for i, b in enumerate(data) if b > 1)
        raise ColumnError(f"bool byte 0x{data[at]:02x} (a bool is 0x00 or 0x01)", at)
    return [b == 1 for b in data]
