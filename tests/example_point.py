"""The Python twin of Java's example.Point: same class ID, same in-band [x, y, label]."""

from __future__ import annotations

from dataclasses import dataclass

import msgpack

import serreg

CLASS_ID = "example.Point"


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: str


class PointSerializer(serreg.Serializer):
    def serialize(self, point: Point) -> serreg.SerializationResult:
        return serreg.SerializationResult(msgpack.packb([float(point.x), float(point.y), point.label]))

    def deserialize(self, in_band, oob_iterator) -> Point:
        x, y, label = msgpack.unpackb(in_band)
        return Point(x, y, label)


def register(registry: serreg.Registry | None = None) -> None:
    """Register the pair on ``registry`` (the default one when omitted); idempotent."""
    (registry or serreg.default_registry()).register_serializer(CLASS_ID, Point, PointSerializer())
