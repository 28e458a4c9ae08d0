"""Types of a library that knows nothing about serreg; its plug-in lives in serreg_serializers."""

import numpy as np


class Polygon:
    def __init__(self, label: str, points: np.ndarray) -> None:
        self.label = label
        self.points = points

    def __eq__(self, other) -> bool:
        return (
            type(other) is Polygon
            and self.label == other.label
            and self.points.dtype == other.points.dtype
            and np.array_equal(self.points, other.points)
        )
