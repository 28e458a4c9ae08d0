"""What the cluster integrations share: which values serreg carries itself, and how a value
travels inside another framework's pickle (a Ray object, a Dask task graph): as serreg's
in-band bytes plus its out-of-band buffers wrapped in ``pickle.PickleBuffer`` (of the
objects the buffers' memory belongs to, never of a memoryview).
"""

from __future__ import annotations

import importlib
from typing import Any, Optional, Sequence

from ..errors import UnknownClassIDError
from ..registry import Registry
from ..result import SerializationResult
from ..serializer import takes
from ..standard.pickle_views import pickle_buffer, view_of

__all__ = ["classes_with_own_serializers", "from_pickle_parts", "has_own_serializer", "to_pickle_parts"]


def has_own_serializer(registry: Registry, value: object) -> bool:
    """True when ``registry`` has a serializer of its own (not the fallback) that takes ``value``.

    Plug-ins serving the value's module are loaded first.
    """
    try:
        serializer = registry.get_serializer(type(value))
    except UnknownClassIDError:
        return False
    return takes(serializer, value)


def classes_with_own_serializers(registry: Registry) -> list[Any]:
    """The classes ``registry`` serializes itself, plug-ins loaded first, except the standard
    types (the standard library's, which pickle already carries exactly)."""
    standard = {registration.cls for registration in Registry(plugins=False).registrations()}
    classes: list[Any] = []
    for registration in registry.registrations():  # loads every plug-in first
        if registration.cls not in standard and registration.cls not in classes:
            classes.append(registration.cls)
    return classes


def to_pickle_parts(registry: Registry, value: object) -> tuple[Any, ...]:
    """``value`` as (in-band section, buffers...) for another framework's protocol-5 pickle.

    The in-band section is bytes, each out-of-band buffer a ``pickle.PickleBuffer``,
    so a pickler with a buffer callback keeps the buffers out-of-band. The framework
    may keep the PickleBuffers for long (Ray keeps them until the object store has the
    value), so none wraps a serializer's memoryview: a PickleBuffer over a memoryview
    holds an export of it, which a garbage collection can crash over (see
    :func:`~serreg.standard.pickle_views.pickle_buffer`, which says which buffers are copied).
    """
    result = registry.serialize(value)
    return (bytes(result.in_band_buffer or b""), *(pickle_buffer(buffer) for buffer in result.out_of_band_buffers))


def from_pickle_parts(registry: Registry, in_band: bytes, buffers: Sequence[Any], module: Optional[str] = None) -> object:
    """Rebuild a value from :func:`to_pickle_parts`; arrays are views of the unpickled buffers.

    ``module``, when given, is the value's class's module: it is imported (as
    pickle imports a class's module) when the class ID is not registered yet,
    since modules commonly register their classes when imported.
    """
    result = SerializationResult(in_band, [view_of(buffer) for buffer in buffers])  # no export of a view
    try:
        return registry.deserialize(result)
    except UnknownClassIDError:
        if module is None:
            raise
        importlib.import_module(module)
        return registry.deserialize(result)
