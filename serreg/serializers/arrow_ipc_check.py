"""Checks an Arrow IPC Schema message before any Arrow library reads it.

An ``ArrowTable`` frame carries its schema as an encapsulated Arrow IPC
Schema message: a flatbuffer (docs/FORMAT.md, section 6.4). Arrow libraries
turn that flatbuffer into fields without weighing it: a flatbuffer may point
many times at one table or string (a DAG), and each pointer becomes a copy,
so a few kilobytes can ask for gigabytes; and pyarrow calls the deserializer
of any *registered* extension type a field's metadata names, with bytes the
frame chose, before the caller can look at the field.

This module walks the flatbuffer itself, in pure Python over a memoryview, in
time linear in its size, and raises :class:`DeserializationError` (naming the
byte and the field) unless:

- every offset, table, vtable, vector and string lies inside the message,
  and scalars are aligned as the flatbuffers verifier wants;
- no table, string or vector is reached twice, and all that is reached adds up
  to no more bytes than the message holds (nothing is shared or overlaps, so
  what Arrow builds from it grows with its size; vtables, which writers share
  on purpose, are read only a few bytes at a time);
- fields nest at most :data:`MAX_DEPTH` deep and each has the children its
  type needs; only the types of section 6.4 occur, with parameters that go
  together (``arrow_ipc_types.py``), the schema is little-endian and the
  message is a version 4 or 5 Schema message without a body.

It returns the counts a reader charges against its memory budget, and where
each extension-type name (``ARROW:extension:name``) lies, so the reader can
hide the ones whose Python code it must not run before pyarrow reads the
message (``arrow_extension.py``). The layout read here is Arrow's
``Message.fbs`` and ``Schema.fbs``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import NoReturn, Any, Optional

from ..errors import DeserializationError

from .arrow_ipc_types import MAP, STRUCT, TYPES, check_dictionary, check_type, refused_type

__all__ = ["MAX_DEPTH", "EXTENSION_KEYS", "EXTENSION_NAME", "HIDDEN_EXTENSION_NAME", "SchemaShape",
           "check_schema_message"]

# Arrow Java refuses deeper fields too (docs/FORMAT.md, section 4.3).
MAX_DEPTH = 64

# Field metadata keys of extension types; the name makes pyarrow look up a registered extension type
# and run its deserializer.
EXTENSION_NAME = b"ARROW:extension:name"
EXTENSION_KEYS = frozenset({EXTENSION_NAME, b"ARROW:extension:metadata"})
# What a reader turns an extension name key into (in its own copy of the message) to keep pyarrow from
# resolving it; a frame may not use it itself.
HIDDEN_EXTENSION_NAME = b"\x00" + EXTENSION_NAME[1:]

_CONTINUATION = b"\xff\xff\xff\xff"
_U8 = struct.Struct("<B")
_U16 = struct.Struct("<H")
_I16 = struct.Struct("<h")
_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")
_I64 = struct.Struct("<q")
_VTABLES: dict[Any, Any] = {}  # field count -> the Struct that reads a vtable's field offsets

# MessageHeader union: 1 = Schema. MetadataVersion: V4 = 3, V5 = 4.
_SCHEMA_HEADER = 1
_VERSIONS = (3, 4)



@dataclass(frozen=True)
class SchemaShape:
    """What a checked Schema message holds: ``fields`` (every field, children
    included), ``depth`` (deepest nesting, 1 for flat columns), ``columns``
    (top-level fields), ``metadata_entries`` and ``string_bytes`` (names,
    metadata keys and values, time zones)."""

    columns: int
    fields: int
    depth: int
    metadata_entries: int
    string_bytes: int
    extensions: tuple[Any, ...] = ()  # (byte of the message where an ARROW:extension:name key starts, the name)


class _Flatbuffer:
    """Bounds-checked reads of one flatbuffer; every object reached is claimed once."""

    __slots__ = ("view", "size", "base", "claimed", "reached", "where")

    def __init__(self, view: memoryview, base: int) -> None:
        self.view = view
        self.size = view.nbytes
        self.base = base  # where the flatbuffer starts in the message, for error offsets
        self.claimed: set[Any] = set()
        self.reached = 0
        self.where: Optional[tuple[Any, ...]] = None  # (where the parent is, child index, field name) of the field being read

    def fail(self, problem: str, position: int) -> NoReturn:
        raise DeserializationError(
            f"invalid Arrow schema message: {problem} (in {_describe(self.where)}, at byte {self.base + position} "
            "of the message)"
        )

    def _claim(self, position: int, nbytes: int, what: str) -> None:
        if position in self.claimed:
            self.fail(f"the {what} at byte {self.base + position} is reached a second time; Arrow would copy it once "
                      "per reference, so shared parts (a DAG) are refused", position)
        self.claimed.add(position)
        self.reached += nbytes
        if self.reached > self.size:
            self.fail(f"its tables, strings and vectors add up to more than its {self.size} bytes: parts overlap",
                      position)

    def _target(self, position: int) -> int:
        """The object a uoffset at ``position`` points to (offsets point forward only, never at themselves)."""
        offset: int = _U32.unpack_from(self.view, position)[0]
        if offset == 0:
            self.fail("an offset of 0 points at itself", position)
        target = position + offset
        if target >= self.size:
            self.fail(f"an offset points to byte {self.base + target}, past the end", position)
        return target

    def table(self, position: int, what: str) -> "_Table":
        if position % 4 or position + 4 > self.size:
            self.fail(f"a {what} table at byte {self.base + position} is misaligned or past the end", position)
        vtable = position - _I32.unpack_from(self.view, position)[0]
        if vtable < 0 or vtable % 2 or vtable + 4 > self.size:
            self.fail(f"the vtable of a {what} table lies outside the message", position)
        vtable_size, table_size = struct.unpack_from("<HH", self.view, vtable)
        if vtable_size < 4 or vtable_size % 2 or vtable + vtable_size > self.size:
            self.fail(f"the vtable of a {what} table has an invalid size {vtable_size}", vtable)
        if table_size < 4 or position + table_size > self.size:
            self.fail(f"a {what} table of {table_size} bytes runs past the end", position)
        self._claim(position, table_size, f"{what} table")
        return _Table(self, position, vtable, vtable_size, table_size, what)

    def vector(self, position: int, element_size: int, what: str) -> tuple[Any, ...]:
        """(first element, count) of the vector at ``position``."""
        if position % 4 or position + 4 > self.size:
            self.fail(f"the {what} vector is misaligned or past the end", position)
        count = _U32.unpack_from(self.view, position)[0]
        nbytes = 4 + count * element_size
        if nbytes > self.size - position:
            self.fail(f"the {what} vector declares {count} elements, more than the message holds", position)
        self._claim(position, nbytes, f"{what} vector")
        return position + 4, count

    def string(self, position: int, what: str) -> bytes:
        if position % 4 or position + 4 > self.size:
            self.fail(f"the {what} string is misaligned or past the end", position)
        length = _U32.unpack_from(self.view, position)[0]
        if length + 5 > self.size - position:
            self.fail(f"the {what} string declares {length} bytes, more than the message holds", position)
        if self.view[position + 4 + length] != 0:
            self.fail(f"the {what} string is not NUL-terminated", position + 4 + length)
        self._claim(position, length + 5, f"{what} string")
        return bytes(self.view[position + 4: position + 4 + length])


class _Table:
    __slots__ = ("buffer", "position", "slots", "table_size", "what")

    def __init__(self, buffer: _Flatbuffer, position: int, vtable: int, vtable_size: int, table_size: int,
                 what: str) -> None:
        self.buffer = buffer
        self.position = position
        count = (vtable_size - 4) // 2
        layout = _VTABLES.get(count)
        if layout is None:
            layout = _VTABLES[count] = struct.Struct(f"<{count}H")
        self.slots = layout.unpack_from(buffer.view, vtable + 4)  # field offsets, 0 = absent
        self.table_size = table_size
        self.what = what

    def _slot(self, index: int, size: int) -> Optional[int]:
        slots = self.slots
        if index >= len(slots) or not slots[index]:
            return None
        offset: int = slots[index]
        position: int = self.position + offset
        if offset + size > self.table_size or position % size:
            self.buffer.fail(f"field {index} of a {self.what} table is misaligned or outside the table", position)
        return position

    def present(self, index: int) -> bool:
        """Whether the table has field ``index``."""
        return index < len(self.slots) and self.slots[index] != 0

    def scalar(self, index: int, kind: struct.Struct, default: Any) -> Any:
        position = self._slot(index, kind.size)
        return default if position is None else kind.unpack_from(self.buffer.view, position)[0]

    def table(self, index: int, what: str) -> Optional[_Table]:
        position = self._slot(index, 4)
        return None if position is None else self.buffer.table(self.buffer._target(position), what)

    def string(self, index: int, what: str) -> Optional[bytes]:
        position = self._slot(index, 4)
        return None if position is None else self.buffer.string(self.buffer._target(position), what)

    def string_start(self, index: int) -> int:
        """Where the bytes of the (already read) string in slot ``index`` start, in the message."""
        position = self._slot(index, 4)
        assert position is not None  # the string was read from this slot
        return self.buffer.base + self.buffer._target(position) + 4

    def int32_vector(self, index: int, what: str) -> Optional[list[int]]:
        """The values of a vector of int32 (None if absent)."""
        position = self._slot(index, 4)
        if position is None:
            return None
        first, count = self.buffer.vector(self.buffer._target(position), 4, what)
        return list(struct.unpack_from(f"<{count}i", self.buffer.view, first))

    def tables(self, index: int, what: str) -> list[Any]:
        """The tables of a vector of tables (empty if absent)."""
        position = self._slot(index, 4)
        if position is None:
            return []
        buffer = self.buffer
        first, count = buffer.vector(buffer._target(position), 4, what)
        return [buffer.table(buffer._target(first + 4 * i), what) for i in range(count)]

    def vector(self, index: int, element_size: int, what: str) -> None:
        """Check a vector of scalars (its contents are not needed)."""
        position = self._slot(index, 4)
        if position is not None:
            self.buffer.vector(self.buffer._target(position), element_size, what)


class _Counts:
    __slots__ = ("fields", "depth", "metadata_entries", "string_bytes", "extensions")

    def __init__(self) -> None:
        self.fields = self.depth = self.metadata_entries = self.string_bytes = 0
        self.extensions: list[Any] = []


def check_schema_message(message: Any, *, untrusted: bool) -> SchemaShape:
    """Check an encapsulated IPC Schema message (bytes-like); return its shape.

    ``untrusted`` is kept for callers; extension names are reported in the
    shape in every mode, and the reader decides (arrow_extension.py).
    """
    view = memoryview(message).cast("B")
    size = view.nbytes
    if size < 8 or view[:4] != _CONTINUATION:
        raise DeserializationError(
            "invalid Arrow schema message: it does not start with the IPC continuation marker 0xFFFFFFFF "
            "(the pre-1.0 IPC format is not read)"
        )
    length = _I32.unpack_from(view, 4)[0]
    if length < 8 or 8 + length != size:
        raise DeserializationError(
            f"invalid Arrow schema message: its flatbuffer is said to be {length} bytes, but {size - 8} follow"
        )
    buffer = _Flatbuffer(view[8:], 8)
    counts = _Counts()
    message_table = buffer.table(buffer._target(0), "Message")
    version = message_table.scalar(0, _I16, 0)
    if version not in _VERSIONS:
        buffer.fail(f"metadata version {version} is not V4 or V5", 0)
    header_type = message_table.scalar(1, _U8, 0)
    if header_type != _SCHEMA_HEADER:
        buffer.fail(f"the message is not a Schema message (header type {header_type})", 0)
    if message_table.scalar(3, _I64, 0) != 0:
        buffer.fail("a Schema message has no body, but this one declares one", 0)
    _metadata(buffer, message_table, 4, counts)
    schema = message_table.table(2, "Schema")
    if schema is None:
        buffer.fail("the message has no schema", 0)
    if schema.scalar(0, _I16, 0) != 0:
        buffer.fail("the schema is big-endian; serreg's Arrow buffers are little-endian", schema.position)
    _metadata(buffer, schema, 2, counts)
    schema.vector(3, 8, "features")
    if not schema.present(1):  # Arrow C++ refuses a schema without a fields vector
        buffer.fail("the schema has no fields vector", schema.position)
    columns = schema.tables(1, "Field")
    # Depth-first, without recursion: (field table, depth, where it is, type tag of its parent).
    stack = [(field, 1, (None, i, None), 0) for i, field in reversed(list(enumerate(columns)))]
    while stack:
        stack.extend(_check_field(buffer, *stack.pop(), counts))
    return SchemaShape(len(columns), counts.fields, counts.depth, counts.metadata_entries, counts.string_bytes,
                       tuple(counts.extensions))


def _metadata(buffer: _Flatbuffer, table: _Table, index: int, counts: _Counts, field: bool = False) -> None:
    for entry in table.tables(index, "KeyValue"):
        key = entry.string(0, "metadata key")
        value = entry.string(1, "metadata value")
        if key is None or value is None:  # Arrow C++ refuses them too
            buffer.fail(f"a metadata entry has no {'key' if key is None else 'value'}", entry.position)
        counts.metadata_entries += 1
        counts.string_bytes += len(key) + len(value)
        if key == HIDDEN_EXTENSION_NAME:
            buffer.fail(f"the metadata key {key!r} is reserved (docs/FORMAT.md, section 6.4)", entry.position)
        if key == EXTENSION_NAME:
            if not field:
                buffer.fail("only a field's metadata may name an extension type", entry.position)
            counts.extensions.append((entry.string_start(0), value))


def _check_field(buffer: _Flatbuffer, field: _Table, depth: int, where: tuple[Any, ...], parent_tag: int,
                 counts: _Counts) -> list[Any]:
    """Check one field; return its children as stack entries (in reverse, so they are visited in order)."""
    buffer.where = where
    name = field.string(0, "field name") or b""
    try:
        name.decode("utf-8")
    except UnicodeDecodeError as error:
        buffer.fail(f"the field name is not UTF-8 ({error.reason})", field.position)
    where = buffer.where = (where[0], where[1], name)
    counts.fields += 1
    counts.string_bytes += len(name)
    if depth > counts.depth:
        counts.depth = depth
        if depth > MAX_DEPTH:
            buffer.fail(f"fields are nested more than {MAX_DEPTH} deep", field.position)
    field.scalar(1, _U8, 0)  # nullable: any byte is read as a bool
    tag = field.scalar(2, _U8, 0)
    refused = refused_type(tag)
    if refused is not None:
        buffer.fail(f"the field has {refused} (docs/FORMAT.md, section 6.4)", field.position)
    type_name, child_count = TYPES[tag]
    type_table = field.table(3, type_name)
    if type_table is None:
        buffer.fail("the field has no type table", field.position)
    children = field.tables(5, "Field")
    check_type(buffer, tag, type_table, counts, len(children))
    encoding = field.table(4, "DictionaryEncoding")
    if encoding is not None:
        check_dictionary(buffer, encoding)
    _metadata(buffer, field, 6, counts, field=True)
    if child_count is not None and len(children) != child_count:
        buffer.fail(f"a {type_name} field needs {child_count} child field(s), this one has {len(children)}",
                    field.position)
    if parent_tag == MAP and (tag != STRUCT or len(children) != 2):
        buffer.fail("the child of a Map field must be a struct of key and value", field.position)
    return [(child, depth + 1, (where, i, None), tag) for i, child in reversed(list(enumerate(children)))]


def _describe(where: Any) -> str:
    """'column 2 ('b') > child 0 ('item')' for a (parent, index, name) chain; None is the message itself."""
    if where is None:
        return "the message"
    parts = []
    while where is not None:
        parent, index, name = where
        label = f"column {index}" if parent is None else f"child {index}"
        if name is not None:
            label += f" ({name.decode('utf-8', 'replace')[:60]!r})"
        parts.append(label)
        where = parent
    return " > ".join(reversed(parts))
