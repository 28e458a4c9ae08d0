"""The compiled entries of one implicit struct instance at the top level (serreg/codec/_core_implicit_top.h).

``serialize_top`` writes a top-level instance of a class the Python writer published, and ``unpack_top``
reads a ``serreg.pyobjects`` frame starting with the prefix the Python reader published. They must give
the bytes and values the full paths give (the pure backend's, which has no such entries), step aside
(NotImplemented) whenever the full path would do something else (guards, options, classes changed or
registered after publishing), and leave every refusal to the full path's words (hostile and mutated
instance arrays, depth limits: test_implicit_structs_entries_hostile.py).
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any, Callable

import pytest

import serreg
import serreg._registry.encode as encode
from serreg._registry.dispatch import CROSS_LANGUAGE
from serreg.codec import COMPILED
from serreg.structs.scope import ENCODE_SCOPE, IMPLICIT_TABLES, EncodeScope
from serreg.wire.class_id import class_id_hash

from implicit_entries import Other, Point, in_band_of, outcome_of, warm
from implicit_shapes import PICKLE5, PYOBJECTS, pure_registry
from pickling import module_with_thing

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled codec's entries")


def test_a_published_instance_is_written_and_read_in_one_call_with_the_full_paths_bytes():
    compiled, pure = serreg.Registry(), pure_registry()
    value = Point(7, "user7", ["a", 2.5, None, {"k": (1, 2)}])
    frame = warm(compiled, value)
    assert frame == warm(pure, value)
    assert in_band_of(frame)[:8] == PYOBJECTS
    written = compiled.codec.serialize_top(Point(8, "user8", []))
    assert type(written) is serreg.SerializationResult
    assert written.to_bytes() == pure.serialize(Point(8, "user8", [])).to_bytes()
    for data in (frame, written):
        read = compiled.codec.unpack_top(data, (None, None))
        assert type(read) is Point
    assert compiled.codec.unpack_top(frame, (None, None)) == value
    assert compiled.codec.unpack_top(frame, None) is NotImplemented  # untrusted: the full path refuses it


@pytest.mark.parametrize("var, value", [
    (encode._PICKLE_WHOLE, True), (CROSS_LANGUAGE, True), (ENCODE_SCOPE, EncodeScope()), (IMPLICIT_TABLES, object()),
])
def test_a_guard_set_leaves_the_instance_to_the_full_path(var, value):
    compiled = serreg.Registry()
    warm(compiled, Point(1, "a", []))
    token = var.set(value)
    try:
        assert compiled.codec.serialize_top(Point(2, "b", [])) is NotImplemented
    finally:
        var.reset(token)
    assert type(compiled.codec.serialize_top(Point(2, "b", []))) is serreg.SerializationResult


@pytest.mark.parametrize("option", ["implicit_structs", "whole_values"])
def test_a_fallback_option_changed_after_publishing_is_followed(option):
    compiled, pure = serreg.Registry(), pure_registry()
    warm(compiled, Point(1, "a", []))
    for registry in (compiled, pure):
        registry.configure_fallback(**{option: False})
    assert compiled.codec.serialize_top(Point(2, "b", [])) is NotImplemented
    frames = [warm(registry, Point(2, "b", [])) for registry in (compiled, pure)]
    assert frames[0] == frames[1] and in_band_of(frames[0])[:8] == PICKLE5


def _shared() -> Point:
    tags = ["t"]
    return Point(tags, "s", tags)


def _odd_keys(extra: bool) -> Point:
    point = Point.__new__(Point)
    if extra:
        point.__dict__.update(x=1, label="k", tags=[], extra=1)
    else:
        point.__dict__.update(label="l", x=1, tags=[])
    return point


VALUES: dict[str, Callable[[], Any]] = {
    "shared list": _shared,
    "another class inside": lambda: Point(Other(1), "o", []),
    "other keys": lambda: _odd_keys(True),
    "keys in another order": lambda: _odd_keys(False),
    "an unknown type inside": lambda: Point(1, "u", __import__("collections").OrderedDict(a=1)),
    "a set inside": lambda: Point(1, "s", {1, 2}),
}


@pytest.mark.parametrize("name", VALUES)
def test_what_the_one_call_does_not_write_is_written_by_the_full_path_alike(name):
    compiled, pure = serreg.Registry(), pure_registry()
    warm(compiled, Point(1, "a", []))
    warm(pure, Point(1, "a", []))
    value = VALUES[name]()
    if name not in ("a set inside",):  # a set is written by its serializer: not a plain value, yet implicit
        assert compiled.codec.serialize_top(value) is NotImplemented
    assert compiled.serialize(value).to_bytes() == pure.serialize(value).to_bytes()
    assert warm(compiled, Point(1, "a", [])) == warm(pure, Point(1, "a", []))  # and back to one call


def test_a_class_written_by_value_and_then_changed_is_pickled_again():
    def make() -> type:
        @dataclasses.dataclass
        class Local:
            v: Any

        return Local

    local = make()
    compiled, pure = serreg.Registry(), pure_registry()
    # Reading it unpickles the class, which cloudpickle gives its attributes again (a new version tag):
    # the pure registry reads first, so that nothing changes the class after the compiled one published it.
    expected = warm(pure, local(1))
    before = warm(compiled, local(1))
    assert before == expected
    assert type(compiled.codec.serialize_top(local(1))) is serreg.SerializationResult
    local.added = 5  # type: ignore[attr-defined]  # cloudpickle writes the class's attributes
    assert compiled.codec.serialize_top(local(1)) is NotImplemented
    after = compiled.serialize(local(1)).to_bytes()
    assert after != before and after == pure.serialize(local(1)).to_bytes()
    assert compiled.deserialize(after).v == 1


def test_a_class_no_longer_found_under_its_name_is_left_to_the_full_path():
    name = "serreg_test_entries_rebound"
    module = module_with_thing(name)
    try:
        thing = module.Thing
        compiled, pure = serreg.Registry(), pure_registry()
        frame = warm(compiled, thing(1))
        assert frame == warm(pure, thing(1))
        assert compiled.codec.unpack_top(frame, (None, None)) == thing(1)
        del module.Thing
        assert compiled.codec.serialize_top(thing(2)) is NotImplemented
        assert compiled.serialize(thing(2)).to_bytes() == pure.serialize(thing(2)).to_bytes()
        assert compiled.codec.unpack_top(frame, (None, None)) is NotImplemented
        outcome = outcome_of(compiled, frame)
        assert outcome[0] != "value" and outcome == outcome_of(pure, frame)
    finally:
        sys.modules.pop(name, None)


def test_a_serializer_registered_after_publishing_wins():
    compiled = serreg.Registry()
    warm(compiled, Other(1))
    compiled.register_serializer("test.Other", Other, serialize=lambda o: str(o.v).encode(),
                                 deserialize=lambda data: Other(int(bytes(data))))
    frame = compiled.serialize(Other(5)).to_bytes()
    assert in_band_of(frame)[:8] != PYOBJECTS
    assert compiled.deserialize(frame) == Other(5)


def test_no_frame_is_read_in_one_call_inside_another_tables_reading():
    from serreg.structs.scope import DECODE_SCOPE, DecodeScope

    compiled = serreg.Registry()
    frame = warm(compiled, Point(1, "a", []))
    assert compiled.codec.unpack_top(frame, (None, None)) == Point(1, "a", [])
    token = DECODE_SCOPE.set(DecodeScope([], [], [], []))
    try:
        assert compiled.codec.unpack_top(frame, (None, None)) is NotImplemented
    finally:
        DECODE_SCOPE.reset(token)


@dataclasses.dataclass
class Tree:
    value: Any
    children: Any


def test_instances_of_the_same_class_inside_are_written_as_the_full_path_writes_them():
    compiled, pure = serreg.Registry(), pure_registry()
    warm(compiled, Tree(0, []))
    warm(pure, Tree(0, []))
    for value in (Tree(1, [Tree(2, []), Tree(3, [Tree(4, [])])]), Tree(1, {"k": Tree(2, None)}), Tree(1, (Tree(2, 3),))):
        written = compiled.codec.serialize_top(value)
        assert type(written) is serreg.SerializationResult
        assert written.to_bytes() == pure.serialize(value).to_bytes()
        assert compiled.deserialize(written.to_bytes()) == value == compiled.deserialize(written)


def test_a_class_found_again_under_its_name_in_a_new_module_object_is_still_written_in_one_call():
    name = "serreg_test_entries_moved"
    module = module_with_thing(name)
    try:
        thing = module.Thing
        compiled, pure = serreg.Registry(), pure_registry()
        assert warm(compiled, thing(1)) == warm(pure, thing(1))
        moved = type(module)(name)
        moved.Thing = thing  # type: ignore[attr-defined]
        sys.modules[name] = moved  # sys.modules changed: looked up again, and found
        assert type(compiled.codec.serialize_top(thing(2))) is serreg.SerializationResult
        moved.Thing = Other  # type: ignore[attr-defined]  # the module's namespace changed: no longer found
        assert compiled.codec.serialize_top(thing(2)) is NotImplemented
        assert compiled.serialize(thing(2)).to_bytes() == pure.serialize(thing(2)).to_bytes()
        frame = pure.serialize(Point(1, "b", [])).to_bytes()
        assert compiled.deserialize(frame) == Point(1, "b", [])
    finally:
        sys.modules.pop(name, None)


def test_dataclasses_switched_to_their_serializer_after_publishing_are_written_by_it():
    compiled, pure = serreg.Registry(), pure_registry()
    warm(compiled, Point(1, "a", []))
    for registry in (compiled, pure):
        registry.configure_dataclasses()
    assert compiled.codec.serialize_top(Point(2, "b", [])) is NotImplemented
    frames = [registry.serialize(Point(2, "b", [])).to_bytes() for registry in (compiled, pure)]
    assert frames[0] == frames[1] and in_band_of(frames[0])[:8] == class_id_hash("serreg.dataclass")


def test_a_registry_made_untrusted_after_publishing_refuses_the_frame():
    compiled = serreg.Registry()
    frame = warm(compiled, Point(1, "a", []))
    compiled.trusted = False
    for data in (frame, compiled.serialize(Point(1, "a", []))):
        with pytest.raises(serreg.UntrustedClassIDError):
            compiled.deserialize(data)
    compiled.trusted = True
    assert compiled.deserialize(frame) == Point(1, "a", [])


def test_a_class_check_that_runs_code_registering_a_serializer_leaves_the_value_to_the_full_path():
    import types

    name = "serreg_test_entries_getattr"
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec("import dataclasses\n@dataclasses.dataclass\nclass Hidden:\n    v: int\n", module.__dict__)  # noqa: S102
    hidden = module.__dict__.pop("Hidden")  # found by name only through the module's __getattr__
    compiled = serreg.Registry()
    register = []

    def module_getattr(attribute: str) -> Any:
        if attribute != "Hidden":
            raise AttributeError(attribute)
        while register:  # code the class check runs: a new registry snapshot
            compiled.register_serializer(register.pop(), Other, serialize=lambda o: b"", deserialize=lambda d: Other(0))
        return hidden

    module.__getattr__ = module_getattr  # type: ignore[attr-defined]
    try:
        frame = warm(compiled, hidden(1))
        assert compiled.codec.serialize_top(hidden(2)) is not NotImplemented
        assert compiled.codec.unpack_top(frame, (None, None)) == hidden(1)
        register.append("test.Other.a")
        assert compiled.codec.serialize_top(hidden(2)) is NotImplemented
        assert compiled.serialize(hidden(2)).to_bytes() == pure_registry().serialize(hidden(2)).to_bytes()
        warm(compiled, hidden(1))
        register.append("test.Other.b")
        assert compiled.codec.unpack_top(frame, (None, None)) is NotImplemented
        assert compiled.deserialize(frame) == hidden(1)
    finally:
        sys.modules.pop(name, None)
