"""Hostile and mutated ext 2 payloads (struct columns, docs/FORMAT.md 10.3): compiled and pure codec alike.

Each frame of ``struct_list_frames.HOSTILE`` (and Hypothesis mutations of them and of written
lists) must give the same value or the same error from both codecs, trusted and untrusted, and
under every depth limit.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg
from serreg.codec import COMPILED

from strategies import mutations
from struct_list_frames import HOSTILE
from struct_registries import COMPILED_REGISTRY, PURE_REGISTRY, Frozen, outcome
from struct_shapes import Point, tree, widths

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec is not built (or SERREG_PURE_PYTHON=1)")


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("trusted", [True, False])
def test_hostile_ext_2_payloads_give_the_same_answer_from_both_codecs(name, trusted):
    frame = HOSTILE[name]
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=trusted))


@pytest.mark.parametrize("max_depth", [1, 2, 3, 10])
def test_max_depth_counts_lists_of_structs_alike(max_depth):
    frames = [HOSTILE["a point"], COMPILED_REGISTRY.serialize([tree(), tree()]).to_bytes(),
              COMPILED_REGISTRY.serialize([[Point(1, 2, 3)] * 3]).to_bytes()]
    for frame in frames:
        limits = serreg.Limits(max_depth=max_depth)
        compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=False, limits=limits))
        assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=False, limits=limits))


FRAMES = sorted(HOSTILE.values()) + [COMPILED_REGISTRY.serialize(v).to_bytes() for v in (
    [Point(i, -i, 2**40) for i in range(5)], [widths()] * 2, [Frozen(1, 2.5, "x"), Frozen(2, None, "")], [tree()])]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations(FRAMES), st.booleans())
def test_mutated_ext_2_frames_give_the_same_value_or_the_same_error(frame, trusted):
    compiled = outcome(lambda: COMPILED_REGISTRY.deserialize(frame, trusted=trusted))
    assert compiled == outcome(lambda: PURE_REGISTRY.deserialize(frame, trusted=trusted))
