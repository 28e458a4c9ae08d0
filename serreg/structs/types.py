"""Field types of struct definitions: the wire grammar of docs/FORMAT.md 10.2, parsed and compared.

A :class:`FieldType` is one node of a field's type: ``kind`` (``"int32"``,
``"list"``, ``"struct"`` ...), its ``args`` (item types, or the class ID of a
nested struct) and, for Python, ``py``: the Python type a reader builds
(``tuple`` for a ``["list", T]`` annotated ``tuple[T, ...]``, the Enum class of
an ``"enum"``). ``wire`` is the msgpack form; :func:`parse` reads it back from a
frame, checking everything; :func:`widens` is the evolution rule of 10.4.
"""

from __future__ import annotations

from typing import Any, Optional

from ..standard import ARROW_RECORD_BATCH_CLASS_ID, ARROW_TABLE_CLASS_ID, NDARRAY_CLASS_ID
from ..errors import DeserializationError
from .widths import INTEGER_WIDTHS

__all__ = ["ATOMS", "FieldType", "MAX_TYPE_DEPTH", "STANDARD_ATOMS", "parse", "widens"]

# Atom types that are written as ext 0 values of exactly that class ID.
STANDARD_ATOMS = (
    "datetime", "date", "time", "timedelta", "decimal", "uuid", NDARRAY_CLASS_ID, ARROW_TABLE_CLASS_ID, ARROW_RECORD_BATCH_CLASS_ID,
)
ATOMS = frozenset(("bool", "float32", "float64", "str", "bytes", "enum", "any", *INTEGER_WIDTHS, *STANDARD_ATOMS))
_ARITY = {"optional": 1, "list": 1, "set": 1, "map": 2}
MAX_TYPE_DEPTH = 32


class FieldType:
    """One node of a field type; compared and hashed by its wire form only."""

    __slots__ = ("kind", "args", "py", "wire")

    def __init__(self, kind: str, args: tuple[Any, ...] = (), py: object = None) -> None:
        self.kind = kind
        self.args = args
        self.py = py
        self.wire: Any
        if kind in ATOMS:
            self.wire = kind
        elif kind == "struct":
            self.wire = ("struct", args[0])
        elif kind == "tuple":
            self.wire = ("tuple", tuple(a.wire for a in args))
        else:
            self.wire = (kind, *(a.wire for a in args))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, FieldType) and self.wire == other.wire

    def __hash__(self) -> int:
        return hash(self.wire)

    def __repr__(self) -> str:
        return describe(self.wire)

    def packable(self) -> Any:
        """The msgpack value of this type (lists, not tuples)."""
        return _packable(self.wire)


def _packable(wire: Any) -> Any:
    if isinstance(wire, str):
        return wire
    if wire[0] == "tuple":
        return ["tuple", [_packable(w) for w in wire[1]]]
    return [wire[0], *(_packable(w) for w in wire[1:])]


def describe(wire: Any) -> str:
    """A type as people read it: ``list[int32]``, ``optional[struct example.Point]``."""
    if isinstance(wire, str):
        return wire
    if wire[0] == "struct":
        return f"struct {wire[1]}"
    if wire[0] == "tuple":
        return f"tuple[{', '.join(describe(w) for w in wire[1])}]"
    return f"{wire[0]}[{', '.join(describe(w) for w in wire[1:])}]"


def parse(value: Any, where: str, depth: int = 0) -> FieldType:
    """The FieldType of a type read from a frame; DeserializationError naming ``where`` if malformed."""
    if depth > MAX_TYPE_DEPTH:
        raise DeserializationError(f"{where}: field type nested more than {MAX_TYPE_DEPTH} deep")
    if type(value) is str:
        if value not in ATOMS:
            raise DeserializationError(f"{where}: unknown field type {value!r}")
        return FieldType(value)
    if type(value) is not list or not value or type(value[0]) is not str:
        raise DeserializationError(f"{where}: a field type must be a str or an array starting with a str")
    kind = value[0]
    if kind == "struct":
        if len(value) != 2 or type(value[1]) is not str or not value[1]:
            raise DeserializationError(f"{where}: a struct field type is ['struct', class ID]")
        return FieldType("struct", (value[1],))
    if kind == "tuple":
        if len(value) != 2 or type(value[1]) is not list:
            raise DeserializationError(f"{where}: a tuple field type is ['tuple', [types]]")
        return FieldType("tuple", tuple(parse(item, where, depth + 1) for item in value[1]))
    arity = _ARITY.get(kind)
    if arity is None:
        raise DeserializationError(f"{where}: unknown field type {kind!r}")
    if len(value) != arity + 1:
        raise DeserializationError(f"{where}: a {kind} field type has {arity} type argument(s), got {len(value) - 1}")
    return FieldType(kind, tuple(parse(item, where, depth + 1) for item in value[1:]))


def _int_range(name: str) -> Optional[tuple[Any, ...]]:
    width = INTEGER_WIDTHS.get(name)
    return None if width is None else (width.low, width.high)


def widens(writer: FieldType, reader: FieldType) -> bool:
    """True if values of ``writer``'s type read as ``reader``'s (equal, or a widening of 10.4)."""
    if writer.wire == reader.wire or reader.kind == "any":
        return True
    if reader.kind == "optional":
        inner = writer.args[0] if writer.kind == "optional" else writer
        return widens(inner, reader.args[0])
    w_range, r_range = _int_range(writer.kind), _int_range(reader.kind)
    if w_range is not None and r_range is not None:
        return bool(r_range[0] <= w_range[0] and w_range[1] <= r_range[1])
    if writer.kind == "float32" and reader.kind == "float64":
        return True
    if writer.kind != reader.kind or len(writer.args) != len(reader.args):
        return False
    if writer.kind in ("list", "set", "map", "tuple"):
        return all(widens(w, r) for w, r in zip(writer.args, reader.args))
    return False
