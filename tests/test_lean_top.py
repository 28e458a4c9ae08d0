"""The short way of ``serialize`` for small dicts and lists of plain leaves gives what the full entry gives.

With the compiled codec, ``registry.serialize(value)`` first tries a writer for small
dicts and lists of ASCII str, 64-bit int, float, bool and None (``_core_lean.h``), and
falls back to the codec's top-level entry for anything else. A call with an option
(``cross_language=False``) goes through the Python method, which never takes the short
way: each test compares the two, byte for byte and part for part, on values at every
edge of what the short way takes. The module runs on both codecs.
"""

from __future__ import annotations

import gc
import sys

import pytest

import serreg

def _with_holes() -> dict[str, int]:
    holes = {f"k{i}": i for i in range(8)}
    for i in (0, 3, 7):
        del holes[f"k{i}"]  # deleted entries in the table the short way walks
    return holes


class _Attrs:
    def __init__(self) -> None:
        self.x, self.y = 1, "two"


EDGES = [
    _with_holes(),
    vars(_Attrs()),  # an instance's dict: a table shared by its class, values apart
    {},
    [],
    {"a": 1, "b": 2.5, "c": "hello", "d": [1, 2, 3], "e": True},
    {"x" * 31: "y" * 31, "z" * 32: "w" * 32},  # fixstr and str8
    {str(i): i for i in range(15)},  # fixmap
    {str(i): i for i in range(16)},  # map16
    list(range(15)),
    list(range(16)),
    [0, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63 - 1],
    [-1, -32, -33, -128, -129, -32768, -32769, -(2**31), -(2**31) - 1, -(2**63)],
    [0.0, -0.0, 1.5, float("inf"), 1e300],
    [None, True, False, "", [], {}],
    {1: "int key", 2.5: "float key", None: "none key", True: "bool key"},
    [[[[[[[["deep"]]]]]]]],  # 8 lists: past the short way's depth
    [[[[[[["seven"]]]]]]],
    {"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}},
    ["x" * 100] * 4,  # about 400 bytes
    ["x" * 100] * 5,  # past 512 bytes
    ["x" * 500],
    ["x" * 600],
    {"k": "é"},  # not ASCII: the full entry
    {"k": (1, 2)},  # a tuple: the full entry
    [2**64],  # beyond 64 bits
    {"t": b"bytes"},
    [{"a": [1, {"b": None}]}] * 3,
]


def _full(registry: serreg.Registry, value: object) -> serreg.SerializationResult:
    return registry.serialize(value, cross_language=False)  # an option: the Python method, never the short way


@pytest.mark.parametrize("value", EDGES, ids=lambda v: repr(v)[:40])
def test_the_short_way_writes_what_the_full_entry_writes(value):
    registry = serreg.Registry()
    for _ in range(3):  # the short way skips calls after a value it does not take: each call is checked
        short, full = registry.serialize(value), _full(registry, value)
        assert type(short) is serreg.SerializationResult
        assert short.to_bytes() == full.to_bytes()
        assert bytes(short.in_band_buffer) == bytes(full.in_band_buffer)
        assert short.out_of_band_buffers == [] and not short.signed and short.nbytes == full.nbytes
        assert repr(short) == repr(full)
        assert registry.deserialize(short) == value and registry.deserialize(short.to_bytes()) == value


def test_values_alternate_between_the_short_way_and_the_full_entry():
    registry = serreg.Registry()
    small, other = {"a": [1, 2, 3]}, {"a": (1, 2, 3)}
    small_frame, other_frame = _full(registry, small).to_bytes(), _full(registry, other).to_bytes()
    for i in range(200):  # misses make the short way skip calls; hits bring it back
        value, frame = (small, small_frame) if i % 3 else (other, other_frame)
        assert registry.serialize(value).to_bytes() == frame


class Upper:
    """A serializer for str that writes it upper-cased."""

    def serialize(self, obj):
        return obj.upper().encode()

    def deserialize(self, in_band, oob):
        return bytes(in_band).decode()


def test_a_native_type_taken_over_is_written_by_its_serializer():
    registry = serreg.Registry()
    value = {"k": "low"}
    before = registry.serialize(value).to_bytes()
    registry.register_serializer("test.upper", str, Upper())
    for _ in range(3):  # the first call after a change reads the new tables; the next ones find them read
        after = registry.serialize(value)
        assert after.to_bytes() == _full(registry, value).to_bytes() != before
        assert registry.deserialize(after) == {"K": "LOW"}  # keys are str too
    registry.unregister_serializer("test.upper")
    for _ in range(3):
        assert registry.serialize(value).to_bytes() == before


def test_a_dict_subclass_is_not_a_dict():
    class Ordered(dict):
        pass

    registry = serreg.Registry()
    value = Ordered(a=1)
    assert registry.serialize(value).to_bytes() == _full(registry, value).to_bytes()


def _frame(body: bytes, like: type = dict) -> bytes:
    """An unsigned frame without buffers whose in-band is like's ClassIDHash and then body."""
    section = serreg.serialize(like()).to_bytes()[32:40] + body
    size = len(section).to_bytes(8, "little")
    return b"SREG\x01\x00\x00\x00" + bytes(8) + size + (32 + len(section)).to_bytes(8, "little") + section


BODIES = [
    (b"\x80", dict),
    (b"\x90", list),
    (b"\x81\xa1a\x01", dict),
    (b"\x82\xa1a\x01\xa1a\x02", dict),  # a repeated key: the last one
    (b"\x92\xca\x3f\xc0\x00\x00\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00", list),  # float32, float64
    (b"\x98\xcc\xff\xcd\xff\xff\xce\xff\xff\xff\xff\xcf\xff\xff\xff\xff\xff\xff\xff\xff"
     b"\xd0\x80\xd1\x80\x00\xd2\x80\x00\x00\x00\xd3\x80\x00\x00\x00\x00\x00\x00\x00", list),  # every int width
    (b"\x93\xd9\x03abc\xda\x00\x03abc\xdb\x00\x00\x00\x03abc", list),  # str8, str16, str32
    (b"\xde\x00\x01\xa1k\xdc\x00\x01\xdd\x00\x00\x00\x01\xc0", dict),  # map16, array16, array32
    (b"\x81\x01\xc3", dict),  # an int key
    (b"\x81\x91\x01\x02", dict),  # a list as a key: refused
    (b"\x81\xa1a", dict),  # ends early
    (b"\x81\xa1a\x01\x00", dict),  # runs on
    (b"\x81\xa2\xff\xfe\x01", dict),  # a key that is not UTF-8
    (b"\x91\xa2\xc3\xa9", list),  # not ASCII
    (b"\x91\xc4\x01x", list),  # bin
    (b"\x91\xd4\x00\x00", list),  # an ext
    (b"\x91" * 9 + b"\x90", list),  # ten lists deep
    (b"\x91" * 6 + b"\x90", list),
    (b"\xdc\xff\xff", list),  # more items declared than bytes
    (b"\x81\xa1a\x01", list),  # a dict under the list's ClassIDHash
    (b"\x91\x01", dict),
    (b"\x92" + b"\xa1x" * 2, list),
]


def _read(registry: serreg.Registry, frame: object, **options: object) -> object:
    try:
        value = registry.deserialize(frame, **options)
    except Exception as error:  # noqa: BLE001  (the error is what is compared)
        return ("raised", type(error), str(error))
    return ("value", type(value), value)


@pytest.mark.parametrize("body,like", BODIES, ids=lambda v: repr(v)[:30])
def test_the_short_way_reads_what_the_full_path_reads(body, like):
    registry = serreg.Registry()
    frame = _frame(body, like)
    full = _read(registry, frame, trusted=True)  # an option: the Python method and the full decoder
    for _ in range(3):  # the first call parses the registry's limits; the next ones find them parsed
        assert _read(registry, frame) == full
    assert _read(registry, bytearray(frame)) == full


@pytest.mark.parametrize("max_depth", [0, 1, 2, None])
@pytest.mark.parametrize("max_frame_size", [40, 44, None])
def test_limits_hold_on_the_short_way(max_depth, max_frame_size):
    value = {"a": [1, {"b": [2]}]}
    for frame in (_full(serreg.Registry(), value).to_bytes(), _frame(b"\x81\xa1a\x91\x91\x01", dict)):
        registry = serreg.Registry(limits=serreg.Limits(max_depth=max_depth, max_frame_size=max_frame_size))
        full = _read(registry, frame, limits=registry.limits)
        for _ in range(3):
            assert _read(registry, frame) == full
        registry.limits = serreg.Limits()  # changed between calls: read again
        assert _read(registry, frame) == _read(registry, frame, limits=registry.limits)


def test_untrusted_and_nested_calls_take_the_full_path():
    registry = serreg.Registry(allowed_class_ids=())
    frame = registry.serialize({"a": 1}).to_bytes()
    assert registry.deserialize(frame) == {"a": 1}
    registry.trusted = False
    for _ in range(3):
        with pytest.raises(serreg.UntrustedClassIDError):
            registry.deserialize(frame)
    registry.trusted = True
    assert registry.deserialize(frame) == {"a": 1}

    seen = []

    class Outer:
        def serialize(self, obj):
            return registry.serialize(obj.inner).to_bytes()

        def deserialize(self, in_band, oob):
            seen.append(registry.deserialize(bytes(in_band)))  # nested: the outer call's rules
            return seen[-1]

    class Box:
        def __init__(self, inner):
            self.inner = inner

    registry.register_serializer("test.box", Box, Outer())
    boxed = registry.serialize(Box({"x": [1, 2]})).to_bytes()
    with pytest.raises(serreg.UntrustedClassIDError):
        registry.deserialize(boxed, trusted=False)
    registry.allow_class_ids("test.box")
    with pytest.raises(serreg.UntrustedClassIDError):  # dict is not allowed: the nested call refuses it
        registry.deserialize(boxed, trusted=False)
    assert registry.deserialize(boxed) == {"x": [1, 2]} and seen == [{"x": [1, 2]}]


def test_small_maps_of_one_shape_read_the_short_way_are_dicts_of_their_own():
    # From the third read of a map's keys on, the short way makes it a copy of a kept dict of those keys
    # (the decoder's map shapes): equal, in the frame's key order, tracked when a value may need it,
    # each dict its own, no reference kept or lost, and a repeated key after a kept shape: the last value.
    registry = serreg.Registry()
    values = [{"ka": 1, "kb": 2.5, "kc": "hello", "kd": [1, 2, 3], "ke": True}, {"kb": 1, "ka": 2}, {"ka": {"kb": None}}]
    frames = [_full(registry, value).to_bytes() for value in values]
    key, counts = next(iter(registry.deserialize(frames[0]))), []
    for _ in range(5):
        for value, frame in zip(values, frames):
            for got in (registry.deserialize(frame), registry.deserialize(registry.serialize(value))):
                assert got == value and list(got) == list(value)
                assert gc.is_tracked(got) == any(type(v) in (list, dict) for v in got.values())  # as CPython tracks
                got["ka"] = "changed"  # the next read is not this dict
        counts.append(sys.getrefcount(key))
    assert counts[2:] == [counts[2]] * 3  # the shapes kept by then: nothing kept or lost by reading
    repeated = _frame(b"\x82\xa2ka\x01\xa2ka\x02", dict)  # after the shape {"ka", "kb"} was kept
    assert _read(registry, repeated) == _read(registry, repeated, trusted=True) == ("value", dict, {"ka": 2})
