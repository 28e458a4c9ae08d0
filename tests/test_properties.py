"""Property tests: any nested value round-trips type-exact, and serializes deterministically."""

from hypothesis import given, settings

import serreg
from serreg.codec import scan

from strategies import values
from values import assert_same


def assert_exact(actual, expected, path="value"):
    # assert_same handles lists, dicts, arrays; sets/frozensets compare by ==, with their type.
    if isinstance(expected, (set, frozenset)):
        assert type(actual) is type(expected) and actual == expected, path
    elif isinstance(expected, dict):
        assert type(actual) is dict and list(actual) == list(expected), path
        for key in expected:
            assert_exact(actual[key], expected[key], f"{path}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert type(actual) is type(expected) and len(actual) == len(expected), path
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_exact(a, e, f"{path}[{i}]")
    elif isinstance(expected, bytearray):
        assert type(actual) is bytearray and actual == expected, path
    elif type(expected).__module__ == "numpy" and not hasattr(expected, "shape") or (
        hasattr(expected, "dtype") and expected.shape == () and type(expected).__name__ != "ndarray"
    ):
        assert type(actual) is type(expected) and actual.tobytes() == expected.tobytes(), path
    else:
        assert_same(actual, expected, path)


@settings(max_examples=300, deadline=None)
@given(values)
def test_nested_values_round_trip_in_process_and_through_frames(value):
    result = serreg.serialize(value)
    assert_exact(serreg.deserialize(result), value)
    frame = result.to_bytes()
    assert_exact(serreg.deserialize(frame), value)
    assert_exact(serreg.deserialize(bytearray(frame)), value)


@settings(max_examples=150, deadline=None)
@given(values)
def test_serialization_is_deterministic(value):
    assert serreg.serialize(value).to_bytes() == serreg.serialize(value).to_bytes()


@settings(max_examples=300, deadline=None)
@given(values)
def test_compiled_and_pure_python_scans_agree(value):
    types = (bytearray, memoryview)
    assert scan.holds_any_python(value, types) == scan.holds_any(value, types)
    assert scan.holds_any_python(value, (tuple,)) == scan.holds_any(value, (tuple,))
