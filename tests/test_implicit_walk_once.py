"""The compiled walk does not remember objects met once (serreg/implicit/_walk.c): its answers stay the
Python walk's.

An object whose only reference is held by an object met once is not remembered. These values put such
objects where they are met twice all the same (inside a shared tuple or frozenset, a shared __dict__,
a cycle entered once), and where they are not (nested tuples, records), and hold both walks to one answer.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import pytest

from serreg.implicit.walk import GIVE_UP, OK, PLAIN, walk, walk_python


class Item:
    def __init__(self, v: Any) -> None:
        self.v = v


def shared_tuple_of_a_lone_list() -> Any:
    inner = ([1, 2],)  # the list's only reference: the tuple, met twice
    return [inner, inner]


def shared_frozenset_of_a_lone_instance() -> Any:
    members = frozenset([Item(1)])
    return [members, members]


def shared_tuple_in_a_tuple() -> Any:
    inner = ({"k": [1]},)
    return ((inner,), (inner,))


def shared_dict_of_two_instances() -> Any:
    a, b = Item(1), Item(2)
    b.__dict__ = a.__dict__
    return [a, b]


def cycle_through_a_lone_list() -> Any:
    a: list[Any] = [None]
    a[0] = [a]  # the inner list's only reference is a's, and a is met twice
    return [a]


def lone_instance_in_its_own_dict() -> Any:
    item = Item(None)
    item.v = [item]
    return [item]


def nested_lone_tuples() -> Any:
    return [((([i], {"k": [i]}),),) for i in range(20)]


def records() -> Any:
    return [Item([f"t{i}", (i, [i])]) for i in range(50)]


def lone_sets_and_frozensets() -> Any:
    return [{i, -i} for i in range(10)] + [frozenset([(i, i + 1)]) for i in range(10)]


CASES: dict[str, tuple[Callable[[], Any], int]] = {
    "shared tuple of a lone list": (shared_tuple_of_a_lone_list, GIVE_UP),
    "shared frozenset of a lone instance": (shared_frozenset_of_a_lone_instance, GIVE_UP),
    "shared tuple in a tuple": (shared_tuple_in_a_tuple, GIVE_UP),
    "shared __dict__ of two instances": (shared_dict_of_two_instances, GIVE_UP),
    "cycle through a lone list": (cycle_through_a_lone_list, GIVE_UP),
    "instance in its own __dict__": (lone_instance_in_its_own_dict, GIVE_UP),
    "nested lone tuples": (nested_lone_tuples, OK),
    "records": (records, OK),
    "lone sets and frozensets": (lone_sets_and_frozensets, OK),
}


@pytest.mark.parametrize("name", CASES)
def test_both_walks_answer_alike_where_lone_objects_are_met(name):
    make, expected = CASES[name]
    value = make()
    kinds = {Item: PLAIN}
    compiled, python = walk(value, kinds), walk_python(value, kinds)
    assert compiled[0] == python[0] == expected
    if expected == OK:
        assert compiled[1] == python[1]


def _references(obj: Any) -> int:
    return sys.getrefcount(obj) - 3  # less getrefcount's argument, this parameter and the caller's name


def test_the_lone_objects_of_these_values_are_lone():
    # The cases above test what they say only if those objects have one reference.
    value = shared_tuple_of_a_lone_list()
    lone = value[0][0]
    counts = [_references(lone)]
    value = shared_frozenset_of_a_lone_instance()
    lone = next(iter(value[0]))
    counts.append(_references(lone))
    value = cycle_through_a_lone_list()
    lone = value[0][0]
    counts.append(_references(lone))
    assert counts == [1, 1, 1]
