"""serreg serializers for shapes_demo, loaded by serreg the first time it meets a Polygon."""

import numpy as np
from msgpack import packb, unpackb

import serreg
from shapes_demo import Polygon

CLASS_ID = "shapes_demo.Polygon"


class PolygonSerializer(serreg.Serializer):
    """[label, point count] in-band; the float64 points as one out-of-band buffer."""

    def serialize(self, polygon: Polygon) -> serreg.SerializationResult:
        points = np.ascontiguousarray(polygon.points, dtype="<f8")
        meta = packb([polygon.label, len(points)])
        return serreg.SerializationResult(meta, [memoryview(points.reshape(-1).view(np.uint8))])

    def deserialize(self, in_band_buffer, oob_iterator) -> Polygon:
        label, count = unpackb(in_band_buffer)
        points = np.frombuffer(next(oob_iterator), dtype="<f8").reshape(count, 2)
        return Polygon(label, points)


def register(registry) -> None:
    registry.register_serializer(CLASS_ID, Polygon, PolygonSerializer())
