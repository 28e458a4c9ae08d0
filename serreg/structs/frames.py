"""The struct table of a frame: written after the value, read before it (docs/FORMAT.md, 10.1).

:class:`StructFrames` is what a Registry's encoder and the ``serreg.structs``
serializer call: ``begin``/``finish`` around a serialize call (the table, if
any struct was written, goes in front of the value's section), and
``open_table`` for reading (each definition gets its reader: the registered
class's, or the data carrier's). It also writes and reads carriers.
"""

from __future__ import annotations

from msgpack import Unpacker
from msgpack.exceptions import ExtraData, OutOfData

from ..codec.layout import array_header
from ..errors import DeserializationError, SerregError
from ..wire.class_id import class_id_hash
from .carrier import StructValue
from .compile import compile_writer, is_leaf
from .lists import make_list_writer
from .scope import ENCODE_SCOPE, IMPLICIT_READ, MAX_DEFINITIONS, DecodeScope, EncodeScope
from .types import parse
from .values import read_converter, write_converter
from typing import Optional, NoReturn, Callable, Any

__all__ = ["StructFrames"]

MAX_FIELDS = 65535
_CACHE_MAX = 1024


class StructFrames:
    """Struct tables for one registry; ``schemas`` looks registered classes up by class ID and class."""

    def __init__(self, schemas: Any, structs_hash: bytes) -> None:
        self._schemas = schemas
        self.structs_hash = structs_hash
        self._carrier_writers: dict[Any, Any] = {}
        self._carrier_list_writers: dict[Any, Any] = {}
        self._carrier_readers: dict[Any, Any] = {}
        self._parsed: dict[bytes, tuple[Any, ...]] = {}  # packed definition -> its parse (the same in any registry state)
        # The table of the serialize call running in this context, or None (a C call, no Python frame).
        self.current: Callable[[], Optional[EncodeScope]] = ENCODE_SCOPE.get

    # ------------------------------------------------------------------ writing

    def begin(self) -> Any:
        return ENCODE_SCOPE.set(EncodeScope())

    def finish(self, token: Any, class_hash: bytes, obj: Any, in_band: Any) -> tuple[Any, ...]:
        """(ClassIDHash, in-band) of the value: with the table in front if any struct was written."""
        scope = ENCODE_SCOPE.get()
        ENCODE_SCOPE.reset(token)
        return self._with_table(scope, class_hash, obj, in_band)

    def _with_table(self, scope: Optional[EncodeScope], class_hash: bytes, obj: Any, in_band: Any) -> tuple[Any, ...]:
        if scope is None or not scope.definitions:
            return class_hash, in_band
        if type(obj) is StructValue:
            class_hash = class_id_hash(obj.class_id)
        table = array_header(len(scope.definitions)) + b"".join(scope.definitions)
        return self.structs_hash, b"".join((table, class_hash, in_band or b""))

    def abandon(self, token: Any) -> None:
        ENCODE_SCOPE.reset(token)

    # A table opened only when a struct may be written (the pickle fallback's short way): no token is
    # kept, the variable is set back to None (what it holds outside any serialize call) at the end;
    # ``current()`` tells whether it was opened.

    def open_lazily(self) -> None:
        if ENCODE_SCOPE.get() is None:
            ENCODE_SCOPE.set(EncodeScope())

    def close_lazily(self) -> None:
        if ENCODE_SCOPE.get() is not None:
            ENCODE_SCOPE.set(None)

    def finish_lazily(self, class_hash: bytes, obj: Any, in_band: Any) -> tuple[Any, ...]:
        """``finish`` of a table opened by ``open_lazily``, if it was."""
        scope = ENCODE_SCOPE.get()
        if scope is None:
            return class_hash, in_band
        ENCODE_SCOPE.set(None)
        return self._with_table(scope, class_hash, obj, in_band)

    def reset(self) -> None:
        """Forget the definitions of an attempt that failed (the value is written again)."""
        scope = ENCODE_SCOPE.get()
        if scope is not None:
            scope.index.clear()
            scope.definitions.clear()

    def write_carrier(self, value: StructValue, state: Any) -> Any:
        """The ext 1 of a carrier: its own definition, its values checked against its types."""
        writer = self._carrier_writers.get(value.definition)
        if writer is None:
            converters = [write_converter(t, f"{value.class_id}.{n}", self._schemas)
                          for n, t in zip(value.field_names, value.types)]
            writer = compile_writer(value.definition, value.definition, [f"values[{i}]" for i in range(len(converters))],
                                    [t.kind for t in value.types], converters)
            writers = {} if len(self._carrier_writers) >= _CACHE_MAX else dict(self._carrier_writers)
            writers[value.definition] = writer
            self._carrier_writers = writers
        return writer(_Values(value.values), state)

    def write_carrier_list(self, items: list[StructValue], state: Any) -> Any:
        """The ext 2 of a list of carriers sharing one definition (at least one field): 10.3."""
        first = items[0]
        writer = self._carrier_list_writers.get(first.definition)
        if writer is None:
            converters = [write_converter(t, f"{first.class_id}.{n}", self._schemas)
                          for n, t in zip(first.field_names, first.types)]
            writer = make_list_writer(first.definition, first.definition, first.class_id, list(first.field_names),
                                      first.types, converters, _carrier_column)
            writers = {} if len(self._carrier_list_writers) >= _CACHE_MAX else dict(self._carrier_list_writers)
            writers[first.definition] = writer
            self._carrier_list_writers = writers
        return writer(items, state)

    # ------------------------------------------------------------------ reading

    def open_table(self, in_band: Any) -> tuple[Any, ...]:
        """(DecodeScope, offset of the inner section) of a ``serreg.structs`` in-band."""
        unpacker = Unpacker(raw=False, strict_map_key=False, max_buffer_size=max(len(in_band), 1), ext_hook=_no_ext)
        unpacker.feed(in_band)
        try:
            count = unpacker.read_array_header()
        except (OutOfData, ValueError) as error:
            raise DeserializationError(f"the struct table must be a msgpack array of definitions ({error})") from error
        if count > MAX_DEFINITIONS:
            raise DeserializationError(f"the struct table declares {count} definitions; at most {MAX_DEFINITIONS}")
        readers, class_ids, leaves, plans, layouts = [], [], [], [], []
        implicit = IMPLICIT_READ.get()  # a serreg.pyobjects section's classes (10.9): for this table only
        if implicit is not None:
            IMPLICIT_READ.set(None)
        for index in range(count):
            start = unpacker.tell()
            try:
                definition = unpacker.unpack()
            except SerregError:
                raise
            except (OutOfData, ExtraData) as error:
                raise DeserializationError(f"struct definition {index} is cut short ({type(error).__name__})") from error
            except (ValueError, TypeError, UnicodeDecodeError) as error:
                raise DeserializationError(f"struct definition {index} is not valid msgpack: {error}") from error
            raw = bytes(in_band[start:unpacker.tell()])
            class_id, reader, leaf, plan, layout = self._reader(index, definition, raw, implicit)
            layouts.append(layout)
            readers.append(reader)
            plans.append(plan)
            class_ids.append(class_id)
            if index < 128:
                leaves.append(reader if leaf else None)
        return DecodeScope(readers, class_ids, leaves, plans, layouts), unpacker.tell()

    def _reader(self, index: int, definition: Any, raw: bytes, implicit: Any) -> tuple[Any, ...]:
        parsed = self._parsed.get(raw)
        if parsed is None:
            parsed = self._parse(index, definition)
            cache = {} if len(self._parsed) >= _CACHE_MAX else dict(self._parsed)
            cache[raw] = parsed
            self._parsed = cache
        class_id, names, types, leaf = parsed
        layout = (class_id, names, types)
        if implicit is not None and class_id.startswith(implicit.prefix):
            reader, plan = implicit.take(index, class_id, names, types)
            return class_id, reader, leaf, plan, layout
        schema = self._schemas.by_class_id(class_id)  # asked every time: a class ID may be registered since
        if schema is not None:
            return class_id, schema.reader(raw, names, types), leaf, schema.plan_for(raw), layout
        return class_id, self._carrier_reader(class_id, raw, names, types), leaf, None, layout

    def _parse(self, index: int, definition: Any) -> tuple[Any, ...]:
        """(class ID, field names, field types, whether all are plain scalars) of a definition, checked."""
        where = f"struct definition {index}"
        if type(definition) is not list or len(definition) != 2 or type(definition[0]) is not str or not definition[0]:
            raise DeserializationError(f"{where} must be [class ID: str, fields: array]")
        class_id, fields = definition
        where = f"struct definition {index} ({class_id!r})"
        if type(fields) is not list or len(fields) > MAX_FIELDS:
            raise DeserializationError(f"{where}: fields must be an array of at most {MAX_FIELDS} [name, type]")
        names, types = [], []
        for field in fields:
            if type(field) is not list or len(field) != 2 or type(field[0]) is not str or not field[0]:
                raise DeserializationError(f"{where}: every field must be [name: non-empty str, type]")
            names.append(field[0])
            types.append(parse(field[1], f"{class_id}.{field[0]}"))
        if len(set(names)) != len(names):
            raise DeserializationError(f"{where}: field names repeat")
        return class_id, names, types, is_leaf([t.kind for t in types])

    def _carrier_reader(self, class_id: str, raw: bytes, names: list[Any], types: list[Any]) -> Callable[[Any], Any]:
        reader: Optional[Callable[[Any], Any]] = self._carrier_readers.get(raw)
        if reader is not None:
            return reader
        converters = [read_converter(t, t, f"{class_id}.{n}", self._schemas) for n, t in zip(names, types)]
        field_names, field_types, expected = tuple(names), tuple(types), len(names) + 1

        def read(items: Any) -> StructValue:
            if len(items) != expected:
                raise DeserializationError(
                    f"struct {class_id!r}: an instance array holds {len(items) - 1} field value(s), its definition "
                    f"declares {expected - 1}"
                )
            values = tuple(convert(item) for convert, item in zip(converters, items[1:]))
            return StructValue(class_id, field_names, values, raw, field_types)

        readers = {} if len(self._carrier_readers) >= _CACHE_MAX else dict(self._carrier_readers)
        readers[raw] = read
        self._carrier_readers = readers
        return read


def _carrier_column(items: list[StructValue], position: int) -> list[Any]:
    return [item.values[position] for item in items]


class _Values:
    """A carrier's values seen as attributes ``values[i]`` by the generated writer."""

    __slots__ = ("values",)

    def __init__(self, values: tuple[Any, ...]) -> None:
        self.values = values

    def __getattr__(self, name: str) -> Any:
        if name.startswith("values["):
            return self.values[int(name[7:-1])]
        raise AttributeError(name)


def _no_ext(code: Any, data: Any) -> NoReturn:
    raise DeserializationError(f"msgpack ext type {code} inside a struct definition")


