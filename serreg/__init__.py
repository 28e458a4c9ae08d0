"""serreg: a pluggable, cross-language serializer registry.

Class IDs (strings such as ``"ArrowTable"``) map to serializers that return
in-band bytes plus out-of-band buffers; serreg frames the result as
ClassIDHash + msgpack in-band + out-of-band buffers (docs/FORMAT.md). Values
without a registered serializer fall back to pickle protocol 5.

The module-level functions act on a default :class:`Registry`.
"""

from __future__ import annotations

from .errors import (
    CanonicalFormError,
    CrossLanguageError,
    DeserializationError,
    LimitExceededError,
    RemoteError,
    SerializationError,
    SerregError,
    SignatureError,
    UnknownClassIDError,
    UntrustedClassIDError,
)
from .limits import Limits
from .frame import FORMAT_VERSION, FrameView
from .registry import Registration, Registry
from .result import OutOfBandBuffers, SerializationResult
from .serializer import Serializer
from .standard import configure_dataclasses

__version__ = "0.1.0"

_DEFAULT = Registry()


def _default_registry() -> Registry:
    return _DEFAULT


def default_registry() -> Registry:
    """The Registry behind the module-level functions."""
    return _DEFAULT


register_serializer = _DEFAULT.register_serializer
unregister_serializer = _DEFAULT.unregister_serializer
get_serializer = _DEFAULT.get_serializer
register_fallback_serializer = _DEFAULT.register_fallback_serializer
serialize = _DEFAULT.serialize
deserialize = _DEFAULT.deserialize
allow_class_ids = _DEFAULT.allow_class_ids
digest = _DEFAULT.digest

from . import cas  # noqa: E402  (serreg.cas.Store uses the default registry)

__all__ = [
    "CanonicalFormError",
    "CrossLanguageError",
    "DeserializationError",
    "FORMAT_VERSION",
    "FrameView",
    "LimitExceededError",
    "Limits",
    "OutOfBandBuffers",
    "Registration",
    "Registry",
    "RemoteError",
    "SerializationError",
    "SerializationResult",
    "Serializer",
    "SerregError",
    "SignatureError",
    "UnknownClassIDError",
    "UntrustedClassIDError",
    "allow_class_ids",
    "configure_dataclasses",
    "default_registry",
    "deserialize",
    "digest",
    "get_serializer",
    "register_fallback_serializer",
    "register_serializer",
    "serialize",
    "unregister_serializer",
]
