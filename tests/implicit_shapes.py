"""The plain classes and values of the implicit-struct tests (docs/FORMAT.md 10.9), and a
registry on each codec.

``VALUES`` are plain objects the fallback would pickle whole and serreg writes as implicit
structs; ``COMPILED`` and ``PURE`` (``REGISTRIES``) run the compiled and the pure-Python codec;
``frame_of`` writes a value, ``class_hash`` reads the ClassIDHash of a frame's top value.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from unittest import mock

import serreg
import serreg.registry
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec
from serreg.wire.class_id import class_id_hash

__all__ = [
    "COMPILED", "INITS", "PICKLE5", "PURE", "PYOBJECTS", "REGISTRIES", "STRUCTS", "VALUES", "Empty", "Frozen", "MyList",
    "Node", "Plain", "Record", "Reduced", "Slotted", "Stated", "class_hash", "frame_of", "pure_registry",
]

PYOBJECTS = class_id_hash("serreg.pyobjects")
PICKLE5 = class_id_hash("serreg.pickle5")
STRUCTS = class_id_hash("serreg.structs")


@dataclasses.dataclass
class Record:
    id: int
    name: str
    tags: Any


@dataclasses.dataclass(frozen=True)
class Frozen:
    x: int
    y: tuple

    def __post_init__(self) -> None:
        INITS.append(self.x)


INITS: list[int] = []


class Plain:
    def __init__(self, a: Any, b: Any) -> None:
        self.a = a
        self.b = b

    def __eq__(self, other: Any) -> bool:
        return type(other) is Plain and vars(other) == vars(self)


class Empty:
    def __eq__(self, other: Any) -> bool:
        return type(other) is Empty and not vars(other)


@dataclasses.dataclass
class Node:
    value: int
    children: list


@dataclasses.dataclass
class Reduced:
    a: int

    def __reduce__(self) -> Any:
        return (Reduced, (self.a,))


@dataclasses.dataclass(slots=True)
class Slotted:
    a: int


@dataclasses.dataclass
class Stated:
    a: int

    def __setstate__(self, state: Any) -> None:
        self.__dict__.update(state)


class MyList(list):  # type: ignore[type-arg]
    pass


def pure_registry() -> serreg.Registry:
    """A registry on the pure-Python codec, whatever codec serreg picked."""
    with mock.patch.object(serreg.registry, "MsgpackCodec", PureMsgpackCodec):
        return serreg.Registry()


COMPILED = serreg.Registry()
PURE = pure_registry()
REGISTRIES = [COMPILED, PURE]


def _with_extra(record: Record) -> Record:
    record.extra = {"k": [1, 2]}  # type: ignore[attr-defined]
    return record


VALUES = {
    "dataclass": Record(1, "a", ["x"]),
    "list": [Record(i, f"n{i}", ["a", "b"]) for i in range(50)],
    "frozen": [Frozen(1, (2, 3)), Frozen(4, ())],
    "plain": {"k": Plain(1, "b"), "j": [Plain(2, None), Plain(3.5, b"x")]},
    "nested": Node(1, [Node(2, []), Node(3, [Node(4, [])])]),
    "mixed": [1, "s", (Record(1, "a", []), {"p": Plain(1, 2)}), {Frozen(7, ())}, None],
    "tuple": (Record(1, "a", []), 2),
    "set": {Frozen(1, ()), Frozen(2, ("x",))},
    "empty": [Empty(), Empty()],
    "extra attributes": [_with_extra(Record(1, "a", None)), _with_extra(Record(2, "b", None))],
    "atoms shared": [Record(1, "same" * 10, (1, 2)), Record(2, "same" * 10, (1, 2))],
    "standard types": [Plain(1.5 + 2j, bytearray(b"ab")), Plain(frozenset({1}), {1, 2})],
}


def frame_of(registry: serreg.Registry, value: Any) -> bytes:
    return registry.serialize(value).to_bytes()


def class_hash(frame: bytes) -> bytes:
    in_band_at = 32 + 16 * int.from_bytes(frame[8:12], "little")
    return frame[in_band_at:in_band_at + 8]
