"""The Arrow schema description: an Arrow schema as plain msgpack (docs/FORMAT.md, section 9.5).

The IPC Schema message is a flatbuffer whose bytes depend on the writer (field
order inside tables, padding, vtable sharing), so the canonical form describes
the schema as plain msgpack instead, using the type names of Arrow's
Schema.fbs: ``[fields, metadata]``, each field ``[name, type, nullable,
metadata, children]``. ``describe_schema`` writes it (the canonical writer)
and ``schema_from_description`` reads it (the ``ArrowTable`` reader, which
accepts either form).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..errors import DeserializationError
from ..limits import charge
from .arrow_extension import EXTENSION_METADATA, extension_keys
from .arrow_ipc_check import EXTENSION_NAME, MAX_DEPTH
from typing import Optional, Any

__all__ = ["FIELD_COST", "LIST_ITEM_NAME", "METADATA_COST", "describe_schema", "schema_from_description"]

# What reading a field costs in memory (pyarrow 26, CPython 3.11, measured and rounded up),
# charged against the deserialize call's budget before it is built (serreg.limits.charge).
FIELD_COST = 256  # a Field and its DataType (plus its name, twice)
METADATA_COST = 128  # one metadata entry (plus its bytes, twice: to C++ and to Python)

_TIME_UNITS = {"s": "SECOND", "ms": "MILLISECOND", "us": "MICROSECOND", "ns": "NANOSECOND"}
_UNIT_NAMES = {name: unit for unit, name in _TIME_UNITS.items()}
_FLOAT_PRECISION = {16: "HALF", 32: "SINGLE", 64: "DOUBLE"}
_FLOAT_TYPES = {"HALF": pa.float16, "SINGLE": pa.float32, "DOUBLE": pa.float64}
# Names Arrow gives the child fields of list and map types; type equality ignores
# them and implementations choose differently (Java: "$data$"), so these are written.
LIST_ITEM_NAME = "item"
MAP_ENTRIES_NAME, MAP_KEY_NAME, MAP_VALUE_NAME = "entries", "key", "value"


def describe_schema(schema: pa.Schema) -> list[Any]:
    """The canonical msgpack-ready description ``[fields, metadata]`` of ``schema``."""
    return [[_describe_field(field) for field in schema], _metadata(schema.metadata)]


def _metadata(metadata: Any) -> dict[bytes, bytes] | None:
    if not metadata:
        return None
    return dict(sorted(metadata.items()))


def _describe_field(field: pa.Field, name: str | None = None) -> list[Any]:
    arrow_type = field.type
    t = pa.types
    metadata = field.metadata
    if isinstance(arrow_type, pa.BaseExtensionType):  # its storage, the extension keys in the field metadata
        ext_name, ext_metadata = extension_keys(arrow_type)
        metadata = {**(metadata or {}), EXTENSION_NAME: ext_name, EXTENSION_METADATA: ext_metadata}
        field, arrow_type = field.with_type(arrow_type.storage_type), arrow_type.storage_type
    dictionary = None
    if t.is_dictionary(arrow_type):
        index = arrow_type.index_type
        dictionary = [index.bit_width, t.is_signed_integer(index), arrow_type.ordered]
        field = field.with_type(arrow_type.value_type)
        return _describe_field(field.with_metadata(metadata or {}), name) + [dictionary]
    if t.is_struct(arrow_type) or t.is_union(arrow_type):
        children = [_describe_field(arrow_type.field(i)) for i in range(arrow_type.num_fields)]
    elif t.is_run_end_encoded(arrow_type):
        children = [_describe_field(pa.field("run_ends", arrow_type.run_end_type, nullable=False)),
                    _describe_field(pa.field("values", arrow_type.value_type))]
    elif t.is_map(arrow_type):
        entries = pa.field(MAP_ENTRIES_NAME, pa.struct([
            arrow_type.key_field.with_name(MAP_KEY_NAME), arrow_type.item_field.with_name(MAP_VALUE_NAME),
        ]), nullable=False)
        children = [_describe_field(entries)]
    elif (t.is_list(arrow_type) or t.is_large_list(arrow_type) or t.is_fixed_size_list(arrow_type)
          or t.is_list_view(arrow_type) or t.is_large_list_view(arrow_type)):
        children = [_describe_field(arrow_type.value_field, LIST_ITEM_NAME)]
    else:
        children = []
    return [field.name if name is None else name, _describe_type(arrow_type), field.nullable,
            _metadata(metadata), children]


def _describe_type(arrow_type: pa.DataType) -> list[Any]:
    t = pa.types
    if t.is_null(arrow_type):
        return ["Null"]
    if t.is_boolean(arrow_type):
        return ["Bool"]
    if t.is_integer(arrow_type):
        return ["Int", arrow_type.bit_width, t.is_signed_integer(arrow_type)]
    if t.is_floating(arrow_type):
        return ["FloatingPoint", _FLOAT_PRECISION[arrow_type.bit_width]]
    if t.is_decimal(arrow_type):
        return ["Decimal", arrow_type.precision, arrow_type.scale, arrow_type.bit_width]
    if t.is_date32(arrow_type):
        return ["Date", "DAY"]
    if t.is_date64(arrow_type):
        return ["Date", "MILLISECOND"]
    if t.is_time(arrow_type):
        return ["Time", _TIME_UNITS[arrow_type.unit], arrow_type.bit_width]
    if t.is_timestamp(arrow_type):
        return ["Timestamp", _TIME_UNITS[arrow_type.unit], arrow_type.tz]
    if t.is_duration(arrow_type):
        return ["Duration", _TIME_UNITS[arrow_type.unit]]
    if t.is_fixed_size_binary(arrow_type) and not t.is_decimal(arrow_type):
        return ["FixedSizeBinary", arrow_type.byte_width]
    if t.is_large_string(arrow_type):
        return ["LargeUtf8"]
    if t.is_large_binary(arrow_type):
        return ["LargeBinary"]
    if t.is_string(arrow_type):
        return ["Utf8"]
    if t.is_binary(arrow_type):
        return ["Binary"]
    if t.is_large_list(arrow_type):
        return ["LargeList"]
    if t.is_interval(arrow_type):
        return ["Interval", "MONTH_DAY_NANO"]
    if t.is_union(arrow_type):
        return ["Union", arrow_type.mode.capitalize(), list(arrow_type.type_codes)]
    if t.is_run_end_encoded(arrow_type):
        return ["RunEndEncoded"]
    if t.is_binary_view(arrow_type):
        return ["BinaryView"]
    if t.is_string_view(arrow_type):
        return ["Utf8View"]
    if t.is_list_view(arrow_type):
        return ["ListView"]
    if t.is_large_list_view(arrow_type):
        return ["LargeListView"]
    if t.is_fixed_size_list(arrow_type):
        return ["FixedSizeList", arrow_type.list_size]
    if t.is_map(arrow_type):
        return ["Map", arrow_type.keys_sorted]
    if t.is_list(arrow_type):
        return ["List"]
    if t.is_struct(arrow_type):
        return ["Struct_"]
    raise TypeError(f"Arrow type {arrow_type} has no canonical form")


def schema_from_description(description: Any) -> pa.Schema:
    """Rebuild a pyarrow Schema from a schema description (what the ArrowTable reader calls)."""
    if type(description) is not list or len(description) != 2 or type(description[0]) is not list:
        raise DeserializationError("an Arrow schema description must be [fields, metadata]")
    fields, metadata = description
    return pa.schema([_field_from(field) for field in fields], metadata=_metadata_from(metadata))


def _metadata_from(metadata: Any) -> dict[bytes, bytes] | None:
    if metadata is None:
        return None
    if type(metadata) is not dict or any(type(k) is not bytes or type(v) is not bytes for k, v in metadata.items()):
        raise DeserializationError("Arrow metadata must be a map of bin to bin")
    charge(METADATA_COST * len(metadata) + 2 * sum(len(k) + len(v) for k, v in metadata.items()),
           "Arrow schema fields")
    return metadata


def _field_from(description: Any, depth: int = 1) -> pa.Field:
    if (type(description) is not list or len(description) not in (5, 6) or type(description[0]) is not str
            or type(description[1]) is not list or not description[1] or type(description[2]) is not bool
            or type(description[4]) is not list):
        raise DeserializationError(f"invalid Arrow field description {description!r:.200}")
    if depth > MAX_DEPTH:
        raise DeserializationError(f"Arrow schema description: fields are nested more than {MAX_DEPTH} deep")
    name, type_description, nullable, metadata, children = description[:5]
    charge(FIELD_COST + 2 * len(name), "Arrow schema fields")
    children = [_field_from(child, depth + 1) for child in children]
    arrow_type = _type_from(type_description, children)
    if len(description) == 6:  # dictionary-encoded: [index bit width, index signed, ordered]
        encoding = description[5]
        if (type(encoding) is not list or len(encoding) != 3 or encoding[0] not in (8, 16, 32, 64)
                or type(encoding[1]) is not bool or type(encoding[2]) is not bool):
            raise DeserializationError(f"invalid Arrow dictionary encoding {encoding!r:.200}")
        index = pa.from_numpy_dtype(np.dtype(f"{'i' if encoding[1] else 'u'}{encoding[0] // 8}"))
        arrow_type = pa.dictionary(index, arrow_type, encoding[2])
    return pa.field(name, arrow_type, nullable=nullable, metadata=_metadata_from(metadata))


def _type_from(description: list[Any], children: list[Any]) -> pa.DataType:
    name, *params = description
    try:
        arrow_type = _build_type(name, params, children)
    except (TypeError, ValueError, KeyError, IndexError, pa.ArrowException) as error:
        raise DeserializationError(f"invalid Arrow type description {description!r:.200}: {error}") from error
    if arrow_type is None:
        raise DeserializationError(f"unknown Arrow type description {description!r:.200}")
    return arrow_type


def _one_child(children: list[Any]) -> pa.Field:
    if len(children) != 1:
        raise ValueError(f"needs one child field, has {len(children)}")
    return children[0]


def _int_param(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an int, got {value!r}")
    return value


def _build_type(name: Any, params: Any, children: Any) -> Optional[pa.DataType]:
    simple = {"Null": pa.null, "Bool": pa.bool_, "Binary": pa.binary, "Utf8": pa.string,
              "LargeBinary": pa.large_binary, "LargeUtf8": pa.large_string}
    if name in simple:
        if params or children:
            raise ValueError("takes no parameters or children")
        return simple[name]()
    if name == "Int":
        bits, signed = params
        return pa.from_numpy_dtype(np.dtype(f"{'i' if signed is True else 'u'}{_int_param(bits) // 8}"))
    if name == "FloatingPoint":
        (precision,) = params
        return _FLOAT_TYPES[precision]()
    if name == "Decimal":
        precision, scale, bits = (_int_param(p) for p in params)
        maker = {32: "decimal32", 64: "decimal64", 128: "decimal128", 256: "decimal256"}[bits]
        return getattr(pa, maker)(precision, scale)
    if name == "Date":
        (unit,) = params
        return {"DAY": pa.date32, "MILLISECOND": pa.date64}[unit]()
    if name == "Time":
        unit, bits = params
        if bits not in (32, 64):
            raise ValueError(f"a Time bitWidth must be 32 or 64, not {bits!r}")
        return (pa.time32 if bits == 32 else pa.time64)(_UNIT_NAMES[unit])
    if name == "Timestamp":
        unit, tz = params
        if tz is not None and type(tz) is not str:
            raise TypeError("timezone must be a str or nil")
        return pa.timestamp(_UNIT_NAMES[unit], tz)
    if name == "Duration":
        (unit,) = params
        return pa.duration(_UNIT_NAMES[unit])
    if name == "FixedSizeBinary":
        (width,) = params
        return pa.binary(_int_param(width))
    if name == "List":
        return pa.list_(_one_child(children))
    if name == "LargeList":
        return pa.large_list(_one_child(children))
    if name == "FixedSizeList":
        (size,) = params
        return pa.list_(_one_child(children), _int_param(size))
    if name == "Struct_":
        return pa.struct(children)
    if name in ("BinaryView", "Utf8View"):
        if params or children:
            raise ValueError("takes no parameters or children")
        return pa.binary_view() if name == "BinaryView" else pa.string_view()
    if name == "ListView":
        return pa.list_view(_one_child(children))
    if name == "LargeListView":
        return pa.large_list_view(_one_child(children))
    if name == "Interval":
        if params != ["MONTH_DAY_NANO"]:
            raise ValueError("only MONTH_DAY_NANO intervals are carried")
        return pa.month_day_nano_interval()
    if name == "Union":
        mode, codes = params
        if type(codes) is not list or any(type(c) is not int for c in codes):
            raise TypeError("type codes must be a list of ints")
        return {"Sparse": pa.sparse_union, "Dense": pa.dense_union}[mode](children, codes)
    if name == "RunEndEncoded":
        if len(children) != 2 or params:
            raise ValueError("a RunEndEncoded type has two children, run_ends and values")
        return pa.run_end_encoded(children[0].type, children[1].type)
    if name == "Map":
        (keys_sorted,) = params
        entries = _one_child(children)
        if not pa.types.is_struct(entries.type) or entries.type.num_fields != 2:
            raise ValueError("a Map's child must be a struct of key and value")
        return pa.map_(entries.type.field(0), entries.type.field(1), keys_sorted=bool(keys_sorted))
    return None
