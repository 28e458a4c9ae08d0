"""Big ints (class ID ``int`` beyond 64 bits, docs/FORMAT.md section 6.1) at their size limit and in Java.

A big int is a bin of two's-complement little-endian bytes, at most 2**27 - 1 of them: every value of
that many bytes fits a Java BigInteger, whose constructor threw (a catch-all's refusal) on a bin of
2**28 bytes, and a JavaScript BigInt (V8 holds fewer than 2**30 bits). Writers refuse a longer int and readers a longer bin, with the same words in Python and Java.
The Java reader named a big int found where a struct's int field was in decimal digits, which cost
time quadratic in its length (a 1 MB int about 9 s a read); it names it by its bit length now.
"""

from __future__ import annotations

import time
from pathlib import Path

import msgpack
import pytest

import serreg
from serreg.standard import scalars
from serreg.wire.class_id import class_id_hash

JAVA_INT = Path(__file__).resolve().parent.parent / "java-compat" / "serreg-core" / "src" / "main" / "java" / "serreg" \
    / "standard" / "IntSerializer.java"


def int_frame(data: bytes) -> bytes:
    return serreg.SerializationResult(class_id_hash("int") + msgpack.packb(data)).to_bytes()


def test_the_limit_is_java_s_bigint_range_and_the_same_number_in_both_languages():
    assert scalars.MAX_INT_BYTES == 2**27 - 1
    assert "MAX_BYTES = (1 << 27) - 1;" in JAVA_INT.read_text()
    # A negative value of the most bytes has the largest magnitude: 2**30 - 8 bits, under V8's 2**30.
    assert (-(1 << (8 * scalars.MAX_INT_BYTES - 1))).bit_length() == 2**30 - 8


def test_a_bin_longer_than_the_limit_is_refused(monkeypatch):
    monkeypatch.setattr(scalars, "MAX_INT_BYTES", 70_000)  # past the compiled codec's own bin 16 fast path
    at_limit = bytes(69_999) + b"\x80"
    assert serreg.deserialize(int_frame(at_limit), trusted=False) == -(1 << (8 * 70_000 - 1))
    for trusted in (True, False):
        with pytest.raises(serreg.DeserializationError, match=r"a big int's bin holds 70001 bytes, more than 70000 "
                                                              r"\(docs/FORMAT.md, section 6.1\)"):
            serreg.deserialize(int_frame(at_limit + b"\x00"), trusted=trusted)


@pytest.mark.parametrize("nested", [False, True])
def test_an_int_longer_than_the_limit_is_not_written(nested):
    # Refused from its bit length, before its bytes are made (the compiled writer hands it to the serializer).
    too_long = 1 << (8 * scalars.MAX_INT_BYTES - 1)  # 2**27 bytes with its sign bit
    with pytest.raises(serreg.SerializationError, match=r"an int of 134217728 bytes is longer than a frame may carry "
                                                        r"\(134217727 bytes, docs/FORMAT.md, section 6.1\)"):
        serreg.serialize([too_long] if nested else too_long)


def _pair_frame(big: int, size: int) -> bytes:
    """A list of one shapes.Pair instance (ext 1) whose int64 field holds a nested big int of ``size`` bytes."""
    definition = msgpack.packb([["shapes.Pair", [["left", "str"], ["right", "int64"]]]])
    nested = msgpack.ExtType(0, class_id_hash("int") + msgpack.packb(big.to_bytes(size, "little", signed=True)))
    payload = b"\x93\x00" + msgpack.packb("a") + msgpack.packb(nested)
    in_band = class_id_hash("serreg.structs") + definition + class_id_hash("list") + b"\x91"
    return serreg.SerializationResult(in_band + msgpack.packb(msgpack.ExtType(1, payload))).to_bytes()


@pytest.fixture(scope="module")
def java_check(java_jar):
    from java_fixture import JavaProcess

    process = JavaProcess("check")
    yield process
    assert process.close() == 0


def test_a_big_int_of_a_megabyte_in_a_struct_int_field_is_refused_by_java_in_linear_time(java_check):
    frame = _pair_frame((1 << (8 * 1_000_000 - 9)) + 12345, 1_000_000)
    java_check.round_trip(_pair_frame(1 << 100, 13))  # the first read loads the classes
    started = time.perf_counter()
    answer = serreg.deserialize(java_check.round_trip(frame))
    seconds = time.perf_counter() - started
    lines = answer.split("\n")
    assert len(lines) == 2, answer
    for line in lines:  # trusted, then untrusted
        assert line.startswith("refused: shapes.Pair.right: the frame holds BigInteger of 7999992 bits in a field of "
                               "type int64"), line
        assert "byte offset" in line, line
    assert seconds < 3, seconds  # about 18 s before (decimal digits, twice)
