"""msgspec twins of tests/struct_shapes.py (same class IDs, field names and types, so the same
bytes) and a Struct with a field of every type of the docs/FORMAT.md 10.2 grammar. Imported only
where msgspec is installed."""

from __future__ import annotations

import datetime
import decimal
import enum
import uuid
from typing import Annotated, Any, Optional

import msgspec
import numpy as np
import pyarrow as pa

import serreg
import struct_shapes
from struct_shapes import Color


class MPoint(msgspec.Struct):
    x: int
    y: int
    z: int


class MWidths(msgspec.Struct, frozen=True):
    i8: Annotated[int, serreg.int8]
    i16: Annotated[int, serreg.int16]
    i32: Annotated[int, serreg.int32, msgspec.Meta(ge=-(2**31))]  # msgspec's constraint: left to msgspec
    i64: int
    u8: Annotated[int, serreg.uint8]
    u16: Annotated[int, serreg.uint16]
    u32: Annotated[int, serreg.uint32]
    u64: Annotated[int, serreg.uint64]
    f32: Annotated[float, serreg.float32]
    f64: float


class MEverything(msgspec.Struct, array_like=True, omit_defaults=True):
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
    origin: MPoint


class MNode(msgspec.Struct, kw_only=True):
    value: int
    children: list["MNode"] = msgspec.field(default_factory=list)
    label: Optional[str] = None


class MPair(msgspec.Struct, tag=True, rename="camel"):
    left: str
    right: int = 0


TWINS = {
    "shapes.Point": MPoint, "shapes.Widths": MWidths, "shapes.Everything": MEverything,
    "shapes.Node": MNode, "shapes.Pair": MPair,
}


def twins() -> serreg.Registry:
    registry = serreg.Registry()
    for class_id, cls in TWINS.items():
        registry.register_struct(cls, class_id)
    return registry


def as_twin(value: Any) -> Any:
    """The msgspec twin of a struct_shapes value (recursively)."""
    if isinstance(value, list):
        return [as_twin(v) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(as_twin(v) for v in value)
    if isinstance(value, dict):
        return {k: as_twin(v) for k, v in value.items()}
    for class_id, cls in struct_shapes.SHAPES.items():
        if type(value) is cls:
            names = msgspec.structs.fields(TWINS[class_id])
            return TWINS[class_id](**{f.name: as_twin(getattr(value, f.name)) for f in names})
    return value


class Kind(enum.Enum):
    A = "a"
    B = "b"


class MLeaf(msgspec.Struct, frozen=True):
    n: Annotated[int, serreg.int16]


class MAll(msgspec.Struct):
    b: bool
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
    s: str
    raw: bytes
    kind: Kind
    anything: Any
    when: datetime.datetime
    day: datetime.date
    clock: datetime.time
    span: datetime.timedelta
    amount: decimal.Decimal
    ident: uuid.UUID
    array: np.ndarray
    table: pa.Table
    batch: pa.RecordBatch
    maybe: Optional[MLeaf]
    items: list[Annotated[int, serreg.uint8]]
    rest: tuple[str, ...]
    names: set[str]
    frozen_ids: frozenset[int]
    mapping: dict[str, list[Optional[float]]]
    pair: tuple[MLeaf, Kind]
    leaf: MLeaf


def all_value() -> MAll:
    return MAll(
        b=True, i8=-128, i16=32767, i32=-(2**31), i64=2**63 - 1, u8=255, u16=0, u32=2**32 - 1, u64=2**64 - 1,
        f32=0.5, f64=-0.0, s="ünïcode", raw=b"\x00\xff", kind=Kind.B, anything={"k": [1, (2, 3)], "leaf": MLeaf(1)},
        when=datetime.datetime(2024, 5, 6, 7, 8, 9, 10, tzinfo=datetime.timezone.utc), day=datetime.date(2024, 1, 2),
        clock=datetime.time(23, 59, 58, 7), span=datetime.timedelta(days=-1, microseconds=3),
        amount=decimal.Decimal("-1.50"), ident=uuid.UUID(int=12345), array=np.arange(10, dtype=np.int32),
        table=pa.table({"a": [1, 2, 3]}), batch=pa.record_batch({"b": ["x", None]}), maybe=None,
        items=[0, 1, 255], rest=("a", "b"), names={"x", "y"}, frozen_ids=frozenset({3, -1}),
        mapping={"m": [1.5, None]}, pair=(MLeaf(-3), Kind.A), leaf=MLeaf(7),
    )
