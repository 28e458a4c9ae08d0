"""Instances of subclasses of the built-in containers and scalars, alone and nested.

Shared by tests/test_backend_subclasses.py in-process and by the pure-Python
subprocess it starts: the classes live in this importable module, so pickle
writes them by reference and both processes write the same bytes. Set members
are ints (their hashes, hence their order, are the same in every process).
"""

import collections
import dataclasses
import enum
import typing


class Dict(dict):
    pass


class List(list):
    pass


class Tuple(tuple):
    pass


class Str(str):
    pass


class Int(int):
    pass


class Float(float):
    pass


class Bytes(bytes):
    pass


class ByteArray(bytearray):
    pass


class Set(set):
    pass


class FrozenSet(frozenset):
    pass


class Complex(complex):
    pass


class SlotDict(dict):
    __slots__ = ("note",)


class Level(enum.IntEnum):
    LOW = 1


class Mode(str, enum.Enum):
    FAST = "fast"


Pair = collections.namedtuple("Pair", "left right")


class Plain:
    """An ordinary object: written as an implicit struct (docs/FORMAT.md 10.9)."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return type(other) is Plain and other.value == self.value


@dataclasses.dataclass
class Record:
    """A dataclass no one declared: an implicit struct too."""

    value: object


@dataclasses.dataclass
class Holder:
    """Declared a struct (``subclass.Holder``) by the tests: its ``any`` field holds the subclass."""

    value: typing.Any


def with_attributes(obj, **attributes):
    for name, value in attributes.items():
        setattr(obj, name, value)
    return obj


def slot_dict():
    made = SlotDict(a=1)
    made.note = "kept"
    return made


def alone():
    """(name, value): one instance of each subclass, without and with instance attributes."""
    return [
        ("dict", Dict(a=1, b=[2])),
        ("dict+attrs", with_attributes(Dict(a=1), tag="t", size=2)),
        ("dict+slots", slot_dict()),
        ("OrderedDict", collections.OrderedDict([("b", 1), ("a", 2)])),
        ("OrderedDict+attrs", with_attributes(collections.OrderedDict(a=1), tag="t")),
        ("defaultdict", collections.defaultdict(list, {"k": [1]})),
        ("defaultdict(int)", collections.defaultdict(int, a=3)),
        ("defaultdict(None)", collections.defaultdict(None, a=3)),
        ("Counter", collections.Counter("abca")),
        ("ChainMap", collections.ChainMap({"a": 1}, {"b": 2})),
        ("deque", collections.deque([1, 2], maxlen=5)),
        ("list", List([1, "two"])),
        ("list+attrs", with_attributes(List([1]), tag="t")),
        ("tuple", Tuple((1, "two"))),
        ("namedtuple", Pair(1, "two")),
        ("str", Str("héllo")),
        ("str+attrs", with_attributes(Str("x"), tag="t")),
        ("int", Int(7)),
        ("int big", Int(2**100)),
        ("int+attrs", with_attributes(Int(-3), tag="t")),
        ("IntEnum", Level.LOW),
        ("str Enum", Mode.FAST),
        ("float", Float(1.5)),
        ("float -0.0", Float(-0.0)),
        ("float+attrs", with_attributes(Float(2.5), tag="t")),
        ("complex", Complex(1, 2)),
        ("bytes", Bytes(b"\x00ab")),
        ("bytearray", ByteArray(b"ab")),
        ("set", Set({1, 2})),
        ("set+attrs", with_attributes(Set({3}), tag="t")),
        ("frozenset", FrozenSet({1, 2})),
    ]


def nested():
    """(name, value): each subclass instance inside lists, tuples, dicts (as value, and as key when
    hashable), sets, plain objects, dataclasses and a declared struct's ``any`` field."""
    made = []
    for name, value in alone():
        made += [
            (f"[{name}]", [1, value]),
            (f"[[{name}]]", [[value], {"k": value}]),
            (f"({name},)", (value,)),
            (f"{{k: {name}}}", {"k": value, "n": None}),
            (f"Plain({name})", Plain(value)),
            (f"[Plain({name})]", [Plain(value), Plain(2)]),
            (f"Record({name})", Record(value)),
            (f"Holder({name})", Holder(value)),
            (f"[Holder({name})]", [Holder(value), Holder(2)]),
            (f"{{k: Holder({name})}}", {"k": Holder([value])}),
        ]
        try:
            hash(value)
        except TypeError:
            continue
        made.append((f"{{{name}: 1}}", {value: 1}))
        if isinstance(value, (int, tuple, frozenset)):
            made.append((f"{{{name}}}", {value}))
    return made


def all_values():
    return alone() + nested()
