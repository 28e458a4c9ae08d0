"""One plain object at the top level, written with implicit structs (docs/FORMAT.md 10.9): its short
ways (the reader's inline read, the compiled reading of a result without buffers, the walk's small
first tables) give what the full paths give, with the same guarantees."""

from __future__ import annotations

import dataclasses
import sys
import types
from typing import Any
from unittest import mock

import pytest

import serreg
from serreg.codec import COMPILED as CODEC_COMPILED
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.implicit.walk import GIVE_UP, OK, PLAIN, walk, walk_python


@dataclasses.dataclass
class Point:
    x: int
    label: str
    tags: list[Any]


def _pure_registry() -> serreg.Registry:
    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        return serreg.Registry()


REGISTRIES = {"compiled": serreg.Registry(), "pure": _pure_registry()}


@pytest.mark.parametrize("backend", REGISTRIES)
def test_a_top_level_instance_reads_back_again_and_again(backend):
    registry = REGISTRIES[backend]
    frames = []
    for i in range(3):  # the first read opens the table; the next ones take the short way
        value = Point(i, f"p{i}", ["a", i])
        result = registry.serialize(value)
        assert registry.deserialize(result) == value
        assert registry.deserialize(result.to_bytes()) == value
        frames.append(result.to_bytes())
    assert len(set(frames)) == 3
    other = [Point(1, "a", []), Point(2, "b", [])]  # the same table, a value that is not one instance
    assert registry.deserialize(registry.serialize(other)) == other
    assert registry.deserialize(frames[0]) == Point(0, "p0", ["a", 0])


@pytest.mark.parametrize("backend", REGISTRIES)
def test_a_top_level_instance_of_a_class_rebound_under_its_name_reads_as_the_full_path_reads_it(backend):
    registry = REGISTRIES[backend]
    name = "serreg_test_implicit_top_rebound"

    def module() -> types.ModuleType:
        made = types.ModuleType(name)
        exec("class Thing:\n    def __init__(self, v):\n        self.v = v\n", made.__dict__)
        made.Thing.__module__ = name
        sys.modules[name] = made
        return made

    try:
        old = module().Thing
        frame = registry.serialize(old(1)).to_bytes()
        assert b"serreg.pyobjects" not in frame  # written by ClassIDHash
        read = registry.deserialize(frame)
        assert type(read) is old and read.v == 1
        assert type(registry.deserialize(frame)) is old  # the short way, the class still found
        new = module().Thing  # a reload: the name now leads to another class
        read = registry.deserialize(frame)
        assert type(read) is new and read.v == 1  # unpickled again by reference, as pickle would
    finally:
        sys.modules.pop(name, None)


def test_a_top_level_instance_is_refused_untrusted_from_a_result_and_a_frame():
    registry = serreg.Registry()
    result = registry.serialize(Point(1, "a", []))
    assert registry.deserialize(result) == Point(1, "a", [])
    for data in (result, result.to_bytes()):
        with pytest.raises(serreg.UntrustedClassIDError):
            registry.deserialize(data, trusted=False)
        with pytest.raises(serreg.UntrustedClassIDError):
            serreg.Registry(trusted=False).deserialize(data)


@pytest.mark.skipif(not CODEC_COMPILED, reason="the compiled codec's top_value")
def test_a_result_without_buffers_is_read_by_the_compiled_top_value():
    registry = serreg.Registry()
    value = Point(3, "c", ["x"])
    result = registry.serialize(value)
    read = registry.codec.top_value(result)
    assert read == value and type(read) is Point
    assert registry.deserialize(result) == value


@pytest.mark.parametrize("count", [0, 1, 15, 16, 17, 31, 32, 33, 200, 300])
def test_the_walk_grows_its_tables_past_their_first_size(count):
    kinds = {Point: PLAIN}
    points = [Point(i, f"p{i}", [i]) for i in range(count)]
    others = tuple(Point(i, "q", []) for i in range(count))
    for value in (points, {"k": points, "t": others}, [list(range(count)) for _ in range(3)]):
        compiled, python = walk(value, kinds), walk_python(value, kinds)
        assert compiled[0] == python[0] == OK and compiled[1] == python[1]
    if count:
        shared = [*points, points[0]]  # met again after the tables grew
        assert walk(shared, kinds)[0] == walk_python(shared, kinds)[0] == GIVE_UP


@pytest.mark.parametrize("backend", REGISTRIES)
def test_instances_read_after_a_list_of_their_class_read_back(backend):
    """The list's table kept for the single instances after it: each reads back its own value, from a
    frame and from a result (the compiled codec is told of the instance's prefix on the first)."""
    registry = REGISTRIES[backend]
    many = [Point(i, f"m{i}", [i]) for i in range(3)]
    assert registry.deserialize(registry.serialize(many).to_bytes()) == many
    for i in range(3):
        value = Point(10 + i, f"s{i}", ["b", i])
        result = registry.serialize(value)
        assert registry.deserialize(result.to_bytes()) == value
        assert registry.deserialize(result) == value
    assert registry.deserialize(registry.serialize(many)) == many
