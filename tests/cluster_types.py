"""A registered class and the tasks that the Dask and Ray tests run in worker processes.

Workers import this module by name (it is on their path: Dask workers inherit
the test process's sys.path, Ray workers get it through PYTHONPATH), and
importing it registers the serializer, as a user's own module would.

``Pixels`` cannot be pickled, so a test that moves one between processes
passes only if serreg carried it.
"""

from __future__ import annotations

import numpy as np
from msgpack import packb, unpackb

import serreg

CLASS_ID = "tests.Pixels"


class Pixels:
    def __init__(self, name: str, data: np.ndarray) -> None:
        self.name = name
        self.data = data

    def __reduce_ex__(self, protocol):
        raise TypeError("Pixels must travel through serreg, never through pickle")


class PixelsSerializer(serreg.Serializer):
    """[name, dtype, shape] in-band, the pixel data as one out-of-band buffer."""

    def serialize(self, obj: Pixels) -> serreg.SerializationResult:
        data = np.ascontiguousarray(obj.data)
        meta = packb([obj.name, data.dtype.str, list(data.shape)])
        return serreg.SerializationResult(meta, [memoryview(data.reshape(-1).view(np.uint8))])

    def deserialize(self, in_band_buffer, oob_iterator) -> Pixels:
        name, dtype, shape = unpackb(in_band_buffer)
        data = np.frombuffer(next(oob_iterator), dtype=dtype).reshape(shape)
        return Pixels(name, data)


serreg.register_serializer(CLASS_ID, Pixels, PixelsSerializer())


def brighten(pixels: Pixels) -> Pixels:
    """A task that receives a Pixels and returns a new one."""
    return Pixels(pixels.name + "+", pixels.data + 1)


def describe(pixels: Pixels) -> tuple:
    """What a worker received: name, shape, sum, and whether the data is a view (not a copy)."""
    return pixels.name, pixels.data.shape, int(pixels.data.sum()), pixels.data.base is not None


def dask_families() -> list:
    """The serialization families registered with distributed in this process."""
    from distributed.protocol.serialize import families

    return sorted(families)


def ray_setup() -> None:
    """Ray's worker_process_setup_hook: register this module's serializers, then hand them to Ray."""
    from serreg.integrations import ray as serreg_ray

    serreg_ray.install()
