"""Canonical writers of the standard serializers (docs/FORMAT.md, section 9.3).

``STANDARD_WRITERS`` maps each standard serializer class to its
``writer(form, serializer, value) -> SerializationResult``. Plug-ins and user
serializers give their canonical form through the ``serialize_canonical``
hook instead; this table names only serreg's own standard types.
"""

from __future__ import annotations

import datetime
import decimal
import struct
import sys
import zoneinfo
from typing import Protocol, Union, Any, Callable

from msgpack import packb

from ..errors import CanonicalFormError
from ..result import SerializationResult
from ..standard.base import MsgpackValueSerializer
from ..standard.binary import ByteArraySerializer, BytesSerializer, MemoryViewSerializer, native_format
from ..standard.containers import SetSerializer, TupleSerializer
from ..standard.datetimes import DateSerializer, DateTimeSerializer, TimeDeltaSerializer, TimeSerializer, encode_tz
from ..standard.scalars import (
    ComplexSerializer,
    DecimalSerializer,
    FloatSerializer,
    IntSerializer,
    RemoteErrorSerializer,
    UUIDSerializer,
)
from .floats import normalize_float_array, pack_float

__all__ = ["STANDARD_WRITERS", "CanonicalPacker", "canonical_decimal_text"]


class CanonicalPacker(Protocol):
    """What a writer needs of the canonical form (``serreg.canonical.form.CanonicalForm``)."""

    def pack(self, value: Any) -> SerializationResult: ...

    def pack_sorted(self, members: Any) -> SerializationResult: ...


def _write_as_normal(form: CanonicalPacker, serializer: Any, value: Any) -> SerializationResult:
    # These in-bands are already unique per value (docs/FORMAT.md, section 9.3 says why).
    result: SerializationResult = serializer.serialize(value)
    return result


def _write_msgpack_value(form: CanonicalPacker, serializer: Any, value: Any) -> SerializationResult:
    return form.pack(value)


def _write_tuple(form: CanonicalPacker, serializer: Any, value: Any) -> SerializationResult:
    return form.pack(list(value))


def _write_float(form: CanonicalPacker, serializer: Any, value: Any) -> SerializationResult:
    return SerializationResult(pack_float(value))


def _write_complex(form: CanonicalPacker, serializer: Any, value: Any) -> SerializationResult:
    return SerializationResult(b"\x92" + pack_float(value.real) + pack_float(value.imag))


def _write_set(form: CanonicalPacker, serializer: Any, value: Any) -> SerializationResult:
    return form.pack_sorted(value)


def _canonical_tz(tzinfo: Any) -> Union[None, str, list[Any]]:
    encoded = encode_tz(tzinfo)
    if type(encoded) is list:
        return [encoded[0], None]  # a fixed offset's name does not take part in timezone equality
    return encoded


def _canonical_fold(value: Any) -> int:
    # fold only changes a value when it selects the other UTC offset of an ambiguous
    # (or skipped) wall-clock time in an IANA zone; anywhere else it is written as 0.
    if value.fold and type(value.tzinfo) is zoneinfo.ZoneInfo and isinstance(value, datetime.datetime):
        if value.replace(fold=0).utcoffset() != value.utcoffset():
            return 1
    return 0


def _write_datetime(form: CanonicalPacker, serializer: Any, value: datetime.datetime) -> SerializationResult:
    return SerializationResult(packb([
        value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond,
        _canonical_fold(value), _canonical_tz(value.tzinfo),
    ]))


def _write_time(form: CanonicalPacker, serializer: Any, value: datetime.time) -> SerializationResult:
    return SerializationResult(packb([
        value.hour, value.minute, value.second, value.microsecond, 0, _canonical_tz(value.tzinfo),
    ]))


def canonical_decimal_text(value: decimal.Decimal) -> str:
    """The scientific string of ``value`` with trailing zeros stripped, every zero as ``0``,
    every quiet NaN as ``NaN`` and every signaling NaN as ``sNaN``."""
    if value.is_snan():
        return "sNaN"
    if value.is_qnan():
        return "NaN"
    if value.is_infinite():
        return "-Infinity" if value.is_signed() else "Infinity"
    if value.is_zero():
        return "0"
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite: specials returned above
    end = len(digits)
    while digits[end - 1] == 0:
        end -= 1
    return str(decimal.Decimal((sign, digits[:end], exponent + len(digits) - end)))


def _write_decimal(form: CanonicalPacker, serializer: Any, value: decimal.Decimal) -> SerializationResult:
    return SerializationResult(packb(canonical_decimal_text(value)))


def _format_by_size(signed: str, unsigned: str) -> dict[Any, Any]:
    aliases = {}
    for chars, family in ((signed, "bhiq"), (unsigned, "BHIQ")):
        by_size = {struct.calcsize(c): c for c in family}
        for char in chars:
            aliases[char] = by_size.get(struct.calcsize(char), char)
    return aliases


# Format characters naming the same C integer on this platform are one format in the canonical form.
_FORMAT_ALIASES = _format_by_size("bhilqn", "BHILQNP")


def _write_memoryview(form: CanonicalPacker, serializer: Any, view: memoryview) -> SerializationResult:
    fmt = native_format(view.format)
    fmt = _FORMAT_ALIASES.get(fmt, fmt)
    if view.c_contiguous:
        data = view if view.format == "B" and view.ndim == 1 else view.cast("B")
    else:
        data = memoryview(view.tobytes())
    if fmt in "efd" or (sys.byteorder == "big" and view.itemsize > 1):
        try:
            import numpy as np  # optional: only float items and big-endian machines need it
        except ImportError:
            raise CanonicalFormError(
                f"the canonical form of a memoryview of format {fmt!r} needs numpy (its items are rewritten in "
                "canonical order and form); install it with pip install 'serreg[numpy]'",
                value=view,
            ) from None
        array = np.frombuffer(data, dtype=f"={fmt}")
        array = array.astype(array.dtype.newbyteorder("<"), copy=False)
        if fmt in "efd":
            array = normalize_float_array(array)
        data = array.view(np.uint8).data
    return SerializationResult(packb([fmt, list(view.shape or ())]), [data])


# Standard serializer class -> writer(form, serializer, value) -> SerializationResult.
STANDARD_WRITERS: dict[type, Callable[[CanonicalPacker, Any, Any], SerializationResult]] = {
    IntSerializer: _write_as_normal,
    BytesSerializer: _write_as_normal,
    ByteArraySerializer: _write_as_normal,
    DateSerializer: _write_as_normal,
    TimeDeltaSerializer: _write_as_normal,
    UUIDSerializer: _write_as_normal,
    RemoteErrorSerializer: _write_as_normal,
    MsgpackValueSerializer: _write_msgpack_value,
    TupleSerializer: _write_tuple,
    FloatSerializer: _write_float,
    ComplexSerializer: _write_complex,
    SetSerializer: _write_set,
    DateTimeSerializer: _write_datetime,
    TimeSerializer: _write_time,
    DecimalSerializer: _write_decimal,
    MemoryViewSerializer: _write_memoryview,
}
