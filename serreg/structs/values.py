"""Field values to and from their wire form, one converter per field type (docs/FORMAT.md, 10.2).

``write_converter(ftype, where, ctx)`` returns ``convert(value, state)``: the
value checked against the field's type and turned into what msgpack packs
(an Enum into its name, a tuple into a list, a set into its members sorted by
their bytes), or a SerializationError naming the field and the value.
``read_converter(writer, reader, where, ctx)`` returns ``convert(value)``: a
decoded wire value checked against the *writer's* type and built as the
*reader's* Python type (a list into a tuple, a name into its Enum member), or a
DeserializationError naming the field. Nothing is coerced that would change a
value: out of range, wrong type or unknown member is an error.
"""

from __future__ import annotations

import datetime
import decimal
import struct
import uuid

from ..standard import ARROW_RECORD_BATCH_CLASS_ID, ARROW_TABLE_CLASS_ID, NDARRAY_CLASS_ID
from ..codec import MAX_KEYS_PER_HASH, check_hash_spread, is_untrusted
from ..codec.checks import TIMESTAMP
from ..codec.scan import holds_any
from ..errors import DeserializationError, SerializationError
from .types import FieldType, describe
from .widths import INTEGER_WIDTHS
from typing import Callable, Any

__all__ = ["read_converter", "write_converter", "STANDARD_TYPES"]

STANDARD_TYPES = {
    "datetime": (datetime.datetime,), "date": (datetime.date,), "time": (datetime.time,),
    "timedelta": (datetime.timedelta,), "decimal": (decimal.Decimal,), "uuid": (uuid.UUID,),
}
_BY_NAME = {NDARRAY_CLASS_ID: ("numpy", "ndarray"), ARROW_TABLE_CLASS_ID: ("pyarrow.lib", "Table"),
            ARROW_RECORD_BATCH_CLASS_ID: ("pyarrow.lib", "RecordBatch")}
_F32 = struct.Struct("<f")


def _is_standard(kind: str, value: Any) -> bool:
    expected = STANDARD_TYPES.get(kind)
    if expected is not None:
        if kind == "date":
            return type(value) is datetime.date
        return type(value) in expected
    cls = type(value)
    return (cls.__module__, cls.__qualname__) == _BY_NAME[kind]


def to_float32(value: float) -> float:
    """The binary32 value nearest ``value``; OverflowError beyond binary32's range."""
    nearest: float = _F32.unpack(_F32.pack(value))[0]
    return nearest


# ------------------------------------------------------------------------------------- writing


def write_converter(ftype: FieldType, where: str, ctx: Any) -> Callable[[Any, Any], Any]:
    """``convert(value, state)`` for values of ``ftype`` (``where`` names the field in errors)."""
    kind = ftype.kind

    def bad(value: Any, why: str = "") -> SerializationError:
        return SerializationError(f"{where}: {value!r} does not fit the field's type {ftype!r}{why}")

    width = INTEGER_WIDTHS.get(kind)
    if width is not None:
        low, high = width.low, width.high
        assert low is not None and high is not None  # integer widths have a range

        def write_int(value: Any, state: Any) -> Any:
            if type(value) is not int or not low <= value <= high:
                raise bad(value)
            return value
        return write_int
    if kind == "float64":
        def write_float(value: Any, state: Any) -> Any:
            if type(value) is float:
                return value
            if type(value) is int and float(value) == value:
                return float(value)
            raise bad(value)
        return write_float
    if kind == "float32":
        def write_float32(value: Any, state: Any) -> Any:
            if type(value) is not float and not (type(value) is int and float(value) == value):
                raise bad(value)
            try:
                return to_float32(value)
            except OverflowError:
                raise bad(value, " (beyond float32's range)") from None
        return write_float32
    if kind in ("bool", "str"):
        expected = bool if kind == "bool" else str

        def write_exact(value: Any, state: Any) -> Any:
            if type(value) is not expected:
                raise bad(value)
            return value
        return write_exact
    if kind == "bytes":
        def write_bytes(value: Any, state: Any) -> Any:
            if type(value) is bytes:
                return value
            if isinstance(value, (bytearray, memoryview)):
                return bytes(value)
            raise bad(value)
        return write_bytes
    if kind == "enum":
        enum_cls: Any = ftype.py

        def write_enum(value: Any, state: Any) -> Any:
            if enum_cls is None:
                if type(value) is not str:
                    raise bad(value)
                return value
            if not isinstance(value, enum_cls):
                raise bad(value)
            return value.name
        return write_enum
    if kind == "any":
        return lambda value, state: state.any_value(value)
    if kind in STANDARD_TYPES or kind in _BY_NAME:
        def write_standard(value: Any, state: Any) -> Any:
            if not _is_standard(kind, value):
                raise bad(value)
            return value
        return write_standard
    if kind == "struct":
        class_id = ftype.args[0]

        def write_struct(value: Any, state: Any) -> Any:
            if ctx.class_id_of_value(value) != class_id:
                raise bad(value)
            return value
        return write_struct
    items = [write_converter(a, where, ctx) for a in ftype.args]
    if kind == "optional":
        inner = items[0]
        return lambda value, state: None if value is None else inner(value, state)
    if kind == "list":
        inner = items[0]
        item_kind = ftype.args[0].args[0].kind if ftype.args[0].kind == "optional" else ftype.args[0].kind
        may_be_struct_list = item_kind in ("struct", "any")

        def write_list(value: Any, state: Any) -> Any:
            if type(value) is not list and type(value) is not tuple:
                raise bad(value)
            if may_be_struct_list and value:
                # A list of instances of one definition is ext 2 (10.3): its first item checked, the rest
                # share its definition; the columns' writers check every value.
                marked = state.struct_list(value if type(value) is list else list(value))
                if marked is not None:
                    inner(value[0], state)
                    return marked
            return [inner(item, state) for item in value]
        return write_list
    if kind == "set":
        inner = items[0]

        def write_set(value: Any, state: Any) -> Any:
            if type(value) is not set and type(value) is not frozenset:  # a subclass is refused, not made a set
                raise bad(value)
            members = [inner(item, state) for item in value]
            members.sort(key=state.sort_key)
            return members
        return write_set
    if kind == "map":
        key_of, value_of = items

        def write_map(value: Any, state: Any) -> Any:
            if type(value) is not dict:
                raise bad(value)
            return {key_of(k, state): value_of(v, state) for k, v in value.items()}
        return write_map
    if kind == "tuple":
        count = len(items)

        def write_tuple(value: Any, state: Any) -> Any:
            if (type(value) is not tuple and type(value) is not list) or len(value) != count:
                raise bad(value)
            return [convert(item, state) for convert, item in zip(items, value)]
        return write_tuple
    raise TypeError(f"{where}: no writer for field type {ftype!r}")


# ------------------------------------------------------------------------------------- reading


def read_converter(writer: FieldType, reader: FieldType, where: str, ctx: Any) -> Callable[[Any], Any]:
    """``convert(value)``: a wire value of ``writer``'s type as ``reader``'s Python value."""
    kind = writer.kind

    def bad(value: Any) -> DeserializationError:
        shown = describe(writer.wire)
        return DeserializationError(f"{where}: the frame holds {_show(value)} in a field of type {shown}")

    if reader.kind == "optional" and kind != "optional":
        return read_converter(writer, reader.args[0], where, ctx)
    width = INTEGER_WIDTHS.get(kind)
    if width is not None:
        low, high = width.low, width.high
        assert low is not None and high is not None  # integer widths have a range

        def read_int(value: Any) -> Any:
            if type(value) is not int or not low <= value <= high:
                raise bad(value)
            return value
        return read_int
    if kind in ("float64", "float32"):
        def read_float(value: Any) -> Any:
            if type(value) is not float:
                raise bad(value)
            return value
        return read_float
    if kind in ("bool", "str", "bytes"):
        expected = {"bool": bool, "str": str, "bytes": bytes}[kind]

        def read_exact(value: Any) -> Any:
            if type(value) is not expected:
                raise bad(value)
            return value
        return read_exact
    if kind == "enum":
        enum_cls: Any = reader.py if reader.kind == "enum" else None

        def read_enum(value: Any) -> Any:
            if type(value) is not str:
                raise bad(value)
            if enum_cls is None:
                return value
            member = enum_cls.__members__.get(value)
            if member is None:
                raise DeserializationError(f"{where}: {enum_cls.__qualname__} has no member named {value!r}")
            return member
        return read_enum
    if kind == "any":
        def read_any(value: Any) -> Any:
            if holds_any(value, TIMESTAMP) or type(value) in TIMESTAMP:
                raise DeserializationError(f"{where}: msgpack ext type -1 (timestamp) is not used by serreg")
            return value
        return read_any
    if kind in STANDARD_TYPES or kind in _BY_NAME:
        def read_standard(value: Any) -> Any:
            if not _is_standard(kind, value):
                raise bad(value)
            return value
        return read_standard
    if kind == "struct":
        class_id = writer.args[0]

        def read_struct(value: Any) -> Any:
            if ctx.class_id_of_value(value) != class_id:
                raise bad(value)
            return value
        return read_struct
    reader_args = reader.args if reader.kind == kind else (FieldType("any"),) * len(writer.args)
    items = [read_converter(w, r, where, ctx) for w, r in zip(writer.args, reader_args)]
    py = reader.py if reader.kind == kind else None
    if kind == "optional":
        inner = items[0]
        return lambda value: None if value is None else inner(value)
    if kind == "list":
        inner = items[0]
        build: Any = tuple if py is tuple else None

        def read_list(value: Any) -> Any:
            if type(value) is not list:
                raise bad(value)
            converted = [inner(item) for item in value]
            return converted if build is None else build(converted)
        return read_list
    if kind == "set":
        inner = items[0]
        set_build: Any = py if py in (set, frozenset) else (list if reader.kind == "any" else set)

        def read_set(value: Any) -> Any:
            if type(value) is not list:
                raise bad(value)
            converted = [inner(item) for item in value]
            if set_build is not list and len(converted) > MAX_KEYS_PER_HASH and is_untrusted():
                check_hash_spread(converted, "set")
            return set_build(converted)
        return read_set
    if kind == "map":
        key_of, value_of = items

        def read_map(value: Any) -> Any:
            if type(value) is not dict:
                raise bad(value)
            return {key_of(k): value_of(v) for k, v in value.items()}
        return read_map
    if kind == "tuple":
        count = len(items)
        tuple_build: Any = tuple if reader.kind == "tuple" else list

        def read_tuple(value: Any) -> Any:
            if type(value) is not list or len(value) != count:
                raise bad(value)
            return tuple_build(convert(item) for convert, item in zip(items, value))
        return read_tuple
    raise DeserializationError(f"{where}: no reader for field type {writer!r}")


def _show(value: Any) -> str:
    text = repr(value)
    return f"a {type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"
