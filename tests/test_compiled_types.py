"""Time zones and sets written and read in place by the compiled codec, against the pure codec.

The C core writes datetime and time values with a ``datetime.timezone`` (UTC and
fixed offsets, named or not) and sets/frozensets of plain members itself, and
reads those forms back itself (serreg/codec/_core_types.h). These tests hold it to
the bytes, values and errors of the pure-Python codec, which stays the reference:
hypothesis values, the cases that must still go through the Python serializers
(zoneinfo, members of other types, user serializers registered for the types), and
hostile time zone forms.
"""

from __future__ import annotations

import datetime
import math
import zoneinfo
from unittest import mock

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import serreg
import serreg.registry
from serreg.codec import COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import frame_pieces

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")

COMPILED_REGISTRY = serreg.Registry()
with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
    PURE_REGISTRY = serreg.Registry()

DAY_US = 86_400_000_000

offsets = st.integers(min_value=-DAY_US + 1, max_value=DAY_US - 1).map(lambda us: datetime.timedelta(microseconds=us))
fixed_zones = st.one_of(
    st.just(datetime.timezone.utc),
    offsets.map(datetime.timezone),
    st.builds(datetime.timezone, offsets, st.text(max_size=80)),
    st.builds(lambda d: datetime.timezone(d, datetime.timezone(d).tzname(None)), offsets),  # the default name, given
)
zoned = st.one_of(
    st.datetimes(timezones=fixed_zones | st.none()),
    st.times(timezones=fixed_zones | st.none()),
    st.datetimes(timezones=st.sampled_from([zoneinfo.ZoneInfo("Europe/Paris"), zoneinfo.ZoneInfo("UTC")])),
)
members = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**65),  # both sides of 64 bits
    st.floats(),
    st.text(max_size=40),
    st.binary(max_size=40),
    st.tuples(st.integers(), st.text(max_size=3)),  # a member of another type: the serializer writes the set
)
sets = st.one_of(st.sets(members, max_size=8), st.frozensets(members, max_size=8))
documents = st.recursive(
    zoned | sets,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=12,
)


def frame_of(class_id: str, in_band: bytes) -> bytes:
    pieces, _ = frame_pieces([class_id_hash(class_id), in_band], [])
    return b"".join(pieces)


def outcome(registry, frame, trusted):
    try:
        value = registry.deserialize(frame, trusted=trusted)
    except serreg.SerregError as error:
        return ("error", type(error).__name__, str(error))
    return ("value", PURE_REGISTRY.serialize(value).to_bytes())


def same_value(a, b) -> bool:
    """Equal, with NaN set members equal to NaN."""
    if isinstance(a, (set, frozenset)):
        key = lambda v: ("nan",) if isinstance(v, float) and math.isnan(v) else v  # noqa: E731
        return type(a) is type(b) and {key(v) for v in a} == {key(v) for v in b}
    if isinstance(a, list):
        return type(b) is list and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return a == b and type(a) is type(b) and getattr(a, "tzinfo", None) == getattr(b, "tzinfo", None)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_zoned_values_and_sets_are_written_byte_for_byte_as_the_pure_codec_writes_them(value):
    frame = COMPILED_REGISTRY.serialize(value).to_bytes()
    assert frame == PURE_REGISTRY.serialize(value).to_bytes()
    back = COMPILED_REGISTRY.deserialize(frame)
    assert same_value(value, back)
    assert PURE_REGISTRY.serialize(back).to_bytes() == frame


def test_time_zone_names_and_offsets_come_back():
    minus = datetime.timezone(datetime.timedelta(hours=-5, microseconds=7), "EST-ish")
    values = [
        datetime.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc),
        datetime.datetime(2026, 1, 2, tzinfo=minus),
        datetime.datetime(2026, 1, 2, tzinfo=datetime.timezone(datetime.timedelta(hours=2), "UTC+02:00")),
        datetime.time(1, 2, 3, tzinfo=datetime.timezone(datetime.timedelta(hours=23, minutes=59), "n" * 200)),
        datetime.datetime(2026, 10, 25, 2, 30, fold=1, tzinfo=datetime.timezone(datetime.timedelta(hours=1))),
    ]
    for value in values * 3:  # again, through the time zones the codec keeps
        frame = COMPILED_REGISTRY.serialize(value).to_bytes()
        assert frame == PURE_REGISTRY.serialize(value).to_bytes()
        back = COMPILED_REGISTRY.deserialize(frame)
        assert back == value and back.tzinfo == value.tzinfo and back.tzname() == value.tzname()
        assert back.fold == value.fold


def test_sets_of_members_the_core_does_not_write_go_through_the_serializer_alike():
    class Text(str):
        pass

    for value in ({Text("a"), "b"}, {(1, 2), 3}, frozenset({2**70, 1}), {"\ud800"}, {datetime.date(2020, 1, 1)}):
        compiled = outcome_of_serialize(COMPILED_REGISTRY, value)
        assert compiled == outcome_of_serialize(PURE_REGISTRY, value)


def outcome_of_serialize(registry, value):
    try:
        return ("frame", registry.serialize(value).to_bytes())
    except serreg.SerregError as error:
        return ("error", type(error).__name__, str(error))


def test_user_serializers_for_set_datetime_and_str_still_take_priority():
    class Listed:
        def serialize(self, obj):
            return serreg.SerializationResult(msgpack.packb(sorted(obj, key=repr)))

        def deserialize(self, in_band, oob):
            return set(msgpack.unpackb(in_band))

    class Stamp:
        def serialize(self, obj):
            return serreg.SerializationResult(msgpack.packb(obj.isoformat()))

        def deserialize(self, in_band, oob):
            return datetime.datetime.fromisoformat(msgpack.unpackb(in_band))

    class Upper:
        def serialize(self, obj):
            return serreg.SerializationResult(msgpack.packb(obj.upper()))

        def deserialize(self, in_band, oob):
            return msgpack.unpackb(in_band).lower()

    zone = datetime.timezone(datetime.timedelta(hours=2))
    # set members are packed as top-level values by the set serializer: "loose" is the str the user's takes
    value = [{"x", "y"}, datetime.datetime(2026, 1, 2, tzinfo=zone), frozenset({"k"}), "loose"]
    for class_id, kind, serializer in (("my.set", set, Listed()), ("my.stamp", datetime.datetime, Stamp()),
                                       ("my.str", str, Upper())):
        compiled, pure = serreg.Registry(), None
        with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
            pure = serreg.Registry()
        for registry in (compiled, pure):
            registry.register_serializer(class_id, kind, serializer)
        frame = compiled.serialize(value).to_bytes()
        assert class_id_hash(class_id) in frame
        assert frame == pure.serialize(value).to_bytes()
        assert compiled.deserialize(frame) == pure.deserialize(frame) == value


def tz_frame(tz_form) -> bytes:
    in_band = msgpack.packb([msgpack.ExtType(0, class_id_hash("datetime") + msgpack.packb(
        [2026, 1, 2, 3, 4, 5, 6, 0, tz_form]))])
    return frame_of("list", in_band)


HOSTILE_ZONES = {
    "offset of a whole day": tz_frame([DAY_US, None]),
    "offset below a day": tz_frame([-DAY_US, None]),
    "offset beyond 64 bits": tz_frame([2**64 - 1, None]),
    "offset as a str": tz_frame(["7200", None]),
    "offset as a float": tz_frame([7.2e9, None]),
    "name as bytes": tz_frame([0, b"UTC"]),
    "name as an int": tz_frame([0, 5]),
    "three items": tz_frame([0, None, None]),
    "one item": tz_frame([0]),
    "unknown zone key": tz_frame("No/Such_Zone"),
    "zone key": tz_frame("Europe/Paris"),
    "name of invalid utf-8": frame_of("list", b"\x91" + msgpack.packb(msgpack.ExtType(
        0, class_id_hash("datetime") + b"\x99" + bytes([1, 1, 1, 0, 0, 0, 0, 0]) + b"\x92\x00\xa2\xff\xfe"))),
    "trailing byte after the zone": frame_of("list", b"\x91" + msgpack.packb(msgpack.ExtType(
        0, class_id_hash("datetime") + b"\x99" + bytes([1, 1, 1, 0, 0, 0, 0, 0]) + b"\x92\x00\xc0\xc0"))),
    "time with a zone of a whole day": frame_of("list", msgpack.packb([msgpack.ExtType(
        0, class_id_hash("time") + msgpack.packb([1, 2, 3, 4, 0, [DAY_US, "x"]]))])),
    "fold 2 with a zone": tz_frame([3600, None]).replace(b"\x00\x92", b"\x02\x92", 1),
    "colliding frozenset members": frame_of("frozenset", msgpack.packb(
        [msgpack.ExtType(0, class_id_hash("tuple") + msgpack.packb([-1 - ((i >> b) & 1) for b in range(8)]))
         for i in range(200)])),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_ZONES))
@pytest.mark.parametrize("trusted", [True, False])
def test_hostile_zone_forms_give_the_same_answer_from_both_codecs(name, trusted):
    frame = HOSTILE_ZONES[name]
    compiled = outcome(COMPILED_REGISTRY, frame, trusted)
    assert compiled == outcome(PURE_REGISTRY, frame, trusted)
    if name in ("offset of a whole day", "name as bytes", "three items"):
        assert compiled[0] == "error"
    if name == "colliding frozenset members" and not trusted:
        assert compiled[:2] == ("error", "LimitExceededError")
