"""The Serializer interface every serializer implements."""

from __future__ import annotations

from typing import Iterator

from .result import SerializationResult


class Serializer:
    """Turns objects of one class into a SerializationResult and back.

    ``serialize(obj)`` returns in-band bytes plus out-of-band memoryviews;
    ``deserialize(in_band_buffer, oob_iterator)`` gets back a memoryview of
    exactly those in-band bytes and an iterator over the out-of-band buffers,
    from which it takes, in order, as many buffers as ``serialize`` produced.
    In one process the buffers are the very memoryviews ``serialize`` returned,
    and ``in_band_buffer.obj`` is the object it returned as in-band; from a
    frame they are views into the frame.

    A serializer may also define ``accepts(obj) -> bool``: when it returns
    False for a value, that value goes to the fallback serializer instead
    (for example numpy object arrays).
    """

    def serialize(self, obj) -> SerializationResult:
        raise NotImplementedError(f"{type(self).__name__} must implement serialize(obj)")

    def deserialize(self, in_band_buffer: memoryview, oob_iterator: Iterator[memoryview]):
        raise NotImplementedError(f"{type(self).__name__} must implement deserialize(in_band_buffer, oob_iterator)")
