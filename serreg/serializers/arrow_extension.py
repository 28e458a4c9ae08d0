"""Arrow extension types in serreg frames: which are rebuilt, and how none runs code it should not.

On the wire an extension column is its storage type with the field metadata
``ARROW:extension:name`` and ``ARROW:extension:metadata``, as in Arrow IPC
(docs/FORMAT.md, section 6.4). When pyarrow reads a schema message it looks
each name up among the registered extension types and calls the type's
deserializer on the metadata; for a type defined in Python that is Python
code (``__arrow_ext_deserialize__``, for some libraries ``pickle.loads``).
So the reader decides per name, before pyarrow sees the message:

- Arrow's canonical extension types that pyarrow implements in C++
  (:data:`BUILT_IN`) are rebuilt as their pyarrow type in every mode;
- any other name is resolved by pyarrow only in trusted mode (the
  registered type if there is one, else pyarrow keeps the storage type);
- in untrusted mode the reader hides the other names from pyarrow in its own
  copy of the message (the key's first byte is changed), so no Python code of
  an extension type runs; the column comes back as its storage type with both
  metadata keys on its field, which serializes to the same frame again. The
  caller may wrap it after checking it: ``pa.ExtensionArray.from_storage``.
"""

from __future__ import annotations

from typing import Any

import functools

import pyarrow as pa

from ..errors import DeserializationError

from .arrow_ipc_check import EXTENSION_NAME, HIDDEN_EXTENSION_NAME, check_schema_message

__all__ = ["BUILT_IN", "EXTENSION_METADATA", "child_fields", "extension_keys", "plain_type", "read_schema",
           "with_children", "with_fields"]

EXTENSION_METADATA = b"ARROW:extension:metadata"
# Canonical extension types whose deserializer is pyarrow's C++ code (pyarrow 26).
BUILT_IN = frozenset({b"arrow.uuid", b"arrow.json", b"arrow.bool8", b"arrow.opaque", b"arrow.fixed_shape_tensor"})


def read_schema(message: Any, shape: Any, trusted: bool) -> pa.Schema:
    """pyarrow's reading of a checked schema message (``shape`` from check_schema_message), with the
    extension names it may not resolve hidden from it and given back on the fields afterwards."""
    hidden = [position for position, name in shape.extensions if not trusted and name not in BUILT_IN]
    if hidden:
        copy = bytearray(message)
        for position in hidden:
            copy[position] = 0  # b"ARROW:..." -> b"\x00RROW:...", HIDDEN_EXTENSION_NAME
        message = copy
    try:
        schema = pa.ipc.read_schema(pa.py_buffer(message))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, OSError, KeyError) as error:
        raise DeserializationError(f"invalid Arrow schema message: {error}") from error
    if hidden:
        schema = pa.schema([_unhide(field) for field in schema], metadata=schema.metadata)
    return schema


def _unhide(field: pa.Field) -> pa.Field:
    field = with_fields(field, [_unhide(child) for child in child_fields(field.type)])
    metadata = field.metadata
    if metadata and HIDDEN_EXTENSION_NAME in metadata:
        metadata = {(EXTENSION_NAME if k == HIDDEN_EXTENSION_NAME else k): v for k, v in metadata.items()}
        field = field.with_metadata(metadata)
    return field


def child_fields(arrow_type: pa.DataType) -> list[Any]:
    """The child fields of a type, as in its IPC schema (a dictionary: its value type's)."""
    t = pa.types
    if isinstance(arrow_type, pa.BaseExtensionType):
        return []
    if t.is_dictionary(arrow_type):
        return child_fields(arrow_type.value_type)
    if t.is_map(arrow_type):
        return [pa.field("entries", pa.struct([arrow_type.key_field, arrow_type.item_field]), nullable=False)]
    if t.is_run_end_encoded(arrow_type):
        return [pa.field("run_ends", arrow_type.run_end_type, nullable=False), pa.field("values", arrow_type.value_type)]
    if arrow_type.num_fields and (t.is_list(arrow_type) or t.is_large_list(arrow_type) or t.is_fixed_size_list(arrow_type)
                                  or t.is_list_view(arrow_type) or t.is_large_list_view(arrow_type)):
        return [arrow_type.value_field]
    return [arrow_type.field(i) for i in range(arrow_type.num_fields)]


def with_fields(field: pa.Field, children: list[Any]) -> pa.Field:
    """``field`` with its type's child fields replaced by ``children`` (same count and types)."""
    if not children:
        return field
    return field.with_type(with_children(field.type, children))


def with_children(arrow_type: pa.DataType, children: list[Any]) -> pa.DataType:
    t = pa.types
    if t.is_dictionary(arrow_type):
        value = with_children(arrow_type.value_type, children)
        return pa.dictionary(arrow_type.index_type, value, arrow_type.ordered)
    if t.is_struct(arrow_type):
        return pa.struct(children)
    if t.is_map(arrow_type):
        key, item = children[0].type.field(0), children[0].type.field(1)
        return pa.map_(key, item, keys_sorted=arrow_type.keys_sorted)
    if t.is_run_end_encoded(arrow_type):
        return pa.run_end_encoded(arrow_type.run_end_type, children[1].type)
    if t.is_union(arrow_type):
        maker = pa.sparse_union if arrow_type.mode == "sparse" else pa.dense_union
        return maker(children, arrow_type.type_codes)
    if t.is_fixed_size_list(arrow_type):
        return pa.list_(children[0], arrow_type.list_size)
    makers = {t.is_large_list: pa.large_list, t.is_list_view: pa.list_view, t.is_large_list_view: pa.large_list_view,
              t.is_list: pa.list_}
    for test, maker in makers.items():
        if test(arrow_type):
            return maker(children[0])
    return arrow_type


def plain_type(arrow_type: pa.DataType) -> pa.DataType:
    """``arrow_type`` with every extension type in it replaced by its storage type (same layout)."""
    if isinstance(arrow_type, pa.BaseExtensionType):
        return plain_type(arrow_type.storage_type)
    if pa.types.is_dictionary(arrow_type):
        return pa.dictionary(arrow_type.index_type, plain_type(arrow_type.value_type), arrow_type.ordered)
    children = child_fields(arrow_type)
    if not children:
        return arrow_type
    return with_children(arrow_type, [child.with_type(plain_type(child.type)) for child in children])


def extension_keys(arrow_type: pa.DataType) -> tuple[Any, ...]:
    """(name, serialized metadata) of an extension type, as its IPC field metadata holds them."""
    if isinstance(arrow_type, pa.ExtensionType):  # defined in Python: its own serializer, no reading back
        return arrow_type.extension_name.encode(), arrow_type.__arrow_ext_serialize__()
    return _built_in_keys(arrow_type)


@functools.lru_cache(maxsize=256)
def _built_in_keys(arrow_type: pa.DataType) -> tuple[Any, ...]:
    message = pa.schema([pa.field("x", arrow_type)]).serialize()
    field = _hidden_field(message, check_schema_message(message, untrusted=True))
    metadata = field.metadata or {}
    return metadata.get(EXTENSION_NAME, arrow_type.extension_name.encode()), metadata.get(EXTENSION_METADATA, b"")


def _hidden_field(message: Any, shape: Any) -> pa.Field:
    copy = bytearray(message)
    for position, _ in shape.extensions:
        copy[position] = 0
    return _unhide(pa.ipc.read_schema(pa.py_buffer(copy)).field(0))
