"""The fallback: pickle protocol 5 through cloudpickle, with out-of-band buffers.

Values no registered serializer takes are pickled with ``buffer_callback``, so
their large buffers stay out-of-band too. The registry's register callback
keeps a per-serializer dispatch table, and a Pickler subclass consults it in
``reducer_override``: a registered type met *inside* a pickled object (an Arrow
table in a dataclass) is still written by its serreg serializer, its buffers
still out-of-band. No process-wide pickle state is touched.
"""

from __future__ import annotations

import io
import pickle

import cloudpickle

from .result import OutOfBandBuffers, SerializationResult


class _RegistryAwarePickler(cloudpickle.Pickler):
    def __init__(self, file, owner: "Pickle5Serializer", buffer_callback) -> None:
        super().__init__(file, protocol=5, buffer_callback=buffer_callback)
        self._owner = owner
        self._serreg_dispatch = owner._dispatch

    def reducer_override(self, obj):
        cls = type(obj)
        entry = self._serreg_dispatch.get(cls)
        if entry is None and cls not in self._owner._seen_types:
            entry = self._owner._first_sight(cls)
        if entry is not None and (entry[2] is None or entry[2](obj)):
            class_id, serializer, _ = entry
            result = serializer.serialize(obj)
            in_band = result.in_band_buffer
            buffers = [pickle.PickleBuffer(b) for b in result.out_of_band_buffers]
            return _restore_registered, (class_id, bytes(in_band) if in_band is not None else b"", *buffers)
        return super().reducer_override(obj)


def _restore_registered(class_id: str, in_band: bytes, *buffers):
    """Rebuild a registered value found inside a pickle, with the registry doing the unpickling."""
    from .registry import ACTIVE_REGISTRY
    from . import _default_registry

    registry = ACTIVE_REGISTRY.get() or _default_registry()
    serializer = registry.get_serializer(class_id)
    views = [b if isinstance(b, memoryview) else memoryview(b) for b in buffers]
    return serializer.deserialize(memoryview(in_band), OutOfBandBuffers(views))


class Pickle5Serializer:
    """Pickle protocol 5 (cloudpickle) with every pickle buffer out-of-band.

    Python only: frames holding it cannot be decoded by other languages (Java
    keeps them as opaque values), and ``cross_language=True`` refuses it.
    """

    class_id = "serreg.pickle5"

    def __init__(self) -> None:
        self._dispatch: dict = {}
        self._seen_types: set = set()
        self.registry = None  # set by the Registry that installs this fallback

    def _first_sight(self, cls: type):
        """A type met inside a pickle for the first time may belong to a plug-in not loaded yet."""
        self._seen_types.add(cls)
        if self.registry is not None:
            self.registry._resolve_type(cls)
        return self._dispatch.get(cls)

    def on_register(self, class_id, cls, serializer) -> None:
        """The register callback: route ``cls`` through its serreg serializer inside pickles."""
        dispatch = dict(self._dispatch)
        if serializer is None or getattr(serializer, "handled_by_pickle", False):
            dispatch.pop(cls, None)
        else:
            dispatch[cls] = (class_id, serializer, getattr(serializer, "accepts", None))
        self._dispatch = dispatch  # replaced whole: picklers running now keep their snapshot

    def serialize(self, obj) -> SerializationResult:
        buffers = []
        file = io.BytesIO()
        _RegistryAwarePickler(file, self, buffers.append).dump(obj)
        return SerializationResult(file.getbuffer(), [b.raw() for b in buffers])

    def deserialize(self, in_band_buffer, oob_iterator):
        # pickle takes exactly the buffers it wrote from the shared iterator.
        return pickle.loads(in_band_buffer, buffers=oob_iterator)
