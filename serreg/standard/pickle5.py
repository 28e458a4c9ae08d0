"""The fallback: pickle protocol 5 through cloudpickle, with out-of-band buffers.

The registry hands it whole values: a list of a thousand instances of a class
of ``__main__`` is one pickle, so the class is written by value once and
repeated objects are written once (pickle's memo), as ``cloudpickle.dumps``
of the list would (``serreg._registry.encode``).

Values no registered serializer takes are pickled with ``buffer_callback``, so
their large buffers stay out-of-band too. The registry's register callback
keeps a per-serializer dispatch table, and a Pickler subclass consults it in
``reducer_override``: a registered type met *inside* a pickled object (an Arrow
table in a dataclass) is still written by its serreg serializer, its buffers
still out-of-band, as a call to :func:`restore_registered` (the name the
pickle holds, so it stays where it is). No process-wide pickle state is touched.

The pickle is always ``cloudpickle.dumps``'s; when pickle's own Pickler writes
the same bytes (every class and function in the value one cloudpickle writes by
reference, no registered value inside: see :mod:`serreg.standard.pickle_plain`)
it is made by that Pickler, whose ``reducer_override`` costs less per object.
"""

from __future__ import annotations

import copyreg
import io
import pickle
import types
from contextvars import ContextVar
from typing import Any, Callable, Iterator, Optional

import cloudpickle

from ..errors import DeserializationError, SerializationError, SerregError
from ..limits import DECODE_STATE
from ..result import NO_BUFFERS, OutOfBandBuffers, SerializationResult, as_result, own_result_buffers
from ..serializer import Serializer, hooks_of
from .pickle_plain import NotPlain, PlainPickler
from .pickle_views import flat_views, release_all, view_of

__all__ = ["PICKLED_NATIVELY", "Pickle5Serializer", "by_value_modules", "restore_registered"]

# While a Pickle5Serializer unpickles outside a deserialize call: its registry's lookup of a serializer
# by class ID (inside one, the call's DecodeState holds it).
_UNPICKLING_LOOKUP: ContextVar[Optional[Callable[[str], object]]] = ContextVar("serreg_pickle5_lookup", default=None)


# The types pickle writes by itself without asking ``reducer_override`` (CPython's _pickle.c):
# a serializer registered for one of them would be passed over inside a pickle.
PICKLED_NATIVELY = (
    type(None), bool, int, float, bytes, str, dict, set, frozenset, list, tuple, bytearray, pickle.PickleBuffer,
)


# cloudpickle's own reducers by type (its dispatch table chains them before copyreg's).
_CLOUDPICKLE_REDUCERS = cloudpickle.Pickler.dispatch_table.maps[0]
# What cloudpickle reduces one by one (by value or by reference, depending on the object).
_DECIDED_PER_OBJECT = (type, types.FunctionType)
# The modules cloudpickle.register_pickle_by_value named (cloudpickle's own set, read, never changed):
# a class or function of one of them is written by value from then on, so the verdicts remembered
# below hold only while this set stays as it was.
_BY_VALUE_MODULES: Optional[set[str]] = getattr(getattr(cloudpickle, "cloudpickle", None), "_PICKLE_BY_VALUE_MODULES", None)
_BY_REFERENCE_MAX = 4096
_IDLE_MAX = 4
# A Pickler keeps the size its memo table and output buffer grew to (and empties the whole memo
# table before each pickle): one that made a pickle larger than this is let go, not kept idle.
_POOLED_MAX_BYTES = 8192
# A top-level type whose values pickle's own Pickler could not write alone (see Pickle5Serializer.pickle_parts)
# is given to cloudpickle's Pickler straight away for the next 1, 2, 4 ... at most this many calls.
_PLAIN_BACKOFF_MAX = 64
_PLAIN_BACKOFF_TYPES_MAX = 1024
# pickle's own dump, called without cloudpickle's Python wrapper (whose one job, the RecursionError
# below, ``Pickle5Serializer._pickle`` does itself).
_dump = pickle.Pickler.dump


def by_value_modules() -> Optional[set[str]]:
    """The modules registered with ``cloudpickle.register_pickle_by_value`` (cloudpickle's own set, read
    only), or None for a cloudpickle without that set."""
    return _BY_VALUE_MODULES


class _RegistryAwarePickler(cloudpickle.Pickler):  # type: ignore[misc]  # cloudpickle ships no types
    """One pickle at a time, made again and again: ``prepare`` before each ``dump``.

    Making a Pickler costs about as much as pickling a small value, so the
    serializer keeps idle ones (its pool) and hands each to one pickle at a time.
    """

    def __init__(self, owner: "Pickle5Serializer") -> None:
        self.file = io.BytesIO()
        self.buffers: list[pickle.PickleBuffer] = []
        self.made: list[pickle.PickleBuffer] = []  # made by reducer_override (PickleBuffers of views)
        super().__init__(self.file, protocol=5, buffer_callback=self.buffers.append)
        self._owner = owner
        self._seen = owner.seen_types
        self._before_registered: Optional[Callable[[], object]] = None
        self._pickle_reduces: set[type] = set()
        self._serreg_dispatch: dict[type, Any] = {}
        self._by_reference: dict[Any, bool] = {}

    def prepare(self, before_registered: Optional[Callable[[], object]]) -> None:
        """Take the owner's tables as they are now; forget the previous pickle."""
        self._before_registered = before_registered
        # Types whose instances neither serreg, cloudpickle nor a dispatch table reduces: they get what
        # pickle would do next, __reduce_ex__, straight away (pickle would first look the type up in
        # cloudpickle's dispatch table, a ChainMap: a Python-level miss per object). cloudpickle
        # reduces classes and functions (each on its own merits) and nothing else, so for any other
        # type a NotImplemented for one instance holds for all of them.
        # Read before the dispatch table: a registration made in between then only discards what
        # this pickle learns, never lets a newly registered type be taken for one pickle reduces.
        owner = self._owner
        modules: Any = _BY_VALUE_MODULES
        if len(copyreg.dispatch_table) == owner._copyreg_size and owner._by_value_modules == modules:
            self._pickle_reduces = owner._pickle_reduces  # nothing changed since the owner's tables were made
            self._serreg_dispatch = owner.dispatch
            self._by_reference = owner.verdicts
        else:
            self._pickle_reduces = owner.pickle_reduced_types()
            self._serreg_dispatch = owner.dispatch
            self._by_reference = owner.by_reference()

    def take(self) -> tuple[Any, list[Any]]:
        """(the pickle, its buffers as raw views)."""
        data = self.file.getvalue()
        buffers = self.buffers
        if not buffers:
            return data, []
        views = flat_views(buffers)
        release_all(self.made)  # the PickleBuffers over a registered value's views: none outlives the pickle
        return data, views

    def empty(self) -> None:
        """Forget the pickle made (before the Pickler is kept idle): it then holds nothing of the value."""
        file = self.file
        file.seek(0)
        file.truncate()
        self.buffers.clear()
        release_all(self.made)
        self.clear_memo()  # the memo holds every object pickled
        self.globals_ref: dict[int, Any] = {}  # cloudpickle's per-pickle table of functions' globals
        self._before_registered = None

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        if cls in self._pickle_reduces:
            return obj.__reduce_ex__(5)
        entry = self._serreg_dispatch.get(cls)
        if entry is None and cls not in self._seen:
            entry = self._owner.first_sight(cls)
        if entry is not None:
            if entry[2] is None or entry[2](obj):
                class_id, serializer, _ = entry
                if self._before_registered is not None:
                    self._before_registered()
                    self._before_registered = None
                result = as_result(serializer.serialize(obj), f"the serializer for class ID {class_id!r}", obj)
                own_result_buffers(result, f"the serializer for class ID {class_id!r}", obj)
                in_band = result.in_band_buffer
                buffers = [pickle.PickleBuffer(b) for b in result.out_of_band_buffers]
                self.made.extend(buffers)
                return restore_registered, (class_id, bytes(in_band) if in_band is not None else b"", *buffers)
            return super().reducer_override(obj)  # this value refused by accepts(): not cached
        per_object = isinstance(obj, _DECIDED_PER_OBJECT)
        if per_object and obj in self._by_reference:
            return NotImplemented  # cloudpickle's verdict, remembered: by reference (pickle's save_global)
        reduced = super().reducer_override(obj)
        if reduced is NotImplemented:
            if per_object:
                # Importable by reference: pickle writes its module and name, and checks again that
                # the name still leads to this very object (else PicklingError: the serializer then
                # forgets every verdict and pickles again).
                if len(self._by_reference) < _BY_REFERENCE_MAX:
                    self._by_reference[obj] = True
            elif cls not in copyreg.dispatch_table and cls not in _CLOUDPICKLE_REDUCERS:
                self._pickle_reduces.add(cls)
        return reduced


def restore_registered(class_id: str, in_band: bytes, *buffers: Any) -> Any:
    """Rebuild a registered value found inside a pickle, with the serializer of the registry unpickling it."""
    state = DECODE_STATE.get()
    lookup = state.unpickling if state is not None else None
    if lookup is None:
        lookup = _UNPICKLING_LOOKUP.get()
    if lookup is None:
        raise DeserializationError(
            f"this pickle holds a {class_id!r} value written by its serreg serializer; unpickle it with "
            "serreg.deserialize (the pickle fallback), not with pickle.loads"
        )
    serializer: Any = lookup(class_id)
    views = [view_of(b) for b in buffers]
    return serializer.deserialize(memoryview(in_band), OutOfBandBuffers(views))


class Pickle5Serializer(Serializer):
    """Pickle protocol 5 (cloudpickle) with every pickle buffer out-of-band.

    Python only: frames holding it cannot be decoded by other languages (Java
    keeps them as opaque values), and ``cross_language=True`` refuses it.

    ``resolve_type(cls)`` loads the plug-in serving a type met inside a pickle
    for the first time; ``serializer_for_id(class_id)`` finds the serializer
    of a registered value met while unpickling. Both are the registry's.
    """

    def __init__(
        self, class_id: str, resolve_type: Callable[[type], object], serializer_for_id: Callable[[str], object]
    ) -> None:
        self.class_id = class_id
        self._resolve_type = resolve_type
        self._serializer_for_id = serializer_for_id
        self.dispatch: dict[type, tuple[str, Any, Optional[Callable[[Any], bool]]]] = {}  # type -> (class_id, serializer, accepts or None); replaced whole
        self.seen_types: set[type] = set()  # types met inside a pickle (their plug-in asked for)
        self._pickle_reduces: set[type] = set()  # see pickle_reduced_types
        self._copyreg_size = -1
        self.verdicts: dict[Any, bool] = {}  # see by_reference
        self._by_value_modules: frozenset[str] = frozenset()
        self._idle: list[_RegistryAwarePickler] = []  # Picklers no pickle is using (list.pop and append are atomic)
        self.plain_reduces: set[type] = set()  # see plain_verdict
        self._plain_copyreg_size = -1
        self.plain_pickles = 0  # how many pickles pickle's own Pickler made (not exact under threads)
        self._idle_plain: list[PlainPickler] = []
        self._plain_backoff: dict[type, list[int]] = {}  # top-level type -> [calls still skipped, last window]

    def pickle_reduced_types(self) -> set[type]:
        """The types whose instances pickle reduces itself (see ``_RegistryAwarePickler``).

        Shared by the pickles this serializer makes; started afresh when a registration
        changes or copyreg's table changes size (a reducer added for a type makes it grow)."""
        size = len(copyreg.dispatch_table)
        if size != self._copyreg_size:
            self._copyreg_size = size
            self._pickle_reduces = set()
        return self._pickle_reduces

    def by_reference(self) -> dict[Any, bool]:
        """The classes and functions cloudpickle chose to write by reference (module and name).

        cloudpickle decides it again for every pickle it makes (a look-up of the object's module
        and name, and of the modules registered to be pickled by value); this serializer asks it
        once per class or function and remembers the answer while the modules registered with
        ``cloudpickle.register_pickle_by_value`` stay the same. Classes of ``__main__`` and of
        those modules are written by value, as cloudpickle writes them, and never remembered."""
        modules = _BY_VALUE_MODULES
        if modules is None:
            return {}  # a cloudpickle without that set: ask it every time
        if modules != self._by_value_modules:
            self._by_value_modules = frozenset(modules)
            self.verdicts = {}
        return self.verdicts

    def first_sight(self, cls: type) -> Optional[tuple[str, Any, Optional[Callable[[Any], bool]]]]:
        """A type met inside a pickle for the first time may belong to a plug-in not loaded yet."""
        self.seen_types.add(cls)
        self._resolve_type(cls)
        return self.dispatch.get(cls)

    def on_register(self, class_id: Any, cls: Any, serializer: Any) -> None:
        """The register callback: route ``cls`` through its serreg serializer inside pickles."""
        dispatch = dict(self.dispatch)
        hooks = None if serializer is None else hooks_of(serializer)
        if hooks is None or hooks.handled_by_pickle:
            dispatch.pop(cls, None)
        else:
            dispatch[cls] = (class_id, serializer, hooks.accepts)
        self.dispatch = dispatch  # replaced whole: picklers running now keep their snapshot
        self._pickle_reduces = set()
        self.plain_reduces = set()
        self._plain_backoff = {}

    def serialize(self, obj: Any, before_registered: Optional[Callable[[], object]] = None) -> SerializationResult:
        """``before_registered``: called once, before the first registered value inside the pickle
        is written by its serializer (the registry opens the frame's struct table then)."""
        data, buffers = self.pickle_parts(obj, before_registered)
        return SerializationResult(data, buffers)

    def pickle_parts(self, obj: Any, before_registered: Optional[Callable[[], object]] = None) -> tuple[Any, list[Any]]:
        """(pickle, out-of-band buffers) of ``obj``: ``cloudpickle.dumps(obj, protocol=5)`` with the
        registered values inside written by their serializers (``before_registered``: see ``serialize``).

        Made by pickle's own Pickler when it writes the same bytes (serreg.standard.pickle_plain),
        else by cloudpickle's. A top-level type whose value pickle's Pickler gave up on twice in a
        row goes to cloudpickle's for the next 1, 2, 4 ... 64 calls (the attempt may have been long)."""
        backoff = self._plain_backoff.get(type(obj)) if self._plain_backoff else None
        if backoff is not None and backoff[0] > 0:
            backoff[0] -= 1
            return self._cloudpickled(obj, before_registered)
        modules: Any = _BY_VALUE_MODULES
        if modules is not None:  # else a cloudpickle without that set: no verdict is remembered
            if self._by_value_modules != modules:
                self.by_reference()  # the verdicts start afresh
            size = len(copyreg.dispatch_table)
            if size != self._plain_copyreg_size:  # a reducer added for a type: the types reduced start afresh
                self._plain_copyreg_size = size
                self.plain_reduces = set()
            idle = self._idle_plain
            try:
                pickler = idle.pop()
            except IndexError:
                pickler = PlainPickler(self)
            try:
                _dump(pickler, obj)  # on failure the Pickler is dropped, whatever state it is left in
            except SerregError:
                raise
            except Exception:  # NotPlain; PicklingError (a verdict gone stale), RecursionError ...: cloudpickle's says
                pass
            else:
                # What pickle wrote: one bytes object at the end of a small pickle; else joined now (a
                # large payload may have been written as the caller's own bytearray or a view of it).
                chunks = pickler.chunks
                data = chunks[0] if len(chunks) == 1 and type(chunks[0]) is bytes else b"".join(chunks)
                buffers = pickler.buffers
                taken = data, flat_views(buffers) if buffers else []
                if len(idle) < _IDLE_MAX and len(data) <= _POOLED_MAX_BYTES:
                    chunks.clear()  # kept idle holding nothing of the value
                    if buffers:
                        buffers.clear()
                    pickler.clear_memo()
                    idle.append(pickler)
                self.plain_pickles += 1
                if backoff is not None:
                    self._plain_backoff.pop(type(obj), None)
                return taken
        window = 0 if backoff is None else min(max(1, 2 * backoff[1]), _PLAIN_BACKOFF_MAX)
        if len(self._plain_backoff) >= _PLAIN_BACKOFF_TYPES_MAX:
            self._plain_backoff = {}
        self._plain_backoff[type(obj)] = [window, window]
        return self._cloudpickled(obj, before_registered)

    def idle_picklers(self) -> tuple[int, int]:
        """How many Picklers are kept idle: (cloudpickle's, pickle's own)."""
        return len(self._idle), len(self._idle_plain)

    def plain_verdict(self, obj: Any, cls: type) -> Any:
        """What a PlainPickler does with ``obj``, of a type not among the plain-reduced ones: what pickle
        would do next (``NotImplemented``, or ``__reduce_ex__`` straight away, as pickle would for a type
        not in copyreg's table), as cloudpickle's Pickler would, or NotPlain. A type whose instances
        pickle reduces with ``__reduce_ex__`` is added to those (shared by this serializer's pickles;
        started afresh when a registration changes or copyreg's table changes size: see _plain)."""
        if cls in self.dispatch or (cls not in self.seen_types and self.first_sight(cls) is not None):
            raise NotPlain  # a registered value: written by its serializer, by cloudpickle's Pickler
        if issubclass(cls, type) or cls is types.FunctionType:
            if obj in self.verdicts:
                return NotImplemented
            raise NotPlain  # cloudpickle decides (and its verdict "by reference" is remembered)
        if cls in _CLOUDPICKLE_REDUCERS:
            raise NotPlain
        if cls in copyreg.dispatch_table:
            return NotImplemented  # pickle's own Pickler consults copyreg's table, as cloudpickle's does
        self.plain_reduces.add(cls)
        return obj.__reduce_ex__(5)

    def _cloudpickled(self, obj: Any, before_registered: Optional[Callable[[], object]]) -> tuple[Any, list[Any]]:
        try:
            return self._pickle(obj, before_registered)
        except pickle.PicklingError:
            if not self.verdicts:
                raise
            # A remembered verdict may be out of date (a class rebound under its name): decide afresh.
            self.verdicts = {}
            return self._pickle(obj, before_registered)

    def _pickle(self, obj: Any, before_registered: Optional[Callable[[], object]]) -> tuple[Any, list[Any]]:
        idle = self._idle
        try:
            pickler = idle.pop()
        except IndexError:
            pickler = _RegistryAwarePickler(self)
        pickler.prepare(before_registered)
        try:
            _dump(pickler, obj)  # on failure the Pickler is dropped, whatever state it is left in
        except BaseException as error:
            release_all(pickler.made)  # none of its PickleBuffers outlives it (a kept traceback holds it)
            if isinstance(error, RecursionError):  # what cloudpickle's own dump says
                raise pickle.PicklingError("Could not pickle object as excessively deep recursion required.") from error
            raise
        taken = pickler.take()
        if len(idle) < _IDLE_MAX and len(taken[0]) <= _POOLED_MAX_BYTES:
            pickler.empty()
            idle.append(pickler)
        return taken

    def deserialize(self, in_band_buffer: Any, oob_iterator: Iterator[memoryview]) -> Any:
        # pickle takes exactly the buffers it wrote from the shared iterator (an empty tuple for none:
        # pickle's own iterator over it, no Python __iter__; running out reads the same UnpicklingError).
        buffers = () if oob_iterator is NO_BUFFERS else oob_iterator
        state = DECODE_STATE.get()
        if state is not None:  # restore_registered finds the lookup in the state of the call running
            outer = state.unpickling
            state.unpickling = self._serializer_for_id
            try:
                return pickle.loads(in_band_buffer, buffers=buffers)
            finally:
                state.unpickling = outer
        token = _UNPICKLING_LOOKUP.set(self._serializer_for_id)  # called outside a deserialize call
        try:
            return pickle.loads(in_band_buffer, buffers=buffers)
        finally:
            _UNPICKLING_LOOKUP.reset(token)
