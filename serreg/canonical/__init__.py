"""The canonical form (docs/FORMAT.md, section 9): one byte form per value, and digests.

``form`` holds :class:`CanonicalForm` (the msgpack trees and the writer
lookup) and the digest helpers; ``floats`` the canonical floats every writer
shares; ``standard`` the writers of the standard types; ``structs`` struct
instances and the frame's sorted struct table (section 10.5). Plug-ins give
their canonical form through the ``serialize_canonical`` hook of their serializers.
"""

from __future__ import annotations

from .floats import CANONICAL_NAN_BITS, canonical_float, canonical_float_bits, normalize_float_array, pack_float
from .form import CanonicalForm, pieces_digest, result_digest
from .standard import canonical_decimal_text

__all__ = [
    "CANONICAL_NAN_BITS",
    "CanonicalForm",
    "canonical_decimal_text",
    "canonical_float",
    "canonical_float_bits",
    "normalize_float_array",
    "pack_float",
    "pieces_digest",
    "result_digest",
]
