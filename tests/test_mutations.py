"""Property: a mutated frame decodes to a value or raises DeserializationError, never anything else.

Bounded (a few hundred examples) so it runs in the normal suite; the atheris
target in fuzz/ does the long, coverage-guided version of the same search.
"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import serreg

from samples import all_values
from strategies import mutations

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
