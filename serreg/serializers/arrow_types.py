"""Which Arrow columns serreg carries, and which ``cross_language=True`` refuses, by column path.

Python carries every type pyarrow can build (docs/ARROW-TYPES.md). Java
(java-compat/serreg-arrow, Arrow Java) reads fewer; a frame written with
``cross_language=True`` promises that Java reads it back, so what Java would
refuse is refused here, at serialize time, with the column path and Arrow type
(``column 'f3.item': dictionary<values=string, indices=int8>``) and the way
out. The rules are one table (:func:`java_refusal`), kept in step with
``ArrowChecks.checkSchema`` in Java.
"""

from __future__ import annotations

from typing import Iterator, Optional, Any

import pyarrow as pa

from ..errors import CrossLanguageError, SerializationError

from .arrow_extension import child_fields

__all__ = ["JAVA_MAX_BYTE_WIDTH", "check_columns", "check_valid", "column_path", "java_refusal", "value_rule_columns", "walk_fields"]


# Type ids pyarrow 26 reads from IPC but cannot wrap as Python arrays (KeyError on access):
# INTERVAL_MONTHS (21) and INTERVAL_DAY_TIME (22).
_NO_ARRAY_CLASS = frozenset({21, 22})
# Arrow Java counts a fixed-size binary value's bits in an int: wider values are refused by its reader.
JAVA_MAX_BYTE_WIDTH = (2**31 - 1) // 8


def _has_value_rules(arrow_type: pa.DataType) -> bool:
    """True if the type holds date64 or decimal values somewhere (the value rules of check_valid)."""
    t = pa.types
    if isinstance(arrow_type, pa.BaseExtensionType):
        return _has_value_rules(arrow_type.storage_type)
    if t.is_date64(arrow_type) or t.is_decimal(arrow_type):
        return True
    if t.is_dictionary(arrow_type):
        return _has_value_rules(arrow_type.value_type)
    return any(_has_value_rules(child.type) for child in child_fields(arrow_type))


def value_rule_columns(schema: pa.Schema) -> tuple[int, ...]:
    """The positions of the columns that hold date64 or decimal values somewhere (see check_valid)."""
    return tuple(i for i, field in enumerate(schema) if _has_value_rules(field.type))


def check_valid(batch: pa.RecordBatch, columns: Optional[tuple[int, ...]] = None) -> None:
    """Refuse a batch with legacy values Arrow's full validation rejects (date64 values that are
    not whole days, decimals wider than their precision, as Arrow 0.14-1.0 wrote them), naming
    the column: every reader runs that validation, so a writer does not send them (docs/FORMAT.md,
    6.4). Only columns holding date64 or decimals are validated here, fully; the other rules of
    the full validation (offsets, UTF-8, union ids ...) only arrays built by hand from buffers
    break, and checking them on every write would cost the zero-copy path a pass over the data.
    ``columns``: the positions value_rule_columns gives for the batch's schema, if known."""
    if columns is None:
        columns = value_rule_columns(batch.schema)
    for i in columns:
        name, column = batch.schema.field(i).name, batch.column(i)
        try:
            column.validate(full=True)
        except pa.ArrowInvalid as error:
            raise SerializationError(
                f"{column_path([name])}: {column.type}: Arrow's full validation rejects it ({error}), and every "
                "serreg reader runs that validation; fix the values (legacy Arrow 0.14-1.0 data: cast date64 "
                "to timestamp, widen the decimal precision) before sending"
            ) from error


def column_path(parts: list[Any]) -> str:
    """``column 'a.b.item'`` for the names from a column down to one of its children."""
    return "column " + repr(".".join(parts))


def walk_fields(schema: pa.Schema) -> Iterator[Any]:
    """(path parts, field) for every field of ``schema``, children after their parent."""
    stack = [([field.name], field) for field in reversed(list(schema))]
    while stack:
        parts, field = stack.pop()
        yield parts, field
        children = child_fields(field.type)
        stack.extend((parts + [child.name], child) for child in reversed(children))


def _type_text(field: pa.Field) -> str:
    return str(field.type)


def java_refusal(field: pa.Field, several_batches: bool) -> Optional[str]:
    """Why Java (serreg-arrow on Arrow Java 18) cannot read a field of this type, or None."""
    arrow_type = field.type
    t = pa.types
    if isinstance(arrow_type, pa.BaseExtensionType):
        return None  # Java reads the storage type with the extension metadata on the field
    if t.is_decimal(arrow_type) and arrow_type.bit_width in (32, 64):
        return (f"Arrow Java has no vector for {arrow_type.bit_width}-bit decimals; "
                "cast the column to pa.decimal128(precision, scale)")
    if t.is_struct(arrow_type) or t.is_union(arrow_type):
        names = [arrow_type.field(i).name for i in range(arrow_type.num_fields)]
        kind = "struct" if t.is_struct(arrow_type) else "union"
        if len(set(names)) != len(names):
            return f"Arrow Java keeps {kind} children by name, and two children of this {kind} share one; rename them"
        if several_batches and any(t.is_null(arrow_type.field(i).type) for i in range(arrow_type.num_fields)):
            return ("Arrow Java cannot concatenate several batches of a struct with a null-type child; "
                    "send the table as one batch (table.combine_chunks())")
    if several_batches and t.is_dictionary(arrow_type):
        return ("a Java table is one batch, and each batch of a dictionary-encoded column may have its own "
                "dictionary; send the table as one batch (table.combine_chunks() unifies the dictionaries)")
    if several_batches and (t.is_large_list(arrow_type) or t.is_union(arrow_type) or t.is_run_end_encoded(arrow_type)
                            or t.is_binary_view(arrow_type) or t.is_string_view(arrow_type)
                            or t.is_list_view(arrow_type) or t.is_large_list_view(arrow_type)):
        return ("Arrow Java cannot concatenate several batches of such a column, and a Java table is one batch; "
                "send the table as one batch (table.combine_chunks())")
    if t.is_fixed_size_binary(arrow_type) and not 0 < arrow_type.byte_width <= JAVA_MAX_BYTE_WIDTH:
        return f"Arrow Java holds fixed-size binary of width 1 to {JAVA_MAX_BYTE_WIDTH:,} bytes"
    return None


def check_columns(schema: pa.Schema, cross_language: bool, several_batches: bool = False) -> None:
    """Raise SerializationError for a column serreg cannot carry, CrossLanguageError (with
    ``cross_language``) for one Java would refuse; both name the column path and type."""
    for parts, field in walk_fields(schema):
        arrow_type = field.type
        if arrow_type.id in _NO_ARRAY_CLASS:
            raise SerializationError(
                f"{column_path(parts)}: {_type_text(field)}: pyarrow has no array class for this interval type, so "
                "serreg cannot carry it (month_day_nano intervals it can: docs/ARROW-TYPES.md)"
            )
        if pa.types.is_dictionary(arrow_type) and pa.types.is_dictionary(arrow_type.value_type):
            raise SerializationError(
                f"{column_path(parts)}: {_type_text(field)}: a dictionary whose values are dictionary-encoded has no "
                "Arrow IPC schema (a field has one dictionary encoding); decode the inner dictionary first"
            )
    if not cross_language:
        return
    # What Java cannot read at all first, then what it cannot read in several batches.
    for batches in (False, several_batches) if several_batches else (False,):
        for parts, field in walk_fields(schema):
            reason = java_refusal(field, batches)
            if reason is not None:
                raise CrossLanguageError(
                    f"{column_path(parts)}: {_type_text(field)}: {reason} (cross_language=True promises that Java "
                    "reads the frame back; without it Python carries this column natively)"
                )
