"""Dask distributed: a "serreg" serialization family and a worker plug-in.

Importing this module registers the family with distributed
(``register_serialization_family``), so that::

    from serreg.integrations.dask import SERIALIZERS, SerregPlugin

    client = Client(cluster, serializers=SERIALIZERS, deserializers=SERIALIZERS)
    client.register_plugin(SerregPlugin("myapp.serializers"))

moves values between the client and the workers, and between workers, as
serreg results. A value's Dask frames are its in-band section (ClassIDHash +
serializer in-band) followed by its out-of-band buffers, which are handed to
distributed as the very memoryviews the serializers returned: nothing is
copied or joined on the way to the socket.

The family takes only values that have a serreg serializer (registered, or
from a plug-in); any other value is declined (``NotImplementedError``), so
distributed passes it to the next family in the list, which is why
``SERIALIZERS`` keeps ``"dask"`` and ``"pickle"`` after ``"serreg"``.

Values use the default registry (``default_registry()``) of the
process they are in: every worker needs the same serializers registered, which
is what :class:`SerregPlugin` does.

Values passed inline to a task (``client.submit(f, value)``) are not messages
of their own: distributed pickles them inside the task graph, which the
scheduler unpickles. :func:`install` makes pickle carry every class serreg
serializes itself through serreg (a ``copyreg`` reduction per class, as
``serreg.integrations.ray.install`` does for Ray), so such values keep their
serializers and their buffers stay out-of-band in protocol-5 pickles. The
process that unpickles them (the scheduler too) imports this module and the
value's class's module, as pickle does for any class, so a scheduler started
on its own needs nothing but serreg and your modules on its path.
"""

from __future__ import annotations

import copyreg
import importlib
import threading

from distributed.diagnostics.plugin import WorkerPlugin
from distributed.protocol.serialize import register_serialization_family

from .._default import default_registry
from ..errors import DeserializationError
from ..result import SerializationResult
from ..standard.pickle_views import flat_view
from .common import classes_with_own_serializers, from_pickle_parts, has_own_serializer, to_pickle_parts
from typing import Union, Any

__all__ = [
    "FAMILY",
    "SERIALIZERS",
    "SerregPlugin",
    "install",
    "installed_classes",
    "serreg_dumps",
    "serreg_loads",
    "uninstall",
]

FAMILY = "serreg"

# What to pass as Client(serializers=..., deserializers=...): serreg first, then
# distributed's own families for the values serreg has no serializer for.
SERIALIZERS = (FAMILY, "dask", "pickle")


def _flat(buffer: Any) -> memoryview:
    # A 1-D unsigned-byte view of a contiguous buffer, the shape distributed expects of a frame:
    # zero-copy for a C-order view with a native format (serreg's own serializers return 1-D bytes);
    # a copy for a Fortran-order view or a format with a byte-order prefix (see pickle_views).
    view = buffer if isinstance(buffer, memoryview) else memoryview(buffer)
    if view.ndim == 1 and view.format == "B":
        return view
    return flat_view(view)  # not PickleBuffer(view).raw(): an export of a view crashes a garbage collection


def serreg_dumps(value: Any, context: Any = None) -> tuple[dict[Any, Any], list[Any]]:
    """Serialize ``value`` into a distributed header and frames.

    Frame 0 is the in-band section; frames 1.. are the out-of-band buffers as
    zero-copy memoryviews of ``value``'s memory. Raises NotImplementedError
    when serreg has no serializer for ``value`` (distributed then tries the
    next family).
    """
    registry = default_registry()
    if not has_own_serializer(registry, value):
        raise NotImplementedError(f"serreg has no serializer for {type(value).__module__}.{type(value).__qualname__}")
    result = registry.serialize(value)
    buffers = [_flat(b) for b in result.out_of_band_buffers]
    # As distributed's pickle family does: a buffer that was writable is writable
    # again on the other side, a read-only one stays read-only.
    header = {"writeable": [not b.readonly for b in buffers]}
    return header, [result.in_band_buffer, *buffers]


def _with_writeability(frame: Any, writeable: bool) -> memoryview:
    view = _flat(frame)
    if writeable and view.readonly:
        return memoryview(bytearray(view))  # the sender's value was writable; only a copy can be
    if not writeable and not view.readonly:
        return view.toreadonly()
    return view


def serreg_loads(header: dict[str, Any], frames: list[Any]) -> Any:
    """Deserialize the frames written by :func:`serreg_dumps`.

    Arrays and Arrow buffers in the result are views of the received frames.
    """
    if not frames:
        raise DeserializationError("a serreg Dask message has no frames")
    in_band, *buffers = frames
    writeable = header.get("writeable")
    if writeable is None or len(writeable) != len(buffers):
        raise DeserializationError(
            f"a serreg Dask message has {len(buffers)} buffer frames, but its header describes "
            f"{'none' if writeable is None else len(writeable)}"
        )
    views = [_with_writeability(frame, w) for frame, w in zip(buffers, writeable)]
    return default_registry().deserialize(SerializationResult(in_band, views))


register_serialization_family(FAMILY, serreg_dumps, serreg_loads)  # type: ignore[no-untyped-call]  # distributed is untyped here

_lock = threading.Lock()
_installed: dict[Any, Any] = {}  # class -> the copyreg entry it had before install()


def _reduce(value: object) -> Union[str, tuple[Any, ...]]:
    registry = default_registry()
    if not has_own_serializer(registry, value):
        return value.__reduce_ex__(5)  # declined by its serializer: pickled as it would be without serreg
    return _rebuild, (type(value).__module__, *to_pickle_parts(registry, value))


def _rebuild(module: str, in_band: bytes, *buffers: object) -> object:
    value = from_pickle_parts(default_registry(), in_band, buffers, module)
    cls = type(value)
    if cls not in _installed:
        # A process that received a value this way sends it on the same way: the scheduler
        # unpickles a task graph and pickles its tasks again for the workers.
        with _lock:
            _install(cls)
    return value


def install() -> list[Any]:
    """Make pickle carry every class with a serreg serializer of its own through serreg, in this process.

    Covers the classes registered so far (plug-ins are loaded first); call it
    again after registering more. Returns the classes. :class:`SerregPlugin`
    calls it on every worker after importing its modules.
    """
    with _lock:
        classes = classes_with_own_serializers(default_registry())
        for cls in classes:
            _install(cls)
    return classes


def _install(cls: type) -> None:
    if cls not in _installed:
        _installed[cls] = copyreg.dispatch_table.get(cls)
    copyreg.pickle(cls, _reduce)


def uninstall() -> None:
    """Give back the pickle reductions :func:`install` replaced, in this process."""
    with _lock:
        for cls, previous in _installed.items():
            if previous is None:
                copyreg.dispatch_table.pop(cls, None)
            else:
                copyreg.dispatch_table[cls] = previous
        _installed.clear()


def installed_classes() -> frozenset[Any]:
    """The classes pickle currently carries through serreg in this process."""
    return frozenset(_installed)


class SerregPlugin(WorkerPlugin):
    """Makes a worker speak serreg: one ``client.register_plugin(SerregPlugin(...))`` for all workers.

    On every worker, present and future, it imports this module (registering
    the family), then the given modules, which are expected to register the
    user's serializers when imported (plug-ins from the ``serreg.serializers``
    entry-point group need no module here: they load themselves), then calls
    :func:`install`. Unless
    ``serializers`` is None, it also makes the worker use those families when
    it fetches data from other workers, so serreg carries worker-to-worker
    transfers too.
    """

    name = "serreg"
    idempotent = False  # registering again replaces the plug-in (new modules are imported)

    def __init__(self, *modules: str, serializers: Any = SERIALIZERS) -> None:
        for module in modules:
            if not isinstance(module, str):
                raise TypeError(f"SerregPlugin takes module names, not {module!r}")
        self.modules = modules
        self.serializers = None if serializers is None else list(serializers)

    def setup(self, worker: Any) -> None:
        for module in self.modules:
            importlib.import_module(module)
        install()
        if self.serializers is not None:
            # The worker's connection pool tells a peer which families to answer
            # get_data with, and decodes the answer with the same list.
            worker.rpc.serializers = list(self.serializers)
            worker.rpc.deserializers = list(self.serializers)
