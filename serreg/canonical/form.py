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
2. a serializer with a ``serialize_canonical(obj)`` hook is asked for the
   canonical form with it (how user serializers and the plug-ins in
   ``serreg.serializers`` give theirs);
3. a standard serializer has its writer in ``canonical/standard.py``;
4. a struct (a registered struct class, or a data carrier) is written by
   ``canonical/structs.py``: ext 1 with canonical field values, the frame's
   table sorted (docs/FORMAT.md, section 10.5); a list of instances of one
   definition is ext 2 (``canonical/struct_columns.py``);
5. anything else raises CanonicalFormError naming the class ID.

The normal serialize path never enters this module.
"""

from __future__ import annotations

import hashlib
from operator import itemgetter
from typing import Sequence, Any, Callable, Optional, Protocol

from msgpack import ExtType, packb

from .._registry.paths import attach_path
from ..codec.layout import MAX_NESTING, NESTED_EXT_TYPE, array_header, map_header
from ..errors import CanonicalFormError, SerializationError, SerregError
from ..result import SerializationResult, as_result, buffer_views, own_result_buffers, in_band_parts, with_class_hash
from ..wire.frame import frame_pieces
from .floats import pack_float
from .standard import STANDARD_WRITERS

__all__ = ["CanonicalForm", "StructWriter", "entry_order", "pieces_digest", "result_digest"]

_INT_MIN = -(2**63)
_INT_END = 2**64


class StructWriter(Protocol):
    """What the canonical form needs for structs (``serreg.canonical.structs.CanonicalStructs``)."""

    def framed(self, write: Callable[[], tuple[bytes, SerializationResult]]) -> tuple[bytes, SerializationResult]: ...

    def class_hash(self, value: Any) -> bytes: ...

    def instance(self, form: Any, value: Any, depth: int) -> SerializationResult: ...

    def write_ext(self, form: Any, value: Any, out: bytearray, oob: list[Any], depth: int) -> None: ...

    def write_list(self, form: Any, items: list[Any], out: bytearray, oob: list[Any], depth: int) -> bool: ...


class CanonicalForm:
    """Canonical serialization and digests for one Registry.

    ``registration_for(value)`` is the registry's lookup (what ``serialize``
    would use for the value); ``native_overrides()`` the native types (list,
    dict, str ...) a user has registered a serializer of their own for;
    ``refusal_for(value)`` why a serializer passed a value on to the fallback
    (None if it gives no reason).
    Stateless apart from those, so one instance serves every thread.
    """

    def __init__(
        self,
        registration_for: Callable[..., Any],
        native_overrides: Callable[[], frozenset[Any]],
        refusal_for: Callable[[Any], Optional[str]] = lambda value: None,
        structs: Optional[StructWriter] = None,
    ) -> None:
        self._registration_for = registration_for
        self._native_overrides = native_overrides
        self._refusal_for = refusal_for
        self._structs = structs

    # ------------------------------------------------------------------ top level

    def serialize(self, obj: Any, key: Optional[bytes] = None) -> SerializationResult:
        """The canonical serialization result of ``obj`` (in-band starts with the ClassIDHash).

        Structs anywhere in the value share one table, sorted, in front of the value (10.5).
        """
        try:
            if self._structs is None:
                class_hash, result = self._serialize_top(obj)
            else:
                class_hash, result = self._structs.framed(lambda: self._serialize_top(obj))
        except SerializationError as error:
            attach_path(error, obj)
            raise
        except RecursionError as error:  # structs nest a few calls deeper per level than plain containers
            raise SerializationError("value is nested too deeply to serialize", value=obj) from error
        return with_class_hash(class_hash, result.in_band_buffer, result.out_of_band_buffers, key)

    def _serialize_top(self, obj: Any) -> tuple[bytes, SerializationResult]:
        registration = self._registration_for(obj)
        if registration.ext_writer is not None and self._structs is not None:
            # A top-level struct: its own class ID's hash, then its instance array (10.1).
            return self._structs.class_hash(obj), self._structs.instance(self, obj, 0)
        return registration.class_hash, self._serialize_with(registration, obj)

    def digest(self, obj: Any) -> bytes:
        """SHA-256 of the canonical frame of ``obj``, buffers hashed in place."""
        return result_digest(self.serialize(obj))

    # ------------------------------------------------------------------ one value

    def serialize_nested(self, value: Any) -> tuple[Any, SerializationResult]:
        """Canonically serialize one value; return (registration, raw result without the hash)."""
        registration = self._registration_for(value)
        return registration, self._serialize_with(registration, value)

    def _serialize_with(self, registration: Any, value: Any) -> SerializationResult:
        if registration.fallback:
            reason = self._refusal_for(value)
            if reason is not None:
                raise CanonicalFormError(f"{_describe(type(value))} has no canonical form: {reason}", value=value)
            raise CanonicalFormError(
                f"{_describe(type(value))} has no canonical form: no serializer is registered for it and the "
                f"pickle fallback's bytes are not unique per value; register a serializer that defines "
                f"serialize_canonical(obj) with serreg.register_serializer(class_id, {type(value).__qualname__}, "
                f"serializer)",
                value=value,
            )
        serializer = registration.serializer
        try:
            if registration.serialize_canonical is not None:
                result = registration.serialize_canonical(value)
            else:
                writer = STANDARD_WRITERS.get(type(serializer))
                if writer is None:
                    raise CanonicalFormError(
                        f"the serializer for class ID {registration.class_id!r} ({_describe(type(serializer))}) "
                        "does not define a canonical form; give it a serialize_canonical(obj) method that writes "
                        "equal values as identical bytes (docs/FORMAT.md, section 9)"
                    )
                result = writer(self, serializer, value)
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
        if type(result) is not SerializationResult:
            result = as_result(result, f"serialize_canonical of class ID {registration.class_id!r}", value)
        own_result_buffers(result, f"serialize_canonical of class ID {registration.class_id!r}", value)
        return result

    # ------------------------------------------------------------------ msgpack trees

    def pack(self, value: Any) -> SerializationResult:
        """One msgpack value in canonical form, nested values as ext 0, buffers in document order."""
        out = bytearray()
        oob: list[Any] = []
        self._encode(value, out, oob, 0, self._native_overrides())
        return SerializationResult(bytes(out), oob)

    def pack_sorted(self, members: Any) -> SerializationResult:
        """A msgpack array of ``members`` in canonical order: sorted by their encoded bytes (a set)."""
        encoded = self._encode_sorted(members, _deeper(0, members), self._native_overrides())
        parts = [array_header(len(encoded))]
        oob: list[Any] = []
        for packed, member_oob in encoded:
            parts.append(packed)
            oob.extend(member_oob)
        return SerializationResult(b"".join(parts), oob)

    def _encode(self, value: Any, out: bytearray, oob: list[Any], depth: int, overrides: frozenset[Any]) -> None:
        """Append the canonical msgpack of ``value`` to ``out`` and its buffers to ``oob``."""
        kind = type(value)
        if kind in overrides:
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
            # A list of struct instances of one definition is ext 2 (10.3, 10.5).
            if value and self._structs is not None and self._structs.write_list(self, value, out, oob, depth):
                return
            depth = _deeper(depth, value)
            out += array_header(len(value))
            for item in value:
                self._encode(item, out, oob, depth, overrides)
        elif kind is dict:
            self._encode_dict(value, out, oob, _deeper(depth, value), overrides)
        else:
            self._encode_nested(value, out, oob, depth)

    def write_value(self, value: Any, out: bytearray, oob: list[Any], depth: int) -> None:
        """Append the canonical msgpack of ``value`` (any serreg value) to ``out``, its buffers to ``oob``."""
        self._encode(value, out, oob, depth, self._native_overrides())

    def write_nested(self, value: Any, out: bytearray, oob: list[Any], depth: int) -> None:
        """Append ``value`` as ext 0 of its class ID, its in-band canonical (a struct: its ext 1)."""
        self._encode_nested(value, out, oob, depth)

    def deeper(self, depth: int, value: Any) -> int:
        """``depth + 1``; SerializationError beyond the nesting limit."""
        return _deeper(depth, value)

    def _encode_nested(self, value: Any, out: bytearray, oob: list[Any], depth: int) -> None:
        _deeper(depth, value)
        registration = self._registration_for(value)
        if registration.ext_writer is not None and self._structs is not None:
            self._structs.write_ext(self, value, out, oob, depth)
            return
        result = self._serialize_with(registration, value)
        in_band = result.in_band_buffer
        payload = registration.class_hash + bytes(in_band) if in_band else registration.class_hash
        out += packb(ExtType(NESTED_EXT_TYPE, payload))
        oob.extend(result.out_of_band_buffers)

    def _encode_sorted(self, members: Any, depth: int, overrides: frozenset[Any]) -> list[Any]:
        """Encode each member separately; return [(bytes, buffers)] in canonical order."""
        encoded = []
        for member in members:
            member_out = bytearray()
            member_oob: list[Any] = []
            self._encode(member, member_out, member_oob, depth, overrides)
            encoded.append((bytes(member_out), member_oob))
        encoded.sort(key=entry_order)
        return encoded

    def _encode_dict(self, value: dict[Any, Any], out: bytearray, oob: list[Any], depth: int, overrides: frozenset[Any]) -> None:
        # Keys are encoded first and sorted; each value is then encoded straight into ``out``
        # in that order, so an entry costs its key's bytes and one tuple, not two more buffers.
        entries: list[tuple[bytes, Sequence[Any], Any]] = []
        key_oob: list[Any] = []
        keys_with_buffers = False
        for key, item in value.items():
            key_out = bytearray()
            self._encode(key, key_out, key_oob, depth, overrides)
            if key_oob:
                entries.append((bytes(key_out), key_oob, item))
                key_oob = []
                keys_with_buffers = True
            else:
                entries.append((bytes(key_out), (), item))
        # Sorted by key bytes; buffer contents only break ties, so without them no key tuples are made.
        entries.sort(key=entry_order if keys_with_buffers else _first)
        out += map_header(len(entries))
        previous = None
        for key_bytes, buffers, item in entries:
            key_id = entry_order((key_bytes, buffers)) if keys_with_buffers else key_bytes
            if key_id == previous:
                raise CanonicalFormError(
                    "the dict has two keys with the same canonical form (for example two NaN keys, which the "
                    "canonical form writes as the same NaN); a msgpack map cannot hold both, so merge them",
                    value=value,
                )
            previous = key_id
            out += key_bytes
            oob.extend(buffers)
            self._encode(item, out, oob, depth, overrides)


def result_digest(result: SerializationResult) -> bytes:
    """SHA-256 of the contiguous frame of ``result``, fed piece by piece (never joined)."""
    pieces, _ = frame_pieces(in_band_parts(result), buffer_views(result))
    return pieces_digest(pieces)


def pieces_digest(pieces: Any) -> bytes:
    """SHA-256 of the concatenation of ``pieces``, fed one by one."""
    hasher = hashlib.sha256()
    for piece in pieces:
        hasher.update(piece)
    return hasher.digest()


_first = itemgetter(0)


def entry_order(entry: Any) -> tuple[Any, ...]:
    """Sort key of an encoded (bytes, buffers) member or key: its bytes (unsigned, a proper prefix
    first), then, only to break ties, its buffers' contents (docs/FORMAT.md, 9.2)."""
    encoded, buffers = entry[0], entry[1]
    if not buffers:
        return (encoded, ())
    return (encoded, tuple(memoryview(b).tobytes() for b in buffers))


def _deeper(depth: int, value: Any) -> int:
    if depth >= MAX_NESTING:
        raise SerializationError(
            f"value is nested more than {MAX_NESTING} levels deep or contains itself", value=value
        )
    return depth + 1


def _describe(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
