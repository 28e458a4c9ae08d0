"""The pickle fallback's second and later calls for a type: the same frames as the first call.

From the second value of a type the fallback takes, the registry goes the short
way (no struct table opened unless a registered value inside the pickle may
write a struct) and the fallback reuses cloudpickle's by-reference verdicts.
These tests compare every later frame with the first one and with a fresh
registry's, and check that the by-value rules of cloudpickle still apply.
"""

from __future__ import annotations

import dataclasses
import pickle
import sys
from typing import Any

import cloudpickle
import pytest

import serreg
from pickling import module_with_thing, pickling_registry
from serreg.wire.class_id import class_id_hash


# These tests pin the pickle fallback's own frames (conftest.py: plain objects pickled, not implicit structs).
pytestmark = pytest.mark.usefixtures("plain_objects_pickled")


@dataclasses.dataclass
class Point:
    x: int
    y: int


@dataclasses.dataclass
class Holder:
    name: str
    point: Any


def _frames(registry: serreg.Registry, value: Any, times: int = 3) -> list[bytes]:
    return [registry.serialize(value).to_bytes() for _ in range(times)]


def test_later_frames_equal_the_first_and_a_fresh_registrys():
    value = Holder("a", [1, 2.5, "three"])
    registry = pickling_registry()
    frames = _frames(registry, value)
    assert len(set(frames)) == 1
    assert frames[0] == pickling_registry().serialize(value).to_bytes()
    assert registry.deserialize(frames[-1]) == value
    assert registry.deserialize(registry.serialize(value)) == value


def test_a_struct_inside_a_pickled_value_gets_its_table_on_every_call():
    registry = pickling_registry()
    registry.register_struct(Point, "test.Point")
    value = Holder("p", Point(1, 2))
    frames = _frames(registry, value)
    assert len(set(frames)) == 1
    fresh = pickling_registry()
    fresh.register_struct(Point, "test.Point")
    assert frames[0] == fresh.serialize(value).to_bytes()
    assert b"test.Point" in frames[0]  # the struct's definition is in the table in front of the pickle
    assert registry.deserialize(frames[-1]) == value
    assert registry.deserialize(registry.serialize(value)) == value
    # ... and a plain pickled value written after it carries no table.
    assert registry.serialize(Holder("q", 1)).to_bytes() == fresh.serialize(Holder("q", 1)).to_bytes()


def test_a_struct_written_alone_after_pickled_values_still_needs_serialize():
    registry = pickling_registry()
    registry.register_struct(Point, "test.Point")
    _frames(registry, Holder("x", 1))
    assert registry.deserialize(registry.serialize(Point(3, 4))) == Point(3, 4)


def test_a_registration_made_later_is_used_at_once():
    registry = pickling_registry()
    value = Holder("r", 1)
    _frames(registry, value)
    registry.register_serializer(
        "test.Holder", Holder, serialize=lambda h: h.name.encode(), deserialize=lambda b: Holder(bytes(b).decode(), 1)
    )
    frame = registry.serialize(value).to_bytes()
    assert frame != pickling_registry().serialize(value).to_bytes()  # no longer the pickle
    assert frame.endswith(class_id_hash("test.Holder") + b"r")
    assert registry.deserialize(frame) == value
    registry.unregister_serializer("test.Holder")
    assert registry.serialize(value).to_bytes() == pickling_registry().serialize(value).to_bytes()


def test_untrusted_still_refuses_the_later_frames():
    registry = pickling_registry()
    frames = _frames(registry, Holder("u", 1))
    with pytest.raises(serreg.errors.UntrustedClassIDError):
        registry.deserialize(frames[-1], trusted=False)


def test_register_pickle_by_value_after_by_reference_frames_writes_the_class_by_value():
    name = "serreg_test_by_value_module"
    module = module_with_thing(name)
    registry = pickling_registry()
    try:
        by_reference = _frames(registry, module.Thing(1))
        assert len(by_reference[-1]) < 200  # module and name only
        cloudpickle.register_pickle_by_value(module)
        try:
            by_value = registry.serialize(module.Thing(1)).to_bytes()
        finally:
            cloudpickle.unregister_pickle_by_value(module)
        assert len(by_value) > len(by_reference[-1]) + 200  # the class itself is in the pickle
        del sys.modules[name]
        assert registry.deserialize(by_value).v == 1  # read without the module
        sys.modules[name] = module
        assert registry.serialize(module.Thing(1)).to_bytes() == by_reference[-1]  # by reference again
    finally:
        sys.modules.pop(name, None)


def test_a_class_rebound_under_its_name_is_pickled_by_value_afterwards():
    name = "serreg_test_rebound_module"
    module = module_with_thing(name)
    registry = pickling_registry()
    try:
        old = module.Thing
        _frames(registry, old(1))
        module_with_thing(name)  # a new module object and class under the same names (a reload)
        frame = registry.serialize(old(2)).to_bytes()  # old class: no longer found at its name
        assert frame == pickling_registry().serialize(old(2)).to_bytes()
        assert pickle.loads(cloudpickle.dumps(old(2))).v == 2
        assert registry.deserialize(frame).v == 2
    finally:
        sys.modules.pop(name, None)


def test_classes_of_main_are_written_by_value_on_every_call():
    cls = dataclasses.make_dataclass("MainThing", [("v", int)])
    cls.__module__ = "__main__"
    registry = pickling_registry()
    frames = _frames(registry, cls(5))
    assert len(set(frames)) == 1
    assert b"MainThing" in frames[-1] and len(frames[-1]) > 300
    assert registry.deserialize(frames[-1]).v == 5


def test_a_pickled_value_is_not_kept_alive_by_the_fallback():
    import gc
    import weakref

    registry = pickling_registry()
    value = Holder("w", [1, 2])
    _frames(registry, value)
    gone = weakref.ref(value)
    del value
    gc.collect()
    assert gone() is None


def test_pickles_made_in_threads_and_inside_pickles_do_not_mix():
    import threading

    registry = pickling_registry()

    class Inner:
        def __init__(self, v: int) -> None:
            self.v = v

    # A registered serializer that serializes its value's payload with the same registry (a pickle inside a pickle).
    registry.register_serializer(
        "test.Inner", Inner,
        serialize=lambda i: registry.serialize(Holder("in", i.v)).to_bytes(),
        deserialize=lambda b: Inner(registry.deserialize(bytes(b)).point),
    )
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            for i in range(200):
                value = Holder(f"t{k}", [Inner(i), i])
                back = registry.deserialize(registry.serialize(value).to_bytes())
                assert back.name == f"t{k}" and back.point[0].v == i and back.point[1] == i
        except BaseException as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


@pytest.mark.parametrize("main", [False, True])
def test_the_in_band_is_cloudpickles_pickle_on_every_call(main: bool):
    if main:
        cls: Any = dataclasses.make_dataclass("MainPoint", [("x", int)])
        cls.__module__ = "__main__"
        value = cls(3)
    else:
        value = Holder("c", [Point(1, 2), {"k": (1.5, None)}])
    registry = pickling_registry()
    for _ in range(3):
        in_band = bytes(registry.serialize(value).in_band_buffer)
        assert in_band[:8] == class_id_hash("serreg.pickle5")
        assert in_band[8:] == cloudpickle.dumps(value, protocol=5)


def test_signed_frames_of_later_calls_are_checked_with_their_key():
    key = b"k" * 32
    registry = pickling_registry()
    value = Holder("s", 1)
    frames = [registry.serialize(value, key=key).to_bytes() for _ in range(3)]
    assert len(set(frames)) == 1
    assert registry.deserialize(frames[-1], key=key) == value
    with pytest.raises(serreg.errors.SignatureError):
        registry.deserialize(frames[-1], key=b"x" * 32)
    with pytest.raises(serreg.errors.LimitExceededError):
        registry.deserialize(frames[-1], key=key, limits=serreg.Limits(max_frame_size=len(frames[-1]) - 1))


def test_a_list_of_fallback_values_stays_one_pickle_after_single_values():
    registry = pickling_registry()
    _frames(registry, Holder("single", 1))
    values = [Holder(str(i), i) for i in range(50)]
    in_band = bytes(registry.serialize(values).in_band_buffer)
    assert in_band[:8] == class_id_hash("serreg.pickle5")
    assert in_band[8:] == cloudpickle.dumps(values, protocol=5)


def test_a_pickler_that_made_a_large_pickle_is_not_kept():
    from serreg.standard.pickle5 import Pickle5Serializer

    registry = pickling_registry()
    pickle5 = registry.get_serializer("serreg.pickle5")
    assert isinstance(pickle5, Pickle5Serializer)
    registry.serialize(Holder("small", 1))  # cloudpickle's Pickler (its verdict about Holder is learnt)
    assert pickle5.idle_picklers() == (1, 0)
    registry.serialize(Holder("small", 2))  # pickle's own, from then on
    assert pickle5.idle_picklers() == (1, 1)
    registry.serialize([Holder(str(i), i) for i in range(2000)])  # a pickle of some 50 KB and 4,000 memo entries
    assert pickle5.idle_picklers() == (1, 0)  # the idle Pickler made it, and was let go
    registry.serialize(Holder("small", 3))
    assert pickle5.idle_picklers() == (1, 1)
