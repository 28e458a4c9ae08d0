"""The mistakes a newcomer makes through the Python API, each answered by an error that says what and where.

Wrong arguments to ``deserialize``, frames cut short or from a newer format, serializers that return
the wrong types, registrations that cannot work. Runs on both codecs (test_pure_python_backend.py
runs it again with ``SERREG_PURE_PYTHON=1``).
"""

from __future__ import annotations

import io
import struct

import pytest

import serreg
from serreg import DeserializationError, SerializationError, SerializationResult, SerregError


def _frame() -> bytes:
    return serreg.serialize({"a": [1, 2, 3], "b": b"x" * 100}).to_bytes()


@pytest.mark.parametrize(
    "given, named",
    [("a str", "got str"), (None, "got NoneType"), (5, "got int"), ([1, 2], "got list"),
     (io.BytesIO(b"SREG"), "got _io.BytesIO")],
)
def test_deserialize_of_something_that_is_not_a_frame_names_what_it_got(given, named):
    with pytest.raises(DeserializationError, match="not a serreg frame: expected bytes") as caught:
        serreg.deserialize(given)
    assert named in str(caught.value)


def test_a_str_and_a_file_object_are_told_what_to_pass_instead():
    with pytest.raises(DeserializationError, match=r"serreg\.load\(path\)"):
        serreg.deserialize("value.srg")
    with pytest.raises(DeserializationError, match=r"f\.read\(\)"):
        serreg.deserialize(io.BytesIO(_frame()))


def test_the_same_holds_with_a_key_and_on_a_registry_of_its_own():
    with pytest.raises(DeserializationError, match="not a serreg frame: .* got str"):
        serreg.deserialize("text", key=b"k" * 32)
    with pytest.raises(DeserializationError, match="not a serreg frame: .* got NoneType"):
        serreg.Registry(trusted=False).deserialize(None)


def test_limits_that_are_not_limits_are_refused_by_name():
    with pytest.raises(TypeError, match="limits must be a serreg.Limits or None"):
        serreg.deserialize(_frame(), limits=5)  # type: ignore[arg-type]


def test_a_truncated_frame_says_how_long_it_should_be_and_where():
    frame = _frame()
    with pytest.raises(DeserializationError, match=f"says the frame is {len(frame)} bytes, but 75 bytes") as caught:
        serreg.deserialize(frame[:75])
    assert caught.value.offset == 24
    with pytest.raises(DeserializationError, match="shorter than the 32-byte header"):
        serreg.deserialize(frame[:10])


def test_a_frame_of_a_newer_format_version_names_both_versions():
    frame = bytearray(_frame())
    struct.pack_into("<B", frame, 4, 9)
    with pytest.raises(DeserializationError, match="unsupported frame format version 9; this serreg reads version 1") as caught:
        serreg.deserialize(bytes(frame))
    assert caught.value.offset == 4


class Thing:
    pass


def _registry_with(serialize, deserialize=lambda in_band, buffers: Thing()):
    registry = serreg.Registry()
    registry.register_serializer("test.Thing", Thing, serialize=serialize, deserialize=deserialize)
    return registry


def test_a_serializer_result_with_a_buffer_that_is_not_one_names_the_class_id_and_the_path():
    registry = _registry_with(lambda thing: SerializationResult(b"", [5]))  # type: ignore[list-item]
    with pytest.raises(SerializationError, match=r"'test\.Thing' returned a result whose out-of-band buffer 0 is int, "
                       "not a buffer") as caught:
        registry.serialize({"k": [Thing()]})
    assert caught.value.path == 'obj["k"][0]'


def test_a_buffer_appended_to_a_result_after_it_was_made_is_checked_too():
    def serialize(thing):
        result = SerializationResult(b"", [b"fine"])
        result.out_of_band_buffers.append("not a buffer")
        return result

    registry = _registry_with(serialize)
    for value, path in (({"k": [Thing()]}, 'obj["k"][0]'), (Thing(), "obj")):
        with pytest.raises(SerializationError, match=r"the serializer for class ID 'test\.Thing' returned a result whose "
                           "out-of-band buffer 1 is str, not a buffer") as caught:
            registry.serialize(value).to_bytes()
        assert caught.value.path == path


def test_a_serializer_result_whose_in_band_is_not_bytes_names_the_class_id():
    registry = _registry_with(lambda thing: SerializationResult(5))  # type: ignore[arg-type]
    with pytest.raises(SerializationError, match=r"'test\.Thing' returned a result whose in-band is int, not bytes"):
        registry.serialize([Thing()]).to_bytes()


@pytest.mark.parametrize("returned", [12345, "text", None, (b"", [])])
def test_a_serializer_returning_the_wrong_type_names_what_it_returned(returned):
    registry = _registry_with(lambda thing: returned)
    with pytest.raises(SerializationError, match=f"returned {type(returned).__name__}, not a SerializationResult or bytes"):
        registry.serialize({"k": Thing()})


@pytest.mark.parametrize("buffers", [5, b"one buffer", "text"])
def test_a_result_made_with_something_other_than_a_list_of_buffers(buffers):
    with pytest.raises(TypeError, match=f"out-of-band buffers must be a list of buffers, not {type(buffers).__name__}"):
        SerializationResult(b"", buffers)


def test_to_bytes_twice_gives_the_same_frame_and_the_result_still_reads():
    result = serreg.serialize({"a": bytearray(1000), "b": [1, 2]})
    first = result.to_bytes()
    assert result.to_bytes() == first
    assert serreg.deserialize(result) == serreg.deserialize(first) == {"a": bytearray(1000), "b": [1, 2]}


def test_registering_something_that_is_not_a_serializer_says_what_is_missing():
    registry = serreg.Registry()
    for not_one in (object(), "a str", Thing):
        with pytest.raises(TypeError, match="a serializer needs a serialize"):
            registry.register_serializer("test.Thing", Thing, not_one)  # type: ignore[arg-type]


def test_one_class_id_for_two_types_is_refused_with_both_names():
    class Other:
        pass

    registry = _registry_with(lambda thing: b"")
    with pytest.raises(SerregError, match=r"class ID 'test\.Thing' is already bound to .*Thing; choose another class ID"):
        registry.register_serializer("test.Thing", Other, serialize=lambda o: b"", deserialize=lambda b: Other())


def test_functions_that_take_the_wrong_arguments_are_refused_when_registered():
    registry = serreg.Registry()
    with pytest.raises(TypeError, match=r"serialize must take 1 positional argument; .* takes \(\)"):
        registry.register_serializer("test.Thing", Thing, serialize=lambda: b"", deserialize=lambda in_band: Thing())
    with pytest.raises(TypeError, match=r"deserialize must take 1 or 2 positional arguments; .* takes \(a, b, c\)"):
        registry.register_serializer("test.Thing", Thing, serialize=lambda t: b"", deserialize=lambda a, b, c: Thing())
    assert "test.Thing" not in {r.class_id for r in registry.registrations()}


@pytest.mark.parametrize("class_id", ["ArrowTable", "numpy.ndarray", "pandas.DataFrame"])
def test_a_plugins_standard_class_id_is_refused_for_a_type_of_ones_own(class_id):
    registry = serreg.Registry()
    with pytest.raises(SerregError, match=f"class ID '{class_id}' is a standard class ID .* choose a class ID of your own "
                       r"for .*Thing, such as 'myapp\.Thing'"):
        registry.register_serializer(class_id, Thing, serialize=lambda t: b"", deserialize=lambda in_band: Thing())
    assert all(r.cls is not Thing for r in registry.registrations())  # the plug-ins still register theirs


def test_a_frame_given_with_oob_iterator_is_told_apart_from_an_in_band_section():
    frame = _frame()
    with pytest.raises(serreg.UnknownClassIDError, match=r"these bytes start as a frame does \(b'SREG'\); deserialize a "
                       "frame without oob_iterator"):
        serreg.deserialize(frame, iter([]))
