"""ClassIDHash: the fixed, language-independent 64-bit hash of a class ID.

The hash is the first 8 bytes of SHA-256 over the UTF-8 class ID, written on
the wire as those 8 bytes (docs/FORMAT.md, section 2). SHA-256 is in every
language's standard library, so no implementation has to copy a hash function.
"""

from __future__ import annotations

import hashlib

CLASS_ID_HASH_SIZE = 8


def class_id_hash(class_id: str) -> bytes:
    """Return the 8 wire bytes of the ClassIDHash of ``class_id``."""
    if not isinstance(class_id, str) or not class_id:
        raise TypeError(f"a class ID must be a non-empty str, not {class_id!r}")
    return hashlib.sha256(class_id.encode("utf-8")).digest()[:CLASS_ID_HASH_SIZE]
