"""Serialize: a value through its serializer, and the top-level call with its fast path.

:class:`NestedEncoder` runs one value through the serializer the lookup
precedence picks and turns whatever goes wrong into a SerializationError that
says which serializer failed on what; the codec calls it for every value it
cannot pack by itself. :class:`Encoder` is ``Registry.serialize``: a dict,
list, str ... served by its standard serializer goes straight to the codec
(same bytes, same errors), the canonical form has its own writer, and anything
else goes through the nested encoder once for the top-level value.

The whole-value fallback: a value that holds values only the pickle fallback
takes is pickled whole, in one pickle call (docs/FORMAT.md, section 6.1), so
pickle's memo, and cloudpickle's class written by value, serve the whole frame
instead of being written again for every nested value. The codec packs the
value as usual; at the first fallback value it meets, the nested encoder stops
the pack (:class:`_FallbackMet`) and the encoder pickles the top-level value
instead. Registered values inside still go through their serializers, out of
band (:mod:`serreg.standard.pickle5`). Whether a fallback value is met inside
such a pack is asked only when one is met, by looking up the call stack for
the Encoder call it belongs to (so the ordinary path pays nothing for it).
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Optional

from ..canonical.form import CanonicalForm
from ..codec import MsgpackCodec
from ..errors import SerializationError, SerregError
from ..result import SerializationResult, with_class_hash
from ..standard.pickle5 import PICKLED_NATIVELY, Pickle5Serializer
from ..wire.signing import check_key
from .dispatch import CROSS_LANGUAGE, Dispatch, describe
from .paths import attach_path
from .table import STANDARD_ORIGIN, Registration, Table


class _FallbackMet(BaseException):
    """The codec met a value only the fallback takes while packing a value that may be pickled whole.

    A BaseException, so that a serializer's ``except Exception`` between the
    nested encoder and the Encoder does not turn it into an error.
    """


class NestedEncoder:
    """Serializes one value with the serializer the registry's lookup picks for it."""

    def __init__(self, dispatch: Dispatch, table: Table) -> None:
        self.registration_for = dispatch.registration_for
        self._table = table
        self._whole_for: tuple = (None, None)  # (snapshot, its whole-value fallback or None)
        self.whole_values = True  # Registry.configure_fallback

    def encode(self, value) -> tuple:
        """(ClassIDHash, the serializer's raw result) of ``value``."""
        registration = self.registration_for(value)
        if registration.fallback and self.whole_values and registration is self.whole_value_fallback():
            if self._packing_whole_value():
                raise _FallbackMet
        return self.encode_with(registration, value)

    def _packing_whole_value(self) -> bool:
        """True if this value is met while one of this registry's Encoder.serialize calls packs a
        value it may pickle whole (not inside such a pickle, not in another registry's call)."""
        frame: Optional[FrameType] = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if code is _PICKLE_WHOLE_CODE:
                return False
            if code is _SERIALIZE_CODE:
                call = frame.f_locals
                encoder = call.get("self")
                return (
                    encoder is not None and encoder.nested is self
                    and not call.get("canonical") and not call.get("cross_language")
                )
            frame = frame.f_back
        return False  # a serializer called directly, outside serialize(): value by value

    def whole_value_fallback(self) -> Optional[Registration]:
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

    def encode_with(self, registration: Registration, value) -> tuple:
        """(ClassIDHash, raw result) of ``value`` through ``registration``'s serializer."""
        try:
            result = registration.serializer.serialize(value)
        except SerializationError as error:
            # Raised by a serreg.serialize() call made inside this serializer: remember
            # the value whose serializer made it, to complete the path later.
            if error.path_root is not None and error.via is None:
                error.via = value
            raise
        except SerregError:
            raise
        except RecursionError as error:
            raise SerializationError("value is nested too deeply to serialize", value=value) from error
        except Exception as error:
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
            raise SerializationError(message, value=value) from error
        if not isinstance(result, SerializationResult):
            raise SerializationError(
                f"the serializer for class ID {registration.class_id!r} returned {type(result).__name__}, "
                "not a SerializationResult",
                value=value,
            )
        return registration.class_hash, result


class Encoder:
    """``Registry.serialize`` for one registry.

    ``whole_values`` (default True): a value holding fallback values is pickled
    whole; False pickles each fallback value on its own (other languages then
    read the rest of the value; see ``Registry.configure_fallback``).
    """

    def __init__(self, nested: NestedEncoder, codec: MsgpackCodec, canonical: CanonicalForm, table: Table) -> None:
        self.nested = nested
        self._encode = nested.encode
        self._registration_for = nested.registration_for
        self._encode_with = nested.encode_with
        self._pack = codec.pack
        self._canonical = canonical
        self._table = table

    @property
    def whole_values(self) -> bool:
        return self.nested.whole_values

    @whole_values.setter
    def whole_values(self, whole_values: bool) -> None:
        self.nested.whole_values = whole_values

    def serialize(
        self, obj, cross_language: bool = False, canonical: bool = False, key: Optional[bytes] = None
    ) -> SerializationResult:
        """See :meth:`serreg.Registry.serialize`."""
        if key is not None:
            key = check_key(key)
        if canonical:
            return self._canonical.serialize(obj, key)
        if not cross_language:
            # A dict, list, str ... whose serializer is the standard one is the codec's
            # output as it is: skip the generic dispatch (same bytes, same errors).
            class_hash = self._table.snapshot.packed_as_is.get(type(obj))
            if class_hash is not None:
                oob: list = []
                try:
                    in_band = self._pack(obj, oob)
                except _FallbackMet:
                    return self._pickle_whole(obj, key)
                except SerializationError as error:
                    attach_path(error, obj)
                    raise
                except SerregError:
                    raise
                except Exception:
                    pass  # the generic path below reports it the way it always does
                else:
                    return with_class_hash(class_hash, in_band, oob, key)
        token = CROSS_LANGUAGE.set(True) if cross_language and not CROSS_LANGUAGE.get() else None
        try:
            registration = self._registration_for(obj)
            if registration.fallback:
                return self._pickle_whole(obj, key)  # no pack to stop: pickled whole at once
            class_hash, result = self._encode_with(registration, obj)
        except _FallbackMet:
            return self._pickle_whole(obj, key)
        except SerializationError as error:
            attach_path(error, obj)
            raise
        finally:
            if token is not None:
                CROSS_LANGUAGE.reset(token)
        return with_class_hash(class_hash, result.in_band_buffer, result.out_of_band_buffers, key)

    def _value_by_value(self, obj, key: Optional[bytes]) -> SerializationResult:
        try:
            class_hash, result = self._encode(obj)
        except SerializationError as error:
            attach_path(error, obj)
            raise
        return with_class_hash(class_hash, result.in_band_buffer, result.out_of_band_buffers, key)

    def _pickle_whole(self, obj, key: Optional[bytes]) -> SerializationResult:
        """``obj`` in one call of the fallback; if that fails, value by value (which names the culprit).

        While this runs, fallback values met by serializers inside the pickle are written value by
        value (the nested encoder finds this call on the stack before the serialize call)."""
        nested = self.nested
        whole = nested.whole_value_fallback() or nested.registration_for(obj)  # none: obj itself is the fallback's
        try:
            class_hash, result = nested.encode_with(whole, obj)
        except SerializationError as error:
            if nested.registration_for(obj) is not whole:
                return self._value_by_value(obj, key)
            attach_path(error, obj)
            raise
        return with_class_hash(class_hash, result.in_band_buffer, result.out_of_band_buffers, key)


# What the nested encoder looks for on the call stack (see NestedEncoder._packing_whole_value).
_SERIALIZE_CODE = Encoder.serialize.__code__
_PICKLE_WHOLE_CODE = Encoder._pickle_whole.__code__
