"""Property: a mutated frame decodes to a value or raises DeserializationError, never anything else.

Bounded (a few hundred examples) so it runs in the normal suite; the atheris
target in fuzz/ does the long, coverage-guided version of the same search.
"""

import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg

from samples import all_values

KEY = b"m" * 32


def _frames():
    for value in all_values():
        yield serreg.serialize(value).to_bytes()
        try:
            yield serreg.serialize(value, canonical=True).to_bytes()
        except serreg.SerregError:  # no canonical form (docs/FORMAT.md 9)
            pass


FRAMES = [f for f in _frames() if len(f) < 20_000]
SIGNED = [serreg.serialize(v, key=KEY).to_bytes() for v in all_values()[:12]]


@st.composite
def mutations(draw, frames):
    frame = bytearray(draw(st.sampled_from(frames)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "set", "truncate", "insert", "delete", "u64", "u32", "splice"]))
        position = draw(st.integers(0, max(len(frame) - 1, 0)))
        if kind == "flip" and frame:
            frame[position] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set" and frame:
            frame[position] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del frame[position:]
        elif kind == "insert":
            frame[position:position] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "delete":
            del frame[position:position + draw(st.integers(1, 16))]
        elif kind in ("u64", "u32") and len(frame) >= 32:
            # Header and table fields: counts, lengths and offsets.
            size = 8 if kind == "u64" else 4
            field = draw(st.sampled_from([8, 16, 24, 32, 40, 48, 56]))
            if field + size <= len(frame):
                value = draw(st.sampled_from([0, 1, 7, 63, 64, 2**31, 2**32 - 1, len(frame), len(frame) + 1]))
                struct.pack_into("<Q" if size == 8 else "<I", frame, field, value % (1 << (8 * size)))
        elif kind == "splice":
            other = draw(st.sampled_from(frames))
            start = draw(st.integers(0, len(other)))
            frame[position:position + 8] = other[start:start + 8]
    return bytes(frame)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations(FRAMES), st.booleans())
def test_mutated_frames_give_a_value_or_a_deserialization_error(frame, trusted):
    try:
        value = serreg.deserialize(frame, trusted=trusted)
    except serreg.DeserializationError as error:
        assert str(error)
        return
    serreg.serialize(value)


@settings(max_examples=150, deadline=None)
@given(mutations(SIGNED))
def test_mutated_signed_frames_never_decode_with_the_key(frame):
    if frame in SIGNED:
        return
    try:
        serreg.deserialize(frame, key=KEY)
    except serreg.DeserializationError:
        return
    raise AssertionError("an altered signed frame was decoded")
