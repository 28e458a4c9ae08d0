"""Untrusted mode: which class IDs may be decoded from bytes of unknown origin.

Unpickling, or importing a module a frame names, runs code chosen by whoever
wrote the bytes, so in untrusted mode the pickle fallback and serreg.dataclass
are always refused, and so is every class ID outside the allow-list, before
its serializer sees a byte. The default allow-list holds the standard data
class IDs of docs/FORMAT.md section 6 (``serreg.standard.DATA_CLASS_IDS``),
whose serializers build plain data and check what they read; a user's class
ID is added once its serializer is known to be safe on hostile bytes.
"""

from __future__ import annotations

from typing import Any

from .errors import UntrustedClassIDError
from .standard import CODE_LOADING_CLASS_IDS, PYOBJECTS_CLASS_ID
from .wire.class_id import class_id_hash

__all__ = ["allowed_hashes", "check_allowable", "refusal"]


def allowed_hashes(class_ids: Any) -> frozenset[Any]:
    """The ClassIDHashes of ``class_ids``: what the decoder compares, 8 bytes at a time."""
    return frozenset(class_id_hash(class_id) for class_id in class_ids)


def check_allowable(class_id: str, fallback_class_id: str) -> None:
    """Refuse to put a code-loading class ID on an allow-list: untrusted mode exists to keep them out."""
    if class_id in CODE_LOADING_CLASS_IDS or class_id == fallback_class_id:
        raise ValueError(
            f"class ID {class_id!r} runs code while decoding (it unpickles, or imports a module the frame "
            "names); it cannot be allowed in untrusted mode. Deserialize with trusted=True instead, and only "
            "frames from a sender you trust (check their signature with key=...)"
        )


def refusal(class_hash: bytes, class_id: str | None, is_fallback: bool, offset: Any) -> UntrustedClassIDError:
    """The error for a class ID that untrusted mode does not decode: why, and how to allow it."""
    if class_id == PYOBJECTS_CLASS_ID:
        return UntrustedClassIDError(
            f"the frame holds plain Python objects (class ID {class_id!r}: their classes travel pickled), and "
            "this is an untrusted deserialize: unpickling runs code chosen by whoever wrote the frame, so nothing "
            "was unpickled. Pass trusted=True only for frames from a sender you trust, or declare the classes "
            "as structs (serreg.register_struct) on both sides",
            class_id=class_id, offset=offset,
        )
    if class_id in CODE_LOADING_CLASS_IDS and not is_fallback:
        return UntrustedClassIDError(
            f"the frame holds a {class_id!r} value, and this is an untrusted deserialize: decoding it imports "
            "the module the frame names, which runs that module's code, so nothing was imported. Pass "
            "trusted=True only for frames from a sender you trust, or register a serializer for the value's "
            "type and allow it with registry.allow_class_ids(...)",
            class_id=class_id, offset=offset,
        )
    if is_fallback:
        return UntrustedClassIDError(
            f"the frame holds a pickled value (class ID {class_id!r}), and this is an untrusted deserialize: "
            "unpickling runs code chosen by whoever wrote the frame, so nothing was unpickled. Pass "
            "trusted=True only for frames from a sender you trust (for example after checking their signature "
            "with key=...), or register a serializer for the value's type on both sides so it needs no pickle",
            class_id=class_id, offset=offset,
        )
    if class_id is None:
        return UntrustedClassIDError(
            f"ClassIDHash {class_hash.hex()} is not on the allow-list for untrusted data (and no serializer "
            "is registered for it); register the writer's class ID and allow it with "
            "registry.allow_class_ids(class_id) if its serializer is safe on hostile bytes",
            offset=offset,
        )
    return UntrustedClassIDError(
        f"class ID {class_id!r} is not on the allow-list for untrusted data; if its serializer is safe on "
        f"hostile bytes (builds plain data, checks every length it reads, never unpickles), allow it with "
        f"registry.allow_class_ids({class_id!r}), or deserialize with trusted=True for a sender you trust",
        class_id=class_id, offset=offset,
    )
