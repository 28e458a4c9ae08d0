"""Struct classes shared by the struct tests and the golden vectors (twins of Java's
serreg.fixture.StructShapes: same class IDs, same field names and types)."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
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


SHAPES = {
    "shapes.Point": Point,
    "shapes.Widths": Widths,
    "shapes.Everything": Everything,
    "shapes.Node": Node,
    "shapes.Pair": Pair,
    "shapes.Group": Group,
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
