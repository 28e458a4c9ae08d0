"""The pickle fallback through pickle's own Pickler: the same pickle as ``cloudpickle.dumps``.

From the second value of a kind, the fallback pickles with pickle's own Pickler
when cloudpickle's would write the same bytes (serreg.standard.pickle_plain),
and with cloudpickle's otherwise. Every test pickles each value several times
(the first call teaches the verdicts, the later ones take pickle's Pickler
where they may) and compares every pickle with ``cloudpickle.dumps``.
"""

from __future__ import annotations

import copyreg
import dataclasses
import enum
import logging
import sys
import threading
from typing import Any, TypeVar

import cloudpickle
import numpy as np
import pytest

import serreg
from pickling import module_with_thing, pickling_registry
from serreg.standard.pickle5 import Pickle5Serializer
from serreg.wire.class_id import class_id_hash


# These tests pin the pickle fallback's own frames (conftest.py: plain objects pickled, not implicit structs).
pytestmark = pytest.mark.usefixtures("plain_objects_pickled")


PICKLE5 = class_id_hash("serreg.pickle5")


@dataclasses.dataclass
class Row:
    name: str
    value: Any


class Colour(enum.Enum):
    RED = 1


class Complexish:
    """Reduced through copyreg's table (which both Picklers consult)."""

    def __init__(self, v: int) -> None:
        self.v = v


copyreg.pickle(Complexish, lambda c: (Complexish, (c.v,)))

TYPE_VARIABLE = TypeVar("TYPE_VARIABLE")


class Celsius:
    def __init__(self, degrees: float) -> None:
        self.degrees = degrees


def _fallback(registry: serreg.Registry) -> Pickle5Serializer:
    pickle5 = registry.get_serializer("serreg.pickle5")
    assert isinstance(pickle5, Pickle5Serializer)
    return pickle5


def _pickles(registry: serreg.Registry, value: Any, times: int = 4) -> list[bytes]:
    out = []
    for _ in range(times):
        in_band = bytes(registry.serialize(value).in_band_buffer)
        assert in_band[:8] == PICKLE5
        out.append(in_band[8:])
    return out


def _assert_cloudpickles(registry: serreg.Registry, value: Any) -> None:
    expected = cloudpickle.dumps(value, protocol=5)
    for pickled in _pickles(registry, value):
        assert pickled == expected


@pytest.mark.parametrize(
    "value",
    [
        Row("by reference", [1, 2.5, "three", (None, True)]),
        Row("enum and class values", [Colour.RED, Colour, Row, len, dataclasses.asdict]),
        Row("copyreg", Complexish(3)),
        Row("complex", 1 + 2j),
        [Row(str(i), {"k": i}) for i in range(100)],
        [Row(str(i), float(i)) for i in range(10_000)],  # pickle writes frames of 64 KB as it goes
        Row("large payloads", [b"b" * 200_000, bytearray(b"a" * 200_000), "s" * 100_000]),  # written on their own
    ],
)
def test_by_reference_values_are_cloudpickles_pickle_through_pickles_own_pickler(value: Any):
    registry = pickling_registry()
    _assert_cloudpickles(registry, value)
    assert _fallback(registry).plain_pickles > 0  # pickle's own Pickler made the later ones


def test_a_lambda_field_is_written_by_value():
    registry = pickling_registry()
    value = Row("lambda", lambda x: x + 1)
    _assert_cloudpickles(registry, value)
    assert _fallback(registry).plain_pickles == 0  # never pickle's own Pickler
    assert registry.deserialize(registry.serialize(value).to_bytes()).value(1) == 2


def _in_main(obj: Any) -> Any:
    obj.__module__ = "__main__"
    setattr(sys.modules["__main__"], obj.__qualname__, obj)  # found at its name: plain pickle would take it
    return obj


def test_a_class_of_main_is_written_by_value_though_pickle_finds_it():
    cls = _in_main(dataclasses.make_dataclass("PlainMainThing", [("v", int)]))
    registry = pickling_registry()
    try:
        _assert_cloudpickles(registry, cls(5))
        _assert_cloudpickles(registry, Row("main inside", cls(6)))
        assert _fallback(registry).plain_pickles == 0
        frame = registry.serialize(cls(7)).to_bytes()
        assert b"PlainMainThing" in frame and len(frame) > 300
        assert registry.deserialize(frame).v == 7
    finally:
        delattr(sys.modules["__main__"], "PlainMainThing")


def test_a_function_of_main_is_written_by_value_though_pickle_finds_it():
    def plain_main_function(x: int) -> int:
        return x * 2

    plain_main_function.__qualname__ = "plain_main_function"
    function = _in_main(plain_main_function)
    registry = pickling_registry()
    try:
        value = Row("main function", function)
        _assert_cloudpickles(registry, value)
        assert registry.deserialize(registry.serialize(value).to_bytes()).value(4) == 8
    finally:
        delattr(sys.modules["__main__"], "plain_main_function")


def test_types_with_cloudpickles_own_reducers_are_left_to_it():
    registry = pickling_registry()
    _assert_cloudpickles(registry, Row("logger", logging.getLogger("serreg.test.plain")))
    _assert_cloudpickles(registry, Row("module", dataclasses))
    _assert_cloudpickles(registry, Row("type variable", TYPE_VARIABLE))  # cloudpickle: getattr(module, name)


def test_a_class_rebound_between_calls():
    name = "serreg_test_plain_rebound"
    module = module_with_thing(name)
    registry = pickling_registry()
    try:
        old = module.Thing
        _assert_cloudpickles(registry, old(1))
        assert _fallback(registry).idle_picklers()[1] == 1
        module_with_thing(name)  # a reload: the old class is no longer found at its name
        _assert_cloudpickles(registry, old(2))
        _assert_cloudpickles(registry, sys.modules[name].Thing(3))  # the new one, by reference
        assert registry.deserialize(registry.serialize(old(4)).to_bytes()).v == 4
    finally:
        sys.modules.pop(name, None)


def test_register_pickle_by_value_after_a_first_call():
    name = "serreg_test_plain_by_value"
    module = module_with_thing(name)
    registry = pickling_registry()
    try:
        _assert_cloudpickles(registry, Row("t", module.Thing(1)))
        cloudpickle.register_pickle_by_value(module)
        try:
            by_value = _pickles(registry, Row("t", module.Thing(1)))
            assert by_value[-1] == cloudpickle.dumps(Row("t", module.Thing(1)), protocol=5)
            assert len(set(by_value)) == 1 and b"_make_skeleton_class" in by_value[-1]
        finally:
            cloudpickle.unregister_pickle_by_value(module)
        _assert_cloudpickles(registry, Row("t", module.Thing(1)))  # by reference again
    finally:
        sys.modules.pop(name, None)


def test_a_registered_ndarray_inside_a_dataclass_stays_out_of_band():
    registry = pickling_registry()
    array = np.arange(100_000, dtype=np.float64)
    value = Row("array", array)
    for _ in range(4):
        result = registry.serialize(value)
        assert bytes(result.in_band_buffer)[:8] == PICKLE5
        assert len(result.out_of_band_buffers) == 1 and memoryview(result.out_of_band_buffers[0]).nbytes == array.nbytes
        assert b"restore_registered" in bytes(result.in_band_buffer)  # written by the ndarray serializer
        back = registry.deserialize(result.to_bytes())
        assert back.name == "array" and np.array_equal(back.value, array)


def test_a_registration_made_later_reaches_inside_the_pickle():
    registry = pickling_registry()
    before = Row("before", Celsius(21.5))
    _assert_cloudpickles(registry, before)  # Celsius's instances and class: pickle's own way, learnt
    registry.register_serializer(
        "test.Celsius", Celsius, serialize=lambda c: str(c.degrees).encode(), deserialize=lambda b: Celsius(float(bytes(b)))
    )
    for pickled in _pickles(registry, Row("after", Celsius(21.5))):
        assert b"restore_registered" in pickled and b"test.Celsius" in pickled
    back = registry.deserialize(registry.serialize(Row("after", Celsius(21.5))).to_bytes())
    assert isinstance(back.value, Celsius) and back.value.degrees == 21.5


def test_pickles_in_threads_mixing_by_reference_and_by_value_values():
    cls = _in_main(dataclasses.make_dataclass("PlainThreadThing", [("v", int)]))
    registry = pickling_registry()
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            for i in range(100):
                value: Any = Row(f"t{k}", i) if (i + k) % 3 else Row(f"m{k}", cls(i))
                pickled = bytes(registry.serialize(value).in_band_buffer)[8:]
                assert pickled == cloudpickle.dumps(value, protocol=5)
        except BaseException as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    try:
        threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        delattr(sys.modules["__main__"], "PlainThreadThing")
    assert errors == []


def test_a_serialize_call_inside_a_pickle():
    class Wrapper:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __reduce__(self) -> Any:
            # A nested serialize call on the same registry while the outer pickle is being made.
            return _rebuild, (registry.serialize(Row("inner", self.inner)).to_bytes(),)

    registry = pickling_registry()
    global _REGISTRY
    _REGISTRY = registry
    Wrapper.__module__ = __name__
    Wrapper.__qualname__ = "_Wrapper"
    globals()["_Wrapper"] = Wrapper
    try:
        value = Row("outer", Wrapper(Row("x", 1)))
        for _ in range(3):
            back = registry.deserialize(registry.serialize(value).to_bytes())
            assert back.value == Row("inner", Row("x", 1))
    finally:
        del globals()["_Wrapper"]


_REGISTRY: Any = None


def _rebuild(frame: bytes) -> Any:
    return _REGISTRY.deserialize(frame)


def test_a_pickle_error_names_the_type_as_before():
    registry = pickling_registry()
    for _ in range(2):
        with pytest.raises(serreg.errors.SerializationError, match="pickle fallback failed"):
            registry.serialize(Row("lock", threading.Lock()))


def test_a_type_pickle_gave_up_on_is_left_to_cloudpickle_for_a_while_then_tried_again():
    registry = pickling_registry()
    fallback = _fallback(registry)
    for i in range(10):  # pickle's own Pickler gives up on every one (the lambda): it is tried less and less
        value = Row("lambda", lambda x, i=i: x + i)
        assert _pickles(registry, value, times=1)[0] == cloudpickle.dumps(value, protocol=5)
    assert fallback.plain_pickles == 0
    for i in range(70):  # the same type again, values pickle's own Pickler can write: the same bytes throughout
        value = Row("plain", i)
        assert _pickles(registry, value, times=1)[0] == cloudpickle.dumps(value, protocol=5)
    assert fallback.plain_pickles >= 60  # tried again once the window ran out, and kept
