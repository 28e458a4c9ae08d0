"""Python annotations to struct field types (docs/FORMAT.md, 10.2).

``int`` is ``int64`` and ``float`` is ``float64`` unless ``Annotated`` gives a
width marker (``Annotated[int, serreg.int32]``); ``Optional``/``X | None``,
``list``, ``tuple[T, ...]`` and ``tuple[A, B]``, ``set``/``frozenset``, ``dict``,
``Enum`` subclasses, ``typing.Any``, the standard types and registered structs.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import types
import typing
import uuid
from typing import Any, Callable, Optional

from ..standard import ARROW_RECORD_BATCH_CLASS_ID, ARROW_TABLE_CLASS_ID, NDARRAY_CLASS_ID
from .types import FieldType
from .widths import Width

__all__ = ["field_type"]

_SCALARS = {
    bool: "bool", int: "int64", float: "float64", str: "str", bytes: "bytes",
    datetime.datetime: "datetime", datetime.date: "date", datetime.time: "time",
    datetime.timedelta: "timedelta", decimal.Decimal: "decimal", uuid.UUID: "uuid",
}
# Types of optional libraries, recognized by name so they are never imported here.
_BY_NAME = {
    ("numpy", "ndarray"): NDARRAY_CLASS_ID,
    ("pyarrow.lib", "Table"): ARROW_TABLE_CLASS_ID,
    ("pyarrow.lib", "RecordBatch"): ARROW_RECORD_BATCH_CLASS_ID,
}


def field_type(annotation: Any, struct_id_of: Callable[[type], Optional[str]], where: str) -> FieldType:
    """The FieldType of ``annotation``; TypeError naming ``where`` if it has none."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        base, markers = args[0], [m for m in args[1:] if isinstance(m, Width)]
        if not markers:
            return field_type(base, struct_id_of, where)
        width = markers[-1]
        expected = float if width.name.startswith("float") else int
        if base is not expected:
            raise TypeError(f"{where}: {width!r} applies to {expected.__name__}, not {base!r}")
        return FieldType(width.name)
    if annotation is typing.Any or annotation is object:
        return FieldType("any")
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in args if a is not type(None)]
        if len(members) == 1 and len(args) == 2:
            return FieldType("optional", (field_type(members[0], struct_id_of, where),))
        raise TypeError(f"{where}: a union other than Optional[T] has no struct field type; use typing.Any")
    if origin in (list, typing.List) or annotation is list:
        return FieldType("list", (_item(args, 0, struct_id_of, where),), list)
    if origin in (set, frozenset) or annotation in (set, frozenset):
        kind = origin or annotation
        return FieldType("set", (_item(args, 0, struct_id_of, where),), kind)
    if origin is dict or annotation is dict:
        key = _item(args, 0, struct_id_of, where)
        value = _item(args, 1, struct_id_of, where)
        return FieldType("map", (key, value), dict)
    if origin is tuple or annotation is tuple:
        if not args or (len(args) == 2 and args[1] is Ellipsis):
            return FieldType("list", (_item(args, 0, struct_id_of, where),), tuple)
        if args == ((),):
            return FieldType("tuple", (), tuple)
        return FieldType("tuple", tuple(field_type(a, struct_id_of, where) for a in args), tuple)
    if annotation is type(None) or annotation is None:
        raise TypeError(f"{where}: a field cannot be only None; use Optional[T]")
    if isinstance(annotation, type):
        if annotation in _SCALARS:
            return FieldType(_SCALARS[annotation])
        by_name = _BY_NAME.get((annotation.__module__, annotation.__qualname__))
        if by_name is not None:
            return FieldType(by_name)
        if issubclass(annotation, enum.Enum):
            return FieldType("enum", (), annotation)
        class_id = struct_id_of(annotation)
        if class_id is not None:
            return FieldType("struct", (class_id,), annotation)
        raise LookupError(
            f"{where}: {annotation.__module__}.{annotation.__qualname__} is not a registered struct; register it "
            "with register_struct (or annotate the field typing.Any to write it as any serreg value)"
        )
    raise TypeError(f"{where}: annotation {annotation!r} has no struct field type")


def _item(args: tuple[Any, ...], index: int, struct_id_of: Any, where: str) -> FieldType:
    if len(args) <= index:
        return FieldType("any")
    return field_type(args[index], struct_id_of, where)
