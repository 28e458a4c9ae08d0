"""datetime, date, time and timedelta (docs/FORMAT.md, section 6.1).

Fields are written as msgpack ints; a time zone as its IANA key (ZoneInfo) or
as [offset in microseconds, name or nil] (datetime.timezone). Values with any
other tzinfo are left to the fallback (``accepts`` returns False).
"""

from __future__ import annotations

import datetime
import zoneinfo

from msgpack import packb

from ..errors import DeserializationError
from ..result import SerializationResult
from .base import StandardSerializer
from typing import Union, Optional, Iterator, Any

__all__ = [
    "DateSerializer", "DateTimeSerializer", "TimeDeltaSerializer", "TimeSerializer", "decode_tz", "encode_tz",
    "supported_tz",
]


def encode_tz(tzinfo: Optional[datetime.tzinfo]) -> Union[None, str, list[Any]]:
    """The wire form of a tzinfo: None, an IANA key, or [offset in microseconds, name or None]."""
    if tzinfo is None:
        return None
    if isinstance(tzinfo, zoneinfo.ZoneInfo) and type(tzinfo) is zoneinfo.ZoneInfo:
        return tzinfo.key
    if type(tzinfo) is datetime.timezone:
        offset = tzinfo.utcoffset(None)
        us = (offset.days * 86400 + offset.seconds) * 1_000_000 + offset.microseconds
        default_name = datetime.timezone(offset).tzname(None)
        name = tzinfo.tzname(None)
        return [us, None if name == default_name else name]
    raise TypeError(f"unsupported tzinfo {type(tzinfo).__qualname__}")


def supported_tz(tzinfo: Any) -> bool:
    """True for the tzinfo types the wire has a form for."""
    if tzinfo is None or type(tzinfo) is datetime.timezone:
        return True
    return type(tzinfo) is zoneinfo.ZoneInfo and tzinfo.key is not None


def decode_tz(value: Any) -> Optional[datetime.tzinfo]:
    """The tzinfo of a wire form written by encode_tz."""
    if value is None:
        return None
    if type(value) is str:
        return zoneinfo.ZoneInfo(value)
    if type(value) is list and len(value) == 2 and type(value[0]) is int and (value[1] is None or type(value[1]) is str):
        offset = datetime.timedelta(microseconds=value[0])
        return datetime.timezone(offset) if value[1] is None else datetime.timezone(offset, value[1])
    raise DeserializationError(f"invalid time zone {value!r}")


def _ints(values: Any, name: str) -> None:
    if any(type(v) is not int for v in values):
        raise DeserializationError(f"{name} fields must be ints, got {values!r}")


class DateTimeSerializer(StandardSerializer):
    """[year, month, day, hour, minute, second, microsecond, fold, tz]; other tzinfo types go to the fallback."""

    def accepts(self, obj: datetime.datetime) -> bool:
        return supported_tz(obj.tzinfo)

    def serialize(self, obj: datetime.datetime) -> SerializationResult:
        return SerializationResult(packb([
            obj.year, obj.month, obj.day, obj.hour, obj.minute, obj.second, obj.microsecond, obj.fold,
            encode_tz(obj.tzinfo),
        ]))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> datetime.datetime:
        fields = self.unpack_array(in_band, oob, "datetime", 9)
        _ints(fields[:8], "datetime")
        year, month, day, hour, minute, second, microsecond, fold, tz = fields
        return datetime.datetime(year, month, day, hour, minute, second, microsecond, tzinfo=decode_tz(tz), fold=fold)


class DateSerializer(StandardSerializer):
    def serialize(self, obj: datetime.date) -> SerializationResult:
        return SerializationResult(packb([obj.year, obj.month, obj.day]))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> datetime.date:
        fields = self.unpack_array(in_band, oob, "date", 3)
        _ints(fields, "date")
        return datetime.date(*fields)


class TimeSerializer(StandardSerializer):
    def accepts(self, obj: datetime.time) -> bool:
        return supported_tz(obj.tzinfo)

    def serialize(self, obj: datetime.time) -> SerializationResult:
        return SerializationResult(packb([
            obj.hour, obj.minute, obj.second, obj.microsecond, obj.fold, encode_tz(obj.tzinfo),
        ]))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> datetime.time:
        fields = self.unpack_array(in_band, oob, "time", 6)
        _ints(fields[:5], "time")
        hour, minute, second, microsecond, fold, tz = fields
        return datetime.time(hour, minute, second, microsecond, tzinfo=decode_tz(tz), fold=fold)


class TimeDeltaSerializer(StandardSerializer):
    def serialize(self, obj: datetime.timedelta) -> SerializationResult:
        return SerializationResult(packb([obj.days, obj.seconds, obj.microseconds]))

    def deserialize(self, in_band: memoryview, oob: Iterator[memoryview]) -> datetime.timedelta:
        fields = self.unpack_array(in_band, oob, "timedelta", 3)
        _ints(fields, "timedelta")
        return datetime.timedelta(days=fields[0], seconds=fields[1], microseconds=fields[2])
