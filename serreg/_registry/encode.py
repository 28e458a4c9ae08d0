"""Serialize: a value through its serializer, and the top-level call with its fast path.

:class:`NestedEncoder` runs one value through the serializer the lookup
precedence picks and turns whatever goes wrong into a SerializationError that
says which serializer failed on what; the codec calls it for every value it
cannot pack by itself. :class:`Encoder` is ``Registry.serialize``: a dict,
list, str ... served by its standard serializer goes straight to the codec
(same bytes, same errors), the canonical form has its own writer, and anything
else goes through the nested encoder once for the top-level value.
"""

from __future__ import annotations

from typing import Any, Optional

from ..canonical.form import CanonicalForm
from ..codec import MsgpackCodec
from ..errors import SerializationError, SerregError
from ..result import SerializationResult, as_result, with_class_hash
from ..structs.frames import StructFrames
from ..wire.signing import check_key
from .dispatch import CROSS_LANGUAGE, Dispatch, describe
from .paths import attach_path
from .table import Table


class NestedEncoder:
    """Serializes one value with the serializer the registry's lookup picks for it."""

    def __init__(self, dispatch: Dispatch) -> None:
        self._registration_for = dispatch.registration_for

    def encode(self, value: Any) -> tuple[Any, ...]:
        """(ClassIDHash, the serializer's raw result) of ``value``."""
        registration = self._registration_for(value)
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
        if type(result) is not SerializationResult:
            returned, result = result, as_result(result)
            if result is None:
                raise SerializationError(
                    f"the serializer for class ID {registration.class_id!r} returned {type(returned).__name__}, "
                    "not a SerializationResult or bytes",
                    value=value,
                )
        return registration.class_hash, result


class Encoder:
    """``Registry.serialize`` for one registry."""

    def __init__(
        self, nested: NestedEncoder, codec: MsgpackCodec, canonical: CanonicalForm, table: Table, structs: StructFrames
    ) -> None:
        self._encode = nested.encode
        self._pack = codec.pack
        self._canonical = canonical
        self._table = table
        self._structs = structs

    def serialize(
        self, obj: Any, cross_language: bool = False, canonical: bool = False, key: Optional[bytes] = None
    ) -> SerializationResult:
        """See :meth:`serreg.Registry.serialize`."""
        if key is not None:
            key = check_key(key)
        if canonical:
            return self._canonical.serialize(obj, key)
        # Structs written anywhere in the value share one table, put in front of the value (section 10).
        structs = self._structs
        scope = structs.begin()
        try:
            class_hash, in_band, oob = self._serialize(obj, cross_language)
        except BaseException:
            structs.abandon(scope)
            raise
        class_hash, in_band = structs.finish(scope, class_hash, obj, in_band)
        return with_class_hash(class_hash, in_band, oob, key)

    def _serialize(self, obj, cross_language: bool) -> tuple:
        if not cross_language:
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
        token = CROSS_LANGUAGE.set(True) if cross_language and not CROSS_LANGUAGE.get() else None
        try:
            class_hash, result = self._encode(obj)
        except SerializationError as error:
            attach_path(error, obj)
            raise
        finally:
            if token is not None:
                CROSS_LANGUAGE.reset(token)
        return class_hash, result.in_band_buffer, result.out_of_band_buffers
