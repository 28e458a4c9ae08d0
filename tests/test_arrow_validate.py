"""The whole-buffer checks of binary and string columns refuse exactly what Arrow's full validation refuses.

serreg/serializers/arrow_validate.py replaces pyarrow's value-by-value full
validation of binary and string columns read from a frame; here both are run
on the same mutated buffers (offsets, bytes, validity bits, declared null
counts) and must agree on every one, and frames carrying such columns are
refused or read back as before.
"""

from __future__ import annotations

import random

import msgpack
import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg.serializers.arrow_validate import counts_own_nulls, validate_fully
from serreg.wire.class_id import class_id_hash

TYPES = [pa.string(), pa.large_string(), pa.binary(), pa.large_binary()]


def outcome_of_pyarrow(arrow_type, length, buffers, nulls) -> bool:
    try:
        pa.Array.from_buffers(arrow_type, length, buffers, nulls, 0).validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def outcome_of_serreg(arrow_type, length, buffers, nulls) -> bool:
    try:
        validate_fully(pa.Array.from_buffers(arrow_type, length, buffers, -1 if nulls else 0, 0), nulls)
    except pa.ArrowInvalid:
        return False
    return True


def mutations(arrow_type, rng):
    values = ["ab", "", None, "héllo", "x" * 9, "€", None, "z"]
    if arrow_type in (pa.binary(), pa.large_binary()):
        values = [None if v is None else v.encode() for v in values]
    base = pa.array(values, arrow_type)
    validity, offsets, data = (bytearray(b.to_pybytes()) for b in base.buffers())
    for _ in range(400):
        v, o, d, nulls, length = bytearray(validity), bytearray(offsets), bytearray(data), base.null_count, len(base)
        for _ in range(rng.randint(1, 3)):
            target = rng.random()
            if target < 0.4:
                o[rng.randrange(len(o))] = rng.choice([0, 1, 2, 5, 0x7F, 0x80, 0xFF, rng.randrange(256)])
            elif target < 0.7 and d:
                d[rng.randrange(len(d))] = rng.choice([0x41, 0x80, 0xA9, 0xC3, 0xE2, 0xF0, 0xFF])
            elif target < 0.85:
                v[rng.randrange(len(v))] ^= 1 << rng.randrange(8)
            elif target < 0.95:
                nulls = rng.choice([0, 1, 2, 3])
            else:
                length = rng.choice([0, 1, len(base) - 1])
        yield length, [pa.py_buffer(bytes(v)), pa.py_buffer(bytes(o)), pa.py_buffer(bytes(d))], nulls


@pytest.mark.parametrize("arrow_type", TYPES, ids=str)
def test_whole_buffer_checks_agree_with_arrows_full_validation(arrow_type):
    assert counts_own_nulls(arrow_type)
    rng = random.Random(str(arrow_type))
    seen = set()
    for length, buffers, nulls in mutations(arrow_type, rng):
        expected = outcome_of_pyarrow(arrow_type, length, buffers, nulls)
        if not expected:
            try:  # refused by the cheap validation in from_buffers: the serreg side builds the same way
                pa.Array.from_buffers(arrow_type, length, buffers, -1 if nulls else 0, 0)
            except pa.ArrowInvalid:
                seen.add("cheap")
                continue
        assert outcome_of_serreg(arrow_type, length, buffers, nulls) == expected, (buffers, nulls)
        seen.add(expected)
    assert seen >= {True, False}, seen


def string_frame(arrow_type, length, nulls, buffers) -> bytes:
    schema = pa.schema([pa.field("s", arrow_type)]).serialize().to_pybytes()
    in_band = class_id_hash("ArrowTable") + msgpack.packb([schema, [[length, [[length, nulls, 3]]]]])
    return serreg.SerializationResult(in_band, [memoryview(b) for b in buffers]).to_bytes()


def offsets(values, dtype="<i4") -> bytes:
    return np.array(values, dtype=dtype).tobytes()


@pytest.mark.parametrize("trusted", [False, True])
def test_non_monotonic_offsets_are_refused_naming_the_slot(trusted):
    frame = string_frame(pa.string(), 2, 0, [b"", offsets([0, 3, 1]), b"abc"])
    with pytest.raises(serreg.DeserializationError, match="non-monotonic offset at slot 2"):
        serreg.deserialize(frame, trusted=trusted)


@pytest.mark.parametrize("trusted", [False, True])
def test_a_string_that_is_not_utf8_is_refused(trusted):
    frame = string_frame(pa.string(), 2, 0, [b"", offsets([0, 1, 2]), b"a\xff"])
    with pytest.raises(serreg.DeserializationError, match="UTF8"):
        serreg.deserialize(frame, trusted=trusted)
    # The same bytes in a binary column are a value.
    binary = string_frame(pa.binary(), 2, 0, [b"", offsets([0, 1, 2]), b"a\xff"])
    assert serreg.deserialize(binary, trusted=trusted).column(0).to_pylist() == [b"a", b"\xff"]


def test_a_character_split_between_two_strings_is_refused():
    # "é" is C3 A9: the whole data is valid UTF-8, neither value is.
    frame = string_frame(pa.string(), 2, 0, [b"", offsets([0, 1, 2]), "é".encode()])
    with pytest.raises(serreg.DeserializationError, match="UTF8"):
        serreg.deserialize(frame, trusted=False)


def test_a_declared_null_count_the_bitmap_does_not_have_is_refused():
    frame = string_frame(pa.large_string(), 2, 1, [b"\x03", offsets([0, 1, 2], "<i8"), b"ab"])
    with pytest.raises(serreg.DeserializationError, match="null_count"):
        serreg.deserialize(frame, trusted=False)


def test_the_bytes_of_a_null_string_are_not_checked_as_utf8_as_in_pyarrow():
    # A null slot's bytes are not a value: pyarrow does not check their UTF-8, neither does serreg.
    frame = string_frame(pa.string(), 2, 1, [b"\x01", offsets([0, 1, 2]), b"a\xff"])
    assert serreg.deserialize(frame, trusted=False).column(0).to_pylist() == ["a", None]


def test_a_sliced_array_gets_pyarrows_full_validation():
    array = pa.array(["a", "é", None, "b"]).slice(1)
    validate_fully(array, array.null_count)
    broken = pa.Array.from_buffers(pa.string(), 3, [None, pa.py_buffer(offsets([0, 1, 2, 4])),
                                                    pa.py_buffer(b"ab\xff\xfe")], 0, 0).slice(1)
    with pytest.raises(pa.ArrowInvalid, match="UTF8"):
        validate_fully(broken, 0)


def test_string_columns_read_back_equal_ascii_or_not():
    table = pa.table({"a": ["x", None, "", "yz"], "b": ["é", "漢字", None, "🙂"],
                      "c": pa.array(["q", "r", None, "s"], pa.large_string())})
    back = serreg.deserialize(serreg.serialize(table).to_bytes(), trusted=False)
    assert back.equals(table)
    assert back.column("a").null_count == 1
