"""The data carrier: a struct whose class ID this process has not registered (docs/FORMAT.md, 10.4).

A :class:`StructValue` keeps the definition it was read with and its field
values in that order, so writing it again gives the bytes it came from: a
relay never needs the class. Read its fields by name (``value["x"]``,
``value.fields``); ``class_id`` says what it is.
"""

from __future__ import annotations

from typing import Any

__all__ = ["StructValue"]


class StructValue:
    """A struct instance of an unregistered class ID: ``class_id``, ``field_names``, ``values``."""

    __slots__ = ("class_id", "field_names", "values", "definition", "types")

    def __init__(self, class_id: str, field_names: tuple[Any, ...], values: tuple[Any, ...], definition: bytes, types: tuple[Any, ...]) -> None:
        self.class_id = class_id
        self.field_names = field_names
        self.values = values
        self.definition = definition  # the packed definition it was read with (written back as is)
        self.types = types  # the FieldTypes of its fields, in order

    @property
    def fields(self) -> dict[Any, Any]:
        """Field name -> value, in the definition's order."""
        return dict(zip(self.field_names, self.values))

    def __getitem__(self, name: str) -> Any:
        try:
            return self.values[self.field_names.index(name)]
        except ValueError:
            raise KeyError(f"struct {self.class_id!r} has no field {name!r}") from None

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, StructValue):
            return NotImplemented
        return self.definition == other.definition and self.values == other.values

    def __hash__(self) -> int:
        return hash((self.definition, self.values))

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={v!r}" for n, v in zip(self.field_names, self.values))
        return f"StructValue({self.class_id!r}, {inner})"
