"""Canonical ext 2: a list of struct instances of one definition, its columns canonical (docs/FORMAT.md, 10.5).

The rule of 10.3 has no choice in it, so the canonical writer applies it as
every writer does; each column holds canonical values: an integer column's
kind byte is 0x00 exactly when no value is negative, a ``float64`` column
writes -0.0 as 0.0 and every NaN as binary64 ``0x7ff8000000000000``, a
``float32`` column -0.0 as 0.0 and every NaN as binary32 ``0x7fc00000`` (each
value first rounded to binary32, as a ``float32`` field is), and an array
column each value canonical by its field's type (the struct writer's encoders).
"""

from __future__ import annotations

import struct
from typing import Any, Callable

from msgpack import ExtType, packb

from ..codec.layout import STRUCT_LIST_EXT_TYPE, array_header
from ..errors import CanonicalFormError, SerializationError
from ..structs.columns import BIN_COLUMN_KINDS, bin_header, encode_bools, encode_float64, encode_ints
from ..structs.values import write_converter
from ..structs.widths import INTEGER_WIDTHS
from .floats import CANONICAL_NAN_BITS, canonical_float

__all__ = ["ColumnChecks", "write_struct_list"]

_FLOAT32_NAN = struct.pack("<I", CANONICAL_NAN_BITS[4])
_F32 = struct.Struct("<f")


class ColumnChecks:
    """Per field of one definition: ``checks[i](value)``, the value checked against the field's type and
    made canonical (None for an array column, written by the struct writer's encoder)."""

    __slots__ = ("kinds", "checks")

    def __init__(self, types: Any, wheres: list[str]) -> None:
        self.kinds = [t.kind for t in types]
        self.checks = [_check(t, where) if t.kind in BIN_COLUMN_KINDS else None for t, where in zip(types, wheres)]


def _check(ftype: Any, where: str) -> Callable[[Any], Any]:
    convert = write_converter(ftype, where, None)  # scalar types need no state or context

    def check(value: Any) -> Any:
        try:
            return convert(value, None)
        except SerializationError as error:
            raise CanonicalFormError(str(error), value=value) from None
    return check


def write_struct_list(form: Any, index: int, checks: ColumnChecks, rows: list[tuple[Any, Any]], out: bytearray,
                      oob: list[Any], depth: int) -> None:
    """Append the canonical ext 2 of a list to ``out``: ``rows`` holds, per instance, (its field encoders, its
    field values); ``index`` is the definition's place in the frame's table."""
    count = len(rows)
    payload = bytearray(array_header(2 + len(checks.kinds)))
    payload += packb(index)
    payload += packb(count)
    for position, (kind, check) in enumerate(zip(checks.kinds, checks.checks)):
        if check is None:
            payload += array_header(count)
            for encoders, values in rows:
                encoders[position](form, values[position], payload, oob, depth)
            continue
        data = _bin_column(kind, [check(values[position]) for _, values in rows])
        payload += bin_header(len(data))
        payload += data
    out += packb(ExtType(STRUCT_LIST_EXT_TYPE, bytes(payload)))


def _bin_column(kind: str, values: list[Any]) -> bytes:
    if kind in INTEGER_WIDTHS:
        return encode_ints(values)
    if kind == "bool":
        return encode_bools(values)
    if kind == "float64":
        return encode_float64([canonical_float(v) for v in values])
    # float32: each value is a binary32 value already (the check rounded it); -0.0 as 0.0, one NaN.
    return b"".join(_FLOAT32_NAN if v != v else _F32.pack(v if v != 0.0 else 0.0) for v in values)
