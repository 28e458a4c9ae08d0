"""Deserialize: every value through the trust and depth checks, and the top-level call.

:class:`NestedDecoder` decodes one value from its ClassIDHash and in-band:
every value of a frame passes through it, nested ones included (the codec
calls it for each ext type 0), so it is where untrusted mode refuses class IDs
outside the allow-list before their serializer sees a byte, where nesting is
counted against ``max_depth``, and where an error is given the class ID,
offset and enclosing values of what failed. :class:`Decoder` is
``Registry.deserialize`` past the codec's ``unpack_top`` (which reads a plain
frame or result without any of this): it checks a frame's layout (and
signature) once, sets up the call's :class:`~serreg.limits.DecodeState`, and
hands the in-band section to the nested decoder.
"""

from __future__ import annotations

import hmac
from typing import Any, Iterator, NoReturn, Optional

from ..codec.top import PlainSettings
from ..errors import DeserializationError, LimitExceededError, SerregError, SignatureError
from ..limits import DECODE_STATE, DecodeState, Limits, trusted_top_state
from ..result import NO_BUFFERS, OutOfBandBuffers, SerializationResult, sections, sections_and_size, signing_key
from ..trust import refusal
from ..wire.class_id import CLASS_ID_HASH_SIZE
from ..wire.frame import FrameView, parse_frame
from ..wire.signing import check_key
from .dispatch import Dispatch
from .table import Registration, Table


class Settings:
    """The registry-wide defaults of ``deserialize``: ``trusted`` and ``limits``.

    ``plain`` is what the codec's ``unpack_top`` is told of them, kept up to
    date by the setters: None in untrusted mode (the allow-list needs the full
    path), else (``max_depth``, ``max_frame_size``). ``top`` is what the
    compiled codec's ``top_value`` (the twin of :meth:`Decoder._top_value`)
    reads: None in untrusted mode, else (``max_depth``, ``max_frame_size``,
    ``max_buffers``, ``memory_per_byte``, ``memory_allowance``).
    """

    __slots__ = ("_trusted", "_limits", "plain", "top")

    def __init__(self, trusted: bool, limits: Limits) -> None:
        self._trusted = trusted
        self._limits = limits
        self.plain: PlainSettings = None
        self.top: Optional[tuple[Optional[int], ...]] = None
        self._update()

    @property
    def trusted(self) -> bool:
        return self._trusted

    @trusted.setter
    def trusted(self, trusted: bool) -> None:
        self._trusted = trusted
        self._update()

    @property
    def limits(self) -> Limits:
        return self._limits

    @limits.setter
    def limits(self, limits: Limits) -> None:
        self._limits = limits
        self._update()

    def _update(self) -> None:
        limits = self._limits
        self.plain = (limits.max_depth, limits.max_frame_size) if self._trusted else None
        self.top = (limits.max_depth, limits.max_frame_size, limits.max_buffers, limits.memory_per_byte,
                    limits.memory_allowance) if self._trusted else None


class NestedDecoder:
    """Decodes one value with its serializer, under the rules of the deserialize call running."""

    def __init__(self, table: Table, dispatch: Dispatch, settings: Settings) -> None:
        self._table = table
        self._by_hash = dispatch.by_hash
        self._settings = settings

    def new_state(self, trusted: bool, limits: Limits) -> DecodeState:
        """The state of a deserialize call made on this registry."""
        return DecodeState(self, None if trusted else self._table.snapshot.allowed_hashes, limits.max_depth)

    def decode(self, class_hash: bytes, in_band: memoryview, oob: Iterator[memoryview], offset: Optional[int]) -> Any:
        """Decode one value: trust and depth checks, then its serializer (every nested value comes here)."""
        state = DECODE_STATE.get()
        registration = self._table.snapshot.by_hash.get(class_hash)
        if state is None:
            # Outside a deserialize call (a serializer called directly, or the fast path of an
            # in-process result): this nested value starts one with the registry's own rules.
            state = self.new_state(self._settings.trusted, self._settings.limits)
            state.depth = 1  # the value that holds this one
            token = DECODE_STATE.set(state)
            try:
                return self.decode(class_hash, in_band, oob, offset)
            finally:
                DECODE_STATE.reset(token)
        if state.allowed is not None and class_hash not in state.allowed:
            error = self._refusal(class_hash, offset)
            error.located = True
            raise error
        depth = state.depth + 1
        if depth > state.max_depth:
            error = LimitExceededError(
                f"values are nested more than max_depth={state.max_depth} deep; raise it with "
                "serreg.Limits(max_depth=...) if such values are expected",
                offset=offset,
            )
            error.located = True
            raise error
        if registration is None:
            registration = self._by_hash(class_hash, offset)
        state.depth = depth
        try:
            return registration.serializer.deserialize(in_band, oob)
        except Exception as error:
            _raise_located(error, registration, offset)
        finally:
            state.depth = depth - 1

    def decode_section(self, section: memoryview, oob: Iterator[memoryview], offset: Optional[int] = None) -> Any:
        """Decode an in-band section: ClassIDHash, then the serializer's in-band."""
        if section.nbytes < CLASS_ID_HASH_SIZE:
            raise DeserializationError(
                f"in-band section of {section.nbytes} bytes is too short to hold a ClassIDHash", offset=offset
            )
        return self.decode(bytes(section[:CLASS_ID_HASH_SIZE]), section[CLASS_ID_HASH_SIZE:], oob, offset)

    def _refusal(self, class_hash: bytes, offset: Any) -> DeserializationError:
        registration = self._table.snapshot.by_hash.get(class_hash)
        class_id = registration.class_id if registration is not None else None
        return refusal(class_hash, class_id, registration is not None and registration.fallback, offset)


def _locate(error: DeserializationError, registration: Registration, offset: Optional[int]) -> None:
    """Name the class ID and offset of the value ``error`` was raised in, or add it to the nesting."""
    if error.located:
        error.nesting.insert(0, registration.class_id)
    else:
        error.located = True
        if error.class_id is None:
            error.class_id = registration.class_id
        if error.offset is None and offset is not None:
            # The value's section starts with its ClassIDHash, then its in-band.
            error.offset = offset if error.in_band_offset is None else offset + CLASS_ID_HASH_SIZE + error.in_band_offset


def _raise_located(error: Exception, registration: Registration, offset: Optional[int]) -> NoReturn:
    """Raise what a serializer's ``error`` becomes: a serreg error as it is (a DeserializationError
    located: class ID and offset), any other error as :func:`_deserializer_failure`, raised from it."""
    if isinstance(error, SerregError):
        if isinstance(error, DeserializationError):
            _locate(error, registration, offset)
        raise error
    raise _deserializer_failure(registration, error, offset) from error


def _deserializer_failure(registration: Registration, error: Exception, offset: Optional[int]) -> DeserializationError:
    """The DeserializationError (located: class ID and offset) a serializer's ``error`` becomes,
    raised from it (a serreg error is raised as it is)."""
    if isinstance(error, StopIteration):
        message = "the serializer asked for more out-of-band buffers than the frame holds"
    elif isinstance(error, RecursionError):
        message = (
            "nested values are too deep to decode (Python's recursion limit was reached first); "
            "lower serreg.Limits(max_depth=...)"
        )
    else:
        message = f"could not decode the value: {type(error).__name__}: {error}"
    failure = DeserializationError(message, class_id=registration.class_id, offset=offset)
    failure.located = True
    return failure


class Decoder:
    """``Registry.deserialize`` for one registry."""

    def __init__(self, nested: NestedDecoder, table: Table, settings: Settings) -> None:
        self._nested = nested
        self._table = table
        self._settings = settings

    def bind_codec(self, codec: Any) -> None:
        """Hand the codec what its compiled ``top_value`` (the twin of :meth:`_top_value`) needs: the
        owner of the states it makes, and the helpers that word a serializer's error and an unused buffer."""
        codec.bind_decoder(self._nested, _raise_located, _check_all_used)

    def deserialize(
        self,
        data: Any,
        oob_iterator: Optional[Iterator[memoryview]] = None,
        trusted: Optional[bool] = None,
        key: Optional[bytes] = None,
        limits: Optional[Limits] = None,
    ) -> Any:
        """See :meth:`serreg.Registry.deserialize`."""
        settings = self._settings
        if (oob_iterator is None and trusted is None and key is None and limits is None and settings._trusted
                and DECODE_STATE.get() is None):
            value = self._top_value(data)
            if value is not NotImplemented:
                return value
        is_result = isinstance(data, SerializationResult)
        if is_result:
            class_hash, in_band = sections(data)
        if trusted is not None and type(trusted) is not bool:
            raise TypeError(f"trusted must be True, False or None (the registry's setting), not {trusted!r}")
        if limits is not None and not isinstance(limits, Limits):
            raise TypeError(f"limits must be a serreg.Limits or None (the registry's limits), not {limits!r}")
        nested = self._nested
        outer = DECODE_STATE.get()
        if outer is None or outer.owner is not nested or (trusted is False and outer.allowed is None):
            # A new call (or a nested one on another registry, or one that narrows trust).
            if trusted is None:
                trusted = settings._trusted if outer is None else outer.allowed is None
            elif outer is not None and outer.allowed is not None:
                trusted = False  # a nested call never widens the outer call's trust
            state = DecodeState(
                nested, None if trusted else self._table.snapshot.allowed_hashes,
                (settings._limits if limits is None else limits).max_depth,
            )
            if outer is not None:
                state.depth = outer.depth
                state.budget, state.budget_size, state.frame_size = outer.budget, outer.budget_size, outer.frame_size
            token = DECODE_STATE.set(state)
        else:
            state, token = None, None
        try:
            if is_result:
                if key is not None:
                    _check_result_key(data, check_key(key))
                if state is not None and outer is None:
                    state.set_budget(data.nbytes, settings._limits if limits is None else limits)
                buffers = data.out_of_band_buffers
                oob = OutOfBandBuffers(buffers) if buffers else NO_BUFFERS
                if class_hash is not None:
                    if in_band is None:
                        in_band = b""
                    if class_hash not in self._table.snapshot.unpacked_as_is:
                        in_band = memoryview(in_band)  # what serializers are promised; the codec takes any buffer
                    value = nested.decode(class_hash, in_band, oob, None)
                else:
                    value = nested.decode_section(memoryview(data.in_band_buffer or b""), oob, 0)
                if buffers:
                    _check_all_used(oob, "serialization result")
                return value
            if oob_iterator is not None and key is None:
                return nested.decode_section(memoryview(data), oob_iterator)
            call_limits = settings.limits if limits is None else limits
            in_band, in_band_offset, buffers, total = _read_frame(data, call_limits, key)
            if state is not None and outer is None:
                state.set_budget(total, call_limits)
            oob = OutOfBandBuffers(buffers) if buffers else NO_BUFFERS
            value = nested.decode_section(in_band, oob, in_band_offset)
            if buffers:
                _check_all_used(oob, "frame")
            return value
        finally:
            if token is not None:
                DECODE_STATE.reset(token)
                if outer is not None and state is not None:
                    outer.budget = state.budget  # a nested call spends the outer call's budget



    def _top_value(self, data: Any) -> Any:
        """The short way of a trusted call with the registry's limits, made outside any other
        deserialize call, for a frame or result whose top-level value is not plain msgpack (the
        codec's ``unpack_top`` read those): its value decoded as ``deserialize`` would, with the
        same state (depth, memory budget) for the values decoded inside it; NotImplemented for
        anything this does not read (the long way then reads it and says what is wrong). The
        compiled codec's ``top_value`` (``_core_top_value.h``) is its twin, which
        ``Registry.deserialize`` calls from C before this runs."""
        limits = self._settings._limits
        if limits.max_depth == 0:
            return NotImplemented
        snapshot = self._table.snapshot
        if type(data) is SerializationResult:
            class_hash, in_band, size = sections_and_size(data)
            if class_hash is None:
                return NotImplemented
            registration = snapshot.by_hash.get(class_hash)
            if registration is None:
                return NotImplemented
            if in_band is None:
                in_band = b""
            if class_hash not in snapshot.unpacked_as_is:
                in_band = memoryview(in_band)  # what serializers are promised; the codec takes any buffer
            buffers, offset, what = data.out_of_band_buffers, None, "serialization result"
        elif type(data) in _PLAIN_BYTES:
            parsed = parse_frame(data, limits.max_frame_size, limits.max_buffers)
            if parsed is None:
                return NotImplemented
            offset, in_band_len, entries = parsed
            if in_band_len < CLASS_ID_HASH_SIZE:
                return NotImplemented
            class_hash = data[offset : offset + CLASS_ID_HASH_SIZE]
            registration = snapshot.by_hash.get(class_hash if type(class_hash) is bytes else bytes(class_hash))
            if registration is None:
                return NotImplemented
            view = memoryview(data)
            in_band = view[offset + CLASS_ID_HASH_SIZE : offset + in_band_len]
            buffers = [view[start : start + length] for start, length in entries]
            size, what = len(data), "frame"
        else:
            return NotImplemented
        state = trusted_top_state(self._nested, limits, size)  # depth 1: the top-level value being decoded
        oob = OutOfBandBuffers(buffers) if buffers else NO_BUFFERS
        token = DECODE_STATE.set(state)
        try:
            value = registration.serializer.deserialize(in_band, oob)
        except Exception as error:
            _raise_located(error, registration, offset)
        finally:
            DECODE_STATE.reset(token)
        if buffers:
            _check_all_used(oob, what)
        return value


def _read_frame(data: Any, limits: Limits, key: Optional[bytes]) -> tuple[Any, int, list[Any], int]:
    """(in-band section, its offset, buffers, total length) of a frame, its layout checked."""
    if key is None and type(data) in _PLAIN_BYTES:
        parsed = parse_frame(data, limits.max_frame_size, limits.max_buffers)
        if parsed is not None:
            in_band_offset, in_band_len, entries = parsed
            view = memoryview(data)
            buffers = [view[offset : offset + length] for offset, length in entries]
            return view[in_band_offset : in_band_offset + in_band_len], in_band_offset, buffers, len(data)
    frame = FrameView(data, limits, None if key is None else check_key(key))
    return frame.in_band, frame.in_band_offset, frame.buffers, frame.total_length


# Frames parse_frame reads (anything else, and every frame it finds fault with, goes to FrameView).
_PLAIN_BYTES = (bytes, bytearray)


def _check_result_key(result: SerializationResult, key: bytes) -> None:
    """In one process a result has no bytes to check: it must have been signed with this very key."""
    signed_with = signing_key(result)
    if signed_with is None:
        raise SignatureError(
            "the serialization result is not signed, but a key was given; serialize it with key=... "
            "or deserialize without key="
        )
    if not hmac.compare_digest(signed_with, key):
        raise SignatureError("the serialization result was signed with another key")


def _check_all_used(oob: OutOfBandBuffers, what: str) -> None:
    if oob.remaining:
        raise DeserializationError(
            f"the {what} holds {oob.remaining} out-of-band buffer(s) that no serializer used"
        )
