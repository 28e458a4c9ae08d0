"""serreg: a pluggable, cross-language serializer registry.

Class IDs (strings such as ``"ArrowTable"``) map to serializers that return
in-band bytes plus out-of-band buffers; serreg frames the result as
ClassIDHash + msgpack in-band + out-of-band buffers (docs/FORMAT.md). Values
without a registered serializer fall back to pickle protocol 5.

The module-level functions act on a default :class:`Registry`
(``serreg.default_registry()``). This module is only the public face: every
name here is defined in one of serreg's modules.
"""

from __future__ import annotations

from ._default import (
    allow_class_ids,
    configure_dataclasses,
    default_registry,
    deserialize,
    digest,
    get_serializer,
    register,
    register_fallback_serializer,
    register_serializer,
    register_struct,
    serialize,
    struct,
    unregister_serializer,
)
from ._version import __version__
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
from .registry import Registration, Registry
from .result import OutOfBandBuffers, SerializationResult
from .serializer import Serializer, SerializerLike
from .structs import StructValue, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64
from .wire.frame import FORMAT_VERSION, FrameView

from .mapped import dump, load

from . import cas, shm  # noqa: E402,F401  (``serreg.cas.Store``, ``serreg.shm.put`` after a plain ``import serreg``)

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
    "SerializerLike",
    "SerregError",
    "StructValue",
    "SignatureError",
    "UnknownClassIDError",
    "UntrustedClassIDError",
    "__version__",
    "allow_class_ids",
    "configure_dataclasses",
    "default_registry",
    "deserialize",
    "digest",
    "dump",
    "float32",
    "float64",
    "get_serializer",
    "int16",
    "int32",
    "int64",
    "int8",
    "load",
    "register",
    "register_fallback_serializer",
    "register_serializer",
    "register_struct",
    "serialize",
    "struct",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "unregister_serializer",
]
