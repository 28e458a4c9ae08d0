"""Hostile instance arrays after the prefix the compiled implicit-struct reader published
(serreg/codec/_core_implicit_top.h): ``unpack_top`` steps aside and the full path refuses them in
the pure reader's words; Hypothesis mutations of a good instance array read as the pure reader
reads them; depth limits are those of the full path (docs/FORMAT.md 10.9).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg
from serreg.codec import COMPILED
from serreg.result import with_class_hash
from serreg.wire.class_id import class_id_hash

from implicit_entries import Point, in_band_of, outcome_of, warm
from implicit_shapes import PYOBJECTS, pure_registry

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec's entries")


def _tail_frame(frame: bytes, tail: bytes) -> bytes:
    """``frame``'s serreg.pyobjects section up to its instance array, then ``tail``."""
    in_band = in_band_of(frame)
    prefix = in_band[:len(in_band) - len(_instance_array(frame))]
    return with_class_hash(PYOBJECTS, prefix[8:] + tail, []).to_bytes()


def _instance_array(frame: bytes) -> bytes:
    """What follows the ClassIDHash of Point's definition: its instance array."""
    in_band = in_band_of(frame)
    return in_band[in_band.index(class_id_hash(f"serreg.pyobject:{Point.__module__}:Point")) + 8:]


HOSTILE_TAILS = {
    "too few fields": b"\x93\x00\x01\xa1a",
    "too many fields": b"\x95\x00\x01\xa1a\x90\xc0",
    "another definition": b"\x94\x01\x01\xa1a\x90",
    "bytes after the array": b"\x94\x00\x01\xa1a\x90\xc0",
    "cut short": b"\x94\x00\x01\xa1",
    "not UTF-8": b"\x94\x00\x01\xa2\xff\xfe\x90",
    "not an array": b"\x81\x00\x01",
    "an unknown ext": b"\x94\x00\x01\xa1a\xd4\x05\x00",
    "a nested value of an unknown class ID": b"\x94\x00\x01\xa1a\xc7\x09\x00" + b"\x01" * 8 + b"\xc0",
}


@pytest.mark.parametrize("name", HOSTILE_TAILS)
def test_a_hostile_instance_array_after_the_published_prefix_is_refused_in_the_full_paths_words(name):
    compiled, pure = serreg.Registry(), pure_registry()
    value = Point(1, "a", [])
    good = warm(compiled, value)
    warm(pure, value)
    assert _tail_frame(good, _instance_array(good)) == good
    frame = _tail_frame(good, HOSTILE_TAILS[name])
    assert compiled.codec.unpack_top(frame, (None, None)) is NotImplemented
    outcome = outcome_of(compiled, frame)
    assert outcome[0] != "value" and outcome == outcome_of(pure, frame)
    assert compiled.deserialize(good) == value  # the prefix still read in one call
    assert compiled.codec.unpack_top(good, (None, None)) == value


def _nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("max_depth", [1, 2, 3, 4, 6])
def test_depth_limits_are_those_of_the_full_path(max_depth):
    limits = serreg.Limits(max_depth=max_depth)
    compiled, pure = serreg.Registry(limits=limits), pure_registry()
    pure.limits = limits
    shallow = Point(0, "s", "flat")
    for registry in (compiled, pure):  # publishes the frame's prefix where it can be read at all
        for _ in range(2):
            outcome_of(registry, registry.serialize(shallow).to_bytes())
    for levels in range(0, 7):
        frame = compiled.serialize(Point(levels, "d", _nested(levels))).to_bytes()
        outcome = outcome_of(compiled, frame)
        assert outcome == outcome_of(pure, frame), (levels, outcome)
        read = compiled.codec.unpack_top(frame, (max_depth, None))
        assert (read is NotImplemented) == (outcome[0] != "value")


_GOOD_VALUE = Point(-3, "ü", [1.5, None, True, {"k": [b"x", (1, 2)]}, "z" * 40])
_COMPILED_FUZZ, _PURE_FUZZ = serreg.Registry(), pure_registry()
_GOOD_FRAME = warm(_COMPILED_FUZZ, _GOOD_VALUE)
warm(_PURE_FUZZ, _GOOD_VALUE)
_GOOD_TAIL = _instance_array(_GOOD_FRAME)


@st.composite
def _tails(draw: Any) -> bytes:
    """The good instance array mutated (bytes flipped, set, cut, inserted, deleted), or any bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(min_size=1, max_size=64))
    tail = bytearray(_GOOD_TAIL)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "set", "truncate", "insert", "delete"]))
        at = draw(st.integers(0, max(len(tail) - 1, 0)))
        if kind == "flip" and tail:
            tail[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set" and tail:
            tail[at] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del tail[max(at, 1):]
        elif kind == "insert":
            tail[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del tail[at:at + draw(st.integers(1, 8))]
    return bytes(tail) or b"\xc0"


@settings(max_examples=int(os.environ.get("SERREG_ENTRIES_EXAMPLES", "300")), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(_tails())
def test_mutated_instance_arrays_after_the_published_prefix_read_as_the_pure_reader_reads_them(tail):
    frame = _tail_frame(_GOOD_FRAME, tail)
    compiled, pure = _seen(outcome_of(_COMPILED_FUZZ, frame)), _seen(outcome_of(_PURE_FUZZ, frame))
    assert compiled == pure
    read = _COMPILED_FUZZ.codec.unpack_top(frame, (None, None))
    assert read is NotImplemented or _seen(("value", read)) == compiled


def _seen(outcome: Any) -> Any:
    """An outcome with its value as its type and repr (a NaN read back equals the other NaN)."""
    return ("value", type(outcome[1]), repr(outcome[1])) if outcome[0] == "value" else outcome
