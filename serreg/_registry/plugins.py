"""Lazy loading of plug-in serializers from the ``serreg.serializers`` entry-point group.

An entry point's *name* is the top-level module of the types its plug-in
serves (``numpy``, ``pyarrow``, ``mypackage``) and its *value* is a function
``register(registry)``. A plug-in is loaded the first time a value whose type
comes from that module is serialized, or when a frame holds a class ID that no
loaded serializer knows (then every plug-in not yet loaded is loaded).

A plug-in whose library is not installed (importing it fails for want of the
module its name names) is skipped quietly: it cannot serve anything, and a
frame that needs it gets an error naming the extra to install. A plug-in that
fails in any other way is reported with a warning and rolled back.
"""

from __future__ import annotations

from typing import Optional, Any

import threading
import warnings
from importlib.metadata import EntryPoint, entry_points

from .table import Table

ENTRY_POINT_GROUP = "serreg.serializers"


class PluginLoader:
    """Loads each plug-in at most once into one registry. Thread-safe.

    ``registry`` is what each plug-in's ``register`` function is given (the
    public Registry); ``table`` is where its registrations land, all or nothing.
    """

    def __init__(self, registry: Any, table: Table) -> None:
        self._registry = registry
        self._table = table
        self._lock = threading.RLock()
        self._pending: Optional[dict[str, EntryPoint]] = None  # name -> EntryPoint, read on first use
        # Names taken from _pending to be loaded (added before they leave it): a module neither
        # there nor here has no plug-in to load or wait for, so its lookup takes no lock (the
        # type of every fallback value is such a module's).
        self._taken: set[str] = set()
        self.loaded: dict[str, str] = {}  # name -> "module:function"
        self.failed: dict[str, str] = {}  # name -> why it could not be loaded
        self.unavailable: dict[str, str] = {}  # name -> the import error of its missing library

    def _pending_entry_points(self) -> dict[str, EntryPoint]:
        with self._lock:
            return self._read_entry_points()

    def _read_entry_points(self) -> dict[str, EntryPoint]:
        if self._pending is None:
            found: dict[str, EntryPoint] = {}
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                found.setdefault(ep.name, ep)
            self._pending = found
        return self._pending

    def available(self) -> dict[Any, Any]:
        """Names of every plug-in, loaded or not, with its entry point value."""
        with self._lock:
            names = {name: ep.value for name, ep in self._pending_entry_points().items()}
            names.update(self.loaded)
            return names

    def load_for_module(self, module_name: str) -> bool:
        """Load the plug-in serving ``module_name``'s top-level package; True if one was loaded.

        If another thread is loading it right now, this waits until it is done,
        so the caller never sees a plug-in half-way through registering.
        """
        root = module_name.partition(".")[0]
        pending = self._pending
        if pending is not None and root not in pending and root not in self._taken:
            return False  # no plug-in serves it, none is being loaded for it
        with self._lock:
            pending = self._read_entry_points()
            if root in pending:
                self._taken.add(root)  # before it leaves pending: a reader without the lock sees one
            ep = pending.pop(root, None)
            if ep is None:
                return root in self.loaded  # loaded before (perhaps just now, by another thread)
            self._load(ep)
            return True

    def load_all(self) -> bool:
        """Load every plug-in not loaded yet; True if any was."""
        with self._lock:
            pending = self._pending_entry_points()
            if not pending:
                return False
            self._taken.update(pending)
            for name in list(pending):
                self._load(pending.pop(name))
            return True

    def _load(self, ep: Any) -> None:
        try:
            register = ep.load()
        except ImportError as error:
            if (error.name or "").partition(".")[0] == ep.name:
                # The library the plug-in serves is not installed: nothing to serve, nothing to say.
                self.unavailable[ep.name] = str(error)
                return
            # A plug-in that cannot be imported cannot serve anything;
            # say so once instead of failing every deserialization.
            warnings.warn(f"serreg plug-in {ep.name!r} ({ep.value}) could not be imported: {error}", stacklevel=3)
            self.failed[ep.name] = str(error)
            return
        try:
            # All or nothing: a plug-in that fails half-way leaves none of its registrations behind.
            with self._table.all_or_nothing(), self._table.origin(f"plug-in {ep.name} ({ep.value})"):
                register(self._registry)
        except Exception as error:
            warnings.warn(
                f"serreg plug-in {ep.name!r} ({ep.value}) failed while registering and was rolled back: "
                f"{type(error).__name__}: {error}",
                stacklevel=3,
            )
            self.failed[ep.name] = f"{type(error).__name__}: {error}"
            return
        self.loaded[ep.name] = ep.value
