"""Serialize: a value through its serializer, and the top-level call with its fast path.

:class:`NestedEncoder` runs one value through the serializer the lookup
precedence picks and turns whatever goes wrong into a SerializationError that
says which serializer failed on what; the codec calls it for every value it
cannot pack by itself. :class:`Encoder` is ``Registry.serialize``: a dict,
list, str ... served by its standard serializer goes straight to the codec
(same bytes, same errors), the canonical form has its own writer, a value of a
leaf serializer (``Serializer.leaf``: it hands nothing back to serreg) goes
straight to it, and anything else goes through the nested encoder once for the
top-level value.

The whole-value fallback: a value that holds values only the pickle fallback
takes is pickled whole, in one pickle call (docs/FORMAT.md, section 6.1), so
pickle's memo, and cloudpickle's class written by value, serve the whole frame
instead of being written again for every nested value. The codec packs the
value as usual; at the first fallback value it meets, the nested encoder stops
the pack (:class:`_FallbackMet`) and the encoder pickles the top-level value
instead. Registered values inside still go through their serializers, out of
band (:mod:`serreg.standard.pickle5`).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Callable, Optional

from ..canonical.form import CanonicalForm
from ..codec import MsgpackCodec
from ..errors import SerializationError, SerregError
from ..owned_views import RELEASED_VALUE, is_released
from ..result import SerializationResult, as_result, check_unreleased, own_result_buffers, with_class_hash
from ..standard.pickle5 import PICKLED_NATIVELY, Pickle5Serializer
from ..implicit.classes import PYOBJECTS_CLASS_ID
from ..implicit.writer import ImplicitWriter
from ..structs.frames import StructFrames
from ..structs.scope import ENCODE_SCOPE, IMPLICIT_TABLES
from ..wire.class_id import class_id_hash
from ..wire.signing import check_key
from .dispatch import CROSS_LANGUAGE, Dispatch, describe
from .paths import attach_path, find
from .table import STANDARD_ORIGIN, Registration, Table

_PICKLED_TYPES_MAX = 1024

# True while the Encoder packs a value it would rather pickle whole than pickle piece by piece.
_PICKLE_WHOLE: ContextVar[bool] = ContextVar("serreg_pickle_whole", default=False)


class _FallbackMet(BaseException):
    """The codec met a value only the fallback takes while packing a value that may be pickled whole.

    A BaseException, so that a serializer's ``except Exception`` between the
    nested encoder and the Encoder does not turn it into an error.
    """


# What the pack raises when it meets a value only the fallback takes: the implicit structs' attempt gives up.
_GIVE_UP = (_FallbackMet,)


class NestedEncoder:
    """Serializes one value with the serializer the registry's lookup picks for it."""

    def __init__(self, dispatch: Dispatch) -> None:
        self.registration_for = dispatch.registration_for

    def encode(self, value: Any) -> tuple[Any, ...]:
        """(ClassIDHash, the serializer's raw result) of ``value``."""
        registration = self.registration_for(value)
        if registration.fallback and _PICKLE_WHOLE.get():
            raise _FallbackMet
        if registration.origin != STANDARD_ORIGIN and IMPLICIT_TABLES.get() is not None:
            # A serializer of a value written with implicit structs around it writes the values
            # inside as it always does: the walk did not look into them (docs/FORMAT.md 10.9).
            token = IMPLICIT_TABLES.set(None)
            try:
                return self.encode_with(registration, value)
            finally:
                IMPLICIT_TABLES.reset(token)
        return self.encode_with(registration, value)

    def encode_with(
        self, registration: Registration, value: Any, before_registered: Optional[Callable[[], object]] = None
    ) -> tuple[bytes, SerializationResult]:
        """(ClassIDHash, raw result) of ``value`` through ``registration``'s serializer
        (``before_registered``: passed on to the pickle fallback, see :class:`Pickle5Serializer`)."""
        try:
            if before_registered is None:
                result = registration.serializer.serialize(value)
            else:
                result = registration.serializer.serialize(value, before_registered)
        except Exception as error:
            failure = serializer_failure(registration, value, error)
            if failure is None:
                raise
            raise failure from error
        if type(result) is not SerializationResult:
            result = as_result(result, f"the serializer for class ID {registration.class_id!r}", value)
        check_unreleased(result, f"the serializer for class ID {registration.class_id!r}", value)
        own_result_buffers(result, f"the serializer for class ID {registration.class_id!r}", value)
        return registration.class_hash, result


def serializer_failure(registration: Registration, value: Any, error: Exception) -> Optional[SerializationError]:
    """What ``registration``'s serializer raising ``error`` on ``value`` becomes: None when the
    error is raised as it is (a serreg error), else the SerializationError to raise from it."""
    if isinstance(error, SerializationError):
        # Raised by a serreg.serialize() call made inside this serializer: remember
        # the value whose serializer made it, to complete the path later.
        if error.path_root is not None and error.via is None:
            error.via = value
        return None
    if isinstance(error, SerregError):
        return None
    if isinstance(error, RecursionError):
        return SerializationError("value is nested too deeply to serialize", value=value)
    if isinstance(error, ValueError) and (released_view := find(value, is_released)) is not None:
        return SerializationError(RELEASED_VALUE, value=released_view)  # a view of it was released: none can be read
    if registration.fallback:
        message = (
            f"nothing can serialize a {describe(type(value))}: no serializer is registered for it and "
            f"the pickle fallback failed ({type(error).__name__}: {error}); register a serializer with "
            f"serreg.register_serializer(class_id, {type(value).__qualname__}, serializer)"
        )
    else:
        message = (
            f"the serializer for class ID {registration.class_id!r} failed on a {describe(type(value))}: "
            f"{type(error).__name__}: {error}"
        )
    return SerializationError(message, value=value)


class Encoder:
    """``Registry.serialize`` for one registry.

    ``whole_values`` (default True): a value holding fallback values is pickled
    whole; False pickles each fallback value on its own (other languages then
    read the rest of the value; see ``Registry.configure_fallback``).
    """

    def __init__(
        self, nested: NestedEncoder, codec: MsgpackCodec, canonical: CanonicalForm, table: Table, structs: StructFrames,
        implicit: ImplicitWriter,
    ) -> None:
        self._nested = nested
        self._implicit = implicit
        self._pack = codec.pack
        self._publish_implicit = codec.publish_implicit
        self._canonical = canonical
        self._table = table
        self._structs = structs
        self._whole_values = True
        self._implicit_structs = True  # plain objects as implicit structs before pickling a whole value (10.9)
        # The codec's serialize_top writes a top-level implicit instance of a class the short way published
        # (_pickled_top), unless one of these holds a value: the same bytes as the short way's, in one call.
        codec.bind_implicit(class_id_hash(PYOBJECTS_CLASS_ID), (_PICKLE_WHOLE, CROSS_LANGUAGE, ENCODE_SCOPE,
                                                                IMPLICIT_TABLES))
        self._whole_for: tuple[Any, Optional[Registration]] = (None, None)  # (snapshot, its whole-value fallback)
        # (snapshot, types whose top-level values the whole-value fallback pickled under it): see _pickled_top.
        self._pickled_types: tuple[Any, set[type]] = (None, set())

    @property
    def whole_values(self) -> bool:
        """True: a value holding fallback values is pickled whole (see the class docstring)."""
        return self._whole_values

    @whole_values.setter
    def whole_values(self, whole_values: bool) -> None:
        self._whole_values = whole_values
        self._publish_implicit(None)  # what the codec was told was for the former setting

    @property
    def implicit_structs(self) -> bool:
        """True: plain objects are written as implicit structs before a whole value is pickled (10.9)."""
        return self._implicit_structs

    @implicit_structs.setter
    def implicit_structs(self, implicit_structs: bool) -> None:
        self._implicit_structs = implicit_structs
        self._publish_implicit(None)

    def serialize(
        self, obj: Any, cross_language: bool = False, canonical: bool = False, key: Optional[bytes] = None
    ) -> SerializationResult:
        """See :meth:`serreg.Registry.serialize`."""
        if key is not None:
            key = check_key(key)
        if canonical:
            return self._canonical.serialize(obj, key)
        if not cross_language:
            snapshot = self._table.snapshot
            leaf = snapshot.current.get(type(obj))
            if leaf is not None and leaf.leaf and not leaf.plain_msgpack and (leaf.accepts is None or leaf.accepts(obj)):
                return self._leaf_top(leaf, obj, key)
            pickled_for, pickled = self._pickled_types
            if type(obj) in pickled and pickled_for is snapshot:
                written = self._pickled_top(obj)
                if written is not None:
                    return with_class_hash(written[0], written[1], written[2], key)
        # Structs written anywhere in the value share one table, put in front of the value (section 10).
        structs = self._structs
        scope = structs.begin()
        try:
            class_hash, in_band, oob = self._serialize_top(obj, cross_language)
        except BaseException:
            structs.abandon(scope)
            raise
        class_hash, in_band = structs.finish(scope, class_hash, obj, in_band)
        return with_class_hash(class_hash, in_band, oob, key)

    def _leaf_top(self, leaf: Registration, obj: Any, key: Optional[bytes]) -> SerializationResult:
        """A top-level value of a leaf serializer's: no struct is written (no table to open) and no
        value inside goes to the fallback (no whole-value pickle to prepare), so it goes straight to
        its serializer; the long way writes the same bytes."""
        try:
            class_hash, result = self._nested.encode_with(leaf, obj)
        except SerializationError as error:
            attach_path(error, obj)
            raise
        return with_class_hash(class_hash, result.in_band_buffer, result.out_of_band_buffers, key)

    def _serialize_top(self, obj: Any, cross_language: bool) -> tuple[bytes, Any, Any]:
        """(ClassIDHash, in-band, out-of-band buffers) of the top-level value."""
        if cross_language:
            token = CROSS_LANGUAGE.set(True) if not CROSS_LANGUAGE.get() else None
            try:
                return self._written(obj)
            finally:
                if token is not None:
                    CROSS_LANGUAGE.reset(token)
        whole = self._whole_value_fallback() if self.whole_values else None
        if whole is None or CROSS_LANGUAGE.get():
            return self._written(obj)
        token = _PICKLE_WHOLE.set(True)
        met_inside = False
        try:
            written = self._serialize(obj, whole)
        except _FallbackMet:  # met inside the value
            self._structs.reset()  # the value is written again, whole, by the fallback
            written, met_inside = None, True
        finally:
            _PICKLE_WHOLE.reset(token)
        if written is not None:
            return written
        if not met_inside:  # the value itself is the fallback's: the next one of its type takes the short way
            self._remember_pickled(type(obj))
        implicit = self._with_implicit_structs(obj, whole)
        if implicit is not None:
            return implicit
        return self._pickle_whole(obj, whole)

    def _with_implicit_structs(self, obj: Any, whole: Registration) -> Optional[tuple[bytes, Any, Any]]:
        """The value written with implicit structs (docs/FORMAT.md 10.9), or None: it is pickled whole."""
        if not self.implicit_structs:
            return None
        fallback: Pickle5Serializer = whole.serializer
        token = _PICKLE_WHOLE.set(True)
        try:
            return self._implicit.attempt(obj, self._serialize, whole, fallback.pickle_parts, _GIVE_UP)
        finally:
            _PICKLE_WHOLE.reset(token)

    def _remember_pickled(self, cls: type) -> None:
        """The next top-level values of ``cls`` take the short way (``_pickled_top``) while the registrations
        stay as they are, if the lookup cannot pick another serializer for one of them (no serializer
        registered for ``cls``, whose ``accepts`` might take it; not a dataclass ``serreg.dataclass`` might
        take)."""
        snapshot = self._table.snapshot
        if cls in snapshot.current:
            return
        if snapshot.dataclass_writer is not None and hasattr(cls, "__dataclass_fields__"):
            return
        cached_for, types = self._pickled_types
        if cached_for is not snapshot or len(types) >= _PICKLED_TYPES_MAX:
            types = set()
            self._pickled_types = (snapshot, types)
        types.add(cls)

    def _pickled_top(self, obj: Any) -> Optional[tuple[bytes, Any, Any]]:
        """The short way of a top-level value the whole-value fallback takes (None: take the long way).

        Taken for a value of a type whose values the fallback pickled before under the same
        registrations (so the lookup would pick the fallback again: see _remember_pickled), when
        this call is not nested in another's whole-value attempt, struct table or cross-language
        call. The frame's struct table is opened only if a registered value inside the pickle is
        about to be written (the only way a struct gets into a pickle), so the frame is the one
        the long way writes.
        """
        structs = self._structs
        if _PICKLE_WHOLE.get() or CROSS_LANGUAGE.get() or not self._whole_values or structs.current() is not None:
            return None
        cached_for, whole = self._whole_for
        if cached_for is not self._table.snapshot:
            whole = self._whole_value_fallback()
        if whole is None:
            return None
        fallback: Pickle5Serializer = whole.serializer
        if self._implicit_structs:  # _with_implicit_structs, inline (the one call on this path)
            token = _PICKLE_WHOLE.set(True)
            try:
                implicit = self._implicit.attempt(obj, self._serialize, whole, fallback.pickle_parts, _GIVE_UP)
            finally:
                _PICKLE_WHOLE.reset(token)
            if implicit is not None:
                top = self._implicit.last_top
                if top is not None and top[0] is type(obj):  # the codec writes the next ones in one call
                    self._publish_implicit(*top)
                return implicit
        try:
            in_band, buffers = fallback.pickle_parts(obj, structs.open_lazily)
        except Exception as error:
            structs.close_lazily()
            failure = serializer_failure(whole, obj, error)
            if failure is None:
                if isinstance(error, SerializationError):
                    attach_path(error, obj)
                raise
            attach_path(failure, obj)
            raise failure from error
        except BaseException:
            structs.close_lazily()
            raise
        if structs.current() is None:  # no registered value inside the pickle: no table
            return whole.class_hash, in_band, buffers
        class_hash, in_band = structs.finish_lazily(whole.class_hash, obj, in_band)
        return class_hash, in_band, buffers

    def _written(self, obj: Any) -> tuple[bytes, Any, Any]:
        """``_serialize`` without a whole-value fallback (which never answers None)."""
        written = self._serialize(obj, None)
        assert written is not None
        return written

    def _serialize(self, obj: Any, whole: Optional[Registration]) -> Optional[tuple[bytes, Any, Any]]:
        """(ClassIDHash, in-band, buffers) of ``obj``; None when ``obj`` itself is one the fallback
        ``whole`` takes (nothing is written yet: the caller pickles it, without raising _FallbackMet
        through these frames)."""
        # A dict, list, str ... whose serializer is the standard one is the codec's
        # output as it is: skip the generic dispatch (same bytes, same errors).
        class_hash = self._table.snapshot.packed_as_is.get(type(obj))
        if class_hash is not None:
            oob: list[Any] = []
            try:
                in_band = self._pack(obj, oob)
            except SerializationError as error:
                attach_path(error, obj)
                raise
            except SerregError:
                raise
            except Exception:
                self._structs.reset()  # the generic path below reports it the way it always does
            else:
                return class_hash, in_band, oob
        nested = self._nested
        try:
            registration = nested.registration_for(obj)
            if registration is whole:
                return None
            class_hash, result = nested.encode_with(registration, obj)
        except SerializationError as error:
            attach_path(error, obj)
            raise
        return class_hash, result.in_band_buffer, result.out_of_band_buffers

    def _pickle_whole(self, obj: Any, whole: Registration) -> tuple[bytes, Any, Any]:
        """``obj`` in one call of the fallback; if that fails, value by value (which names the culprit)."""
        token = _PICKLE_WHOLE.set(False)  # a serializer run inside the pickle writes its fallback values itself
        try:
            try:
                class_hash, result = self._nested.encode_with(whole, obj)
            except SerializationError as error:
                if self._nested.registration_for(obj) is not whole:
                    self._structs.reset()
                    return self._written(obj)
                attach_path(error, obj)
                raise
        finally:
            _PICKLE_WHOLE.reset(token)
        return class_hash, result.in_band_buffer, result.out_of_band_buffers

    def _whole_value_fallback(self) -> Optional[Registration]:
        """The fallback registration, if it can pickle whole values under the registrations in force."""
        snapshot = self._table.snapshot
        cached_for, whole = self._whole_for
        if cached_for is snapshot:
            return whole
        whole = snapshot.fallback
        if whole is not None and not isinstance(whole.serializer, Pickle5Serializer):
            whole = None  # a fallback of the user's own is given the values it was always given
        if whole is not None:
            # pickle writes these types itself, never asking reducer_override: a serializer a user
            # registered for one of them would be passed over inside a whole-value pickle.
            for cls in PICKLED_NATIVELY:
                registration = snapshot.current.get(cls)
                if registration is not None and registration.origin != STANDARD_ORIGIN:
                    whole = None
                    break
        self._whole_for = (snapshot, whole)
        return whole
