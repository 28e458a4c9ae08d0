"""Ray: hand serreg's serializers to Ray, so registered classes travel through tasks and the object store.

:func:`install` registers, with ``ray.util.register_serializer``, every class
that has a serreg serializer of its own in the default registry (yours and
the plug-ins', which it loads first), except the standard-library types,
which Ray already handles. Ray then pickles such a value as serreg's in-band
bytes plus its out-of-band buffers wrapped in ``pickle.PickleBuffer``, so Ray's
protocol-5 pickling keeps them out-of-band: they are written to the object
store as they are and read back as views of it, without copies. Each
PickleBuffer wraps the object the buffer's memory belongs to, never a
serializer's memoryview, which CPython 3.11's garbage collector can crash over
while Ray keeps the PickleBuffer (``serreg.standard.pickle_views.pickle_buffer``
says which rare buffers are copied instead).

Ray keeps serializers per process, so every worker must run :func:`install`
too; one line does it for all of them::

    ray.init(runtime_env={"worker_process_setup_hook": "serreg.integrations.ray.install"})
    serreg.integrations.ray.install()   # in the driver, after ray.init

For serializers registered by your own module rather than by a plug-in, make
the hook a function of yours that imports that module and then calls
:func:`install`. Classes registered after :func:`install` are handed to Ray
by calling it again.

A value that serreg's serializer declines (``accepts`` returns False, for
example an object-dtype ndarray) is pickled by Ray exactly as it would be
without serreg, so ObjectRefs inside it keep working.
"""

from __future__ import annotations

import threading

import ray.util

from .._default import default_registry
from .common import classes_with_own_serializers, from_pickle_parts, has_own_serializer, to_pickle_parts
from typing import Union, Any

__all__ = [
    "install",
    "installed_classes",
    "uninstall",
]

_lock = threading.Lock()
_installed: set[Any] = set()


class _PickledAsUsual:
    """Pickles as the reduction it holds: Ray then writes the value as it would without serreg."""

    __slots__ = ("reduction",)

    def __init__(self, reduction: Any) -> None:
        self.reduction = reduction

    def __reduce__(self) -> Any:
        return self.reduction


def _to_ray(value: Any) -> Union[_PickledAsUsual, tuple[Any, ...]]:
    """What Ray pickles in place of ``value``: a tuple of the in-band section and the buffers, out-of-band.

    A value serreg would send through its own pickle fallback is instead left
    to Ray's pickler (which tracks the ObjectRefs inside it), by handing Ray
    the value's ordinary reduction.
    """
    registry = default_registry()
    if not has_own_serializer(registry, value):
        return _PickledAsUsual(value.__reduce_ex__(5))  # the protocol Ray pickles with
    return to_pickle_parts(registry, value)


def _from_ray(carried: Any) -> Any:
    """Rebuild a value from what :func:`_to_ray` returned; buffers stay views of Ray's memory."""
    if type(carried) is not tuple:
        return carried  # a value Ray unpickled as usual (registered classes are never plain tuples)
    in_band, *buffers = carried
    return from_pickle_parts(default_registry(), in_band, buffers)


def install() -> list[Any]:
    """Register serreg's serializers with Ray in this process; return the classes registered.

    Needs a connected Ray (call it after ``ray.init``, or as the workers'
    ``worker_process_setup_hook``). Calling it again registers classes added
    since; it is safe to call any number of times.
    """
    with _lock:
        classes = classes_with_own_serializers(default_registry())
        for cls in classes:
            ray.util.register_serializer(cls, serializer=_to_ray, deserializer=_from_ray)
            _installed.add(cls)
    return classes


def uninstall() -> None:
    """Remove every serializer :func:`install` gave Ray in this process."""
    with _lock:
        for cls in _installed:
            ray.util.deregister_serializer(cls)
        _installed.clear()


def installed_classes() -> frozenset[Any]:
    """The classes whose values Ray currently pickles through serreg in this process."""
    return frozenset(_installed)
