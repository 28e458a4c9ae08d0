"""The compiled codec against its pure-Python twin: same bytes, same values, same errors.

A registry built on the pure codec (``serreg.codec.pure``) and the default
one (the compiled codec when it is built) serialize hypothesis values to the
same frames, read them back equal, and answer mutated frames with the same
value or the same error, trusted and untrusted. The rest of the suite runs
over the compiled codec; ``test_pure_python_backend.py`` runs its key modules
again with ``SERREG_PURE_PYTHON=1``.
"""

from __future__ import annotations

import datetime
import decimal
import threading
from unittest import mock

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg
import serreg.registry
from serreg.codec import BACKEND, COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import class_id_hash
from serreg.wire import frame as wire_frame
from serreg.wire.frame import frame_pieces

from call_outcomes import outcome_written_by
from samples import all_values
from strategies import mutations, values

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")

COMPILED_REGISTRY = serreg.Registry()
with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
    PURE_REGISTRY = serreg.Registry()


def outcome(call):
    """What a call gives: ("value", its frame under the pure registry) or ("error", type, message)."""
    return outcome_written_by(PURE_REGISTRY, call)


def test_the_registries_run_different_codecs():
    assert BACKEND == "compiled"
    assert type(COMPILED_REGISTRY.codec) is not PureMsgpackCodec
    assert type(PURE_REGISTRY.codec) is PureMsgpackCodec


@settings(max_examples=300, deadline=None)
@given(values)
def test_both_codecs_write_the_same_frames_and_read_them_back_alike(value):
    frame = COMPILED_REGISTRY.serialize(value).to_bytes()
    assert frame == PURE_REGISTRY.serialize(value).to_bytes()
    # (Arrays read from bytes come back read-only, which their frame says: compare the readers.)
    for data in (frame, bytearray(frame)):
        compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(data))
        assert compiled[0] == "value" and compiled == outcome(lambda: PURE_REGISTRY.deserialize(data))
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(COMPILED_REGISTRY.serialize(value)))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(PURE_REGISTRY.serialize(value))) == ("value", frame)


FRAMES = [f for f in (serreg.serialize(v).to_bytes() for v in all_values()) if len(f) < 20_000] + [
    # Tuples and sets of more than 1,024 in-band bytes after nested values: walked first in untrusted mode.
    serreg.serialize([decimal.Decimal("1.5"), (b"x" * 600, decimal.Decimal("2"), "y" * 500, [[[1]]])]).to_bytes(),
    serreg.serialize(({decimal.Decimal("3"), "s" * 1100}, frozenset({b"z" * 1100, 7}))).to_bytes(),
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations(FRAMES), st.booleans())
def test_mutated_frames_give_the_same_value_or_the_same_error(frame, trusted):
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
    pure = outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=trusted))
    assert compiled == pure


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations(FRAMES), st.sampled_from([None, 0, 3, 100_000]), st.sampled_from([None, 64, 4 * 2**30]))
def test_compiled_and_pure_frame_readers_agree(frame, max_buffers, max_frame_size):
    assert wire_frame.parse_frame is not wire_frame.parse_frame_python
    for data in (frame, bytearray(frame)):
        expected = wire_frame.parse_frame_python(data, max_frame_size, max_buffers)
        assert wire_frame.parse_frame(data, max_frame_size, max_buffers) == expected


@settings(max_examples=200, deadline=None)
@given(values)
def test_compiled_and_pure_frame_writers_agree(value):
    assert wire_frame.join_frame is not wire_frame.join_frame_python
    result = serreg.serialize(value)
    parts = [result.in_band_buffer]
    buffers = [memoryview(b).cast("B") for b in result.out_of_band_buffers]
    assert wire_frame.join_frame(parts, buffers) == wire_frame.join_frame_python(parts, buffers) == result.to_bytes()


def frame_of(class_id: str, in_band: bytes) -> bytes:
    pieces, _ = frame_pieces([class_id_hash(class_id), in_band], [])
    return b"".join(pieces)


def nested_ext(class_id: str, in_band: bytes) -> msgpack.ExtType:
    return msgpack.ExtType(0, class_id_hash(class_id) + in_band)


DECIMAL_EXT = msgpack.packb(nested_ext("decimal", b"\xa10"))  # a nested value, decoded by its serializer

HOSTILE = {
    "truncated array": frame_of("list", b"\x93\x01\x02"),
    "array claims more than it holds": frame_of("list", b"\xdd\xff\xff\xff\xff\x01"),
    "nested arrays each claim much": frame_of("list", b"\xdc\xff\xff" * 200 + b"\xc0"),
    "1,025 nested arrays": frame_of("list", b"\x91" * 1025 + b"\xc0"),
    "1,024 nested arrays": frame_of("list", b"\x91" * 1023 + b"\xc0"),
    "trailing byte": frame_of("list", b"\x90\x00"),
    "ext -1 timestamp": frame_of("list", b"\x91\xd6\xff\x00\x00\x00\x01"),
    "reserved ext type": frame_of("list", b"\x91\xd4\x05\x00"),
    "short ext payload": frame_of("list", b"\x91\xd5\x00\x01\x02"),
    "invalid utf-8": frame_of("list", b"\x91\xa2\xff\xfe"),
    "lone surrogate": frame_of("list", b"\x91\xa3\xed\xa0\x80"),
    # After a nested value (a decimal, decoded by its serializer): refused in C, not decoded again.
    "invalid utf-8 after a nested value": frame_of("list", b"\x92" + msgpack.packb(nested_ext("decimal", b"\xa10")) + b"\xa2\xff\xfe"),
    "lone surrogate key after a nested value": frame_of("dict", b"\x82\xa1k" + msgpack.packb(nested_ext("decimal", b"\xa10")) + b"\xa3\xed\xa0\x80\x01"),
    "cut-short utf-8 value after a nested value": frame_of("dict", b"\x82\xa1k" + msgpack.packb(nested_ext("decimal", b"\xa10")) + b"\xa1v\xa3a\xe2\x82"),
    "invalid utf-8 in a tuple after a nested value": frame_of("list", b"\x92" + msgpack.packb(nested_ext("decimal", b"\xa10")) + msgpack.packb(nested_ext("tuple", b"\x91\xd9\x02\xff\xfe"))),
    "unhashable key": frame_of("dict", b"\x81\x90\x01"),
    "tuple of a map": frame_of("list", msgpack.packb([nested_ext("tuple", msgpack.packb({1: 2}))])),
    "tuple with trailing bytes": frame_of("list", msgpack.packb([nested_ext("tuple", b"\x90\x00")])),
    "empty tuple payload": frame_of("list", msgpack.packb([nested_ext("tuple", b"")])),
    "datetime out of range": frame_of("list", msgpack.packb([nested_ext("datetime", msgpack.packb([2024, 13, 1, 0, 0, 0, 0, 0, None]))])),
    "datetime fold 2": frame_of("list", msgpack.packb([nested_ext("datetime", msgpack.packb([2024, 1, 1, 0, 0, 0, 0, 2, None]))])),
    "date with a str": frame_of("list", msgpack.packb([nested_ext("date", msgpack.packb([2024, "1", 1]))])),
    "timedelta beyond range": frame_of("list", msgpack.packb([nested_ext("timedelta", msgpack.packb([10**9, 0, 0]))])),
    "empty big int": frame_of("list", msgpack.packb([nested_ext("int", msgpack.packb(b""))])),
    "uuid of 15 bytes": frame_of("list", msgpack.packb([nested_ext("uuid", msgpack.packb(b"x" * 15))])),
    "set of lists": frame_of("list", msgpack.packb([nested_ext("set", msgpack.packb([[1]]))])),
    "pickle inside a tuple": frame_of("list", msgpack.packb([nested_ext("tuple", msgpack.packb([nested_ext("serreg.pickle5", b"\x80\x05N.")]))])),
    "unknown class inside a tuple": frame_of("tuple", msgpack.packb([nested_ext("no.such.class", b"\xc0")])),
    # Untrusted, a tuple or set of more than 1,024 in-band bytes is walked before any of it is read, also
    # after nested values (then refused with the walk's words, not "malformed ..., after nested values").
    "tuple of 1,100 bytes cut short after a nested value": frame_of("list", msgpack.packb([
        nested_ext("decimal", b"\xa10"), nested_ext("tuple", b"\x93\xc5\x04\x00" + b"b" * 1024 + b"\xdc\x00\x05\x01")])),
    "tuple of 1,100 bytes: a nested value, then cut short": frame_of("list", msgpack.packb([nested_ext(
        "tuple", b"\x93" + msgpack.packb(nested_ext("decimal", b"\xa10")) + b"\xc5\x04\x00" + b"b" * 1024 + b"\x91")])),
    "set of 1,100 bytes holding 0xc1 after a nested value": frame_of("list", msgpack.packb([
        nested_ext("decimal", b"\xa10"), nested_ext("set", b"\x92\xc5\x04\x00" + b"b" * 1024 + b"\xc1")])),
    "frozenset 1,025 deep after a nested value": frame_of("list", msgpack.packb([
        nested_ext("decimal", b"\xa10"), nested_ext("frozenset", b"\x91" * 1025 + b"\xc0")])),
    "tuple of an empty array 1,025 deep after a nested value": frame_of("list", msgpack.packb([
        nested_ext("decimal", b"\xa10"), nested_ext("tuple", b"\x91" * 1024 + b"\x90")])),
    "tuple 1,025 deep, then cut short, after a nested value": frame_of("list", msgpack.packb([
        nested_ext("decimal", b"\xa10"), nested_ext("tuple", b"\xdd\x00\x01\x00\x00" + b"\x91" * 1100)])),
    # msgpack's nesting limit after a nested value, and an empty array past it (msgpack counts it too).
    "1,025 nested arrays after a nested value": frame_of("list", b"\x92" + msgpack.packb(nested_ext("decimal", b"\xa10")) + b"\x91" * 1024 + b"\xc0"),
    "an empty array 1,025 deep": frame_of("list", b"\x91" * 1024 + b"\x90"),
    "an empty map 1,025 deep": frame_of("list", b"\x91" * 1024 + b"\x80"),
    # Keys and members that are not hashable, after nested values; in trusted mode msgpack puts each
    # pair into its dict as it is read, so an earlier unhashable key is refused before a later fault.
    "unhashable map key after a nested value": frame_of("dict", b"\x82\xa1k" + DECIMAL_EXT + b"\x91\x01\x01"),
    "unhashable set member after a nested value": frame_of("list", b"\x92" + DECIMAL_EXT + msgpack.packb(nested_ext("set", b"\x92\x01\x91\x01"))),
    "unhashable frozenset member after a nested value inside": frame_of("list", b"\x91" + msgpack.packb(nested_ext("frozenset", b"\x92" + DECIMAL_EXT + b"\x81\x01\x02"))),
    "70 map keys, one unhashable, after a nested value": frame_of("dict", b"\xde\x00\x46" + b"".join(msgpack.packb(f"k{i}") + b"\x01" for i in range(68)) + b"\xa1k" + DECIMAL_EXT + b"\x91\x01\x01"),
    "70 set members, one unhashable, after a nested value": frame_of("list", b"\x92" + DECIMAL_EXT + msgpack.packb(nested_ext("set", b"\xdc\x00\x46" + bytes(range(69)) + b"\x91\x01"))),
    "unhashable key, a nested value, then invalid utf-8": frame_of("dict", b"\x83\x91\x01\x01\xa1k" + DECIMAL_EXT + b"\xa1a\xa2\xff\xfe"),
    "unhashable key, then invalid utf-8 in a tuple": frame_of("dict", b"\x83\xa1k" + DECIMAL_EXT + b"\x91\x01\x01\xa1t" + msgpack.packb(nested_ext("tuple", b"\x91\xa2\xff\xfe"))),
    # A timestamp (ext -1) after nested values: msgpack refuses a bad one at once; the pure codec refuses a
    # good one when the document holding it ends (the tuple's, for one inside a tuple), after any fault first.
    "a timestamp after a nested value": frame_of("list", b"\x92" + DECIMAL_EXT + b"\xd6\xff\x00\x00\x00\x01"),
    "a timestamp after a nested value, then invalid utf-8": frame_of("list", b"\x93" + DECIMAL_EXT + b"\xd6\xff\x00\x00\x00\x01\xa2\xff\xfe"),
    "a timestamp of 999,999,999+ nanoseconds after a nested value": frame_of("list", b"\x92" + DECIMAL_EXT + b"\xc7\x0c\xff" + b"\xff" * 4 + b"\x00" * 8),
    "a 64-bit timestamp of 999,999,999+ nanoseconds after a nested value": frame_of("list", b"\x92" + DECIMAL_EXT + b"\xd7\xff" + b"\xff" * 8),
    "a timestamp in a tuple after a nested value": frame_of("list", b"\x92" + DECIMAL_EXT + msgpack.packb(nested_ext("tuple", b"\x91\xd6\xff\x00\x00\x00\x01"))),
    "a timestamp as a tuple's in-band after a nested value": frame_of("list", b"\x92" + DECIMAL_EXT + msgpack.packb(nested_ext("tuple", b"\xd6\xff\x00\x00\x00\x01"))),
    "a timestamp in a set beside a list after a nested value": frame_of("list", b"\x92" + DECIMAL_EXT + msgpack.packb(nested_ext("set", b"\x92\xd6\xff\x00\x00\x00\x01\x91\x01"))),
    "unhashable key, then a nested value that refuses its in-band": frame_of("dict", b"\x83\xa1k" + DECIMAL_EXT + b"\x91\x01\x01\xa1t" + msgpack.packb(nested_ext("decimal", b"\xa2zz"))),
}


def tuples(depth: int) -> bytes:
    in_band = b"\x90"
    for _ in range(depth - 1):
        in_band = b"\x91" + msgpack.packb(nested_ext("tuple", in_band))
    return frame_of("tuple", in_band)


HOSTILE["tuples 100 deep"] = tuples(100)
HOSTILE["tuples 101 deep"] = tuples(101)
# Keys whose hashes collide (-1 and -2 hash alike): refused in untrusted mode before the map is built.
COLLIDING = [tuple(-1 - ((i >> bit) & 1) for bit in range(8)) for i in range(200)]
HOSTILE["colliding keys"] = frame_of("dict", b"\xde" + len(COLLIDING).to_bytes(2, "big") + b"".join(
    msgpack.packb(nested_ext("tuple", msgpack.packb(list(key)))) + b"\x00" for key in COLLIDING))
HOSTILE["colliding set members"] = frame_of("set", msgpack.packb(
    [nested_ext("tuple", msgpack.packb(list(key))) for key in COLLIDING]))


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("trusted", [True, False])
def test_hostile_in_bands_give_the_same_answer_from_both_codecs(name, trusted):
    frame = HOSTILE[name]
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=trusted))
    if name.startswith("colliding") and not trusted:
        assert compiled[:2] == ("error", "LimitExceededError")


def test_values_the_writer_refuses_are_refused_alike():
    deep = None
    for _ in range(1100):
        deep = [deep]
    looped: list = []
    looped.append(looped)
    for value in (["\ud800"], {"k": ("\udfff",)}):
        assert outcome(lambda: COMPILED_REGISTRY.serialize(value)) == outcome(lambda: PURE_REGISTRY.serialize(value))
    # Too deep: the pure codec's message depends on whether Python's recursion limit or
    # msgpack's nesting limit comes first (how deep the caller's stack already is).
    for value in (deep, looped):
        compiled = outcome(lambda: COMPILED_REGISTRY.serialize(value))
        assert compiled == ("error", "SerializationError", "value is nested more than 1024 levels deep or contains itself (at obj)")
        assert outcome(lambda: PURE_REGISTRY.serialize(value))[:2] == compiled[:2]


def test_a_user_serializer_for_a_standard_type_is_used_inside_values():
    registry = serreg.Registry()

    class Days:
        def serialize(self, obj):
            return serreg.SerializationResult(msgpack.packb(obj.toordinal()))

        def deserialize(self, in_band, oob):
            return datetime.date.fromordinal(msgpack.unpackb(in_band))

    value = [datetime.date(2024, 5, 6), (datetime.date(2020, 1, 1),)]
    standard = registry.serialize(value).to_bytes()
    registry.register_serializer("days", datetime.date, Days())
    frame = registry.serialize(value).to_bytes()
    assert frame != standard and class_id_hash("days") in frame and class_id_hash("date") not in frame
    assert registry.deserialize(frame) == value
    registry.unregister_serializer("days")
    assert registry.serialize(value).to_bytes() == standard


def tuple_of_depth(depth: int) -> tuple:
    value: tuple = ()
    for _ in range(depth - 1):
        value = (value,)
    return value


def test_deep_values_are_read_and_written_in_a_thread_with_a_256_kib_stack():
    # msgpack-python's writer recurses in C once per level: the pure codec overflows such a
    # stack writing these (so the compiled codec never hands it a value this deep).
    deep = None
    for _ in range(1023):
        deep = [deep]
    too_deep = [deep, [deep]]
    frame = serreg.serialize(deep).to_bytes()
    results = []

    def work():
        results.append(serreg.serialize(serreg.deserialize(frame)).to_bytes())
        results.append(serreg.deserialize(tuples(100)))
        results.append(serreg.serialize(deep).to_bytes())
        try:
            serreg.serialize(too_deep)
        except serreg.SerializationError as error:
            results.append(str(error))

    previous = threading.stack_size(256 * 1024)
    try:
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(previous)
    assert len(results) == 4
    assert results[0] == frame and results[2] == frame and results[1] == tuple_of_depth(100)
    assert "levels deep or contains itself" in results[3]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_plain_only_unpack_answers_alike(name):
    from serreg.result import NO_BUFFERS

    in_band = HOSTILE[name][40:]
    answers = []
    for codec in (COMPILED_REGISTRY.codec, PURE_REGISTRY.codec):
        try:
            value = codec.unpack(in_band, NO_BUFFERS, True)
        except serreg.SerregError as error:
            answers.append((type(error).__name__, str(error)))
        else:
            answers.append(value if value is NotImplemented else PURE_REGISTRY.serialize(value).to_bytes())
    assert answers[0] == answers[1]
