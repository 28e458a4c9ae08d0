"""Integrations with cluster frameworks, one module per framework.

``serreg.integrations.dask`` and ``serreg.integrations.ray`` import their
framework; serreg's core never imports them. This module holds what both
need: which values serreg carries itself, and the pickle reduction that
carries a value inside somebody else's pickle (a Ray object, a Dask task
graph) as serreg's in-band bytes plus its buffers kept out-of-band.
"""

from __future__ import annotations

import importlib
import pickle

from ..errors import UnknownClassIDError
from ..result import SerializationResult


def has_own_serializer(registry, value) -> bool:
    """True when ``registry`` has a serializer of its own (not the fallback) that takes ``value``.

    Plug-ins serving the value's module are loaded first.
    """
    try:
        serializer = registry.get_serializer(type(value))
    except UnknownClassIDError:
        return False
    accepts = getattr(serializer, "accepts", None)
    return accepts is None or bool(accepts(value))


def classes_with_own_serializers(registry) -> list:
    """The classes ``registry`` serializes itself, plug-ins loaded first, except the standard
    types (the standard library's, which pickle already carries exactly)."""
    standard = {registration.cls for registration in type(registry)(plugins=False).registrations()}
    classes = []
    for registration in registry.registrations():  # loads every plug-in first
        if registration.cls not in standard and registration.cls not in classes:
            classes.append(registration.cls)
    return classes


def to_pickle_parts(registry, value) -> tuple:
    """``value`` as (in-band section, buffers...) for another framework's protocol-5 pickle.

    The in-band section is bytes, each out-of-band buffer a ``pickle.PickleBuffer``,
    so a pickler with a buffer callback keeps the buffers out-of-band.
    """
    result = registry.serialize(value)
    return (bytes(result.in_band_buffer), *(pickle.PickleBuffer(buffer) for buffer in result.out_of_band_buffers))


def from_pickle_parts(registry, in_band, buffers, module: str = None):
    """Rebuild a value from :func:`to_pickle_parts`; arrays are views of the unpickled buffers.

    ``module``, when given, is the value's class's module: it is imported (as
    pickle imports a class's module) when the class ID is not registered yet,
    since modules commonly register their classes when imported.
    """
    result = SerializationResult(in_band, [memoryview(buffer) for buffer in buffers])
    try:
        return registry.deserialize(result)
    except UnknownClassIDError:
        if module is None:
            raise
        importlib.import_module(module)
        return registry.deserialize(result)
