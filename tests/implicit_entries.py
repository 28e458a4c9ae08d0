"""The published classes and helpers of the tests of the compiled implicit-struct entries
(``serialize_top`` and ``unpack_top`` of one instance at the top level, docs/FORMAT.md 10.9).

``warm`` makes a registry publish a value's class to its codec; ``in_band_of`` is a frame's
in-band; ``outcome_of`` a read's value or error, to compare two registries' answers.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import serreg
from serreg.wire.frame import FrameView

__all__ = ["Other", "Point", "in_band_of", "outcome_of", "warm"]


@dataclasses.dataclass
class Point:
    x: Any
    label: Any
    tags: Any


@dataclasses.dataclass
class Other:
    v: Any


def warm(registry: serreg.Registry, value: Any) -> bytes:
    """The frame of ``value``, after the round trips that publish its class to the codec."""
    for _ in range(3):
        frame = registry.serialize(value).to_bytes()
        registry.deserialize(frame)
    return frame


def in_band_of(frame: bytes) -> bytes:
    """The in-band bytes of a frame (its ClassIDHash first)."""
    return bytes(FrameView(frame).in_band)


def outcome_of(registry: serreg.Registry, data: bytes) -> Any:
    """("value", what ``registry`` reads from ``data``), or (the error's type name, its words)."""
    try:
        return ("value", registry.deserialize(data))
    except serreg.SerregError as error:
        return (type(error).__name__, str(error))
