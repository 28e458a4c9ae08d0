"""A buffer whose release() was called is a serreg error that says which buffer, never a plain ValueError.

Python raises ValueError ("operation forbidden on released memoryview object") at the first read of
a released memoryview or PickleBuffer. Each way one reaches serreg: the frame given to deserialize,
a part of a serialization result given to deserialize or written (to_bytes, write_to, nbytes)
after a buffer of it was released, a result a serializer returned with a released part, and a
released memoryview as a value to serialize (on its own and inside a list or dict). Runs on the
codec serreg picked; tests/test_pure_python_backend.py runs it again with SERREG_PURE_PYTHON=1.
"""

from __future__ import annotations

import io
import pickle
from typing import Any, Callable

import numpy as np
import pytest

import serreg
from serreg import DeserializationError, SerializationError, SerializationResult

RELEASED_FRAME = "the frame given to deserialize is a memoryview that was released"


def released_view(data: bytes = b"abcdef" * 20) -> memoryview:
    view = memoryview(data)
    view.release()
    return view


def frames() -> dict[str, bytes]:
    return {
        "plain": serreg.serialize([1, "two", 3.0]).to_bytes(),
        "with buffers": serreg.serialize({"a": np.arange(100.0)}).to_bytes(),
        "a user class": serreg.serialize(Thing()).to_bytes(),
    }


class Thing:
    """A class whose serializer returns one out-of-band buffer."""


def register(registry: Any, serialize: Callable[[Any], Any]) -> None:
    registry.register_serializer("tests.Thing", Thing, serialize=serialize,
                                 deserialize=lambda in_band, oob: (next(oob), Thing())[1])


serreg.register_serializer("tests.Thing", Thing, serialize=lambda obj: SerializationResult(b"", [memoryview(b"q" * 100)]),
                           deserialize=lambda in_band, oob: (next(oob), Thing())[1])


@pytest.mark.parametrize("name", sorted(frames()))
@pytest.mark.parametrize("call", ["positional", "trusted", "untrusted"])
def test_a_released_frame_is_refused_as_released(name, call):
    view = memoryview(frames()[name])
    view.release()
    with pytest.raises(DeserializationError, match=RELEASED_FRAME) as caught:
        if call == "positional":  # the compiled entry of Registry.deserialize
            serreg.deserialize(view)
        else:
            serreg.deserialize(view, trusted=call == "trusted")
    assert isinstance(caught.value.__cause__, ValueError)


@pytest.mark.parametrize("trusted", [None, True, False])
def test_a_result_with_a_released_buffer_is_refused_by_deserialize(trusted):
    result = serreg.serialize({"a": np.arange(1000.0), "b": np.arange(10.0)})
    result.out_of_band_buffers[1].release()
    with pytest.raises(DeserializationError, match="the serialization result's out-of-band buffer 1 given to "
                                                   "deserialize is a memoryview that was released"):
        if trusted is None:
            serreg.deserialize(result)
        else:
            serreg.deserialize(result, trusted=trusted)


def released_result(part: str) -> SerializationResult:
    if part == "in-band buffer":
        return SerializationResult(released_view())  # no buffers: the compiled to_bytes joins it in C
    result = serreg.serialize([np.arange(100.0), np.arange(1000.0)])
    result.out_of_band_buffers[int(part.rsplit(" ", 1)[1])].release()
    return result


WRITES: dict[str, Callable[[SerializationResult], object]] = {
    "to_bytes": lambda result: result.to_bytes(),
    "write_to": lambda result: result.write_to(io.BytesIO()),
    "nbytes": lambda result: result.nbytes,
}


@pytest.mark.parametrize("part", ["in-band buffer", "out-of-band buffer 0", "out-of-band buffer 1"])
@pytest.mark.parametrize("write", sorted(WRITES))
def test_writing_a_result_whose_buffer_was_released_says_which(part, write):
    result = released_result(part)
    with pytest.raises(SerializationError, match=f"the serialization result's {part} is a memoryview that was released"):
        WRITES[write](result)
    assert part in repr(result)


@pytest.mark.parametrize("part", ["in-band buffer", "out-of-band buffer 1"])
@pytest.mark.parametrize("where", ["top", "in a list", "in a dict"])
def test_a_serializer_returning_a_released_part_is_named_with_its_class_id_and_path(part, where):
    def serialize(obj: Thing) -> SerializationResult:
        if part == "in-band buffer":
            return SerializationResult(released_view(b"\xc0"), [])
        return SerializationResult(b"\xc0", [memoryview(b"kept" * 20), released_view()])

    registry = serreg.Registry()
    register(registry, serialize)
    thing = Thing()
    value, path = {"top": (thing, "obj"), "in a list": ([1, thing], "obj[1]"), "in a dict": ({"k": thing}, 'obj["k"]')}[where]
    with pytest.raises(SerializationError) as caught:
        registry.serialize(value)
    assert str(caught.value) == (
        f"the serializer for class ID 'tests.Thing' returned a result whose {part} is a memoryview that was released: "
        f"it must stay unreleased, with the object it views, until the result is written or read (at {path})"
    )


@pytest.mark.parametrize("where", ["top", "in a list", "in a dict", "in a tuple"])
@pytest.mark.parametrize("kind", ["memoryview", "PickleBuffer"])
def test_a_released_view_as_a_value_is_refused_with_its_path(where, kind):
    if kind == "memoryview":
        view: Any = released_view()
    else:
        view = pickle.PickleBuffer(bytearray(b"abc"))
        view.release()
    value, path = {"top": (view, "obj"), "in a list": ([1, view], "obj[1]"), "in a dict": ({"k": view}, 'obj["k"]'),
                   "in a tuple": ((1, view), "obj[1]")}[where]
    with pytest.raises(SerializationError) as caught:
        serreg.serialize(value).to_bytes()
    assert "that was released cannot be serialized: none of its bytes can be read" in str(caught.value), str(caught.value)
    assert str(caught.value).endswith(f"(at {path})")


def test_the_same_values_unreleased_are_written_and_read():
    # The cases above with every buffer kept: written and read back, so each error above is the release's.
    result = serreg.serialize({"a": np.arange(1000.0), "b": np.arange(10.0)})
    back = serreg.deserialize(result.to_bytes())
    assert back["a"].tolist() == list(np.arange(1000.0)) and serreg.deserialize(result)["b"].size == 10
    assert serreg.deserialize(memoryview(frames()["plain"])) == [1, "two", 3.0]
    registry = serreg.Registry()
    register(registry, lambda obj: SerializationResult(b"\xc0", [memoryview(b"kept" * 20)]))
    assert isinstance(registry.deserialize(registry.serialize([1, Thing()]).to_bytes())[1], Thing)
    assert serreg.deserialize(serreg.serialize([1, memoryview(b"abc")]).to_bytes())[1].tobytes() == b"abc"


def test_a_released_pickle_buffer_returned_by_a_serializer_is_named():
    # A PickleBuffer is turned into a view of the same memory as its result is kept: one released
    # before raised Python's ValueError there.
    buffer = pickle.PickleBuffer(bytearray(b"abc" * 30))
    buffer.release()
    registry = serreg.Registry()
    register(registry, lambda obj: SerializationResult(b"\xc0", [buffer]))
    with pytest.raises(SerializationError, match="returned a result whose out-of-band buffer 0 is a memoryview that was "
                                                 r"released.* \(at obj\[0\]\)"):
        registry.serialize([Thing()])
