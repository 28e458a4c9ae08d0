"""Hostile and mutated struct in-bands (ext 1, docs/FORMAT.md 10) read by the compiled codec and its pure twin.

Each frame of ``struct_hostile_in_bands`` (and Hypothesis mutations of them) must give the same
value or the same error (type and words) from both codecs, trusted and untrusted, and under
every depth limit.
"""

from __future__ import annotations

import decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg
from serreg.codec import COMPILED

from strategies import mutations
from struct_hostile_in_bands import FRAMES, HOSTILE
from struct_registries import COMPILED_REGISTRY, PURE_REGISTRY, outcome
from struct_shapes import Point, everything, tree

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("trusted", [True, False])
def test_hostile_struct_in_bands_give_the_same_answer_from_both_codecs(name, trusted):
    frame = HOSTILE[name]
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=trusted))


def test_extra_bytes_in_a_struct_payload_after_nested_values_are_refused_alike():
    # A frame Hypothesis found: 8 bytes spliced over a float of a map field and the array header of
    # the next field ([1, 2, 3]) end the instance array 56 bytes before its ext 1 payload does, after
    # the nested values of earlier fields were decoded; the pure reader's words depended on its
    # msgpack reader, the compiled reader's were "malformed at byte 138, after nested values".
    frame = bytearray(COMPILED_REGISTRY.serialize([everything(), tree()]).to_bytes())
    assert frame[509:517] == b"\x00" * 7 + b"\x93"
    frame[509:517] = b"SREG\x01\x00\x00\x00"
    for trusted in (True, False):
        compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(bytes(frame), trusted=trusted))
        assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(bytes(frame), trusted=trusted))
        assert compiled == ("error", "DeserializationError", "invalid msgpack in-band data: 56 bytes of extra data after "
                            "the value, which ends at byte 134 of 190 (class ID 'list', byte offset 600, inside serreg.structs)")


def test_ext2_after_a_nested_value_reads_alike():
    frame = PURE_REGISTRY.serialize({"a": decimal.Decimal("1.5"), "b": [Point(1, 2, 3), Point(4, 5, 6)]}).to_bytes()
    assert outcome(lambda: COMPILED_REGISTRY.deserialize(frame)) == outcome(lambda: PURE_REGISTRY.deserialize(frame))


@pytest.mark.parametrize("max_depth", [1, 2, 3, 10, 64])
def test_max_depth_counts_struct_instances_alike(max_depth):
    for name in ("structs inside structs", "structs 200 deep", "a point", "point of 17 fields"):
        frame = HOSTILE[name]
        limits = serreg.Limits(max_depth=max_depth)
        compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=False, limits=limits))
        assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=False, limits=limits))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations(FRAMES), st.booleans())
def test_mutated_struct_frames_give_the_same_value_or_the_same_error(frame, trusted):
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=trusted))
