"""One registered struct class: its definition, its writer, and its readers per writer definition.

A :class:`StructSchema` is made when a class is registered. Its field types
come from the annotations; a field naming a struct class registered later is
resolved on first use (so classes may refer to each other, or to themselves).
Readers are made per writer definition, checked against this class by the
evolution rules of docs/FORMAT.md 10.4, and kept (a bounded cache).
"""

from __future__ import annotations

import threading

from msgpack import packb

from ..errors import DeserializationError
from .annotations import field_type
from .compile import compile_reader, compile_writer, is_leaf
from .introspect import MISSING, shape_of
from .lists import make_list_writer
from .plan import make_plan
from .types import widens
from .values import read_converter, write_converter
from operator import attrgetter
from typing import Callable, Any

__all__ = ["StructSchema"]

_READERS_MAX = 256


class StructSchema:
    """A struct class bound to a class ID, compiled for one registry (``ctx``: the struct table)."""

    def __init__(self, cls: type, class_id: str, ctx: Any) -> None:
        self.cls = cls
        self.class_id = class_id
        self.shape = shape_of(cls)
        self._ctx = ctx
        self._lock = threading.Lock()
        self._compiled = None  # (types, definition, writer) once the field types are known
        self._plan: Any = None  # the compiled codec's plan, made with them (None with the pure codec)
        self._list_writer: Any = None  # its lists' ext 2 writer, made with them
        self._readers: dict[Any, Any] = {}
        names = [f.name for f in self.shape.fields]
        if len(set(names)) != len(names) or not all(type(n) is str and n for n in names):
            raise TypeError(f"{cls.__qualname__}: struct field names must be unique non-empty strings")

    def where(self, name: str) -> str:
        return f"{self.class_id}.{name}"

    def compile(self) -> Any:
        """(field types, packed definition, writer); LookupError if a nested struct is not registered yet."""
        compiled = self._compiled
        if compiled is None:
            with self._lock:
                compiled = self._compiled
                if compiled is None:
                    compiled = self._compiled = self._build()
        return compiled

    def _build(self) -> Any:
        fields = self.shape.fields
        types = tuple(field_type(f.annotation, self._ctx.struct_id_of, self.where(f.name)) for f in fields)
        definition = packb([self.class_id, [[f.name, t.packable()] for f, t in zip(fields, types)]], use_bin_type=True)
        converters = [write_converter(t, self.where(f.name), self._ctx) for f, t in zip(fields, types)]
        names, kinds = [f.name for f in fields], [t.kind for t in types]
        writer = compile_writer(definition, definition, names, kinds, converters)
        self._plan = make_plan(writer, definition, self.class_id, self.cls, self.shape.build, names, types,
                               converters, is_leaf(kinds))
        getters = [attrgetter(name) for name in names]
        self._list_writer = make_list_writer(definition, definition, self.class_id, names, types, converters,
                                             lambda items, position: list(map(getters[position], items)))
        return types, definition, writer

    def ext_writer(self) -> Any:
        """What the codec calls for an instance: the compiled codec's plan, else the Python writer
        (LookupError if a nested struct is not registered yet)."""
        writer = self.compile()[2]
        return self._plan or writer

    def write_list(self, items: list[Any], state: Any) -> Any:
        """The ext 2 of a list of instances of this class (10.3; a class with at least one field)."""
        self.compile()
        return self._list_writer(items, state)

    def plan_for(self, definition: bytes) -> Any:
        """The compiled codec's plan when ``definition`` is this class's own (read without evolution), else None."""
        return self._plan if self.compile()[1] == definition else None

    def write(self, obj: Any, state: Any) -> Any:
        """The ext 1 of ``obj`` (see compile.compile_writer)."""
        return self.compile()[2](obj, state)

    def reader(self, definition: bytes, names: list[Any], types: list[Any]) -> Callable[[Any], Any]:
        """The reader of instances written with this definition (fields matched by name, 10.4)."""
        reader = self._readers.get(definition)
        if reader is None:
            reader = self._make_reader(names, types)
            readers = {} if len(self._readers) >= _READERS_MAX else dict(self._readers)
            readers[definition] = reader
            self._readers = readers
        return reader

    def _make_reader(self, names: list[Any], types: list[Any]) -> Callable[[Any], Any]:
        own_types = self.compile()[0]
        own = {f.name: (f, t) for f, t in zip(self.shape.fields, own_types)}
        reads = []
        for position, (name, wtype) in enumerate(zip(names, types), start=1):
            mine = own.get(name)
            if mine is None:
                continue  # a field the writer has and this class lacks: skipped
            spec, rtype = mine
            if not widens(wtype, rtype):
                raise DeserializationError(
                    f"struct {self.class_id!r}, field {name!r}: the writer's type is {wtype!r}, this reader's is "
                    f"{rtype!r}, and the one does not widen to the other"
                )
            reads.append((position, name, wtype.kind, read_converter(wtype, rtype, self.where(name), self._ctx)))
        missing = []
        written = set(names)
        for spec in self.shape.fields:
            if spec.name in written:
                continue
            if not spec.has_default:
                raise DeserializationError(
                    f"struct {self.class_id!r}: the writer's definition has no field {spec.name!r} and "
                    f"{self.cls.__qualname__}.{spec.name} has no default"
                )
            factory = None if spec.factory is MISSING else spec.factory
            missing.append((spec.name, spec.default, factory))
        return compile_reader(self.class_id, self.cls, self.shape.build, reads, missing, len(names))
