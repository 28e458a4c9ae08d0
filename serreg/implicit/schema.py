"""One implicit struct class with one key list: its definition, writers and reader (docs/FORMAT.md 10.9).

Every field is of type ``any``. The writers read the instance's ``__dict__``
(not its attributes: pickle reads the dict, past any descriptor) and give up
the frame (:class:`Abandon`) if its keys are not the definition's, which the
walk checked already unless the value changed since. The reader builds
``cls.__new__(cls)`` and fills its ``__dict__`` without calling ``__init__``
or ``__setattr__``. The key of the definition in a frame's EncodeScope is its
bytes followed by a number unique to this schema, so two classes with equal
definitions (two local classes of one name) keep two entries in the table.
"""

from __future__ import annotations

import itertools
import struct
from typing import Any, Callable, Optional

from msgpack import ExtType, packb

from ..codec.layout import STRUCT_EXT_TYPE
from ..errors import SerializationError
from ..structs.compile import compile_reader
from ..structs.lists import make_list_writer
from ..structs.plan import make_plan
from ..structs.scope import ENCODE_SCOPE
from ..structs.types import FieldType
from ..structs.values import read_converter, write_converter
from ..wire.class_id import class_id_hash
from .classes import class_id_of

__all__ = ["Abandon", "ImplicitSchema"]

_ANY = FieldType("any")
_serial = itertools.count()
_new_tuple = tuple.__new__


class Abandon(BaseException):
    """The value cannot be written with implicit structs after all: it goes to the pickle fallback.

    A BaseException, so that a serializer's ``except Exception`` does not turn it into an error."""


class ImplicitSchema:
    """``cls`` written with the field names ``names`` (its instances' ``__dict__`` keys, in order)."""

    def __init__(self, cls: type, names: tuple[str, ...], ctx: Any) -> None:
        self.cls = cls
        self.names = names
        self.class_id = class_id = class_id_of(cls)
        self.class_hash = class_id_hash(class_id)  # a top-level instance's inner section (10.1)
        self.definition = definition = packb([class_id, [[name, "any"] for name in names]], use_bin_type=True)
        self.key = key = definition + struct.pack("<Q", next(_serial))
        types = (_ANY,) * len(names)
        converters = [write_converter(_ANY, f"{class_id}.{name}", ctx) for name in names]
        self._ctx = ctx
        self._converters = converters
        self.write = self._make_writer()
        self.plan = make_plan(self.write, definition, class_id, cls, "implicit", list(names), types, converters,
                              False, key)
        self.list_writer: Optional[Callable[..., Any]] = None
        if names:
            columns = make_list_writer(key, definition, class_id, list(names), types, converters, _column)
            self.list_writer = self._checked_list_writer(columns)
        self._reader: Optional[Callable[[Any], Any]] = None

    def ext_writer(self) -> Any:
        """What the codec calls for an instance: the compiled codec's plan, else the Python writer."""
        return self.plan or self.write

    def _make_writer(self) -> Callable[[Any, Any], Any]:
        names, key, definition, any_value = self.names, self.key, self.definition, self._converters

        def write(obj: Any, state: Any) -> Any:
            scope = ENCODE_SCOPE.get()
            if scope is None:
                raise SerializationError("an implicit struct can only be written by serreg.serialize")
            fields = _fields(obj, names)
            index = scope.index.get(key)
            if index is None:
                index = scope.add(key, definition)
            values = [index, *(convert(v, state) for convert, v in zip(any_value, fields.values()))]
            return _new_tuple(ExtType, (STRUCT_EXT_TYPE, state.pack_inner(values)))

        return write

    def _checked_list_writer(self, columns: Callable[..., Any]) -> Callable[..., Any]:
        names = self.names

        def write_list(items: list[Any], state: Any) -> Any:
            for item in items:
                _fields(item, names)
            return columns(items, state)

        return write_list

    def reader(self) -> Callable[[Any], Any]:
        """``read(items) -> instance`` of an instance array ``[index, v...]`` of this definition."""
        reader = self._reader
        if reader is None:
            reads = [(position, name, "any", read_converter(_ANY, _ANY, f"{self.class_id}.{name}", self._ctx))
                     for position, name in enumerate(self.names, start=1)]
            reader = self._reader = compile_reader(self.class_id, self.cls, "dict", reads, [], len(self.names))
        return reader


def _fields(obj: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """The instance's ``__dict__``, if its keys are ``names`` in order; else the frame is abandoned."""
    state = object.__getattribute__(obj, "__dict__")
    if type(state) is not dict or len(state) != len(names) or tuple(state) != names:
        raise Abandon
    return state


def _column(items: list[Any], position: int) -> list[Any]:
    return [list(object.__getattribute__(item, "__dict__").values())[position] for item in items]
