"""The top-level entries of plain values (``serialize_top``, ``unpack_top``, ``join_section``).

``Registry.serialize`` and ``deserialize`` without options hand a plain value
(a dict, list, str ... of msgpack data) to the codec in one call. These tests
check that this changes nothing anyone can see: the same frames as the full
path, registrations and settings taking effect at once, every refusal of
untrusted mode, limits, signing and malformed frames still made, nested
calls still following the outer call. The module runs on both codecs
(``test_pure_python_backend.py`` runs it again with ``SERREG_PURE_PYTHON=1``).
"""

from __future__ import annotations

import datetime
import zoneinfo
import uuid
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg
import serreg.registry
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.standard import FALLBACK_CLASS_ID, PYOBJECTS_CLASS_ID
from serreg.wire import frame as wire_frame
from serreg.wire.class_id import class_id_hash

KEY = b"k" * 32

PLAIN = [
    {"a": 1, "b": 2.5, "c": "hello", "d": [1, 2, 3], "e": True},
    [],
    {},
    "text",
    b"bytes",
    2**64 - 1,
    -(2**63),
    1.5,
    True,
    None,
    list(range(1000)),
    [{"id": i, "name": f"user{i}", "tags": ["a", "b"]} for i in range(50)],
    {"x": [[[[]]]], "y": {"z": {}}},
    {i: str(i) for i in range(100)},
]
# Written and read in place by the compiled codec, inside a dict or list, or as the top-level value.
IN_PLACE = [
    (1, 2),
    (),
    ((1, "a"), [2.5]),
    2**70,
    -(2**80),
    datetime.datetime(2024, 1, 2, 3, 4, 5, 6),
    datetime.date(2024, 1, 2),
    datetime.time(1, 2, 3),
    datetime.timedelta(days=3, seconds=4),
    uuid.UUID(int=9),
    1 + 2j,
    [1, (2, 3)],
    {"when": datetime.datetime(2024, 1, 2, 3, 4, 5), "day": datetime.date(2024, 1, 2)},
    {"id": uuid.UUID(int=7), "t": (((1,),),)},
    [2**70, -(2**80)],
    {"s": {1, 2}},  # sets of plain members and datetime.timezone zones are written in place
    (1, {2}),
    {"when": datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc)},
    [datetime.time(1, 2, tzinfo=datetime.timezone(datetime.timedelta(hours=-3), "Here")), frozenset({"a", b"b"})],
]
# Not plain: each calls a serializer somewhere, or is not a dict, list, str ... at the top.
NOT_PLAIN = [
    {1, 2},  # a top-level set: its serializer
    frozenset({3}),
    {"s": {(1, 2)}},  # a set of tuples: its serializer sorts the members' bytes
    b"x" * 70_000,  # out of band
    (1, {2.5, (3,)}),
    bytearray(b"top"),
    {"when": datetime.datetime(2024, 1, 2, tzinfo=zoneinfo.ZoneInfo("Europe/Paris"))},  # a zoneinfo zone
]

plain_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | st.text() | st.binary(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
    max_leaves=30,
)


def pure_registry(**options):
    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        return serreg.Registry(**options)


REGISTRY = serreg.Registry()
PURE = pure_registry()


def full_path_frame(registry, value):
    # cross_language=True never takes the top-level entry; a plain value has nothing it changes.
    return registry.serialize(value, cross_language=True).to_bytes()


@pytest.mark.parametrize("value", PLAIN + IN_PLACE + NOT_PLAIN, ids=repr)
def test_frames_and_values_are_those_of_the_full_path(value):
    frame = REGISTRY.serialize(value).to_bytes()
    assert frame == full_path_frame(REGISTRY, value) == PURE.serialize(value).to_bytes()
    for data in (frame, bytearray(frame), memoryview(frame), REGISTRY.serialize(value)):
        assert REGISTRY.deserialize(data) == value
        assert type(REGISTRY.deserialize(data)) is type(value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_values)
def test_hypothesis_plain_values_round_trip_as_on_the_full_path(value):
    result = REGISTRY.serialize(value)
    assert result.to_bytes() == full_path_frame(REGISTRY, value) == PURE.serialize(value).to_bytes()
    assert REGISTRY.deserialize(result) == value
    assert PURE.deserialize(result.to_bytes()) == value


@pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")
def test_the_compiled_entries_take_plain_values_only():
    codec = REGISTRY.codec
    for value in PLAIN:
        result = codec.serialize_top(value)
        assert type(result) is serreg.SerializationResult and not result.signed
        assert result.to_bytes() == full_path_frame(REGISTRY, value)
        assert codec.unpack_top(result, (None, None)) == value
        assert codec.unpack_top(result.to_bytes(), (None, None)) == value
    for value in IN_PLACE:
        result = codec.serialize_top(value)
        assert result.to_bytes() == full_path_frame(REGISTRY, value)
        assert codec.unpack_top(result.to_bytes(), (None, None)) == value
        read = codec.unpack_top(result.to_bytes(), (1, None))
        assert read == value or read is NotImplemented
    for value in ([1, (2, 3)], ((1, "a"), [2.5])):  # a value two deep: max_depth=1 is the full path's to refuse
        frame = REGISTRY.serialize(value).to_bytes()
        assert codec.unpack_top(frame, (1, None)) is NotImplemented
        with pytest.raises(serreg.LimitExceededError):
            REGISTRY.deserialize(frame, limits=serreg.Limits(max_depth=1))
    for value in NOT_PLAIN:
        if type(value) is bytes:  # out of band: serialize_top writes it as its serializer does (test_top_bytes.py)
            continue
        assert codec.serialize_top(value) is NotImplemented
        frame = REGISTRY.serialize(value).to_bytes()
        read = codec.unpack_top(frame, (None, None))  # sets are read in place, though written by a serializer
        assert read is NotImplemented or (read == value and type(value) in (dict, tuple))
    with_buffer = codec.serialize_top([bytearray(b"abc")])  # written in place, its buffer out of band
    assert with_buffer.to_bytes() == full_path_frame(REGISTRY, [bytearray(b"abc")])
    assert [bytes(b) for b in with_buffer.out_of_band_buffers] == [b"abc"]
    assert codec.unpack_top(with_buffer, (None, None)) is NotImplemented  # buffers: the full path
    assert codec.unpack_top(with_buffer.to_bytes(), (None, None)) is NotImplemented
    assert REGISTRY.deserialize(with_buffer) == REGISTRY.deserialize(with_buffer.to_bytes()) == [bytearray(b"abc")]
    frame = REGISTRY.serialize({"a": 1}).to_bytes()
    assert codec.unpack_top(frame, None) is NotImplemented  # untrusted
    assert codec.unpack_top(frame, (0, None)) is NotImplemented  # max_depth=0 refuses the frame's value
    assert codec.unpack_top(frame, (None, len(frame) - 1)) is NotImplemented  # too large
    assert codec.unpack_top(frame, (None, len(frame))) == {"a": 1}
    assert codec.serialize_top("\ud800") is NotImplemented  # refused by the full path, with its message
    for value in (1, 2.5, b"ab", (1,), datetime.date(2024, 1, 2)):  # a top-level value is one level deep
        assert codec.unpack_top(codec.serialize_top(value), (0, None)) is NotImplemented


def test_pure_serialize_top_leaves_every_value_to_the_full_path():
    assert PURE.codec.serialize_top({"a": 1}) is NotImplemented
    assert PURE.codec.unpack_top(PURE.serialize({"a": 1}).to_bytes(), (None, None)) == {"a": 1}


class Tagged:
    """A serializer that marks what it wrote, to see which path ran."""

    def __init__(self, cls):
        self.cls = cls

    def serialize(self, obj):
        return b"T" + repr(obj).encode()

    def deserialize(self, in_band, oob):
        assert bytes(in_band[:1]) == b"T"
        return ("tagged", bytes(in_band[1:]).decode())


@pytest.mark.parametrize("make", [serreg.Registry, pure_registry])
def test_a_registration_takes_effect_at_the_next_call(make):
    registry = make()
    plain = registry.serialize({"a": "x"}).to_bytes()
    registry.register_serializer("test.dict", dict, Tagged(dict))
    assert registry.serialize({"a": "x"}).to_bytes() != plain
    assert registry.deserialize(registry.serialize({"a": "x"})) == ("tagged", "{'a': 'x'}")
    assert registry.deserialize(plain) == {"a": "x"}  # frames of the standard ID still read
    registry.unregister_serializer("test.dict")
    assert registry.serialize({"a": "x"}).to_bytes() == plain
    # A native type inside the value, taken over by a user serializer.
    registry.register_serializer("test.str", str, Tagged(str))
    assert registry.deserialize(registry.serialize({"a": "x"})) == {("tagged", "'a'"): ("tagged", "'x'")}
    assert registry.deserialize(registry.serialize({"a": "x"}).to_bytes()) == {("tagged", "'a'"): ("tagged", "'x'")}
    registry.unregister_serializer("test.str")
    assert registry.serialize({"a": "x"}).to_bytes() == plain


@pytest.mark.parametrize("make", [serreg.Registry, pure_registry])
def test_untrusted_mode_refuses_class_ids_outside_the_allow_list(make):
    registry = make(allowed_class_ids=())
    frame = registry.serialize({"a": 1}).to_bytes()
    assert registry.deserialize(frame) == {"a": 1}
    registry.trusted = False
    for data in (frame, registry.serialize({"a": 1}), memoryview(frame)):
        with pytest.raises(serreg.UntrustedClassIDError):
            registry.deserialize(data)
    registry.allow_class_ids("dict")
    assert registry.deserialize(frame) == {"a": 1}
    registry.trusted = True
    assert registry.deserialize(frame, trusted=True) == {"a": 1}
    with pytest.raises(serreg.UntrustedClassIDError):
        make(allowed_class_ids=()).deserialize(frame, trusted=False)


@pytest.mark.parametrize("make", [serreg.Registry, pure_registry])
def test_limits_apply_to_plain_frames(make):
    registry = make()
    frame = registry.serialize(list(range(100))).to_bytes()
    registry.limits = serreg.Limits(max_frame_size=len(frame) - 1)
    with pytest.raises(serreg.LimitExceededError):
        registry.deserialize(frame)
    registry.limits = serreg.Limits(max_depth=0)
    with pytest.raises(serreg.LimitExceededError):
        registry.deserialize(frame)
    registry.limits = serreg.Limits()
    assert registry.deserialize(frame) == list(range(100))
    with pytest.raises(serreg.LimitExceededError):
        registry.deserialize(frame, limits=serreg.Limits(max_frame_size=10))


@pytest.mark.parametrize("make", [serreg.Registry, pure_registry])
def test_signed_and_malformed_frames_are_checked_as_before(make):
    registry = make()
    signed = registry.serialize({"a": 1}, key=KEY)
    assert signed.signed and registry.deserialize(signed.to_bytes(), key=KEY) == {"a": 1}
    assert registry.deserialize(signed.to_bytes()) == {"a": 1}
    frame = registry.serialize({"a": 1}).to_bytes()
    with pytest.raises(serreg.SignatureError):
        registry.deserialize(frame, key=KEY)
    with pytest.raises(serreg.SignatureError):
        registry.deserialize(registry.serialize({"a": 1}), key=KEY)
    for broken, offset in ((frame[:-1], 24), (b"XREG" + frame[4:], 0), (frame[:20], 20)):
        with pytest.raises(serreg.DeserializationError) as caught:
            registry.deserialize(broken)
        assert caught.value.offset == offset
    bad_in_band = frame[:-1] + b"\xc1"  # a byte msgpack never uses
    with pytest.raises(serreg.DeserializationError, match="invalid msgpack"):
        registry.deserialize(bad_in_band)


@pytest.mark.parametrize("make", [serreg.Registry, pure_registry])
def test_a_nested_call_follows_the_outer_call(make):
    registry = make()
    inner = registry.serialize({"inner": 1}).to_bytes()

    class Box:
        pass

    seen = []

    def deserialize(in_band, oob):
        seen.append(registry.deserialize(bytes(in_band)))  # a plain frame, inside an untrusted call
        return Box()

    registry.register_serializer("test.box", Box, serialize=lambda box: inner, deserialize=deserialize)
    registry.allow_class_ids("test.box")
    registry.deserialize(registry.serialize(Box()).to_bytes(), trusted=True)
    assert seen == [{"inner": 1}]
    restricted = make(allowed_class_ids=())
    restricted.register_serializer("test.box", Box, serialize=lambda box: inner, deserialize=deserialize)
    restricted.allow_class_ids("test.box")
    registry = restricted
    seen.clear()
    with pytest.raises(serreg.UntrustedClassIDError):
        restricted.deserialize(restricted.serialize(Box()).to_bytes(), trusted=False)


@pytest.mark.parametrize("make", [serreg.Registry, pure_registry])
def test_values_not_plain_keep_their_paths_and_errors(make):
    registry = make()

    class Local:
        def __eq__(self, other):
            return type(other) is type(self)

    whole = registry.serialize({"a": [1, Local()]})
    # Not plain: the full path writes its plain object as an implicit struct (docs/FORMAT.md 10.9).
    assert bytes(whole.in_band_buffer[:8]) == class_id_hash(PYOBJECTS_CLASS_ID)
    assert registry.deserialize(whole)["a"] == [1, Local()]
    registry.configure_fallback(implicit_structs=False)
    whole = registry.serialize({"a": [1, Local()]})
    assert bytes(whole.in_band_buffer[:8]) == class_id_hash(FALLBACK_CLASS_ID)  # pickled whole
    assert registry.deserialize(whole)["a"][0] == 1
    errors = []
    for options in ({}, {"cross_language": True}):
        with pytest.raises(serreg.SerializationError) as caught:
            registry.serialize({"a": ["\ud800"]}, **options)
        errors.append((str(caught.value), caught.value.path))
    assert errors[0] == errors[1] and errors[0][1]
    with pytest.raises(serreg.CrossLanguageError):
        registry.serialize({"a": Local()}, cross_language=True)


def test_join_section_is_join_frame_of_the_pieces():
    for class_hash, in_band in ((b"12345678", b"\x80"), (None, b"12345678\x90"), (b"12345678", None),
                                (b"12345678", memoryview(b"abc")), (None, None)):
        parts = [p for p in (class_hash, in_band) if p is not None]
        expected = wire_frame.join_frame_python(parts, [])
        assert wire_frame.join_section(class_hash, in_band) == expected
        assert wire_frame.join_section_python(class_hash, in_band) == expected
    result = serreg.serialize({"a": 1})
    result.in_band_buffer = bytes(result.in_band_buffer)  # the hash no longer kept apart
    assert result.to_bytes() == serreg.serialize({"a": 1}).to_bytes()


@pytest.mark.parametrize("make", [serreg.Registry, pure_registry])
@pytest.mark.parametrize("value", [7, 2.5, b"ab", (1, 2), datetime.date(2024, 1, 2)], ids=repr)
def test_a_registration_for_a_top_level_type_takes_effect_at_the_next_call(make, value):
    registry = make()
    plain = registry.serialize(value).to_bytes()
    registry.register_serializer("test.override", type(value), Tagged(type(value)))
    assert registry.deserialize(registry.serialize(value)) == ("tagged", repr(value))
    assert registry.deserialize(registry.serialize(value).to_bytes()) == ("tagged", repr(value))
    assert registry.deserialize(plain) == value  # the standard class ID still reads
    registry.unregister_serializer("test.override")
    assert registry.serialize(value).to_bytes() == plain


def test_map_keys_read_again_are_the_same_text():
    # Many short keys (more than the compiled decoder keeps), long ones, non-ASCII ones; twice.
    value = {**{f"k{i}": i for i in range(3000)}, "x" * 40: 1, "é": 2, "日本": 3, "": 4}
    frame = REGISTRY.serialize([value, value]).to_bytes()
    for _ in range(2):
        first, second = REGISTRY.deserialize(frame)
        assert first == second == value
        assert [type(key) for key in first] == [str] * len(value)
    assert REGISTRY.deserialize(REGISTRY.serialize({"k1": "k1"}).to_bytes()) == {"k1": "k1"}
