"""The struct classes of the compiled-codec struct tests, and a registry of them on each codec.

``COMPILED_REGISTRY`` runs the compiled codec (the pure one when it is not built or
``SERREG_PURE_PYTHON=1``), ``PURE_REGISTRY`` the pure-Python twin; both have the classes of
``struct_shapes`` and these. ``outcome`` and ``written`` turn a read or a write into a value
two registries' answers can be compared by (the error's type and words included).
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, NamedTuple, Optional
from unittest import mock

import serreg
import serreg.registry
from serreg.codec.pure import MsgpackCodec as PureMsgpackCodec

from call_outcomes import outcome_written_by
from struct_list_faults import register_any_two
from struct_shapes import Color, Point, register

__all__ = [
    "COMPILED_REGISTRY", "PURE_REGISTRY", "Empty", "Frozen", "Mixed", "Row", "Tagged", "outcome", "twin_registries", "written",
]


@dataclasses.dataclass
class Mixed:
    f32: Annotated[float, serreg.float32]
    small: Annotated[int, serreg.int8]
    big: Annotated[int, serreg.uint64]
    maybe: Optional[str]
    blob: bytes
    color: Color
    ids: set[int]
    names: frozenset[str]
    table: dict[str, list[int]]
    pair: tuple[int, Optional[float]]
    points: list[Point]
    origin: Optional[Point]
    floats: tuple[float, ...]
    anything: Any


@dataclasses.dataclass(slots=True, frozen=True)
class Frozen:
    a: Annotated[int, serreg.uint8]
    b: Optional[float]
    c: str


@dataclasses.dataclass
class Tagged:
    items: list[tuple[Any, float]]


@dataclasses.dataclass
class Empty:
    pass


class Row(NamedTuple):
    key: str
    value: Annotated[int, serreg.int16]


def _registry(codec=None) -> serreg.Registry:
    if codec is None:
        registry = serreg.Registry()
    else:
        with mock.patch.object(serreg.registry, "MsgpackCodec", codec):
            registry = serreg.Registry()
    register(registry)
    register_any_two(registry)
    for class_id, cls in (("t.Mixed", Mixed), ("t.Frozen", Frozen), ("t.Row", Row), ("t.Tagged", Tagged), ("t.Empty", Empty)):
        registry.register_struct(cls, class_id)
    return registry


COMPILED_REGISTRY = _registry()
PURE_REGISTRY = _registry(PureMsgpackCodec)


def outcome(call):
    """("value", its frame under the pure registry), or ("error", type, message)."""
    return outcome_written_by(PURE_REGISTRY, call)


def written(registry, value):
    try:
        return ("frame", registry.serialize(value).to_bytes())
    except serreg.SerregError as error:
        return ("error", type(error).__name__, str(error))


def twin_registries(*structs: tuple[type, str]) -> list[serreg.Registry]:
    """A new registry on the compiled codec and one on the pure codec, each with ``structs``
    (class, class ID) registered in that order."""
    made = []
    for codec in (serreg.registry.MsgpackCodec, PureMsgpackCodec):
        with mock.patch.object(serreg.registry, "MsgpackCodec", codec):
            registry = serreg.Registry()
        for cls, class_id in structs:
            registry.register_struct(cls, class_id)
        made.append(registry)
    return made
