"""Give a registry implicit structs: the writer its encoder asks, and the ``serreg.pyobjects`` reader."""

from __future__ import annotations

from typing import Any

from ..standard import STRUCTS_CLASS_ID
from ..standard.pickle5 import by_value_modules
from .classes import PYOBJECTS_CLASS_ID
from .reader import PyObjectsSerializer, unpickle_with
from .writer import ImplicitSchemas, ImplicitWriter

__all__ = ["install_reader", "make_writer"]


class _PyObjectsMarker:
    """The type ``serreg.pyobjects`` is bound to: no value is ever of this type."""


def make_writer(table: Any, dispatch: Any, codec: Any, structs: Any) -> ImplicitWriter:
    """The implicit struct writer of a registry (``structs``: its StructRegistrar)."""
    schemas = ImplicitSchemas(structs)
    return ImplicitWriter(lambda: table.snapshot, dispatch.registration_for, codec.pack, schemas,
                          structs.frames.structs_hash, by_value_modules)


def install_reader(table: Any, dispatch: Any, writer: ImplicitWriter, fallback: Any, codec: Any) -> None:
    """Register the ``serreg.pyobjects`` reader (``fallback``: the pickle fallback, which reads the classes;
    ``codec``: the registry's, told the frames it may read in one call)."""

    def tables() -> Any:
        return dispatch.by_id(STRUCTS_CLASS_ID).serializer

    serializer = PyObjectsSerializer(unpickle_with(fallback), tables, lambda: table.snapshot, writer.structs_hash,
                                     writer.schemas, codec.publish_implicit_read)
    table.register(PYOBJECTS_CLASS_ID, _PyObjectsMarker, serializer)
