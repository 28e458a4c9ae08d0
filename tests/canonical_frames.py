"""A value's canonical frame and the in-band of its canonical serializer, for the canonical-form
tests (docs/FORMAT.md, section 9)."""

import serreg
from serreg.wire.frame import FrameView

__all__ = ["canonical", "in_band"]


def canonical(value) -> bytes:
    return serreg.serialize(value, canonical=True).to_bytes()


def in_band(value) -> bytes:
    """The canonical serializer in-band of a value (after the 8-byte ClassIDHash)."""
    return bytes(FrameView(canonical(value)).in_band[8:])
