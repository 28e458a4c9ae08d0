"""What a struct class is made of: its fields, their annotations and defaults, how to build one.

Supported: dataclasses (plain, frozen, slots, kw_only, defaults and default
factories), ``typing.NamedTuple`` classes, attrs classes (when attrs is
installed; found by their ``__attrs_attrs__``, attrs is never imported here) and
msgspec Structs (when msgspec is installed; see msgspec_kind). Instances are
rebuilt field by field without calling ``__init__``, as pickle rebuilds them, so
a reader runs no user code; msgspec Structs, which cannot be made without their
constructor, are built by calling the class (msgspec's own ``__init__``, then
the class's ``__post_init__`` if it has one, as msgspec and pickle do).
"""

from __future__ import annotations

from typing import Any

import dataclasses
import typing

from .msgspec_kind import BUILD_BY_CALL, is_msgspec_struct, msgspec_fields

__all__ = ["ClassShape", "FieldSpec", "MISSING", "shape_of"]

MISSING = dataclasses.MISSING


class FieldSpec:
    """One field: its name, its annotation, and its default (a value, or a factory), if any."""

    __slots__ = ("name", "annotation", "default", "factory")

    def __init__(self, name: str, annotation: Any, default: Any = MISSING, factory: Any = MISSING) -> None:
        self.name = name
        self.annotation = annotation
        self.default = default
        self.factory = factory

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING or self.factory is not MISSING


class ClassShape:
    """A struct class's fields in declaration order (a msgspec Struct's: its ``__struct_fields__``), and how
    instances are built.

    ``build``: ``"dict"`` (fill ``__dict__``), ``"slots"`` (set each slot through
    its descriptor, which frozen classes allow), ``"tuple"`` (a NamedTuple) or
    ``"call"`` (the class called with keyword arguments: a msgspec Struct).
    """

    __slots__ = ("cls", "fields", "build")

    def __init__(self, cls: type, fields: list[Any], build: str) -> None:
        self.cls = cls
        self.fields = fields
        self.build = build


def _hints(cls: type) -> dict[Any, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except NameError as error:
        raise TypeError(f"the annotations of {cls.__qualname__} name something not defined yet: {error}") from error


def _build_kind(cls: type, names: list[Any]) -> str:
    has_dict = any("__dict__" in vars(base) for base in cls.__mro__[:-1]) or not any(
        "__slots__" in vars(base) for base in cls.__mro__[:-1]
    )
    return "dict" if has_dict and all(_slot_of(cls, n) is None for n in names) else "slots"


def _slot_of(cls: type, name: str) -> Any:
    for base in cls.__mro__:
        descriptor = vars(base).get(name)
        if descriptor is not None and type(descriptor).__name__ == "member_descriptor":
            return descriptor
    return None


def shape_of(cls: type) -> ClassShape:
    """The fields of a dataclass, NamedTuple, attrs class or msgspec Struct; TypeError for anything else."""
    if not isinstance(cls, type):
        raise TypeError(f"a struct is declared on a class, not on {cls!r}")
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        hints = _hints(cls)
        defaults = getattr(cls, "_field_defaults", {})
        fields = [FieldSpec(n, hints.get(n, typing.Any), defaults.get(n, MISSING)) for n in cls._fields]
        return ClassShape(cls, fields, "tuple")
    if dataclasses.is_dataclass(cls):
        hints = _hints(cls)
        fields = [
            FieldSpec(f.name, hints.get(f.name, typing.Any), f.default, f.default_factory)
            for f in dataclasses.fields(cls)
        ]
        return ClassShape(cls, fields, _build_kind(cls, [f.name for f in fields]))
    attributes = getattr(cls, "__attrs_attrs__", None)
    if attributes is not None:
        hints = _hints(cls)
        fields = []
        for a in attributes:
            default, factory = a.default, MISSING
            if type(default).__name__ == "Factory":
                default, factory = MISSING, getattr(default, "factory")
                if getattr(a.default, "takes_self", False):
                    raise TypeError(f"{cls.__qualname__}.{a.name}: a default factory that takes self is not supported")
            elif type(default).__name__ == "_Nothing" or repr(default) == "NOTHING":
                default = MISSING
            fields.append(FieldSpec(a.name, hints.get(a.name, a.type or typing.Any), default, factory))
        return ClassShape(cls, fields, _build_kind(cls, [f.name for f in fields]))
    if is_msgspec_struct(cls):
        hints = _hints(cls)  # first: an undefined name is reported here, as for the other kinds
        fields = [FieldSpec(n, hints.get(n, typing.Any), d, f) for n, d, f in msgspec_fields(cls)]
        return ClassShape(cls, fields, BUILD_BY_CALL)
    raise TypeError(
        f"{cls.__module__}.{cls.__qualname__} is not a dataclass, a typing.NamedTuple, an attrs class or a "
        "msgspec.Struct; declare it with @dataclasses.dataclass (or attrs, or msgspec) first"
    )
