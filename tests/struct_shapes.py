"""Struct classes shared by the struct tests and the golden vectors (twins of Java's
serreg.fixture.StructShapes: same class IDs, same field names and types)."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import struct
import uuid
from typing import Annotated, Any, NamedTuple, Optional

import serreg


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


@dataclasses.dataclass
class Point:
    x: int
    y: int
    z: int


@dataclasses.dataclass(frozen=True)
class Widths:
    i8: Annotated[int, serreg.int8]
    i16: Annotated[int, serreg.int16]
    i32: Annotated[int, serreg.int32]
    i64: int
    u8: Annotated[int, serreg.uint8]
    u16: Annotated[int, serreg.uint16]
    u32: Annotated[int, serreg.uint32]
    u64: Annotated[int, serreg.uint64]
    f32: Annotated[float, serreg.float32]
    f64: float


@dataclasses.dataclass(slots=True)
class Everything:
    flag: bool
    name: str
    data: bytes
    color: Color
    tags: list[str]
    scores: dict[str, float]
    members: frozenset[int]
    pair: tuple[int, str]
    maybe: Optional[int]
    when: datetime.datetime
    day: datetime.date
    span: datetime.timedelta
    amount: decimal.Decimal
    ident: uuid.UUID
    anything: Any
    origin: Point


@dataclasses.dataclass(kw_only=True)
class Node:
    value: int
    children: list["Node"] = dataclasses.field(default_factory=list)
    label: Optional[str] = None


class Pair(NamedTuple):
    left: str
    right: int = 0


@dataclasses.dataclass
class Group:
    """A set of structs, float32 values in a map, an optional struct (no Java twin: Java carries it)."""

    name: str
    members: frozenset[Pair]
    weights: dict[str, Annotated[float, serreg.float32]]
    leader: Optional[Pair] = None
    extra: Any = None


@dataclasses.dataclass
class Row:
    """Every column kind of an ext 2 list (docs/FORMAT.md 10.3; no Java twin: Java carries it)."""

    count: Annotated[int, serreg.uint32]
    delta: int
    small: Annotated[int, serreg.int8]
    ratio: float
    weight: Annotated[float, serreg.float32]
    flag: bool
    name: str
    tags: list[str]
    origin: Point
    path: list[Point]
    maybe: Optional[Pair] = None
    extra: Any = None


SHAPES = {
    "shapes.Point": Point,
    "shapes.Widths": Widths,
    "shapes.Everything": Everything,
    "shapes.Node": Node,
    "shapes.Pair": Pair,
    "shapes.Group": Group,
    "shapes.Row": Row,
}


def register(registry: serreg.Registry) -> serreg.Registry:
    for class_id, cls in SHAPES.items():
        registry.register_struct(cls, class_id)
    return registry


def everything() -> Everything:
    return Everything(
        flag=True, name="héllo", data=b"\x00\x01", color=Color.GREEN, tags=["a", "b"],
        scores={"x": 1.5, "y": -0.0}, members=frozenset({3, 1, 2}), pair=(7, "seven"), maybe=None,
        when=datetime.datetime(2024, 5, 6, 7, 8, 9, 10), day=datetime.date(2024, 1, 2),
        span=datetime.timedelta(days=1, seconds=2), amount=decimal.Decimal("1.50"),
        ident=uuid.UUID("12345678-1234-5678-1234-567812345678"), anything={"k": [1, (2, 3)]},
        origin=Point(1, 2, 3),
    )


def widths() -> Widths:
    return Widths(-128, -32768, -(2**31), -(2**63), 255, 65535, 2**32 - 1, 2**64 - 1, 0.5, 1e300)


def tree() -> Node:
    return Node(value=1, children=[Node(value=2, label="two"), Node(value=3, children=[Node(value=4)])])


def rows() -> list[Row]:
    """Three rows: an int64 column of kind 1 (zigzag, its extremes), an int8 and a uint32 column of kind 0,
    float64 (-0.0, 1e300), float32 (0.1 rounded, -2.5, inf), bool, str and list[str] array columns, a struct
    column, a list-of-structs field (an empty list, ext 2 lists), an optional struct and an any column
    holding a list of points (ext 2 inside an array column)."""
    return [
        Row(0, -(2**63), 0, 0.5, to_float32(0.1), True, "a", [], Point(1, 2, 3), []),
        Row(128, 2**63 - 1, 127, -0.0, -2.5, False, "", ["x"], Point(-1, 0, 1), [Point(4, 5, 6), Point(7, 8, -9)],
            maybe=Pair("p", 1), extra=[Point(9, 9, 9)]),
        Row(2**32 - 1, 300, 5, 1e300, float("inf"), True, "héllo", ["y", "z"], Point(0, 0, 0), [Point(0, -1, 2)],
            extra={"k": 1}),
    ]


# Two tiny classes the tests register under IDs of their own (the order of definitions first met in sets).
@dataclasses.dataclass(frozen=True)
class Leaf:
    n: int


@dataclasses.dataclass(frozen=True)
class Tag:
    s: str


def to_float32(value: float) -> float:
    """``value`` rounded to the nearest binary32, as a float32 field holds it."""
    return struct.unpack("<f", struct.pack("<f", value))[0]
