"""The canonical form (docs/FORMAT.md, section 9): one frame per value, whatever its history.

Properties over generated values, the refusals, and the digest; the standard types, numpy
arrays and Arrow tables: test_canonical_standard_types.py, test_canonical_numpy.py,
test_canonical_arrow.py."""

import hashlib

import msgpack
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import serreg
from serreg.wire.frame import FrameView

from canonical_frames import canonical
from histories import rehistory
from strategies import canonical_values, plain_values


def plain_equal(a, b) -> bool:
    """Equality of plain_values under the canonical rules: exact types, == for leaves."""
    if type(a) is not type(b):
        return False
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(plain_equal(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(plain_equal(a[k], b[k]) for k in a)
    return a == b


# ---------------------------------------------------------------------- properties


@settings(max_examples=300, deadline=None)
@given(canonical_values, st.randoms(use_true_random=False))
def test_equal_values_with_other_histories_have_one_frame_and_digest(value, rnd):
    other = rehistory(value, rnd)
    assert canonical(other) == canonical(value)
    assert serreg.digest(other) == serreg.digest(value)


@settings(max_examples=300, deadline=None)
@given(canonical_values)
def test_canonical_frames_deserialize_normally_and_are_stable(value):
    frame = canonical(value)
    back = serreg.deserialize(frame)
    assert type(back) is type(value)
    assert canonical(back) == frame  # reading and writing again changes nothing
    assert serreg.digest(value) == hashlib.sha256(frame).digest()


@settings(max_examples=500, deadline=None)
@given(plain_values, plain_values)
def test_digests_are_equal_exactly_when_values_are(a, b):
    assert (serreg.digest(a) == serreg.digest(b)) == plain_equal(a, b)


@settings(max_examples=200, deadline=None)
@given(plain_values, st.randoms(use_true_random=False))
def test_changing_any_leaf_changes_the_digest(value, rnd):
    changed = _change_one_leaf(value, rnd)
    assert not plain_equal(changed, value)
    assert serreg.digest(changed) != serreg.digest(value)


def _change_one_leaf(value, rnd):
    kind = type(value)
    if kind in (list, tuple) and value:
        i = rnd.randrange(len(value))
        items = list(value)
        items[i] = _change_one_leaf(items[i], rnd)
        return kind(items)
    if kind is dict and value:
        key = rnd.choice(sorted(value))
        return {**value, key: _change_one_leaf(value[key], rnd)}
    if kind in (list, tuple, dict):
        return kind([None]) if kind is not dict else {"": None}
    if value is None:
        return False
    if kind is bool:
        return not value
    if kind is int:
        return value + 1
    if kind is float:
        return value + 1 if abs(value) < 2**52 else 0.0
    return value + (b"x" if kind is bytes else "x")


# ---------------------------------------------------------------------- refusals


class Opaque:
    pass


def test_values_needing_the_fallback_are_refused_with_their_path():
    value = {"rows": [1, 2, {"x": Opaque()}]}
    with pytest.raises(serreg.CanonicalFormError) as caught:
        serreg.serialize(value, canonical=True)
    assert caught.value.path == 'obj["rows"][2]["x"]'
    assert "Opaque" in str(caught.value) and "serialize_canonical" in str(caught.value)
    with pytest.raises(serreg.CanonicalFormError):
        serreg.digest([np.array([object()])])
    # (Dictionary-encoded Arrow columns have a canonical form now: tests/test_arrow_corpus.py.)


def test_two_nan_keys_are_refused():
    with pytest.raises(serreg.CanonicalFormError, match="same canonical form"):
        serreg.digest({float("nan"): 1, float("nan"): 2})


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


class PlainPointSerializer(serreg.Serializer):
    def serialize(self, p):
        return serreg.SerializationResult(msgpack.packb([p.x, p.y]))

    def deserialize(self, in_band, oob):
        return Point(*msgpack.unpackb(in_band))


class CanonicalPointSerializer(PlainPointSerializer):
    def serialize_canonical(self, p):
        return serreg.SerializationResult(serreg.serialize([p.x, p.y], canonical=True).in_band_buffer)

    def deserialize(self, in_band, oob):
        if bytes(in_band[:8]) == serreg.serialize([]).in_band_buffer[:8]:
            return Point(*serreg.deserialize(serreg.SerializationResult(bytes(in_band))))
        return super().deserialize(in_band, oob)


def test_user_serializers_take_part_only_with_serialize_canonical():
    registry = serreg.Registry()
    registry.register_serializer("tests.Point", Point, PlainPointSerializer())
    with pytest.raises(serreg.CanonicalFormError, match="tests.Point"):
        registry.digest([Point(1, 2)])
    registry.register_serializer("tests.Point", Point, CanonicalPointSerializer())
    assert registry.digest([Point(-0.0, 2)]) == registry.digest([Point(0.0, 2)])
    back = registry.deserialize(registry.serialize([Point(1.5, 2)], canonical=True).to_bytes())
    assert (back[0].x, back[0].y) == (1.5, 2)


def test_digest_is_sha256_of_the_frame_and_normal_serialize_is_unchanged():
    value = {"b": [np.arange(3.0)], "a": pa.table({"x": [1, 2]})}
    assert serreg.digest(value) == hashlib.sha256(canonical(value)).digest()
    assert len(serreg.digest(value)) == 32
    ordered = serreg.serialize({"b": 1, "a": 2}).to_bytes()
    assert msgpack.unpackb(bytes(FrameView(ordered).in_band[8:])) == {"b": 1, "a": 2}
    assert list(msgpack.unpackb(bytes(FrameView(ordered).in_band[8:]))) == ["b", "a"]
