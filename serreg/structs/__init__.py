"""Cross-language structs: the class definition is the serializer (docs/FORMAT.md, section 10).

``@serreg.struct("example.Point")`` on a dataclass, NamedTuple, attrs class or
msgspec Struct (or ``Registry.register_struct(cls, class_id)`` for classes you do not own)
makes its instances travel as field-ordered arrays whose field layout is
written once per frame; Java's ``registry.registerStruct(Point.class,
"example.Point")`` reads and writes the same bytes. Exact widths:
``Annotated[int, serreg.int32]``. Unknown class IDs decode to
:class:`StructValue`, which writes back the bytes it came from.
"""

from __future__ import annotations

from .carrier import StructValue
from .widths import Width, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64

__all__ = [
    "StructValue",
    "Width",
    "float32",
    "float64",
    "int16",
    "int32",
    "int64",
    "int8",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
]
