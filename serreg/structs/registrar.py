"""Struct registration for one Registry: classes to schemas, and the serializers installed.

``install_structs`` gives a registry its ``serreg.structs`` table reader and
the ``serreg.struct`` carrier. :meth:`StructRegistrar.register` binds a class
to a class ID: a :class:`StructSchema` compiled now (or on first use when a
nested struct class is registered later), a :class:`StructSerializer` in the
registry's table, and the class ID allowed in untrusted mode (a struct reader
builds only the registered class, without running its code).
"""

from __future__ import annotations

import functools
import threading
from typing import Any, Optional

from ..implicit.classes import IMPLICIT_PREFIX
from ..standard import STRUCT_CARRIER_CLASS_ID, STRUCTS_CLASS_ID
from ..wire.class_id import class_id_hash
from .carrier import StructValue
from .frames import StructFrames
from .schema import StructSchema
from .serializers import CarrierSerializer, StructSerializer, TableSerializer

__all__ = ["StructRegistrar", "install_structs"]


class StructRegistrar:
    """The struct classes of one registry, by class ID and by class."""

    def __init__(self, table: Any, codec: Any) -> None:
        self._table = table
        self._codec = codec
        self._lock = threading.Lock()
        self._by_id: dict[Any, Any] = {}
        self._by_class: dict[Any, Any] = {}
        self._uncompiled: list[StructSchema] = []  # schemas naming a struct class not registered yet
        self.frames = StructFrames(self, class_id_hash(STRUCTS_CLASS_ID))

    def register(self, cls: type, class_id: str) -> StructSchema:
        if not isinstance(class_id, str) or not class_id:
            raise TypeError(f"class_id must be a non-empty str, not {class_id!r}")
        if class_id.startswith(IMPLICIT_PREFIX):
            raise TypeError(f"class IDs starting with {IMPLICIT_PREFIX!r} are reserved for implicit structs "
                            f"(docs/FORMAT.md 10.9); register {cls.__qualname__} under another, not {class_id!r}")
        schema = StructSchema(cls, class_id, self)
        with self._lock:
            existing = self._by_id.get(class_id)
            if existing is not None and existing.cls is not cls:
                raise TypeError(f"class ID {class_id!r} is already a struct of {existing.cls.__qualname__}")
            saved = self._by_id, self._by_class
            self._by_id = {**self._by_id, class_id: schema}
            self._by_class = {**self._by_class, cls: schema}  # before compiling: a class may nest itself
            try:
                try:
                    writer = schema.ext_writer()
                except LookupError:
                    writer = schema.write  # a nested struct class not registered yet: compiled on first use
                    self._uncompiled.append(schema)
                self._table.register(class_id, cls, StructSerializer(self._codec, schema), ext_writer=writer,
                                     list_writer=_list_writer(schema))
            except BaseException:
                self._by_id, self._by_class = saved
                raise
            self._compile_waiting()
        self._table.allow((class_id,))
        return schema

    def _compile_waiting(self) -> None:
        """Give the classes that waited for a nested struct class their compiled writers, now that they can."""
        waiting = self._uncompiled
        self._uncompiled = []
        for schema in waiting:
            if self._by_id.get(schema.class_id) is not schema:
                continue  # registered again since
            try:
                writer = schema.ext_writer()
            except LookupError:
                self._uncompiled.append(schema)
                continue
            self._table.register(schema.class_id, schema.cls, StructSerializer(self._codec, schema), ext_writer=writer,
                                     list_writer=_list_writer(schema))

    def by_class_id(self, class_id: str) -> Optional[StructSchema]:
        return self._by_id.get(class_id)

    def struct_id_of(self, cls: type) -> Optional[str]:
        schema = self._by_class.get(cls)
        return None if schema is None else schema.class_id

    def class_id_of_value(self, value: Any) -> Optional[str]:
        schema = self._by_class.get(type(value))
        if schema is not None:
            class_id: str = schema.class_id
            return class_id
        if type(value) is StructValue:
            return value.class_id
        return None


def install_structs(registrar: StructRegistrar, table: Any, codec: Any, decode_section: Any) -> None:
    """Register ``serreg.structs`` (the table reader) and ``serreg.struct`` (the carrier) in ``table``."""
    frames = registrar.frames
    carrier = CarrierSerializer(codec, STRUCT_CARRIER_CLASS_ID, frames)
    table.register(STRUCT_CARRIER_CLASS_ID, StructValue, carrier, ext_writer=frames.write_carrier,
                   list_writer=frames.write_carrier_list)
    table.register(STRUCTS_CLASS_ID, _TableMarker, TableSerializer(codec, frames, decode_section, _hash))


def _list_writer(schema: StructSchema) -> Any:
    """The ext 2 writer of a class's lists; None for a class without fields (its lists stay arrays, 10.3)."""
    return schema.write_list if schema.shape.fields else None


@functools.lru_cache(maxsize=4096)
def _hash(class_id: str) -> bytes:
    return class_id_hash(class_id)


class _TableMarker:
    """The type ``serreg.structs`` is bound to: no value is ever of this type."""
