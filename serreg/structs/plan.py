"""The compiled codec's plan of one struct class: field types as type codes (docs/FORMAT.md, 10.2).

:func:`make_plan` turns a class's field types into the tree the C core's
``StructPlan`` reads (a code per type, the Enum class of an enum, the class ID
of a nested struct, item types of containers), with what it needs to read
attributes and to build instances without ``__init__`` (a msgspec Struct: by
calling the class, as its Python reader does). With the pure-Python
codec there is no plan and the Python writer is the class's ext 1 writer.
Type codes here and the ``FT_*`` constants of ``serreg/codec/_core_structs.h``
are one table.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ..codec import STRUCT_PLAN
from ..wire.class_id import class_id_hash
from .types import FieldType, STANDARD_ATOMS
from .values import STANDARD_TYPES

__all__ = ["make_plan"]

# serreg/codec/_core_structs.h, enum FT_*
_CODES = {
    "bool": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5, "uint8": 6, "uint16": 7, "uint32": 8, "uint64": 9,
    "float32": 10, "float64": 11, "str": 12, "bytes": 13, "enum": 14, "any": 15,
}
_STANDARD, _STRUCT, _OPTIONAL, _LIST, _SET, _MAP, _TUPLE = 16, 17, 18, 19, 20, 21, 22
_CONTAINERS = {"optional": _OPTIONAL, "list": _LIST, "set": _SET, "map": _MAP, "tuple": _TUPLE}
_BUILDS = {"dict": 0, "slots": 1, "tuple": 2, "call": 3, "implicit": 4}


def _node(ftype: FieldType) -> tuple[Any, ...]:
    kind = ftype.kind
    code = _CODES.get(kind)
    if code is not None:
        return (code, ftype.py if kind == "enum" else None, ())
    if kind in STANDARD_ATOMS:  # the exact Python type when there is one (arrays and tables: checked by name)
        expected = STANDARD_TYPES.get(kind)
        return (_STANDARD, None if expected is None else expected[0], ())
    if kind == "struct":
        return (_STRUCT, ftype.args[0], ())
    # A list read as a tuple (annotated tuple[T, ...]) names tuple: the C reader builds lists only.
    ref = tuple if kind == "list" and ftype.py is tuple else None
    return (_CONTAINERS[kind], ref, tuple(_node(a) for a in ftype.args))


def _descriptor(cls: type, name: str) -> Any:
    """The descriptor whose ``__set__`` fills field ``name`` (a slot), or None (set as an attribute)."""
    for base in cls.__mro__:
        descriptor = vars(base).get(name)
        if descriptor is not None and hasattr(descriptor, "__set__"):
            return descriptor
    return None


def make_plan(writer: Callable[..., Any], definition: bytes, class_id: str, cls: type, build: str,
              names: list[str], types: tuple[FieldType, ...], converters: list[Any],
              pure_leaf: bool, key: Optional[bytes] = None) -> Optional[Callable[..., Any]]:
    """The compiled codec's StructPlan of a class (callable as its ext 1 writer), or None with the pure codec.

    ``key``: the definition's key in a frame's EncodeScope (its bytes unless given); build "implicit"
    reads and fills the instance's ``__dict__`` itself (an implicit struct, docs/FORMAT.md 10.9)."""
    if STRUCT_PLAN is None or any(t.kind == "enum" and t.py is None for t in types):
        return None
    plan: Callable[..., Any] = STRUCT_PLAN(
        writer, definition if key is None else key, definition, class_id, cls, _BUILDS[build], tuple(names),
        tuple(_node(t) for t in types), tuple(converters),
        tuple(_descriptor(cls, n) if build == "slots" else None for n in names), pure_leaf, class_id_hash(class_id),
    )
    return plan
