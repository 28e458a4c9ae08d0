"""The errors serreg raises. Every one is a :class:`SerregError`.

Serialization errors carry the *path* of the offending value inside the object
that was passed to ``serialize`` (for example ``obj["rows"][3]``) and its type;
deserialization errors carry the byte offset in the frame and the class ID
where they are known.
"""

from __future__ import annotations

from typing import Optional, Any

__all__ = [
    "CanonicalFormError",
    "CrossLanguageError",
    "DeserializationError",
    "LimitExceededError",
    "RemoteError",
    "SerializationError",
    "SerregError",
    "SignatureError",
    "UnknownClassIDError",
    "UntrustedClassIDError",
]


class SerregError(Exception):
    """Base class of every error serreg raises."""


class SerializationError(SerregError):
    """A value could not be serialized.

    ``path`` is where the value sits inside the object given to ``serialize``
    (``obj`` for the object itself) and ``value_type`` its type; both are
    filled in by the registry before the error reaches the caller.

    While the error travels out of nested ``serialize`` calls the registry
    keeps two more: ``path_root``, the object ``path`` starts from, and
    ``via``, the value whose serializer made the nested call that failed.
    """

    def __init__(self, message: str, *, value: object = None, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.value = value
        self.value_type = type(value) if value is not None else None
        self.path = path
        self.path_root: object = None
        self.via: object = None

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        return f"{self.message} (at {self.path})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_serialization_error, (type(self), self.message, self.path))


def _rebuild_serialization_error(cls: type[SerializationError], message: str, path: Optional[str]) -> SerializationError:
    return cls(message, path=path)


class CrossLanguageError(SerializationError):
    """``cross_language=True`` was asked for, but a value has no cross-language serializer."""


class CanonicalFormError(SerializationError):
    """``canonical=True`` or ``digest`` met a value that has no canonical form.

    Raised for values that would need the pickle fallback (pickle bytes are
    not unique per value) and for values whose serializer does not define a
    canonical form (docs/FORMAT.md, section 9).
    """


class DeserializationError(SerregError):
    """Bytes could not be turned back into a value.

    ``offset`` is the byte offset in the frame where the problem was found and
    ``class_id`` the class ID being decoded, when known. ``nesting`` lists the
    class IDs of the values that enclose the failing one, outermost first
    (``["dict", "tuple", "numpy.ndarray"]``), when it failed inside a nested value.
    ``located`` is True once the registry has given the error the class ID and
    offset of the value that failed; the values around it then only add
    themselves to ``nesting``. A serializer that knows where in its own in-band
    the fault lies (it cannot know where that in-band sits in the frame) gives
    ``in_band_offset``, counted from the first byte after the ClassIDHash; the
    registry turns it into ``offset``.
    """

    def __init__(
        self, message: str, *, offset: int | None = None, class_id: str | None = None, in_band_offset: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.class_id = class_id
        self.in_band_offset = in_band_offset
        self.nesting: list[str] = []
        self.located = False

    def __str__(self) -> str:
        details = []
        if self.class_id is not None:
            details.append(f"class ID {self.class_id!r}")
        if self.offset is not None:
            details.append(f"byte offset {self.offset}")
        if self.nesting:
            details.append("inside " + " > ".join(self.nesting))
        return f"{self.message} ({', '.join(details)})" if details else self.message

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_deserialization_error, (type(self), str(self)))


def _rebuild_deserialization_error(cls: type[DeserializationError], text: str) -> DeserializationError:
    error = DeserializationError.__new__(cls)
    DeserializationError.__init__(error, text)
    return error


class LimitExceededError(DeserializationError):
    """The frame goes beyond one of the configured :class:`serreg.Limits`."""


class UntrustedClassIDError(DeserializationError):
    """Untrusted mode met the pickle fallback or a class ID outside the allow-list; nothing was unpickled."""


class SignatureError(DeserializationError):
    """A key was given and the frame is unsigned, signed with another key, or altered; nothing was decoded."""


class UnknownClassIDError(DeserializationError, LookupError):
    """No serializer is registered under a class ID, a ClassIDHash or a type."""


class RemoteError(DeserializationError):
    """The frame is an error frame (class ID ``serreg.error``) sent by a peer.

    Serializing a ``RemoteError`` produces such a frame, so a server written
    with serreg can answer a request it cannot read.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        return (RemoteError, (self.message,))
