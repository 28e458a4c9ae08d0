"""The canonical form: one byte form per value, and the SHA-256 digest over it.

``serialize(obj, canonical=True)`` writes values so that equal values give
identical frames whatever their history: dict insertion order, set iteration
order, array memory layout and byte order, Arrow slicing and chunking, -0.0
and NaN payloads (docs/FORMAT.md, section 9, lists every rule). Canonical
frames are ordinary frames: ``serreg.deserialize`` reads them.

How a value finds its canonical writer (in this order):

1. the value's registration is looked up exactly as ``serialize`` does; if it
   would be the pickle fallback, CanonicalFormError (pickle bytes are not
   unique per value);
2. a serializer with a ``serialize_canonical(obj)`` method is asked for the
   canonical form with it (the hook for user serializers);
3. a built-in serializer class has a canonical writer registered with
   :func:`canonical_writer` (standard types here; numpy and Arrow in
   ``serializers/numpy_canonical.py`` and ``serializers/pyarrow_canonical.py``,
   imported on first use);
4. anything else raises CanonicalFormError naming the class ID.

The normal serialize path never enters this module.
"""

from __future__ import annotations

import datetime
import decimal
import hashlib
import importlib
import struct
import sys
import zoneinfo
from typing import Callable

from msgpack import ExtType, packb

from . import standard
from .codec import array_header, map_header
from .errors import CanonicalFormError, SerializationError, SerregError
from .frame import frame_pieces
from .result import SerializationResult

NESTED_EXT_TYPE = 0
MAX_NESTING = 511

# The one NaN of the canonical form, per float width (quiet, sign clear, payload 0).
CANONICAL_NAN_BITS = {2: 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}
_FLOAT64_ZERO = b"\xcb" + bytes(8)
_FLOAT64_NAN = b"\xcb" + CANONICAL_NAN_BITS[8].to_bytes(8, "big")
_INT_MIN = -(2**63)
_INT_END = 2**64

# serializer class -> writer(form, serializer, value) -> SerializationResult
_WRITERS: dict[type, Callable] = {}

# Modules holding the canonical writers of the built-in plug-ins, keyed by the
# module of the serializer classes they cover; imported when first needed.
_PLUGIN_WRITER_MODULES = {
    "serializers.numpy": "serializers.numpy_canonical",
    "serializers.pyarrow": "serializers.pyarrow_canonical",
}


def canonical_writer(*serializer_classes: type):
    """Register the decorated ``writer(form, serializer, value)`` for these serializer classes.

    The writer returns a SerializationResult holding the canonical in-band
    and out-of-band buffers of ``value`` under the serializer's class ID.
    """

    def register(writer):
        for cls in serializer_classes:
            _WRITERS[cls] = writer
        return writer

    return register


class CanonicalForm:
    """Canonical serialization and digests for one Registry.

    Stateless apart from the registry it reads, so one instance serves every
    thread.
    """

    def __init__(self, registry) -> None:
        self._registry = registry

    # ------------------------------------------------------------------ top level

    def serialize(self, obj) -> SerializationResult:
        """The canonical serialization result of ``obj`` (in-band starts with the ClassIDHash)."""
        try:
            registration, result = self.serialize_nested(obj)
        except SerializationError as error:
            from .registry import _attach_path

            _attach_path(error, obj)
            raise
        return SerializationResult._with_class_hash(
            registration.class_hash, result.in_band_buffer, result.out_of_band_buffers
        )

    def digest(self, obj) -> bytes:
        """SHA-256 of the canonical frame of ``obj``, buffers hashed in place."""
        return result_digest(self.serialize(obj))

    # ------------------------------------------------------------------ one value

    def serialize_nested(self, value):
        """Canonically serialize one value; return (registration, raw result without the hash)."""
        registry = self._registry
        registration = registry._registration_for(value)
        if registration is registry._fallback:
            raise CanonicalFormError(
                f"{_describe(type(value))} has no canonical form: no serializer is registered for it and the "
                f"pickle fallback's bytes are not unique per value; register a serializer that defines "
                f"serialize_canonical(obj) with serreg.register_serializer(class_id, {type(value).__qualname__}, "
                f"serializer)",
                value=value,
            )
        serializer = registration.serializer
        try:
            method = getattr(serializer, "serialize_canonical", None)
            if method is not None:
                result = method(value)
            else:
                result = self._writer_for(registration)(self, serializer, value)
        except SerregError:
            raise
        except RecursionError as error:
            raise SerializationError("value is nested too deeply to serialize", value=value) from error
        except Exception as error:
            raise SerializationError(
                f"the canonical form of class ID {registration.class_id!r} failed on a {_describe(type(value))}: "
                f"{type(error).__name__}: {error}",
                value=value,
            ) from error
        if not isinstance(result, SerializationResult):
            raise SerializationError(
                f"serialize_canonical of class ID {registration.class_id!r} returned {type(result).__name__}, "
                "not a SerializationResult",
                value=value,
            )
        return registration, result

    def _writer_for(self, registration) -> Callable:
        cls = type(registration.serializer)
        writer = _WRITERS.get(cls)
        if writer is None:
            module = _PLUGIN_WRITER_MODULES.get(cls.__module__)
            if module is not None:
                importlib.import_module(module)
                writer = _WRITERS.get(cls)
        if writer is None:
            raise CanonicalFormError(
                f"the serializer for class ID {registration.class_id!r} ({_describe(cls)}) does not define a "
                "canonical form; give it a serialize_canonical(obj) method that writes equal values as "
                "identical bytes (docs/FORMAT.md, section 9)"
            )
        return writer

    # ------------------------------------------------------------------ msgpack trees

    def pack(self, value) -> SerializationResult:
        """One msgpack value in canonical form, nested values as ext 0, buffers in document order."""
        out = bytearray()
        oob: list = []
        self.encode(value, out, oob, 0)
        return SerializationResult(bytes(out), oob)

    def encode(self, value, out: bytearray, oob: list, depth: int) -> None:
        """Append the canonical msgpack of ``value`` to ``out`` and its buffers to ``oob``."""
        kind = type(value)
        if kind in self._registry._native_overrides:
            self._encode_nested(value, out, oob, depth)
        elif kind is str:
            out += packb(value)
        elif kind is int:
            if _INT_MIN <= value < _INT_END:
                out += packb(value)
            else:
                self._encode_nested(value, out, oob, depth)
        elif kind is float:
            out += pack_float(value)
        elif kind is bool or value is None or kind is bytes:
            out += packb(value, use_bin_type=True)
        elif kind is list:
            depth = _deeper(depth, value)
            out += array_header(len(value))
            for item in value:
                self.encode(item, out, oob, depth)
        elif kind is dict:
            self._encode_dict(value, out, oob, _deeper(depth, value))
        else:
            self._encode_nested(value, out, oob, depth)

    def _encode_nested(self, value, out: bytearray, oob: list, depth: int) -> None:
        _deeper(depth, value)
        registration, result = self.serialize_nested(value)
        in_band = result.in_band_buffer
        payload = registration.class_hash + bytes(in_band) if in_band else registration.class_hash
        out += packb(ExtType(NESTED_EXT_TYPE, payload))
        oob.extend(result.out_of_band_buffers)

    def encode_sorted(self, members, depth: int) -> list:
        """Encode each member separately; return [(bytes, buffers)] in canonical order."""
        encoded = []
        for member in members:
            member_out = bytearray()
            member_oob: list = []
            self.encode(member, member_out, member_oob, depth)
            encoded.append((bytes(member_out), member_oob))
        encoded.sort(key=_sort_key)
        return encoded

    def _encode_dict(self, value: dict, out: bytearray, oob: list, depth: int) -> None:
        entries = []
        for key, item in value.items():
            key_out = bytearray()
            key_oob: list = []
            self.encode(key, key_out, key_oob, depth)
            item_out = bytearray()
            item_oob: list = []
            self.encode(item, item_out, item_oob, depth)
            entries.append((bytes(key_out), key_oob, item_out, item_oob))
        entries.sort(key=_sort_key)
        out += map_header(len(entries))
        previous = None
        for key_bytes, key_oob, item_out, item_oob in entries:
            key_id = _sort_key((key_bytes, key_oob))
            if key_id == previous:
                raise CanonicalFormError(
                    "the dict has two keys with the same canonical form (for example two NaN keys, which the "
                    "canonical form writes as the same NaN); a msgpack map cannot hold both, so merge them",
                    value=value,
                )
            previous = key_id
            out += key_bytes
            out += item_out
            oob.extend(key_oob)
            oob.extend(item_oob)


# ---------------------------------------------------------------------- digests


def result_digest(result: SerializationResult) -> bytes:
    """SHA-256 of the contiguous frame of ``result``, fed piece by piece (never joined)."""
    pieces, _ = frame_pieces(result._in_band_parts(), result._buffer_views())
    return pieces_digest(pieces)


def pieces_digest(pieces) -> bytes:
    hasher = hashlib.sha256()
    for piece in pieces:
        hasher.update(piece)
    return hasher.digest()


# ---------------------------------------------------------------------- msgpack pieces


def _sort_key(entry) -> tuple:
    # Encoded bytes first (bytes compare unsigned, shorter first on a common prefix);
    # buffer contents only break ties between members whose in-band bytes are equal.
    encoded, buffers = entry[0], entry[1]
    if not buffers:
        return (encoded, ())
    return (encoded, tuple(memoryview(b).tobytes() for b in buffers))


def _deeper(depth: int, value) -> int:
    if depth >= MAX_NESTING:
        raise SerializationError(
            f"value is nested more than {MAX_NESTING} levels deep or contains itself", value=value
        )
    return depth + 1


def pack_float(value: float) -> bytes:
    """msgpack float 64 with -0.0 written as 0.0 and every NaN as the canonical quiet NaN."""
    if value != value:
        return _FLOAT64_NAN
    if value == 0.0:
        return _FLOAT64_ZERO
    return struct.pack(">Bd", 0xCB, value)


def canonical_float_bits(bits: int, width: int) -> int:
    """The canonical bit pattern for an IEEE float of ``width`` bytes given as an unsigned int."""
    exponent_bits = {2: 5, 4: 8, 8: 11}[width]
    mantissa_bits = 8 * width - 1 - exponent_bits
    sign = 1 << (8 * width - 1)
    exponent_mask = ((1 << exponent_bits) - 1) << mantissa_bits
    if bits & exponent_mask == exponent_mask and bits & ((1 << mantissa_bits) - 1):
        return CANONICAL_NAN_BITS[width]
    if bits == sign:
        return 0
    return bits


# Elements checked per step: small enough to stay in cache, large enough for numpy to be quick.
_FLOAT_CHECK_CHUNK = 1 << 16


def normalize_float_array(values):
    """Return ``values`` (a 1-d C-contiguous little-endian numpy float array) with -0.0
    made 0.0 and every NaN made the canonical NaN; the same array when nothing changes."""
    import numpy as np

    width = values.dtype.itemsize
    bits_type = np.dtype(f"<u{width}")
    bits = values.view(bits_type)
    negative_zero = bits_type.type(1 << (8 * width - 1))
    canonical_nan = bits_type.type(CANONICAL_NAN_BITS[width])
    for start in range(0, values.size, _FLOAT_CHECK_CHUNK):
        chunk_bits = bits[start : start + _FLOAT_CHECK_CHUNK]
        nan = np.isnan(values[start : start + _FLOAT_CHECK_CHUNK])
        if (chunk_bits == negative_zero).any() or (nan.any() and (chunk_bits[nan] != canonical_nan).any()):
            break
    else:
        return values
    fixed = values.copy()
    fixed_bits = fixed.view(bits_type)
    fixed_bits[fixed_bits == negative_zero] = 0
    fixed_bits[np.isnan(fixed)] = canonical_nan
    return fixed


def _describe(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# ---------------------------------------------------------------------- standard types


@canonical_writer(
    standard.IntSerializer, standard.BytesSerializer, standard.ByteArraySerializer, standard.DateSerializer,
    standard.TimeDeltaSerializer, standard.UUIDSerializer, standard.RemoteErrorSerializer,
)
def _write_as_normal(form, serializer, value) -> SerializationResult:
    # These in-bands are already unique per value (docs/FORMAT.md, section 9.3 says why).
    return serializer.serialize(value)


@canonical_writer(standard.MsgpackValueSerializer)
def _write_msgpack_value(form, serializer, value) -> SerializationResult:
    return form.pack(value)


@canonical_writer(standard.TupleSerializer)
def _write_tuple(form, serializer, value) -> SerializationResult:
    return form.pack(list(value))


@canonical_writer(standard.FloatSerializer)
def _write_float(form, serializer, value) -> SerializationResult:
    return SerializationResult(pack_float(value))


@canonical_writer(standard.ComplexSerializer)
def _write_complex(form, serializer, value) -> SerializationResult:
    return SerializationResult(b"\x92" + pack_float(value.real) + pack_float(value.imag))


@canonical_writer(standard.SetSerializer)
def _write_set(form, serializer, value) -> SerializationResult:
    encoded = form.encode_sorted(value, _deeper(0, value))
    parts = [array_header(len(encoded))]
    oob: list = []
    for packed, member_oob in encoded:
        parts.append(packed)
        oob.extend(member_oob)
    return SerializationResult(b"".join(parts), oob)


def _canonical_tz(tzinfo):
    encoded = standard._encode_tz(tzinfo)
    if type(encoded) is list:
        return [encoded[0], None]  # a fixed offset's name does not take part in timezone equality
    return encoded


def _canonical_fold(value) -> int:
    # fold only changes a value when it selects the other UTC offset of an ambiguous
    # (or skipped) wall-clock time in an IANA zone; anywhere else it is written as 0.
    if value.fold and type(value.tzinfo) is zoneinfo.ZoneInfo and isinstance(value, datetime.datetime):
        if value.replace(fold=0).utcoffset() != value.utcoffset():
            return 1
    return 0


@canonical_writer(standard.DateTimeSerializer)
def _write_datetime(form, serializer, value: datetime.datetime) -> SerializationResult:
    return SerializationResult(packb([
        value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond,
        _canonical_fold(value), _canonical_tz(value.tzinfo),
    ]))


@canonical_writer(standard.TimeSerializer)
def _write_time(form, serializer, value: datetime.time) -> SerializationResult:
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
    end = len(digits)
    while digits[end - 1] == 0:
        end -= 1
    return str(decimal.Decimal((sign, digits[:end], exponent + len(digits) - end)))


@canonical_writer(standard.DecimalSerializer)
def _write_decimal(form, serializer, value: decimal.Decimal) -> SerializationResult:
    return SerializationResult(packb(canonical_decimal_text(value)))


def _format_by_size(signed: str, unsigned: str) -> dict:
    aliases = {}
    for chars, family in ((signed, "bhiq"), (unsigned, "BHIQ")):
        by_size = {struct.calcsize(c): c for c in family}
        for char in chars:
            aliases[char] = by_size.get(struct.calcsize(char), char)
    return aliases


# Format characters naming the same C integer on this platform are one format in the canonical form.
_FORMAT_ALIASES = _format_by_size("bhilqn", "BHILQNP")


@canonical_writer(standard.MemoryViewSerializer)
def _write_memoryview(form, serializer, view: memoryview) -> SerializationResult:
    fmt = standard._native_format(view.format)
    fmt = _FORMAT_ALIASES.get(fmt, fmt)
    if view.c_contiguous:
        data = view if view.format == "B" and view.ndim == 1 else view.cast("B")
    else:
        data = memoryview(view.tobytes())
    if fmt in "efd" or (sys.byteorder == "big" and view.itemsize > 1):
        import numpy as np

        array = np.frombuffer(data, dtype=f"={fmt}")
        array = array.astype(array.dtype.newbyteorder("<"), copy=False)
        if fmt in "efd":
            array = normalize_float_array(array)
        data = memoryview(array.view(np.uint8))
    return SerializationResult(packb([fmt, list(view.shape)]), [data])
