"""Per-class writer and reader functions, generated once and reused for every instance.

The writer of a struct class reads each attribute, checks it against the
field's type (simple types inline, others through their converter), and
packs ``[index, v0, v1, ...]`` as the payload of a msgpack ext 1. A reader is
made per (writer definition, reader class): it checks the array's length,
checks and converts each field the reader knows, skips the others, fills in
defaults, and builds the instance without calling ``__init__`` (a class that
cannot be made otherwise, a msgspec Struct, is called with keyword arguments,
its errors reported as the frame's). Generated code
holds only names made here and field names checked to be identifiers.
"""

from __future__ import annotations

from typing import Callable, Any

import keyword
from operator import attrgetter

from msgpack import ExtType

from ..codec.layout import STRUCT_EXT_TYPE
from ..errors import DeserializationError, SerializationError
from .scope import ENCODE_SCOPE
from .widths import INTEGER_WIDTHS

__all__ = ["compile_reader", "compile_writer", "is_leaf"]

_new_tuple = tuple.__new__  # ExtType is a namedtuple: tuple.__new__(ExtType, (code, data)) skips its Python-level checks


def _no_scope() -> SerializationError:
    return SerializationError("a struct can only be written by serreg.serialize (it needs the frame's struct table)")


def _inline_check(kind: str, var: str) -> str | None:
    """A one-line test that is True when ``var`` is NOT a valid plain value of ``kind``, or None."""
    width = INTEGER_WIDTHS.get(kind)
    if width is not None:
        return f"type({var}) is not int or not {width.low} <= {var} <= {width.high}"
    if kind == "float64":
        return f"type({var}) is not float"
    if kind == "str":
        return f"type({var}) is not str"
    if kind == "bool":
        return f"type({var}) is not bool"
    return None


def is_leaf(kinds: list[Any]) -> bool:
    """True when every field is a plain scalar (checked inline): its instances hold no nested value."""
    return all(_inline_check(kind, "v") is not None for kind in kinds)


def _attribute(name: str) -> str:
    return name if name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("__") else ""


def compile_writer(key: bytes, definition: bytes, names: list[Any], kinds: list[Any], converters: list[Any]) -> Callable[..., Any]:
    """``write(obj, state) -> ExtType(1, payload)`` for one struct class."""
    namespace = {"get_scope": ENCODE_SCOPE.get, "no_scope": _no_scope, "new_tuple": _new_tuple, "ExtType": ExtType,
                 "KEY": key, "DEFINITION": definition}
    lines = [
        "def write(obj, state):",
        "    scope = get_scope()",
        "    if scope is None:",
        "        raise no_scope()",
        "    index = scope.index.get(KEY)",
        "    if index is None:",
        "        index = scope.add(KEY, DEFINITION)",
    ]
    for i, (name, kind, convert) in enumerate(zip(names, kinds, converters)):
        namespace[f"c{i}"] = convert
        attribute = _attribute(name)
        if attribute:
            lines.append(f"    v{i} = obj.{attribute}")
        else:
            namespace[f"g{i}"] = attrgetter(name)
            lines.append(f"    v{i} = g{i}(obj)")
        check = _inline_check(kind, f"v{i}")
        if check is not None:
            lines.append(f"    if {check}:")
            lines.append(f"        v{i} = c{i}(v{i}, state)")
        else:
            lines.append(f"    v{i} = c{i}(v{i}, state)")
    values = "".join(f", v{i}" for i in range(len(names)))
    # A struct whose fields are all plain scalars holds no nested value: a Packer without a
    # default packs it (no level bookkeeping); anything else may nest and packs one level down.
    pack = "pack_leaf" if is_leaf(kinds) else "pack_inner"
    lines.append(f"    return new_tuple(ExtType, ({STRUCT_EXT_TYPE}, state.{pack}([index{values}])))")
    exec("\n".join(lines), namespace)  # noqa: S102 (code built above from checked names only)
    write: Callable[..., Any] = namespace["write"]
    return write


def compile_reader(class_id: str, cls: type, build: str, reads: list[Any], missing: list[Any], field_count: int) -> Callable[..., Any]:
    """``read(items) -> instance`` for one writer definition read as ``cls``.

    ``reads``: (position in the instance array, reader field name, writer kind,
    converter) for each field both sides have; ``missing``: (name, default,
    factory) for the reader's fields the writer lacks.
    """
    namespace = {"cls": cls, "new": object.__new__, "tuple_new": tuple.__new__, "count_error": _count_error(class_id)}
    lines = [
        "def read(items):",
        f"    if len(items) != {field_count + 1}:",
        "        raise count_error(len(items))",
    ]
    assigned = []
    for j, (position, name, kind, convert) in enumerate(reads):
        namespace[f"c{j}"] = convert
        lines.append(f"    a{j} = items[{position}]")
        check = _inline_check(kind, f"a{j}")
        if check is not None:
            lines.append(f"    if {check}:")
            lines.append(f"        a{j} = c{j}(a{j})")
        else:
            lines.append(f"    a{j} = c{j}(a{j})")
        assigned.append((name, f"a{j}"))
    for k, (name, default, factory) in enumerate(missing):
        if factory is not None:
            namespace[f"f{k}"] = factory
            assigned.append((name, f"f{k}()"))
        else:
            namespace[f"d{k}"] = default
            assigned.append((name, f"d{k}"))
    if build == "tuple":
        order = {name: expr for name, expr in assigned}
        tuple_fields: tuple[str, ...] = getattr(cls, "_fields")  # a named tuple
        fields = ", ".join(order[name] for name in tuple_fields)
        lines.append(f"    return tuple_new(cls, ({fields}{',' if len(tuple_fields) == 1 else ''}))")
    elif build == "call":  # built by its own constructor only (a msgspec Struct): keyword arguments
        namespace["build_error"] = _build_error(class_id, cls)
        if all(_attribute(name) for name, _ in assigned):
            arguments = ", ".join(f"{name}={expr}" for name, expr in assigned)
        else:
            arguments = "**{" + ", ".join(f"{name!r}: {expr}" for name, expr in assigned) + "}"
        lines.append("    try:")
        lines.append(f"        return cls({arguments})")
        lines.append("    except Exception as error:")
        lines.append("        raise build_error(error) from error")
    elif build == "dict":
        entries = ", ".join(f"{name!r}: {expr}" for name, expr in assigned)
        lines.append("    obj = new(cls)")
        if getattr(cls, "__setattr__") is object.__setattr__:
            lines.append(f"    obj.__dict__ = {{{entries}}}")
        else:  # frozen: its __setattr__ refuses, filling the dict it has does not ask it
            lines.append(f"    obj.__dict__.update({{{entries}}})")
        lines.append("    return obj")
    else:
        lines.append("    obj = new(cls)")
        for n, (name, expr) in enumerate(assigned):
            namespace[f"s{n}"] = _setter(cls, name)
            lines.append(f"    s{n}(obj, {expr})")
        lines.append("    return obj")
    exec("\n".join(lines), namespace)  # noqa: S102 (code built above from checked names only)
    read: Callable[..., Any] = namespace["read"]  # type: ignore[assignment]  # exec defined it above
    return read


def _setter(cls: type, name: str) -> Callable[[Any, Any], None]:
    for base in cls.__mro__:
        descriptor = vars(base).get(name)
        if descriptor is not None and hasattr(descriptor, "__set__"):
            setter: Callable[[Any, Any], None] = descriptor.__set__
            return setter
    return lambda obj, value: object.__setattr__(obj, name, value)


def _build_error(class_id: str, cls: type) -> Callable[[Exception], DeserializationError]:
    def error(cause: Exception) -> DeserializationError:
        return DeserializationError(
            f"struct {class_id!r}: {cls.__qualname__} refused the frame's field values: {type(cause).__name__}: {cause}"
        )
    return error


def _count_error(class_id: str) -> Callable[[int], DeserializationError]:
    def error(length: int) -> DeserializationError:
        return DeserializationError(
            f"struct {class_id!r}: an instance array holds {length - 1} field value(s), its definition declares "
            "another count"
        )
    return error
