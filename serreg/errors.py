"""The errors serreg raises. Every one is a :class:`SerregError`.

Serialization errors carry the *path* of the offending value inside the object
that was passed to ``serialize`` (for example ``obj["rows"][3]``) and its type;
deserialization errors carry the byte offset in the frame and the class ID
where they are known.
"""

from __future__ import annotations


class SerregError(Exception):
    """Base class of every error serreg raises."""


class SerializationError(SerregError):
    """A value could not be serialized.

    ``path`` is where the value sits inside the object given to ``serialize``
    (``obj`` for the object itself) and ``value_type`` its type; both are
    filled in by the registry before the error reaches the caller.
    """

    def __init__(self, message: str, *, value: object = None, path: str | None = None):
        super().__init__(message)
        self.message = message
        self.value = value
        self.value_type = type(value) if value is not None else None
        self.path = path

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        return f"{self.message} (at {self.path})"

    def __reduce__(self):
        return (_rebuild_serialization_error, (type(self), self.message, self.path))


def _rebuild_serialization_error(cls, message, path):
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
    ``class_id`` the class ID being decoded, when known.
    """

    def __init__(self, message: str, *, offset: int | None = None, class_id: str | None = None):
        details = []
        if class_id is not None:
            details.append(f"class ID {class_id!r}")
        if offset is not None:
            details.append(f"byte offset {offset}")
        super().__init__(f"{message} ({', '.join(details)})" if details else message)
        self.offset = offset
        self.class_id = class_id

    def __reduce__(self):
        return (type(self), (self.args[0],))


class UnknownClassIDError(DeserializationError, LookupError):
    """No serializer is registered under a class ID, a ClassIDHash or a type."""


class RemoteError(DeserializationError):
    """The frame is an error frame (class ID ``serreg.error``) sent by a peer.

    Serializing a ``RemoteError`` produces such a frame, so a server written
    with serreg can answer a request it cannot read.
    """

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __reduce__(self):
        return (RemoteError, (self.message,))
