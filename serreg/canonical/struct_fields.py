"""Canonical field values of structs, one encoder per field type (docs/FORMAT.md, 10.5).

``field_encoder(ftype, where, structs)`` gives ``encode(form, value, out, oob, depth)``,
appending the canonical msgpack of one field value: floats canonical (``float32``
rounded to binary32, then written as canonical float 64), ``map`` entries sorted by
their keys' bytes, ``set`` members sorted by their bytes, a ``["list", T]`` of struct
instances of one definition as ext 2, ``any`` values and the standard types by the
rules of section 9. ``scalar_value(ftype, where)`` gives the canonical value of a
scalar field for one packb. A value outside its field's type has no canonical form.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from msgpack import packb

from ..codec.layout import array_header, map_header
from ..errors import CanonicalFormError, SerializationError
from ..structs.types import STANDARD_ATOMS, FieldType
from ..structs.values import write_converter
from ..structs.widths import INTEGER_WIDTHS
from .floats import canonical_float, pack_float
from .form import entry_order

__all__ = ["FieldEncoder", "SCALARS", "field_encoder", "scalar_value"]

# A field encoder: (form, value, out, oob, depth) -> None, appending the field's canonical msgpack.
FieldEncoder = Callable[[Any, Any, bytearray, list[Any], int], None]
_FLOATS = ("float32", "float64")
# Field types whose canonical value is one msgpack scalar that packb writes in canonical form.
SCALARS = frozenset((*INTEGER_WIDTHS, *_FLOATS, "bool", "str", "bytes", "enum"))


class _Structs(Protocol):
    """What struct-typed fields need of ``serreg.canonical.structs.CanonicalStructs``."""

    def struct_id(self, value: Any) -> Any: ...

    def write_ext(self, form: Any, value: Any, out: bytearray, oob: list[Any], depth: int) -> None: ...

    def write_list(self, form: Any, items: list[Any], out: bytearray, oob: list[Any], depth: int) -> bool: ...


def field_encoder(ftype: FieldType, where: str, structs: _Structs) -> FieldEncoder:
    """The canonical encoder of values of ``ftype`` (``where`` names the field in errors)."""
    kind = ftype.kind

    def bad(value: Any) -> CanonicalFormError:
        return CanonicalFormError(f"{where}: {value!r} does not fit the field's type {ftype!r}", value=value)

    if kind == "any":
        return lambda form, value, out, oob, depth: form.write_value(value, out, oob, depth)
    if kind == "struct":
        class_id = ftype.args[0]

        def write_struct(form: Any, value: Any, out: bytearray, oob: list[Any], depth: int) -> None:
            if structs.struct_id(value) != class_id:
                raise bad(value)
            structs.write_ext(form, value, out, oob, depth)
        return write_struct
    if kind == "optional":
        inner = field_encoder(ftype.args[0], where, structs)

        def write_optional(form: Any, value: Any, out: bytearray, oob: list[Any], depth: int) -> None:
            if value is None:
                out += b"\xc0"
            else:
                inner(form, value, out, oob, depth)
        return write_optional
    if kind in ("list", "tuple"):
        items = [field_encoder(a, where, structs) for a in ftype.args]
        count = len(items) if kind == "tuple" else None
        inner_type = None if kind != "list" else ftype.args[0]
        if inner_type is not None and inner_type.kind == "optional":
            inner_type = inner_type.args[0]
        may_be_struct_list = inner_type is not None and inner_type.kind in ("struct", "any")
        wanted = inner_type.args[0] if inner_type is not None and inner_type.kind == "struct" else None

        def write_items(form: Any, value: Any, out: bytearray, oob: list[Any], depth: int) -> None:
            if (type(value) is not list and type(value) is not tuple) or (count is not None and len(value) != count):
                raise bad(value)
            if may_be_struct_list and value:
                # A list of instances of one definition is ext 2 (10.3): its first item checked against
                # the item type, the rest share its definition.
                if wanted is not None and structs.struct_id(value[0]) != wanted:
                    raise bad(value[0])
                if structs.write_list(form, value if type(value) is list else list(value), out, oob, depth):
                    return
            depth = form.deeper(depth, value)
            out += array_header(len(value))
            if count is None:
                for item in value:
                    items[0](form, item, out, oob, depth)
            else:
                for encode, item in zip(items, value):
                    encode(form, item, out, oob, depth)
        return write_items
    if kind == "set":
        member = field_encoder(ftype.args[0], where, structs)

        def write_set(form: Any, value: Any, out: bytearray, oob: list[Any], depth: int) -> None:
            if type(value) is not set and type(value) is not frozenset:
                raise bad(value)
            depth = form.deeper(depth, value)
            encoded = sorted((_encode_one(member, form, item, depth) for item in value), key=entry_order)
            out += array_header(len(encoded))
            for packed, buffers in encoded:
                out += packed
                oob.extend(buffers)
        return write_set
    if kind == "map":
        key_of, value_of = (field_encoder(a, where, structs) for a in ftype.args)

        def write_map(form: Any, value: Any, out: bytearray, oob: list[Any], depth: int) -> None:
            if type(value) is not dict:
                raise bad(value)
            depth = form.deeper(depth, value)
            entries = [(*_encode_one(key_of, form, k, depth), v) for k, v in value.items()]
            entries.sort(key=entry_order)
            out += map_header(len(entries))
            previous = None
            for packed, buffers, item in entries:
                this = entry_order((packed, buffers))
                if this == previous:
                    raise CanonicalFormError(
                        f"{where}: two keys of the map have the same canonical form (two NaN keys, say); a msgpack "
                        "map cannot hold both, so merge them"
                    )
                previous = this
                out += packed
                oob.extend(buffers)
                value_of(form, item, out, oob, depth)
        return write_map
    convert = _checked(ftype, where)
    if kind in _FLOATS:
        return lambda form, value, out, oob, depth: out.extend(pack_float(convert(value)))
    if kind in STANDARD_ATOMS:
        return lambda form, value, out, oob, depth: form.write_nested(convert(value), out, oob, depth)
    return lambda form, value, out, oob, depth: out.extend(packb(convert(value), use_bin_type=True))


def _checked(ftype: FieldType, where: str) -> Callable[[Any], Any]:
    """``convert(value)``: a plain value checked against ``ftype`` and made what msgpack packs."""
    check = write_converter(ftype, where, None)  # no state and no context needed for plain types

    def convert(value: Any) -> Any:
        # A value outside its field's type (a carrier read from a frame that broke 10.2, say) has no canonical form.
        try:
            return check(value, None)
        except SerializationError as error:
            raise CanonicalFormError(str(error), value=value) from None
    return convert


def scalar_value(ftype: FieldType, where: str) -> Callable[[Any], Any]:
    """The canonical value of a scalar field, as packb writes it canonically (floats made canonical)."""
    convert = _checked(ftype, where)
    if ftype.kind in _FLOATS:
        return lambda value: canonical_float(convert(value))
    return convert


def _encode_one(encode: FieldEncoder, form: Any, value: Any, depth: int) -> tuple[bytes, list[Any]]:
    out = bytearray()
    oob: list[Any] = []
    encode(form, value, out, oob, depth)
    return bytes(out), oob


