"""Canonical structs: instances with canonical field values, and the sorted table (docs/FORMAT.md, 10.5).

A canonical frame holding structs lists the definitions its instances use,
each once, **sorted by their msgpack bytes**; an instance's index is its
definition's place in that order. The indices are inside the values (and in
the bytes by which set members and map keys are sorted), and the order is
known only once every definition has been met, so :meth:`CanonicalStructs.framed`
writes the value once with indices in first-use order and, when that order is
not the sorted one, once more with every index fixed in advance. (A value
holding one definition, or definitions met in sorted order, is written once;
otherwise the ``serialize_canonical`` hooks of the serializers inside run twice.)

Each instance is written with the definition of the class that holds it: a
registered class's own, or the one a data carrier was read with (re-encoded
canonically), so a relay gives the digest of the frame's writer. Field values
follow their declared type (``canonical/struct_fields.py``); a list of
instances of one definition is ext 2 (``canonical/struct_columns.py``).
"""

from __future__ import annotations

import functools
from contextvars import ContextVar
from operator import attrgetter
from typing import Any, Callable, Optional, Protocol

from msgpack import ExtType, packb

from ..codec.layout import STRUCT_EXT_TYPE, array_header
from ..errors import CanonicalFormError, LimitExceededError, SerializationError
from ..result import SerializationResult
from ..structs.carrier import StructValue
from ..structs.scope import MAX_DEFINITIONS
from ..wire.class_id import class_id_hash
from .struct_columns import ColumnChecks, write_struct_list
from .struct_fields import SCALARS, FieldEncoder, field_encoder, scalar_value

__all__ = ["CanonicalStructs", "CanonicalTable", "CanonicalWriter", "canonical_definition"]

_CACHE_MAX = 1024


class _Writer:
    """How the instances of one definition are written: ``encoders`` per field; ``plain``, when
    every field is a scalar, a converter per field for one packb; ``get`` reads a registered
    class's field values (an attrgetter; None for a carrier or a class without fields);
    ``columns`` checks the values of its lists' bin columns (ext 2)."""

    __slots__ = ("encoders", "plain", "get", "columns")

    def __init__(self, encoders: list[FieldEncoder], plain: Optional[list[Callable[[Any], Any]]], get: Any,
                 columns: ColumnChecks) -> None:
        self.encoders = encoders
        self.plain = plain
        self.get = get
        self.columns = columns


class CanonicalWriter(Protocol):
    """What struct fields need of the canonical form (``serreg.canonical.form.CanonicalForm``)."""

    def write_value(self, value: Any, out: bytearray, oob: list[Any], depth: int) -> None: ...

    def write_nested(self, value: Any, out: bytearray, oob: list[Any], depth: int) -> None: ...

    def deeper(self, depth: int, value: Any) -> int: ...


class CanonicalTable:
    """The definitions of one canonical frame: met in first-use order, or ``order`` fixed in advance."""

    __slots__ = ("fixed", "index", "definitions", "used")

    def __init__(self, order: Optional[list[bytes]] = None) -> None:
        self.fixed = order is not None
        self.definitions: list[bytes] = list(order or ())
        self.index: dict[bytes, int] = {d: i for i, d in enumerate(self.definitions)}
        self.used: set[int] = set()

    def index_of(self, definition: bytes) -> int:
        index = self.index.get(definition)
        if index is None:
            if self.fixed:
                raise SerializationError(
                    "the value changed while its canonical form was written: a struct definition met on the second "
                    "pass was not met on the first (do not change a value while serreg writes it)"
                )
            index = len(self.definitions)
            if index >= MAX_DEFINITIONS:
                raise LimitExceededError(f"a frame holds at most {MAX_DEFINITIONS} struct definitions")
            self.index[definition] = index
            self.definitions.append(definition)
        elif self.fixed:
            self.used.add(index)
        return index


_TABLE: ContextVar[Optional[CanonicalTable]] = ContextVar("serreg_canonical_structs", default=None)


def canonical_definition(class_id: str, names: Any, types: Any) -> bytes:
    """The canonical msgpack of a definition ``[class_id, [[name, type], ...]]`` (shortest forms, 9.2)."""
    packed: bytes = packb([class_id, [[name, t.packable()] for name, t in zip(names, types)]], use_bin_type=True)
    return packed


class CanonicalStructs:
    """Canonical struct instances for one registry.

    ``class_id_of(cls)`` names the struct class ID registered for ``cls`` (None if
    none); ``schema_of(class_id)`` gives its ``StructSchema``; ``structs_hash`` is
    ClassIDHash("serreg.structs").
    """

    def __init__(self, class_id_of: Callable[[type], Optional[str]], schema_of: Callable[[str], Any],
                 structs_hash: bytes) -> None:
        self._class_id_of = class_id_of
        self._schema_of = schema_of
        self._structs_hash = structs_hash
        self._writers: dict[Any, _Writer] = {}  # (definition bytes, is a carrier) -> how its instances are written
        self._carrier_definitions: dict[bytes, bytes] = {}  # a carrier's definition as read -> canonical bytes

    # ------------------------------------------------------------------ the frame

    def framed(self, write: Callable[[], tuple[bytes, SerializationResult]]) -> tuple[bytes, SerializationResult]:
        """(ClassIDHash, result) of ``write()``, with the sorted table in front if it wrote any struct."""
        table = CanonicalTable()
        class_hash, result = self._run(write, table)
        if not table.definitions:
            return class_hash, result
        order = sorted(table.definitions)
        if order != table.definitions:
            table = CanonicalTable(order)
            class_hash, result = self._run(write, table)
            if len(table.used) != len(order):
                raise SerializationError(
                    "the value changed while its canonical form was written: a struct definition met on the first "
                    "pass was not met on the second (do not change a value while serreg writes it)"
                )
        section = b"".join((array_header(len(order)), *order, class_hash, bytes(result.in_band_buffer or b"")))
        return self._structs_hash, SerializationResult(section, result.out_of_band_buffers)

    @staticmethod
    def _run(write: Callable[[], tuple[bytes, SerializationResult]], table: CanonicalTable) -> tuple[bytes, SerializationResult]:
        token = _TABLE.set(table)
        try:
            return write()
        finally:
            _TABLE.reset(token)

    def class_hash(self, value: Any) -> bytes:
        """ClassIDHash of a struct value's class ID (a carrier's own, not ``serreg.struct``)."""
        return _hash(value.class_id if type(value) is StructValue else self._schema(value)[0])

    # ------------------------------------------------------------------ instances

    def instance(self, form: CanonicalWriter, value: Any, depth: int) -> SerializationResult:
        """The instance array ``[index, v...]`` of ``value`` (a top-level struct's in-band, 10.1)."""
        out = bytearray()
        oob: list[Any] = []
        self._write_array(form, value, out, oob, depth)
        return SerializationResult(bytes(out), oob)

    def write_ext(self, form: CanonicalWriter, value: Any, out: bytearray, oob: list[Any], depth: int) -> None:
        """Append the ext 1 of ``value`` to ``out``."""
        payload = bytearray()
        self._write_array(form, value, payload, oob, depth)
        out += packb(ExtType(STRUCT_EXT_TYPE, bytes(payload)))

    def write_list(self, form: CanonicalWriter, items: list[Any], out: bytearray, oob: list[Any], depth: int) -> bool:
        """Append the canonical ext 2 of ``items`` and answer True when it is a non-empty list of struct
        instances of one definition with at least one field (10.3); else append nothing, answer False."""
        if not items or (type(items[0]) is not StructValue and self._class_id_of(type(items[0])) is None):
            return False
        first = type(items[0])
        definition, writer, values = self._row(items[0])
        if not writer.encoders:
            return False
        rows = [(writer.encoders, values)]
        for item in items[1:]:
            if type(item) is not first or first is StructValue:
                if type(item) is not StructValue and self._class_id_of(type(item)) is None:
                    return False
                other, item_writer, item_values = self._row(item)
                if other != definition:
                    return False
                rows.append((item_writer.encoders, item_values))
            else:
                rows.append((writer.encoders, self._values(writer, item)))
        table = _TABLE.get()
        if table is None:
            raise SerializationError("a canonical struct is written only by serreg.serialize(..., canonical=True)")
        index = table.index_of(definition)  # before any value of its columns (first use, 10.3)
        depth = form.deeper(form.deeper(depth, items), items)  # the array it replaces, then its instances
        write_struct_list(form, index, writer.columns, rows, out, oob, depth)
        return True

    def _row(self, value: Any) -> tuple[bytes, _Writer, Any]:
        """(definition, writer, field values) of one struct value as this process holds it (10.5)."""
        if type(value) is StructValue:
            definition = self._carrier_definition(value)
            writer = self._writers.get((definition, True))
            if writer is None:
                writer = self._writer((definition, True), value.class_id, value.field_names, value.types, None)
            return definition, writer, value.values
        class_id, schema = self._schema(value)
        try:
            types, definition, _ = schema.compile()
        except LookupError as error:  # a field names a struct class not registered yet
            raise SerializationError(f"struct {class_id!r}: {error}", value=value) from None
        writer = self._writers.get((definition, False))
        if writer is None:
            names = [f.name for f in schema.shape.fields]
            writer = self._writer((definition, False), class_id, names, types, attrgetter(*names) if names else None)
        return definition, writer, self._values(writer, value)

    @staticmethod
    def _values(writer: _Writer, value: Any) -> Any:
        get = writer.get
        return () if get is None else get(value) if len(writer.encoders) > 1 else (get(value),)

    def _write_array(self, form: CanonicalWriter, value: Any, out: bytearray, oob: list[Any], depth: int) -> None:
        depth = form.deeper(depth, value)
        table = _TABLE.get()
        if table is None:
            raise SerializationError("a canonical struct is written only by serreg.serialize(..., canonical=True)")
        definition, writer, values = self._row(value)
        index = table.index_of(definition)
        plain = writer.plain
        if plain is not None:  # every field a scalar: one packb of [index, v...]
            out += packb([index, *[convert(item) for convert, item in zip(plain, values)]], use_bin_type=True)
            return
        out += array_header(len(writer.encoders) + 1)
        out += packb(index)
        for encode, item in zip(writer.encoders, values):
            encode(form, item, out, oob, depth)

    def _writer(self, key: Any, class_id: str, names: Any, types: Any, get: Any) -> _Writer:
        # A carrier and a registered class may share a definition but hold other Python values (an
        # enum's name, its member): each has its own writer, under (definition, is a carrier).
        wheres = [f"{class_id}.{n}" for n in names]
        encoders = [field_encoder(t, where, self) for t, where in zip(types, wheres)]
        plain = None
        if all(t.kind in SCALARS for t in types):
            plain = [scalar_value(t, where) for t, where in zip(types, wheres)]
        writer = _Writer(encoders, plain, get, ColumnChecks(types, wheres))
        cache = {} if len(self._writers) >= _CACHE_MAX else dict(self._writers)
        cache[key] = writer
        self._writers = cache
        return writer

    def _carrier_definition(self, value: StructValue) -> bytes:
        definition = self._carrier_definitions.get(value.definition)
        if definition is None:
            definition = canonical_definition(value.class_id, value.field_names, value.types)
            cache = {} if len(self._carrier_definitions) >= _CACHE_MAX else dict(self._carrier_definitions)
            cache[value.definition] = definition
            self._carrier_definitions = cache
        return definition

    def _schema(self, value: Any) -> tuple[str, Any]:
        class_id = self._class_id_of(type(value))
        schema = None if class_id is None else self._schema_of(class_id)
        if class_id is None or schema is None:
            raise CanonicalFormError(f"a {type(value).__qualname__} is not a registered struct", value=value)
        return class_id, schema

    def struct_id(self, value: Any) -> Optional[str]:
        if type(value) is StructValue:
            return value.class_id
        return self._class_id_of(type(value))


@functools.lru_cache(maxsize=4096)
def _hash(class_id: str) -> bytes:
    return class_id_hash(class_id)
