"""The top-level entries of a plain value: twins of ``serialize_top`` and ``unpack_top`` in ``_core_top.h``.

A plain value is one the registry's standard serializers of dict, list, str,
int ... write as the codec's msgpack (``Snapshot.packed_as_is``) and that holds
no value calling a serializer. ``Registry.serialize`` and ``deserialize`` try
these entries first, when called without options; NotImplemented sends the
call down the full path, which gives the same bytes and values and reports
every error, so an entry never raises for what it is given.

The compiled entries also take the standard types the C codec writes and
reads in place (tuple, datetime, uuid, big int ...). The pure codec has no
cheaper way to tell that a value is plain than packing it, so its
``serialize_top`` always answers NotImplemented; its ``unpack_top`` reads
frames and results of msgpack data only.

The compiled codec also has ``top_value``, which reads a trusted frame or result
whose value a registered serializer reads (``_core_top_value.h``); the pure
codec's answers NotImplemented, as ``Decoder._top_value`` does that work here.

``top_method(kind)`` decorates ``Registry.serialize`` and ``deserialize``: the
compiled twin (``_core_entry.h``) makes them C methods that call the codec's
entry with no Python frame in between; this one leaves them as they are.
``bind_registry`` tells the compiled codec what those methods need; the pure
codec needs nothing.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Protocol, TypeVar

from ..limits import DECODE_STATE
from ..result import NO_BUFFERS, OutOfBandBuffers, SerializationResult, sections
from ..wire.class_id import CLASS_ID_HASH_SIZE
from ..wire.frame import parse_frame

__all__ = ["PlainSettings", "TopLevelEntries", "top_method"]

# The registry's rules unpack_top is told: None (untrusted: the full path) or (max_depth, max_frame_size).
PlainSettings = Optional["tuple[Optional[int], Optional[int]]"]

_Method = TypeVar("_Method", bound=Callable[..., Any])


def top_method(kind: str) -> Callable[[_Method], _Method]:
    """The pure twin of the compiled ``top_method``: ``Registry.serialize`` and ``deserialize`` unchanged."""
    if kind not in ("serialize", "deserialize"):
        raise ValueError(f"top_method(kind): kind is 'serialize' or 'deserialize', not {kind!r}")
    return lambda method: method


# Frames read here (anything else goes down the full path).
_FRAME_TYPES = (bytes, bytearray, memoryview)


class _Tables(Protocol):
    @property
    def packed_as_is(self) -> Mapping[type, bytes]: ...
    @property
    def unpacked_as_is(self) -> Mapping[bytes, type]: ...


class _Source(Protocol):
    @property
    def snapshot(self) -> _Tables: ...


class TopLevelEntries:
    """``serialize_top`` and ``unpack_top`` of the pure codec: ``unpack`` is its ``unpack``,
    ``snapshots`` where it reads the registry's tables."""

    def __init__(self, unpack: Callable[[Any, OutOfBandBuffers, bool], Any], snapshots: _Source) -> None:
        self._unpack = unpack
        self._snapshots = snapshots

    def bind_registry(
        self, registry: Any, settings: Any, full_serialize: Any, full_deserialize: Any, refine_error: Any
    ) -> None:
        """Nothing to bind: the pure codec has no C methods calling it (see the compiled twin)."""

    def bind_decoder(self, owner: Any, located: Any, all_used: Any) -> None:
        """Nothing to bind: the pure codec has no ``top_value`` of its own (``Decoder._top_value`` is it)."""

    def top_value(self, data: Any) -> Any:
        """NotImplemented: with the pure codec, ``Decoder._top_value`` reads these values itself."""
        return NotImplemented

    def bind_implicit(self, pyobjects_hash: bytes, guards: tuple[Any, ...]) -> None:
        """Nothing to bind: the pure codec writes no implicit struct itself (the Encoder's full path does)."""

    def publish_implicit(self, *entry: Any) -> None:
        """Nothing kept: the compiled twin writes a top-level implicit instance from it (_core_implicit_top.h)."""

    def publish_implicit_read(self, *entry: Any) -> None:
        """Nothing kept: the compiled twin reads a serreg.pyobjects frame from it (_core_implicit_top.h)."""

    def serialize_top(self, obj: Any) -> Any:
        """NotImplemented: the pure codec tells a plain value only by packing it (the full path does)."""
        return NotImplemented

    def unpack_top(self, data: Any, plain: PlainSettings) -> Any:
        """The value of a plain frame or in-process result; NotImplemented for anything else."""
        if plain is None or DECODE_STATE.get() is not None:
            return NotImplemented
        unpacked_as_is = self._snapshots.snapshot.unpacked_as_is
        if type(data) is SerializationResult:
            class_hash, in_band = sections(data)
            if class_hash is None or in_band is None or data.out_of_band_buffers:
                return NotImplemented
            value_type = unpacked_as_is.get(class_hash)
            if value_type is None:
                return NotImplemented
            return self._plain_value(in_band, value_type)
        max_depth, max_frame_size = plain
        if max_depth == 0 or type(data) not in _FRAME_TYPES or (type(data) is memoryview and not data.c_contiguous):
            return NotImplemented  # max_depth 0 refuses a frame's value: the full path says so
        parsed = parse_frame(data, max_frame_size, 0)
        if parsed is None or parsed[2]:
            return NotImplemented
        offset, length, _ = parsed
        view = memoryview(data)
        value_type = unpacked_as_is.get(bytes(view[offset : offset + CLASS_ID_HASH_SIZE]))
        if value_type is None:
            return NotImplemented
        return self._plain_value(view[offset + CLASS_ID_HASH_SIZE : offset + length], value_type)

    def _plain_value(self, in_band: Any, value_type: type) -> Any:
        try:
            value = self._unpack(in_band, NO_BUFFERS, True)
        except Exception:
            return NotImplemented  # the full path decodes the same bytes and reports what is wrong
        return value if type(value) is value_type else NotImplemented
