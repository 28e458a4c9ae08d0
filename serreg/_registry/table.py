"""The registrations of one Registry, published as immutable snapshots.

A :class:`Snapshot` holds every lookup table of the registry at one moment:
class ID and ClassIDHash to registration, type to the registration in use, the
fallback, the dataclass reader, the allow-list of untrusted mode, and the
tables the fast paths read. Readers take ``table.snapshot`` (one attribute
read) and never lock, so a reader never sees a half-made change; writers hold
the table's lock, build a new Snapshot and publish it whole. A block of
registrations can be made all or nothing (:meth:`Table.all_or_nothing`), which
is how a plug-in that fails half-way leaves nothing of itself registered.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Mapping, Optional

from msgpack import ExtType, Timestamp

from ..errors import SerregError, UnknownClassIDError
from ..serializer import check_serializer, hooks_of
from ..standard import FALLBACK_CLASS_ID, check_plugin_class_id
from ..trust import allowed_hashes, check_allowable
from ..wire.class_id import class_id_hash

# Types msgpack packs without asking; overriding one of them needs a tree rewrite.
NATIVE_TYPES = (type(None), bool, int, float, str, bytes, list, dict)
# Types msgpack would pack by itself although serreg must not: bytearray and memoryview as bin (they
# would come back as bytes), and msgpack's own ExtType and Timestamp as raw ext values (reserved
# types, or ext -1, which docs/FORMAT.md section 3 forbids). Always rewritten: their serializer, or
# the fallback.
ALWAYS_REWRITTEN = (bytearray, memoryview, ExtType, Timestamp)

# The origins of the registrations serreg makes itself (``serreg registry`` shows them).
STANDARD_ORIGIN = "serreg (standard)"
FALLBACK_ORIGIN = "serreg (fallback)"

RegisterCallback = Callable[[Optional[str], type, Any], None]


@dataclass(frozen=True)
class Registration:
    """One class ID bound to a class and a serializer, with the serializer's hooks read once.

    ``accepts``, ``refusal`` and ``serialize_canonical`` are the serializer's hooks, None
    where it keeps the default; ``fallback`` marks the fallback serializer
    (``python_only`` marks it and the dataclass serializer); ``plain_msgpack``
    marks a standard serializer whose in-band is exactly the codec's msgpack of
    the value, so the registry may call the codec itself; ``leaf`` is the
    serializer's hook of that name (it serializes no value through serreg).
    """

    class_id: str
    cls: type
    serializer: Any
    class_hash: bytes
    origin: str
    python_only: bool = False
    fallback: bool = False
    plain_msgpack: bool = field(default=False, repr=False)
    ext_writer: Optional[Callable[[Any, Any], Any]] = field(default=None, repr=False, compare=False)
    list_writer: Optional[Callable[[Any, Any], Any]] = field(default=None, repr=False, compare=False)
    accepts: Optional[Callable[[Any], bool]] = field(default=None, repr=False, compare=False)
    serialize_canonical: Optional[Callable[[Any], Any]] = field(default=None, repr=False, compare=False)
    refusal: Optional[Callable[[Any], Optional[str]]] = field(default=None, repr=False, compare=False)
    handled_by_pickle: bool = field(default=False, repr=False)
    leaf: bool = field(default=False, repr=False)


def _describe(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


@dataclass(frozen=True)
class Snapshot:
    """Every lookup table of a registry at one moment; never changed once published."""

    by_id: Mapping[str, Registration] = field(default_factory=dict)
    by_hash: Mapping[bytes, Registration] = field(default_factory=dict)
    stacks: Mapping[type, tuple[Any, ...]] = field(default_factory=dict)  # type -> its registrations, newest last
    current: Mapping[type, Registration] = field(default_factory=dict)  # type -> the registration in use
    fallback: Optional[Registration] = None
    dataclass_reader: Optional[Registration] = None  # serreg.dataclass, readable by every registry
    dataclass_writer: Optional[Registration] = None  # the same, once switched on (lookup step 3)
    allowed_ids: frozenset[str] = frozenset()
    allowed_hashes: frozenset[Any] = frozenset()
    # Derived from the above by Table._publish:
    native_overrides: frozenset[Any] = frozenset()  # native types whose serializer is not the standard one
    rewritten_types: tuple[Any, ...] = ALWAYS_REWRITTEN  # types the codec must not let msgpack pack by itself
    packed_as_is: Mapping[type, bytes] = field(default_factory=dict)  # type -> ClassIDHash, plain msgpack
    unpacked_as_is: Mapping[bytes, type] = field(default_factory=dict)  # the same ClassIDHashes -> their type
    ext_writers: Mapping[type, Callable[..., Any]] = field(default_factory=dict)  # type -> its struct's ext 1 writer
    list_writers: Mapping[type, Callable[..., Any]] = field(default_factory=dict)  # type -> its lists' ext 2 writer
    # Class IDs whose type is served by serreg's standard serializer (so the codec may write
    # them itself), and those whose ClassIDHash is read by it (so the codec may read them itself).
    standard_writers: frozenset[str] = frozenset()
    standard_readers: frozenset[str] = frozenset()


class Table:
    """The registrations of one registry. Thread-safe; see the module docstring."""

    # Slots: the compiled codec reads ``snapshot`` at its offset on every call (a pointer compare
    # tells it nothing was published since its last call).
    __slots__ = ("snapshot", "_lock", "_local", "_fallback_callback")

    def __init__(self) -> None:
        self.snapshot = Snapshot()
        self._lock = threading.RLock()
        self._local = threading.local()
        self._fallback_callback: Optional[RegisterCallback] = None

    # ----------------------------------------------------------------- origin

    @contextlib.contextmanager
    def origin(self, origin: str) -> Iterator[None]:
        """Registrations made by this thread inside the block are labelled ``origin``."""
        previous = getattr(self._local, "origin", None)
        self._local.origin = origin
        try:
            yield
        finally:
            self._local.origin = previous

    def _origin(self) -> str:
        return getattr(self._local, "origin", None) or "user"

    def _registration(self, class_id: str, cls: type, serializer: Any, **flags: Any) -> Registration:
        hooks = hooks_of(serializer)
        return Registration(
            class_id, cls, serializer, class_id_hash(class_id), self._origin(),
            accepts=hooks.accepts, serialize_canonical=hooks.serialize_canonical, refusal=hooks.refusal,
            handled_by_pickle=hooks.handled_by_pickle, leaf=hooks.leaf, **flags,
        )

    # ----------------------------------------------------------------- registering

    def register(
        self, class_id: str, cls: type, serializer: Any, *, plain_msgpack: bool = False,
        ext_writer: Optional[Callable[[Any, Any], Any]] = None, list_writer: Optional[Callable[[Any, Any], Any]] = None
    ) -> None:
        """Bind ``class_id`` to ``cls`` and ``serializer`` (see Registry.register_serializer).

        ``ext_writer(value, pack_state)``: a struct's writer, which the codec calls
        straight from its lookup table for values inside msgpack documents (ext 1);
        ``list_writer(items, pack_state)`` writes a list of its instances (ext 2).
        """
        if not isinstance(class_id, str) or not class_id:
            raise TypeError(f"class_id must be a non-empty str, not {class_id!r}")
        if not isinstance(cls, type):
            raise TypeError(f"cls must be a type, not {cls!r}")
        check_plugin_class_id(class_id, cls)
        check_serializer(serializer)
        registration = self._registration(class_id, cls, serializer, plain_msgpack=plain_msgpack, ext_writer=ext_writer,
                                          list_writer=list_writer)
        with self._lock:
            snapshot = self.snapshot
            existing = snapshot.by_id.get(class_id)
            if existing is not None and existing.cls is not cls:
                raise SerregError(
                    f"class ID {class_id!r} is already bound to {_describe(existing.cls)}; "
                    f"choose another class ID for {_describe(cls)} or unregister the old one first"
                )
            clash = snapshot.by_hash.get(registration.class_hash)
            if clash is not None and clash.class_id != class_id:
                raise SerregError(
                    f"class ID {class_id!r} has the same ClassIDHash ({registration.class_hash.hex()}) as the "
                    f"registered class ID {clash.class_id!r}; choose another class ID"
                )
            stacks = dict(snapshot.stacks)
            stacks[cls] = tuple(r for r in stacks.get(cls, ()) if r.class_id != class_id) + (registration,)
            self._publish(
                snapshot,
                by_id={**snapshot.by_id, class_id: registration},
                by_hash={**snapshot.by_hash, registration.class_hash: registration},
                stacks=stacks,
            )
            self._notify(cls)

    def unregister(self, class_id: str) -> None:
        """Remove ``class_id``; the previous class ID registered for its type, if any, is used again."""
        with self._lock:
            snapshot = self.snapshot
            registration = snapshot.by_id.get(class_id)
            if registration is None or registration.fallback:
                raise UnknownClassIDError(f"no serializer is registered under class ID {class_id!r}")
            by_id = dict(snapshot.by_id)
            by_hash = dict(snapshot.by_hash)
            del by_id[class_id]
            del by_hash[registration.class_hash]
            if registration is snapshot.dataclass_reader:
                # Dataclasses go to the fallback again, as pickle writes them.
                self._publish(snapshot, by_id=by_id, by_hash=by_hash, dataclass_reader=None, dataclass_writer=None)
                return
            stacks = dict(snapshot.stacks)
            stack = tuple(r for r in stacks[registration.cls] if r.class_id != class_id)
            if stack:
                stacks[registration.cls] = stack
            else:
                del stacks[registration.cls]
            self._publish(snapshot, by_id=by_id, by_hash=by_hash, stacks=stacks)
            self._notify(registration.cls)

    def register_fallback(self, serializer: Any, register_callback: Optional[RegisterCallback] = None) -> None:
        """Use ``serializer`` for every value no registered serializer takes (see Registry)."""
        check_serializer(serializer)
        class_id = hooks_of(serializer).class_id or FALLBACK_CLASS_ID
        registration = self._registration(class_id, object, serializer, python_only=True, fallback=True)
        with self._lock:
            snapshot = self.snapshot
            clash = snapshot.by_hash.get(registration.class_hash)
            if clash is not None and clash is not snapshot.fallback:
                raise SerregError(f"fallback class ID {class_id!r} is already used by a registered serializer")
            if class_id in snapshot.allowed_ids:
                raise SerregError(
                    f"fallback class ID {class_id!r} is on the allow-list for untrusted data; "
                    "a fallback must never be decoded from untrusted bytes"
                )
            by_id = dict(snapshot.by_id)
            by_hash = dict(snapshot.by_hash)
            if snapshot.fallback is not None:
                by_id.pop(snapshot.fallback.class_id, None)
                by_hash.pop(snapshot.fallback.class_hash, None)
            by_id[class_id] = registration
            by_hash[registration.class_hash] = registration
            self._fallback_callback = register_callback
            self._publish(snapshot, by_id=by_id, by_hash=by_hash, fallback=registration)
            if register_callback is not None:
                for cls, current in self.snapshot.current.items():
                    register_callback(current.class_id, cls, current.serializer)

    def install_dataclass(self, class_id: str, serializer: Any) -> None:
        """Register the reader of dataclass instances; writing them is switched on by
        :meth:`use_dataclass` (lookup step 3, after plug-ins, before the fallback).

        Python only, like the fallback: ``cross_language=True`` refuses them.
        """
        registration = self._registration(class_id, object, serializer, python_only=True)
        with self._lock:
            snapshot = self.snapshot
            if registration.class_hash in snapshot.by_hash:
                raise SerregError(f"class ID {class_id!r} (or its ClassIDHash) is already registered")
            self._publish(
                snapshot,
                by_id={**snapshot.by_id, class_id: registration},
                by_hash={**snapshot.by_hash, registration.class_hash: registration},
                dataclass_reader=registration,
            )

    def use_dataclass(self, enabled: bool) -> None:
        """Switch writing dataclass instances with the dataclass serializer on or off."""
        with self._lock:
            snapshot = self.snapshot
            if enabled and snapshot.dataclass_reader is None:
                raise SerregError(
                    "this registry has no serreg.dataclass serializer (it was made with standard=False "
                    "or the serializer was unregistered)"
                )
            self._publish(snapshot, dataclass_writer=snapshot.dataclass_reader if enabled else None)

    def allow(self, class_ids: Any) -> None:
        """Add ``class_ids`` to the allow-list of untrusted mode (the code-loading ones are refused)."""
        class_ids = tuple(class_ids)
        for class_id in class_ids:
            if not isinstance(class_id, str) or not class_id:
                raise TypeError(f"class_id must be a non-empty str, not {class_id!r}")
        with self._lock:
            snapshot = self.snapshot
            fallback_id = snapshot.fallback.class_id if snapshot.fallback is not None else FALLBACK_CLASS_ID
            for class_id in class_ids:
                check_allowable(class_id, fallback_id)
            allowed = snapshot.allowed_ids | frozenset(class_ids)
            self._publish(snapshot, allowed_ids=allowed, allowed_hashes=allowed_hashes(allowed))

    @contextlib.contextmanager
    def all_or_nothing(self) -> Iterator[None]:
        """Registrations made inside stay only if the block completes; otherwise all are undone."""
        with self._lock:
            saved, saved_callback = self.snapshot, self._fallback_callback
            try:
                yield
            except BaseException:
                changed = set(self.snapshot.stacks) | set(saved.stacks)
                self._fallback_callback = saved_callback
                self.snapshot = saved
                for cls in changed:
                    self._notify(cls)
                raise

    # ----------------------------------------------------------------- publishing

    def _publish(self, snapshot: Snapshot, **changes: Any) -> None:
        # One attribute write publishes everything: readers see the old or the new
        # snapshot, never a mixture, so a frame written with a newly published
        # serializer can always be read back.
        new = replace(snapshot, **changes)
        current = {cls: stack[-1] for cls, stack in new.stacks.items()}
        standard_installed = any(r.origin == STANDARD_ORIGIN for r in current.values())
        native_overrides = frozenset(
            t for t in NATIVE_TYPES if standard_installed and t in current and current[t].origin != STANDARD_ORIGIN
        )
        self.snapshot = replace(
            new,
            current=current,
            native_overrides=native_overrides,
            rewritten_types=ALWAYS_REWRITTEN + tuple(native_overrides),
            packed_as_is={cls: r.class_hash for cls, r in current.items() if r.plain_msgpack},
            unpacked_as_is={h: r.cls for h, r in new.by_hash.items() if r.plain_msgpack},
            ext_writers={cls: r.ext_writer for cls, r in current.items() if r.ext_writer is not None},
            list_writers={cls: r.list_writer for cls, r in current.items() if r.list_writer is not None},
            standard_writers=frozenset(r.class_id for r in current.values() if r.origin == STANDARD_ORIGIN),
            standard_readers=frozenset(r.class_id for r in new.by_hash.values() if r.origin == STANDARD_ORIGIN),
        )

    def _notify(self, cls: type) -> None:
        callback = self._fallback_callback
        if callback is None:
            return
        registration = self.snapshot.current.get(cls)
        if registration is None:
            callback(None, cls, None)
        else:
            callback(registration.class_id, cls, registration.serializer)
