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

from typing import Any, Callable

from ..errors import DeserializationError
from ..result import NO_BUFFERS, SerializationResult
from ..serializer import Serializer
from ..structs.scope import IMPLICIT_READ
from ..wire.class_id import CLASS_ID_HASH_SIZE
from .class_pickles import ClassUnpickles
from .classes import IMPLICIT_PREFIX, PYOBJECTS_CLASS_ID, qualifies
from .writer import ImplicitSchemas

__all__ = ["ImplicitRead", "PyObjectsSerializer", "unpickle_with"]

_BIN_SIZES = {0xC4: 1, 0xC5: 2, 0xC6: 4}


class ImplicitRead:
    """The classes of one ``serreg.pyobjects`` section, handed out to its table's implicit definitions in order."""

    prefix = IMPLICIT_PREFIX

    def __init__(self, classes: tuple[type, ...], schemas: ImplicitSchemas) -> None:
        self.classes = classes
        self.taken = 0
        self._schemas = schemas

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
        return schema.reader(), schema.plan


class PyObjectsSerializer(Serializer):
    """``serreg.pyobjects``: read only (the registry's encoder writes it around a value, 10.9).

    ``unpickle(data)``: the fallback's reader; ``read_section(in_band, oob)``: the
    ``serreg.structs`` serializer's; ``structs_hash``: ClassIDHash("serreg.structs").
    """

    def __init__(self, unpickle: Callable[[Any], Any], read_section: Callable[[Any, Any], Any],
                 structs_hash: bytes, schemas: ImplicitSchemas) -> None:
        self._classes = ClassUnpickles(self._unpickled(unpickle), _checked).classes
        self._read_section = read_section
        self._structs_hash = structs_hash
        self._schemas = schemas

    def serialize(self, obj: Any) -> SerializationResult:
        raise TypeError("serreg.pyobjects is written by the registry around a value, never on its own")

    def deserialize(self, in_band: Any, oob: Any) -> Any:
        view = memoryview(in_band)
        size = _BIN_SIZES.get(view[0]) if view.nbytes else None
        if size is None or view.nbytes < 1 + size:
            raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: the in-band must open with a msgpack bin holding "
                                       "the pickled classes")
        length = int.from_bytes(view[1:1 + size], "big")
        start = 1 + size
        if view.nbytes < start + length + CLASS_ID_HASH_SIZE:
            raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: the pickled classes ({length} bytes) and the struct "
                                       f"section do not fit the {view.nbytes} bytes of the in-band")
        classes = self._classes(view[start:start + length])
        rest = view[start + length:]
        if bytes(rest[:CLASS_ID_HASH_SIZE]) != self._structs_hash:
            raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: the pickled classes must be followed by a "
                                       "serreg.structs section")
        implicit = ImplicitRead(classes, self._schemas)
        token = IMPLICIT_READ.set(implicit)
        try:
            value = self._read_section(rest[CLASS_ID_HASH_SIZE:], oob)
        finally:
            IMPLICIT_READ.reset(token)
        if implicit.taken != len(classes):
            raise DeserializationError(f"{PYOBJECTS_CLASS_ID}: the section pickles {len(classes)} class(es), and its "
                                       f"struct table has {implicit.taken} implicit definition(s)")
        return value

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


def unpickle_with(fallback: Any) -> Callable[[Any], Any]:
    """The fallback serializer's reader of a pickle without buffers."""
    return lambda data: fallback.deserialize(data, NO_BUFFERS)
