"""Ray: hand serreg's serializers to Ray, so registered classes travel through tasks and the object store.

:func:`install` registers, with ``ray.util.register_serializer``, every class
that has a serreg serializer of its own in the default registry (yours and
the plug-ins', which it loads first), except the standard-library types,
which Ray already handles. Ray then pickles such a value as serreg's in-band
bytes plus its out-of-band buffers wrapped in ``pickle.PickleBuffer``, so Ray's
protocol-5 pickling keeps them out-of-band: they are written to the object
store as they are and read back as views of it, without copies.

Ray keeps serializers per process, so every worker must run :func:`install`
too; one line does it for all of them::

    ray.init(runtime_env={"worker_process_setup_hook": "serreg.integrations.ray.install"})
    serreg.integrations.ray.install()   # in the driver, after ray.init

For serializers registered by your own module rather than by a plug-in, make
the hook a function of yours that imports that module and then calls
:func:`install`. Classes registered after :func:`install` are handed to Ray
by calling it again.

A value that serreg's serializer declines (``accepts`` returns False, for
example an object-dtype ndarray) goes through serreg's pickle fallback, which
does not know Ray's ObjectRefs: do not put ObjectRefs inside such values.
"""

from __future__ import annotations

import pickle
import threading

import ray.util

import serreg
from serreg.result import SerializationResult

_lock = threading.Lock()
_installed: set = set()


def _to_ray(value) -> tuple:
    """What Ray pickles in place of ``value``: the in-band section, then the buffers, out-of-band."""
    result = serreg.default_registry().serialize(value)
    in_band = bytes(result.in_band_buffer)
    return (in_band, *(pickle.PickleBuffer(buffer) for buffer in result.out_of_band_buffers))


def _from_ray(carried: tuple):
    """Rebuild a value from what :func:`_to_ray` returned; buffers stay views of Ray's memory."""
    in_band, *buffers = carried
    views = [memoryview(buffer) for buffer in buffers]
    return serreg.default_registry().deserialize(SerializationResult(in_band, views))


def _standard_classes() -> set:
    return {registration.cls for registration in serreg.Registry(plugins=False).registrations()}


def install() -> list:
    """Register serreg's serializers with Ray in this process; return the classes registered.

    Needs a connected Ray (call it after ``ray.init``, or as the workers'
    ``worker_process_setup_hook``). Calling it again registers classes added
    since; it is safe to call any number of times.
    """
    registry = serreg.default_registry()
    standard = _standard_classes()
    classes = []
    with _lock:
        for registration in registry.registrations():  # loads every plug-in first
            cls = registration.cls
            if cls in standard or cls in classes:
                continue
            ray.util.register_serializer(cls, serializer=_to_ray, deserializer=_from_ray)
            classes.append(cls)
            _installed.add(cls)
    return classes


def uninstall() -> None:
    """Remove every serializer :func:`install` gave Ray in this process."""
    with _lock:
        for cls in _installed:
            ray.util.deregister_serializer(cls)
        _installed.clear()


def installed_classes() -> frozenset:
    """The classes whose values Ray currently pickles through serreg in this process."""
    return frozenset(_installed)
