"""The struct table of the frame being written or read (docs/FORMAT.md, 10.1).

A serialize call opens an :class:`EncodeScope`; every struct instance packed
during the call (nested values included) takes the index of its definition
from it, adding the definition on first use. A ``serreg.structs`` section
being read opens a :class:`DecodeScope` holding one reader per definition; an
ext 1 anywhere inside it is decoded by :func:`read_instance`. Both live in
context variables, so threads and nested calls each see their own.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Optional

from ..errors import DeserializationError, LimitExceededError

__all__ = ["DECODE_SCOPE", "ENCODE_SCOPE", "IMPLICIT_READ", "IMPLICIT_TABLES", "DecodeScope", "EncodeScope",
           "ImplicitTables", "read_instance"]

MAX_DEFINITIONS = 65535


class EncodeScope:
    """Definitions met so far in one serialize call, in first-use order."""

    __slots__ = ("index", "definitions")

    def __init__(self) -> None:
        self.index: dict[Any, Any] = {}  # definition key (a schema, or a carrier's definition bytes) -> index
        self.definitions: list[Any] = []  # packed definitions, in index order

    def add(self, key: Any, packed_definition: bytes) -> int:
        index = len(self.definitions)
        if index >= MAX_DEFINITIONS:
            raise LimitExceededError(f"a frame holds at most {MAX_DEFINITIONS} struct definitions")
        self.index[key] = index
        self.definitions.append(packed_definition)
        return index


class DecodeScope:
    """The readers of one table: ``readers[i]`` builds an instance of definition i from its array.

    ``leaves[i]`` is the same reader when definition i has only plain scalar fields (its
    instances hold no nested value), else None; only the first 128 indices are listed.
    ``plans[i]`` is the compiled codec's plan of the registered class when definition i is
    that class's own (the C core then builds its instances itself), else None.
    ``layouts[i]`` is (class ID, field names, field types) of definition i as written,
    which an ext 2 list's columns follow.
    """

    __slots__ = ("readers", "class_ids", "leaves", "plans", "layouts")

    def __init__(self, readers: list[Any], class_ids: list[Any], leaves: list[Any], plans: list[Any],
                 layouts: Optional[list[Any]] = None) -> None:
        self.readers = readers
        self.class_ids = class_ids
        self.leaves = leaves
        self.plans = plans
        self.layouts = layouts if layouts is not None else []


class ImplicitTables:
    """The registry's tables as the codec reads them while a value is written with implicit structs
    (docs/FORMAT.md 10.9): the snapshot's, with the implicit classes' ext 1 and ext 2 writers added."""

    __slots__ = ("rewritten_types", "ext_writers", "list_writers")

    def __init__(self, snapshot: Any, ext_writers: dict[Any, Any], list_writers: dict[Any, Any]) -> None:
        self.rewritten_types = snapshot.rewritten_types
        self.ext_writers = {**snapshot.ext_writers, **ext_writers}
        self.list_writers = {**snapshot.list_writers, **list_writers}


ENCODE_SCOPE: ContextVar[Optional[EncodeScope]] = ContextVar("serreg_struct_encode", default=None)
DECODE_SCOPE: ContextVar[Optional[DecodeScope]] = ContextVar("serreg_struct_decode", default=None)
# Set while a value is written with implicit structs: the tables the codec reads instead of the snapshot's.
IMPLICIT_TABLES: ContextVar[Optional[ImplicitTables]] = ContextVar("serreg_implicit_tables", default=None)
# Set while a serreg.pyobjects section is read: what reads the table's implicit definitions (10.9).
IMPLICIT_READ: ContextVar[Any] = ContextVar("serreg_implicit_read", default=None)


def read_instance(items: Any) -> Any:
    """Decode one instance array ``[index, v...]`` (an ext 1 payload, already unpacked)."""
    scope = DECODE_SCOPE.get()
    if scope is None:
        raise DeserializationError("a struct instance (msgpack ext 1) outside any struct table (serreg.structs)")
    if type(items) is not list or not items or type(items[0]) is not int:
        raise DeserializationError("a struct instance must be an array [definition index, field values...]")
    index = items[0]
    readers = scope.readers
    if not 0 <= index < len(readers):
        raise DeserializationError(f"struct instance names definition {index}, but the table holds {len(readers)}")
    return readers[index](items)
