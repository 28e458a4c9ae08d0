"""Lazy loading of plug-in serializers from the ``serreg.serializers`` entry-point group.

An entry point's *name* is the top-level module of the types its plug-in
serves (``numpy``, ``pyarrow``, ``mypackage``) and its *value* is a function
``register(registry)``. A plug-in is loaded the first time a value whose type
comes from that module is serialized, or when a frame holds a class ID that no
loaded serializer knows (then every plug-in not yet loaded is loaded).
"""

from __future__ import annotations

import threading
import warnings
from importlib.metadata import entry_points

ENTRY_POINT_GROUP = "serreg.serializers"


class PluginLoader:
    """Loads each plug-in at most once into one registry. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._pending = None  # name -> EntryPoint, read on first use
        self.loaded: dict[str, str] = {}  # name -> "module:function"
        self.failed: dict[str, str] = {}  # name -> import error

    def _pending_entry_points(self) -> dict:
        if self._pending is None:
            found = {}
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                found.setdefault(ep.name, ep)
            self._pending = found
        return self._pending

    def available(self) -> dict:
        """Names of every plug-in, loaded or not, with its entry point value."""
        with self._lock:
            names = {name: ep.value for name, ep in self._pending_entry_points().items()}
            names.update(self.loaded)
            return names

    def load_for_module(self, registry, module_name: str) -> bool:
        """Load the plug-in serving ``module_name``'s top-level package; True if one was loaded."""
        root = module_name.partition(".")[0]
        pending = self._pending_entry_points()
        if root not in pending:
            return False
        with self._lock:
            ep = pending.pop(root, None)
            if ep is None:
                return True  # another thread loaded it meanwhile
            self._load(registry, ep)
            return True

    def load_all(self, registry) -> bool:
        """Load every plug-in not loaded yet; True if any was."""
        with self._lock:
            pending = self._pending_entry_points()
            if not pending:
                return False
            for name in list(pending):
                self._load(registry, pending.pop(name))
            return True

    def _load(self, registry, ep) -> None:
        try:
            register = ep.load()
        except ImportError as error:
            # A plug-in for a library that is not installed cannot serve anything;
            # say so once instead of failing every deserialization.
            warnings.warn(f"serreg plug-in {ep.name!r} ({ep.value}) could not be imported: {error}", stacklevel=3)
            self.failed[ep.name] = str(error)
            return
        with registry._origin(f"plug-in {ep.name} ({ep.value})"):
            register(registry)
        self.loaded[ep.name] = ep.value
