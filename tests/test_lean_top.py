"""The short way of ``serialize`` for small dicts and lists of plain leaves gives what the full entry gives.

With the compiled codec, ``registry.serialize(value)`` first tries a writer for small
dicts and lists of ASCII str, 64-bit int, float, bool and None (``_core_lean.h``), and
falls back to the codec's top-level entry for anything else. A call with an option
(``cross_language=False``) goes through the Python method, which never takes the short
way: each test compares the two, byte for byte and part for part, on values at every
edge of what the short way takes. The module runs on both codecs.
"""

from __future__ import annotations

import pytest

import serreg

EDGES = [
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
