"""Implicit structs (docs/FORMAT.md 10.9): a value with a shared object, a cycle, or anything
pickle-specific is pickled whole exactly as before, on both backends; the compiled walk that
decides gives the Python walk's answers.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest

from serreg.implicit.walk import GIVE_UP, OK, PLAIN, walk, walk_python

from implicit_shapes import (
    COMPILED, PICKLE5, REGISTRIES, VALUES, Empty, Frozen, MyList, Node, Plain, Record, Reduced, Slotted, Stated, class_hash,
    frame_of,
)
from pickling import pickling_registry


def _shared_list() -> Any:
    shared = ["x"]
    return [Record(1, "a", shared), Record(2, "b", shared)]


def _cycle() -> Any:
    node = Node(1, [])
    node.children.append(node)
    return [node]


def _twice() -> Any:
    record = Record(1, "a", [])
    return [record, record]


def _shared_tuple_with_list() -> Any:
    inner = (1, ["mutable"])
    return [Record(1, "a", inner), Record(2, "b", inner)]


def _keys_differ() -> Any:
    other = Record(2, "b", None)
    other.extra = 1  # type: ignore[attr-defined]
    return [Record(1, "a", None), other]


PICKLED = {
    "shared list": _shared_list,
    "cycle": _cycle,
    "instance twice": _twice,
    "shared tuple holding a list": _shared_tuple_with_list,
    "key lists differ": _keys_differ,
    "custom reduce": lambda: [Record(1, "a", Reduced(1))],
    "slots": lambda: [Record(1, "a", Slotted(1))],
    "setstate": lambda: [Stated(1), Record(1, "a", None)],
    "list subclass": lambda: [Record(1, "a", MyList([1]))],
    "ordered dict": lambda: [Record(1, "a", collections.OrderedDict(a=1))],
    "function": lambda: [Record(1, "a", len)],
    "array turned down by its serializer": lambda: [Record(1, "a", np.array([object()], dtype=object))],
}


@pytest.mark.parametrize("name", PICKLED)
def test_anything_pickle_specific_is_pickled_whole_as_before(name):
    value = PICKLED[name]()
    before = frame_of(pickling_registry(), value)
    assert class_hash(before) == PICKLE5
    for registry in REGISTRIES:
        assert frame_of(registry, value) == before
    back = COMPILED.deserialize(before)
    if name == "shared list":
        assert back[0].tags is back[1].tags
    if name == "cycle":
        assert back[0].children[0] is back[0]


@pytest.mark.parametrize("name", [*VALUES, *PICKLED])
def test_the_compiled_walk_answers_as_the_python_walk(name):
    value = VALUES[name] if name in VALUES else PICKLED[name]()
    kinds = {cls: PLAIN for cls in (Record, Frozen, Plain, Empty, Node)}
    compiled, python = walk(value, kinds), walk_python(value, kinds)
    assert compiled[0] == python[0]
    if compiled[0] == OK:
        assert compiled[1] == python[1]
    if name in ("shared list", "cycle", "instance twice", "shared tuple holding a list", "key lists differ"):
        assert compiled[0] == GIVE_UP
