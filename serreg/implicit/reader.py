"""Read ``serreg.pyobjects`` (docs/FORMAT.md 10.9): the pickled classes, then the struct section.

:class:`PyObjectsSerializer` unpickles the tuple of classes with the pickle
fallback (so it is refused in untrusted mode, by class ID, before this runs),
checks each is a class whose instances are implicit structs, and reads the
``serreg.structs`` section that follows with an :class:`ImplicitRead` in
scope: the struct table's k-th ``serreg.pyobject:`` definition is read as
the k-th class, every field of type ``any``, each instance built as pickle
builds it (``cls.__new__(cls)``, the fields put into its ``__dict__``).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ..errors import DeserializationError
from ..result import NO_BUFFERS, SerializationResult
from ..serializer import Serializer
from ..structs.scope import DECODE_SCOPE, IMPLICIT_READ
from ..wire.class_id import CLASS_ID_HASH_SIZE
from .class_pickles import ClassUnpickles, found_by_name, still_found
from .classes import IMPLICIT_PREFIX, PYOBJECTS_CLASS_ID, qualifies
from .writer import ImplicitSchemas

__all__ = ["ImplicitRead", "PyObjectsSerializer", "unpickle_with"]

_BIN_SIZES = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_NOT_ITS_CLASS = (f"{PYOBJECTS_CLASS_ID}: the top-level struct's ClassIDHash is not the class ID of the definition "
                  "it names")


class ImplicitRead:
    """The classes of one ``serreg.pyobjects`` section, handed out to its table's implicit definitions in order."""

    prefix = IMPLICIT_PREFIX

    def __init__(self, classes: tuple[type, ...], schemas: ImplicitSchemas) -> None:
        self.classes = classes
        self.taken = 0
        self._schemas = schemas
        self._top: list[tuple[bytes, type]] = []

    def top_classes(self) -> dict[bytes, type]:
        """ClassIDHash of each implicit definition taken -> its class (a top-level instance's inner section)."""
        return dict(self._top)

    def take(self, index: int, class_id: str, names: list[Any], types: list[Any]) -> tuple[Any, Any]:
        """(reader, compiled plan or None) of table definition ``index``, an implicit one."""
        where = f"{PYOBJECTS_CLASS_ID}: struct definition {index} ({class_id!r})"
        if self.taken >= len(self.classes):
            raise DeserializationError(f"{where}: the section pickles {len(self.classes)} class(es), and this is "
                                       f"implicit definition {self.taken + 1}")
        for name, ftype in zip(names, types):
            if ftype.kind != "any":
                raise DeserializationError(f"{where}: field {name!r} is of type {ftype!r}; implicit fields are 'any'")
        cls = self.classes[self.taken]
        self.taken += 1
        schema = self._schemas.get(cls, tuple(names))
        self._top.append((schema.class_hash, cls))
        return schema.reader(), schema.plan


class PyObjectsSerializer(Serializer):
    """``serreg.pyobjects``: read only (the registry's encoder writes it around a value, 10.9).

    ``unpickle(data)``: the fallback's reader; ``tables``: the ``serreg.structs`` serializer
    (``frames.open_table`` reads a table, ``read_value`` the value after it); ``snapshot()``: the
    registry's tables now; ``structs_hash``: ClassIDHash("serreg.structs").

    The last table read is kept with its classes' pickle and the registry state it was read
    under: the next frame starting with the same bytes reuses its DecodeScope, which nothing
    changes once made (as the compiled codec keeps the last struct table it read). When its
    value was one instance of its one class, ``publish(snapshot, prefix, class, found by name,
    scope)`` tells the codec, whose ``unpack_top`` then reads such frames in one call.
    """

    def __init__(self, unpickle: Callable[[Any], Any], tables: Callable[[], Any], snapshot: Callable[[], Any],
                 structs_hash: bytes, schemas: ImplicitSchemas, publish: Callable[..., None]) -> None:
        self._classes = ClassUnpickles(self._unpickled(unpickle), _checked).classes
        self._publish = publish
        self._tables = tables
        self._snapshot = snapshot
        self._structs_hash = structs_hash
        self._schemas = schemas
        # (snapshot, the in-band up to the end of the table, (classes, found by name), scope, the class
        # of each implicit ClassIDHash, the serreg.structs serializer, with one class: the prefix of a
        # top-level instance of it (else b"") and that class)
        self._last: tuple[Any, ...] = (None, b"", ((), ()), None, {}, None, b"", None)
        # The last ``_last`` whose top-level instance prefix the codec was told (``publish``).
        self._published: Optional[tuple[Any, ...]] = None

    def serialize(self, obj: Any) -> SerializationResult:
        raise TypeError("serreg.pyobjects is written by the registry around a value, never on its own")

    def deserialize(self, in_band: Any, oob: Any) -> Any:
        view = memoryview(in_band)
        last = self._last
        top_prefix = last[6]
        # The same classes and table as the last frame read, under the same registry state: the
        # prefix's bytes are those it was read from, so they read the same (the classes checked again).
        if last[0] is self._snapshot():
            k = len(top_prefix)
            if k and view.nbytes >= k and view[:k].tobytes() == top_prefix:
                # One class, and an instance of it at the top level (_value's top-level case, inline).
                classes, by_name = last[2]
                if not by_name[0] or found_by_name(classes[0]):
                    payload = view[k:]
                    payload_size = payload.nbytes
                    packed = (b"".join((_EXT1_HEADS[payload_size], payload)) if payload_size < 256 else
                              _ext1(payload))
                    token = DECODE_SCOPE.set(last[3])
                    try:
                        value = last[5].codec.unpack(packed, oob)
                    finally:
                        DECODE_SCOPE.reset(token)
                    if type(value) is not last[7]:
                        raise DeserializationError(_NOT_ITS_CLASS)
                    if last is not self._published:
                        # The table was opened by a frame of another value (a list of instances):
                        # the codec is told now, else every such frame after would come here.
                        self._published = last
                        if len(classes) == 1 and classes[0] is last[7]:
                            self._publish(last[0], top_prefix, last[7], by_name[0], last[3])
                    return value
            prefix = last[1]
            n = len(prefix)
            if view.nbytes >= n + CLASS_ID_HASH_SIZE and view[:n].tobytes() == prefix and still_found(last[2]):
                return self._value(view[n:], oob, last[3], last[4], last[5])
        size = _BIN_SIZES.get(view[0]) if view.nbytes else None
        if size is None or view.nbytes < 1 + size:
            raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: the in-band must open with a msgpack bin holding "
                                       "the pickled classes")
        length = int.from_bytes(view[1:1 + size], "big")
        start = 1 + size
        if view.nbytes < start + length + CLASS_ID_HASH_SIZE:
            raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: the pickled classes ({length} bytes) and the struct "
                                       f"section do not fit the {view.nbytes} bytes of the in-band")
        entry = self._classes(view[start:start + length])
        classes = entry[0]
        rest = view[start + length:]
        if rest[:CLASS_ID_HASH_SIZE].tobytes() != self._structs_hash:
            raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: the pickled classes must be followed by a "
                                       "serreg.structs section")
        section = rest[CLASS_ID_HASH_SIZE:]
        snapshot = self._snapshot()
        tables = self._tables()
        scope, offset, top = self._open_table(tables, classes, section)
        end = start + length + CLASS_ID_HASH_SIZE + offset
        prefix = view[:end].tobytes()
        # One class: the prefix of a frame whose value is one instance of it, and the class (else b"").
        only = next(iter(top.items())) if len(top) == 1 else (b"", None)
        self._last = last = (snapshot, prefix, entry, scope, top, tables, prefix + only[0] if only[0] else b"",
                             only[1])
        value = self._value(section[offset:], oob, scope, top, tables)
        if last[6] and len(classes) == 1 and type(value) is last[7] is classes[0]:
            self._published = last
            self._publish(snapshot, last[6], last[7], entry[1][0], scope)
        return value

    def _value(self, inner: memoryview, oob: Any, scope: Any, top: dict[bytes, type], tables: Any) -> Any:
        """The value after the table (its own section ``inner``), read with the table's ``scope``."""
        cls = top.get(inner[:CLASS_ID_HASH_SIZE].tobytes())
        if cls is None:
            return tables.read_value(scope, inner, oob)
        # A top-level implicit struct: its instance array read as the ext 1 it is inside a document
        # (the compiled codec builds it from the class's plan), one level deep as the full path reads it.
        token = DECODE_SCOPE.set(scope)
        try:
            value = tables.codec.unpack(_ext1(inner[CLASS_ID_HASH_SIZE:]), oob)
        finally:
            DECODE_SCOPE.reset(token)
        if type(value) is not cls:
            raise DeserializationError(_NOT_ITS_CLASS)
        return value

    def _open_table(self, tables: Any, classes: tuple[type, ...], section: memoryview) -> tuple[Any, int, Any]:
        implicit = ImplicitRead(classes, self._schemas)
        token = IMPLICIT_READ.set(implicit)
        try:
            scope, offset = tables.frames.open_table(section)
        finally:
            IMPLICIT_READ.reset(token)
        if implicit.taken != len(classes):
            raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: the section pickles {len(classes)} class(es), and its "
                                       f"struct table has {implicit.taken} implicit definition(s)")
        return scope, offset, implicit.top_classes()

    @staticmethod
    def _unpickled(unpickle: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def unpickled(pickled: Any) -> Any:
            try:
                return unpickle(pickled)
            except DeserializationError:
                raise
            except Exception as error:
                raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: the pickled classes cannot be unpickled: "
                                           f"{type(error).__name__}: {error}") from error

        return unpickled


def _checked(classes: Any) -> tuple[type, ...]:
    """``classes`` if it is a non-empty tuple of classes whose instances are implicit structs."""
    if type(classes) is not tuple or not classes:
        raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: the pickle must hold a non-empty tuple of classes")
    for k, cls in enumerate(classes):
        if not isinstance(cls, type) or not qualifies(cls):
            raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: pickled class {k} ({cls!r}) is not a class whose "
                                       "instances are plain objects (10.9)")
    return classes


def _ext1(payload: memoryview) -> bytes:
    """The msgpack ext 1 (a struct instance) whose payload is ``payload``."""
    size = payload.nbytes
    head = _FIXEXT.get(size)
    if head is None:
        head = (b"\xc7" + bytes((size,)) if size < 256 else
                b"\xc8" + size.to_bytes(2, "big") if size < 65536 else b"\xc9" + size.to_bytes(4, "big"))
    return b"".join((head, b"\x01", payload))


_FIXEXT = {1: b"\xd4", 2: b"\xd5", 4: b"\xd6", 8: b"\xd7", 16: b"\xd8"}
# The msgpack ext 1 header of each payload size below 256 (type byte included).
_EXT1_HEADS = tuple(_FIXEXT.get(size, b"\xc7" + bytes((size,))) + b"\x01" for size in range(256))


def unpickle_with(fallback: Any) -> Callable[[Any], Any]:
    """The fallback serializer's reader of a pickle without buffers."""
    return lambda data: fallback.deserialize(data, NO_BUFFERS)
