"""Schema evolution of cross-language structs (docs/FORMAT.md, section 10): a reader widens,
skips the fields it lacks and defaults the ones the frame lacks; narrowing and other type
changes are refused naming the field and both types."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Optional

import pytest

import serreg
from struct_round_trips import frame


@dataclasses.dataclass
class V1:
    id: Annotated[int, serreg.int32]
    name: str
    weight: Annotated[float, serreg.float32]


@dataclasses.dataclass
class V2:
    id: int  # int32 -> int64: widening
    weight: float  # float32 -> float64: widening
    tags: list[str] = dataclasses.field(default_factory=list)  # new, with a default
    note: Optional[str] = None


@dataclasses.dataclass
class V3Required:
    id: int
    required: str


@dataclasses.dataclass
class V3Changed:
    id: str
    name: str
    weight: float


def _registry(cls) -> serreg.Registry:
    registry = serreg.Registry()
    registry.register_struct(cls, "evolve.Item")
    return registry


def test_v1_writer_v2_reader_widens_skips_and_defaults():
    data = frame(_registry(V1), [V1(7, "seven", 0.5)])
    assert _registry(V2).deserialize(data) == [V2(7, 0.5, [], None)]


@dataclasses.dataclass
class V1Wide:
    id: int
    weight: float
    name: str = "?"


@dataclasses.dataclass
class V1NoDefault:
    id: int
    weight: float
    name: str


def test_v2_writer_v1_reader_skips_extra_fields_and_defaults_missing_ones():
    data = frame(_registry(V2), V2(7, 0.5, ["a"], "n"))
    assert _registry(V1Wide).deserialize(data) == V1Wide(7, 0.5, "?")
    with pytest.raises(serreg.DeserializationError, match="no field 'name'.*no default"):
        _registry(V1NoDefault).deserialize(data)


def test_narrowing_is_refused():
    data = frame(_registry(V2), V2(7, 0.5))

    @dataclasses.dataclass
    class Narrow:
        id: Annotated[int, serreg.int32]
        weight: float

    with pytest.raises(serreg.DeserializationError) as error:
        _registry(Narrow).deserialize(data)
    message = str(error.value)
    assert "evolve.Item" in message and "'id'" in message and "int64" in message and "int32" in message


def test_other_type_change_names_both_types():
    data = frame(_registry(V1), V1(7, "seven", 0.5))
    with pytest.raises(serreg.DeserializationError, match="'id'.*int32.*str"):
        _registry(V3Changed).deserialize(data)
    with pytest.raises(serreg.DeserializationError, match="'required'"):
        _registry(V3Required).deserialize(data)
