"""Serializers for the standard library types (docs/FORMAT.md, section 6.1).

Each writes one msgpack value as its in-band. Values inside containers are
written by the shared MsgpackCodec: plain msgpack for the native types,
ext type 0 for the rest.
"""

from __future__ import annotations

import copyreg
import dataclasses
import datetime
import decimal
import importlib
import struct
import sys
import uuid
import zoneinfo

from msgpack import packb

from .codec import MAX_KEYS_PER_HASH, array_header, check_hash_spread, is_untrusted, unpack_plain
from .errors import DeserializationError, RemoteError
from .result import SerializationResult

# Top-level bytes at least this long travel out-of-band (docs/FORMAT.md, 6.1).
BYTES_OUT_OF_BAND_THRESHOLD = 65536

_MSGPACK_NIL = b"\xc0"
_MSGPACK_FLOAT64 = 0xCB
_INT_MIN = -(2**63)
_INT_END = 2**64


class StandardSerializer:
    """Base of the standard serializers.

    ``handled_by_pickle``: pickle already keeps these types exactly, so the
    pickle fallback does not route them through serreg inside pickled objects.
    """

    handled_by_pickle = True

    def __init__(self, codec) -> None:
        self.codec = codec

    def _unpack_array(self, in_band, oob, name: str, length: int | None = None) -> list:
        value = self.codec.unpack(in_band, oob)
        if type(value) is not list or (length is not None and len(value) != length):
            expected = f"an array of {length}" if length is not None else "an array"
            raise DeserializationError(f"{name} in-band must be {expected}, got {_describe_value(value)}")
        return value


def _describe_value(value) -> str:
    if type(value) is list:
        return f"an array of {len(value)}"
    return f"a {type(value).__name__}"


class MsgpackValueSerializer(StandardSerializer):
    """None, bool, str, list and dict: the in-band is the value as msgpack."""

    # serialize(obj) is exactly codec.pack(obj): the registry may call the codec itself.
    packs_value_as_is = True

    def __init__(self, codec, expected_type: type) -> None:
        super().__init__(codec)
        self.expected_type = expected_type

    def serialize(self, obj) -> SerializationResult:
        oob = []
        return SerializationResult(self.codec.pack(obj, oob), oob)

    def deserialize(self, in_band, oob):
        value = self.codec.unpack(in_band, oob)
        if type(value) is not self.expected_type:
            raise DeserializationError(
                f"expected a msgpack {self.expected_type.__name__} value, got {_describe_value(value)}"
            )
        return value


class FloatSerializer(StandardSerializer):
    def serialize(self, obj: float) -> SerializationResult:
        return SerializationResult(packb(obj))

    def deserialize(self, in_band, oob) -> float:
        if in_band.nbytes != 9 or in_band[0] != _MSGPACK_FLOAT64:
            raise DeserializationError("a float must be a msgpack float 64")
        return struct.unpack_from(">d", in_band, 1)[0]


class IntSerializer(StandardSerializer):
    """In range: a msgpack int. Beyond 64 bits: bin of minimal two's-complement little-endian bytes."""

    def serialize(self, obj: int) -> SerializationResult:
        if _INT_MIN <= obj < _INT_END:
            return SerializationResult(packb(obj))
        size = ((obj if obj >= 0 else ~obj).bit_length() + 8) // 8
        return SerializationResult(packb(obj.to_bytes(size, "little", signed=True)))

    def deserialize(self, in_band, oob) -> int:
        value = unpack_plain(in_band)
        if type(value) is int:
            return value
        if type(value) is bytes and value:
            return int.from_bytes(value, "little", signed=True)
        raise DeserializationError(f"an int must be a msgpack int or bin, got {_describe_value(value)}")


class BytesSerializer(StandardSerializer):
    """Small bytes in-band as msgpack bin; large ones as one out-of-band buffer."""

    def serialize(self, obj: bytes) -> SerializationResult:
        if len(obj) >= BYTES_OUT_OF_BAND_THRESHOLD:
            return SerializationResult(_MSGPACK_NIL, [memoryview(obj)])
        return SerializationResult(packb(obj, use_bin_type=True))

    def deserialize(self, in_band, oob) -> bytes:
        if in_band == _MSGPACK_NIL:
            view = next(oob)
            owner = view.obj
            # In one process this is the caller's own bytes object: hand it back, no copy.
            if type(owner) is bytes and len(owner) == view.nbytes:
                return owner
            return view.tobytes()
        value = unpack_plain(in_band)
        if type(value) is not bytes:
            raise DeserializationError(f"bytes must be a msgpack bin, got {_describe_value(value)}")
        return value


class ByteArraySerializer(StandardSerializer):
    """Always out-of-band, as in the proposal: in one process the result is the same bytearray."""

    def serialize(self, obj: bytearray) -> SerializationResult:
        return SerializationResult(_MSGPACK_NIL, [memoryview(obj)])

    def deserialize(self, in_band, oob) -> bytearray:
        view = next(oob)
        owner = view.obj
        if type(owner) is bytearray and len(owner) == view.nbytes:
            return owner
        return bytearray(view)


class MemoryViewSerializer(StandardSerializer):
    """Format, shape and one out-of-band buffer; in one process, a view of the same memory."""

    def accepts(self, obj: memoryview) -> bool:
        return len(_native_format(obj.format)) == 1

    def serialize(self, obj: memoryview) -> SerializationResult:
        if obj.format == "B" and obj.ndim == 1:
            flat = obj
        elif obj.c_contiguous:
            flat = obj.cast("B")
        else:
            flat = memoryview(obj.tobytes())
        meta = [_native_format(obj.format), list(obj.shape)]
        return SerializationResult(packb(meta), [flat])

    def deserialize(self, in_band, oob) -> memoryview:
        meta = unpack_plain(in_band)
        if type(meta) is not list or len(meta) != 2 or type(meta[0]) is not str or type(meta[1]) is not list:
            raise DeserializationError("memoryview in-band must be [format, shape]")
        view = next(oob)
        fmt, shape = meta
        if view.format != "B" or view.ndim != 1:
            view = view.cast("B")
        if fmt == "B" and len(shape) == 1:
            if shape[0] != view.nbytes:
                raise DeserializationError(f"memoryview shape {shape} does not match its {view.nbytes}-byte buffer")
            return view
        return view.cast(fmt, shape)


def _native_format(fmt: str) -> str:
    return fmt[1:] if fmt[:1] in ("@", "=", "<") and len(fmt) == 2 else fmt


class TupleSerializer(StandardSerializer):
    def serialize(self, obj: tuple) -> SerializationResult:
        oob = []
        return SerializationResult(self.codec.pack(list(obj), oob), oob)

    def deserialize(self, in_band, oob) -> tuple:
        return tuple(self._unpack_array(in_band, oob, "tuple"))


class SetSerializer(StandardSerializer):
    """Members sorted by their encoded bytes, so a set has one byte form whatever its iteration order."""

    def __init__(self, codec, kind: type) -> None:
        super().__init__(codec)
        self.kind = kind

    def serialize(self, obj) -> SerializationResult:
        encoded = []
        for member in obj:
            member_oob = []
            encoded.append((self.codec.pack(member, member_oob), member_oob))
        encoded.sort(key=lambda pair: pair[0])
        oob = []
        parts = [array_header(len(encoded))]
        for packed, member_oob in encoded:
            parts.append(packed)
            oob.extend(member_oob)
        return SerializationResult(b"".join(parts), oob)

    def deserialize(self, in_band, oob):
        members = self._unpack_array(in_band, oob, self.kind.__name__)
        if len(members) > MAX_KEYS_PER_HASH and is_untrusted():
            check_hash_spread(members, self.kind.__name__)
        return self.kind(members)


class ComplexSerializer(StandardSerializer):
    def serialize(self, obj: complex) -> SerializationResult:
        return SerializationResult(packb([obj.real, obj.imag]))

    def deserialize(self, in_band, oob) -> complex:
        real, imag = _floats(unpack_plain(in_band), 2, "complex")
        return complex(real, imag)


def _floats(value, count: int, name: str) -> list:
    if type(value) is not list or len(value) != count or any(type(v) is not float for v in value):
        raise DeserializationError(f"{name} in-band must be an array of {count} floats")
    return value


# --- dates and times ------------------------------------------------------------


def _encode_tz(tzinfo):
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


def _supported_tz(tzinfo) -> bool:
    if tzinfo is None or type(tzinfo) is datetime.timezone:
        return True
    return type(tzinfo) is zoneinfo.ZoneInfo and tzinfo.key is not None


def _decode_tz(value):
    if value is None:
        return None
    if type(value) is str:
        return zoneinfo.ZoneInfo(value)
    if type(value) is list and len(value) == 2 and type(value[0]) is int and (value[1] is None or type(value[1]) is str):
        offset = datetime.timedelta(microseconds=value[0])
        return datetime.timezone(offset) if value[1] is None else datetime.timezone(offset, value[1])
    raise DeserializationError(f"invalid time zone {value!r}")


def _ints(values, name: str) -> None:
    if any(type(v) is not int for v in values):
        raise DeserializationError(f"{name} fields must be ints, got {values!r}")


class DateTimeSerializer(StandardSerializer):
    """[year, month, day, hour, minute, second, microsecond, fold, tz]; other tzinfo types go to the fallback."""

    def accepts(self, obj: datetime.datetime) -> bool:
        return _supported_tz(obj.tzinfo)

    def serialize(self, obj: datetime.datetime) -> SerializationResult:
        return SerializationResult(packb([
            obj.year, obj.month, obj.day, obj.hour, obj.minute, obj.second, obj.microsecond, obj.fold,
            _encode_tz(obj.tzinfo),
        ]))

    def deserialize(self, in_band, oob) -> datetime.datetime:
        fields = self._unpack_array(in_band, oob, "datetime", 9)
        _ints(fields[:8], "datetime")
        *parts, fold, tz = fields
        return datetime.datetime(*parts, tzinfo=_decode_tz(tz), fold=fold)


class DateSerializer(StandardSerializer):
    def serialize(self, obj: datetime.date) -> SerializationResult:
        return SerializationResult(packb([obj.year, obj.month, obj.day]))

    def deserialize(self, in_band, oob) -> datetime.date:
        fields = self._unpack_array(in_band, oob, "date", 3)
        _ints(fields, "date")
        return datetime.date(*fields)


class TimeSerializer(StandardSerializer):
    def accepts(self, obj: datetime.time) -> bool:
        return _supported_tz(obj.tzinfo)

    def serialize(self, obj: datetime.time) -> SerializationResult:
        return SerializationResult(packb([
            obj.hour, obj.minute, obj.second, obj.microsecond, obj.fold, _encode_tz(obj.tzinfo),
        ]))

    def deserialize(self, in_band, oob) -> datetime.time:
        fields = self._unpack_array(in_band, oob, "time", 6)
        _ints(fields[:5], "time")
        *parts, fold, tz = fields
        return datetime.time(*parts, tzinfo=_decode_tz(tz), fold=fold)


class TimeDeltaSerializer(StandardSerializer):
    def serialize(self, obj: datetime.timedelta) -> SerializationResult:
        return SerializationResult(packb([obj.days, obj.seconds, obj.microseconds]))

    def deserialize(self, in_band, oob) -> datetime.timedelta:
        fields = self._unpack_array(in_band, oob, "timedelta", 3)
        _ints(fields, "timedelta")
        return datetime.timedelta(days=fields[0], seconds=fields[1], microseconds=fields[2])


class DecimalSerializer(StandardSerializer):
    """The scientific string of the General Decimal Arithmetic spec (Python str(), Java BigDecimal.toString())."""

    def serialize(self, obj: decimal.Decimal) -> SerializationResult:
        return SerializationResult(packb(str(obj)))

    def deserialize(self, in_band, oob) -> decimal.Decimal:
        text = unpack_plain(in_band)
        if type(text) is not str:
            raise DeserializationError("a decimal must be a msgpack str")
        try:
            return decimal.Decimal(text)
        except decimal.InvalidOperation as error:
            raise DeserializationError(f"invalid decimal text {text[:40]!r}") from error


class UUIDSerializer(StandardSerializer):
    def serialize(self, obj: uuid.UUID) -> SerializationResult:
        return SerializationResult(packb(obj.bytes))

    def deserialize(self, in_band, oob) -> uuid.UUID:
        raw = unpack_plain(in_band)
        if type(raw) is not bytes or len(raw) != 16:
            raise DeserializationError("a uuid must be a 16-byte msgpack bin")
        return uuid.UUID(bytes=raw)


class RemoteErrorSerializer(StandardSerializer):
    """The error frame (docs/FORMAT.md, section 4): deserializing it raises RemoteError."""

    def serialize(self, obj: RemoteError) -> SerializationResult:
        return SerializationResult(packb({"message": obj.message}))

    def deserialize(self, in_band, oob):
        value = unpack_plain(in_band)
        message = value.get("message") if type(value) is dict else None
        if type(message) is not str:
            raise DeserializationError("an error frame must hold a map with a str 'message'")
        raise RemoteError(message)


# --- dataclasses ----------------------------------------------------------------

DATACLASS_CLASS_ID = "serreg.dataclass"
_OBJECT_GETSTATE = getattr(object, "__getstate__", None)  # Python 3.11+
_VERDICTS_MAX = 4096  # classes remembered by DataclassSerializer; dynamic classes must not pile up


def _pickled_by_reference(cls: type) -> bool:
    """True if pickle would write ``cls`` by reference and its instances as ``__new__`` + ``__dict__``.

    Those are exactly the instances whose type and state this serializer can
    write the way pickle does: the class is found again by module and
    qualified name, and nothing in the class changes how it pickles.
    """
    if not dataclasses.is_dataclass(cls) or cls.__module__ == "__main__" or cls in copyreg.dispatch_table:
        return False
    module = sys.modules.get(cls.__module__)
    found = module
    for part in cls.__qualname__.split("."):
        found = getattr(found, part, None)
    if found is not cls:
        return False  # defined in a function, or not reachable under its name
    if cls.__reduce_ex__ is not object.__reduce_ex__ or cls.__reduce__ is not object.__reduce__:
        return False
    if getattr(cls, "__getstate__", None) is not _OBJECT_GETSTATE:
        return False
    if any(hasattr(cls, name) for name in ("__setstate__", "__getnewargs__", "__getnewargs_ex__")):
        return False
    return all("__slots__" not in vars(base) for base in cls.__mro__[:-1])


class DataclassSerializer(StandardSerializer):
    """Instances of dataclasses that have no serializer of their own (Python only).

    In-band: [class: "module:qualname", state: the instance's ``__dict__``]
    (docs/FORMAT.md, section 6.1). It keeps what pickle keeps (the exact class,
    every attribute), but the values are written by the codec, so registered
    serializers apply to them and plain values need no pickle machinery.
    Dataclasses that pickle differently (slots, a custom ``__reduce__`` or
    ``__getstate__``, classes defined in ``__main__`` or in a function) are
    left to the fallback. Reading a frame imports the class's module, as
    unpickling does: decode only frames you trust.

    Thread safety: the per-class verdict cache is a dict replaced whole.
    """

    handled_by_pickle = True

    def __init__(self, codec) -> None:
        super().__init__(codec)
        self._verdicts: dict = {}  # class -> its "module:qualname", or False
        self._classes: dict = {}  # "module:qualname" -> (module, class), for reading

    def accepts(self, obj) -> bool:
        cls = type(obj)
        verdict = self._verdicts.get(cls)
        if verdict is None:
            verdict = self._verdict(cls)
        return verdict is not False and type(getattr(obj, "__dict__", None)) is dict

    def _verdict(self, cls: type):
        """False, or the class reference written on the wire."""
        verdict = f"{cls.__module__}:{cls.__qualname__}" if _pickled_by_reference(cls) else False
        verdicts = {} if len(self._verdicts) >= _VERDICTS_MAX else dict(self._verdicts)
        verdicts[cls] = verdict
        self._verdicts = verdicts
        return verdict

    def serialize(self, obj) -> SerializationResult:
        cls = type(obj)
        reference = self._verdicts.get(cls) or self._verdict(cls)
        oob = []
        return SerializationResult(self.codec.pack([reference, obj.__dict__], oob), oob)

    def deserialize(self, in_band, oob):
        fields = self._unpack_array(in_band, oob, "dataclass", 2)
        reference, state = fields
        if type(reference) is not str or ":" not in reference:
            raise DeserializationError(f"a dataclass reference must be a str 'module:qualname', got {reference!r}")
        if type(state) is not dict:
            raise DeserializationError(f"the state of {reference} must be a map")
        found = self._classes.get(reference)
        if found is not None and sys.modules.get(found[0].__name__) is found[0]:
            cls = found[1]
        else:
            cls = self._find_dataclass(reference)
        obj = cls.__new__(cls)
        obj.__dict__.update(state)
        return obj

    def _find_dataclass(self, reference: str) -> type:
        module_name, _, qualname = reference.partition(":")
        try:
            module = sys.modules.get(module_name) or importlib.import_module(module_name)
        except ImportError as error:
            raise DeserializationError(f"cannot import the module of dataclass {reference}: {error}") from error
        found = module
        for part in qualname.split("."):
            found = getattr(found, part, None)
        if not isinstance(found, type) or not _pickled_by_reference(found):
            raise DeserializationError(f"{reference} is not a dataclass that serreg.dataclass can rebuild")
        # Remembered with its module, so a reloaded module is looked up afresh.
        classes = {} if len(self._classes) >= _VERDICTS_MAX else dict(self._classes)
        classes[reference] = (module, found)
        self._classes = classes
        return found


def configure_dataclasses(registry=None, enabled: bool = True) -> None:
    """Write dataclass instances with ``serreg.dataclass`` instead of the pickle fallback.

    Opt-in: other languages keep such values opaque, and the Java reader cannot
    yet tell which out-of-band buffers a nested ``serreg.dataclass`` value owns
    (docs/FORMAT.md, section 3), so frames for Java should keep the default.
    Every registry can *read* ``serreg.dataclass`` either way. Applies to
    ``registry`` (default: the one behind ``serreg.serialize``).
    """
    if registry is None:
        from . import default_registry

        registry = default_registry()
    registry._use_dataclass_serializer(enabled)


def install(registry) -> None:
    """Register every standard serializer in ``registry``."""
    codec = registry.codec
    register = registry.register_serializer
    register("None", type(None), MsgpackValueSerializer(codec, type(None)))
    register("bool", bool, MsgpackValueSerializer(codec, bool))
    register("int", int, IntSerializer(codec))
    register("float", float, FloatSerializer(codec))
    register("str", str, MsgpackValueSerializer(codec, str))
    register("bytes", bytes, BytesSerializer(codec))
    register("list", list, MsgpackValueSerializer(codec, list))
    register("dict", dict, MsgpackValueSerializer(codec, dict))
    register("tuple", tuple, TupleSerializer(codec))
    register("set", set, SetSerializer(codec, set))
    register("frozenset", frozenset, SetSerializer(codec, frozenset))
    register("bytearray", bytearray, ByteArraySerializer(codec))
    register("memoryview", memoryview, MemoryViewSerializer(codec))
    register("complex", complex, ComplexSerializer(codec))
    register("datetime", datetime.datetime, DateTimeSerializer(codec))
    register("date", datetime.date, DateSerializer(codec))
    register("time", datetime.time, TimeSerializer(codec))
    register("timedelta", datetime.timedelta, TimeDeltaSerializer(codec))
    register("decimal", decimal.Decimal, DecimalSerializer(codec))
    register("uuid", uuid.UUID, UUIDSerializer(codec))
    register("serreg.error", RemoteError, RemoteErrorSerializer(codec))
    registry._install_dataclass_serializer(DATACLASS_CLASS_ID, DataclassSerializer(codec))
