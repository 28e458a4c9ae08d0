"""Hand-made Arrow IPC Schema messages, for tests that feed readers hostile flatbuffers.

A tiny flatbuffer writer: objects (tables, strings, vectors) are Python
objects that may be referenced any number of times, so a test can build what
no Arrow writer makes (one name string shared by every field, a DAG of
children). ``schema_message(fields)`` wraps fields in a Schema message, as
``pyarrow.Schema.serialize()`` would.
"""

from __future__ import annotations

import struct

_SIZES = {"u8": 1, "bool": 1, "i16": 2, "i32": 4, "i64": 8, "ref": 4}
_FORMATS = {"u8": "<B", "bool": "<B", "i16": "<h", "i32": "<i", "i64": "<q"}


class String:
    def __init__(self, data) -> None:
        self.data = data.encode() if isinstance(data, str) else bytes(data)

    def children(self):
        return []

    def size(self) -> int:
        return 4 + len(self.data) + 1


class Vector:
    """A vector of references (``refs``) or of scalars of one kind (``scalars``, ``kind``)."""

    def __init__(self, refs=(), scalars=(), kind="i64") -> None:
        self.refs = list(refs)
        self.scalars = list(scalars)
        self.kind = kind

    def children(self):
        return self.refs

    def size(self) -> int:
        return 4 + (4 * len(self.refs) if self.refs else _SIZES[self.kind] * len(self.scalars))


class Table:
    """``fields``: {field index: (kind, value)}, kind one of u8 bool i16 i32 i64 ref."""

    def __init__(self, fields=None) -> None:
        self.fields = dict(fields or {})

    def children(self):
        return [value for kind, value in self.fields.values() if kind == "ref" and value is not None]

    def vtable_size(self) -> int:
        return 4 + 2 * (max(self.fields) + 1 if self.fields else 0)

    def layout(self):
        """(field index -> offset in the table, inline size of the table)."""
        offsets = {}
        position = 4
        for index, (kind, _) in sorted(self.fields.items(), key=lambda item: -_SIZES[item[1][0]]):
            size = _SIZES[kind]
            position = (position + size - 1) // size * size
            offsets[index] = position
            position += size
        return offsets, position

    def size(self) -> int:
        return _align(self.vtable_size(), 8) + _align(self.layout()[1], 8)


def _align(n: int, to: int) -> int:
    return (n + to - 1) // to * to


def _order(root) -> list:
    """Every object reachable from ``root``, each once, every referrer before what it refers to."""
    seen = set()
    postorder = []
    stack = [(root, iter(root.children()))]
    seen.add(id(root))
    while stack:
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            postorder.append(node)
            stack.pop()
        elif id(child) not in seen:
            seen.add(id(child))
            stack.append((child, iter(child.children())))
    return postorder[::-1]


def build(root: Table) -> bytes:
    """The flatbuffer whose root table is ``root``."""
    objects = _order(root)
    positions = {}  # id -> where the object (a table: its table part, not its vtable) starts
    position = 8
    for obj in objects:
        if isinstance(obj, Table):
            positions[id(obj)] = position + _align(obj.vtable_size(), 8)
        else:
            positions[id(obj)] = position
        position += _align(obj.size(), 8)
    out = bytearray(position)
    struct.pack_into("<I", out, 0, positions[id(root)])
    for obj in objects:
        start = positions[id(obj)]
        if isinstance(obj, String):
            struct.pack_into("<I", out, start, len(obj.data))
            out[start + 4: start + 4 + len(obj.data)] = obj.data
        elif isinstance(obj, Vector):
            count = len(obj.refs) or len(obj.scalars)
            struct.pack_into("<I", out, start, count)
            for i, ref in enumerate(obj.refs):
                here = start + 4 + 4 * i
                struct.pack_into("<I", out, here, positions[id(ref)] - here)
            for i, value in enumerate(obj.scalars):
                struct.pack_into(_FORMATS[obj.kind], out, start + 4 + _SIZES[obj.kind] * i, value)
        else:
            offsets, inline = obj.layout()
            vtable = start - _align(obj.vtable_size(), 8)
            struct.pack_into("<HH", out, vtable, obj.vtable_size(), inline)
            struct.pack_into("<i", out, start, start - vtable)
            for index, (kind, value) in obj.fields.items():
                struct.pack_into("<H", out, vtable + 4 + 2 * index, offsets[index])
                here = start + offsets[index]
                if kind == "ref":
                    struct.pack_into("<I", out, here, positions[id(value)] - here)
                else:
                    struct.pack_into(_FORMATS[kind], out, here, value)
    return bytes(out)


# ---------------------------------------------------------------------- Arrow's Schema.fbs

TYPE_TAGS = {"Null": 1, "Int": 2, "FloatingPoint": 3, "Binary": 4, "Utf8": 5, "Bool": 6, "Decimal": 7,
             "Date": 8, "Time": 9, "Timestamp": 10, "Interval": 11, "List": 12, "Struct_": 13, "Union": 14,
             "FixedSizeBinary": 15, "FixedSizeList": 16, "Map": 17, "Duration": 18, "LargeBinary": 19,
             "LargeUtf8": 20, "LargeList": 21, "Utf8View": 24}


def key_value(key, value) -> Table:
    return Table({0: ("ref", key if isinstance(key, String) else String(key)),
                  1: ("ref", value if isinstance(value, String) else String(value))})


def field(name, type_name="Null", type_table=None, children=(), metadata=(), nullable=True) -> Table:
    """A Field table; ``name`` may be a String shared with other fields."""
    fields = {0: ("ref", name if isinstance(name, String) else String(name)), 1: ("bool", int(nullable)),
              2: ("u8", TYPE_TAGS[type_name]), 3: ("ref", type_table if type_table is not None else Table())}
    if children:
        fields[5] = ("ref", children if isinstance(children, Vector) else Vector(refs=children))
    if metadata:
        fields[6] = ("ref", Vector(refs=[key_value(k, v) for k, v in metadata]))
    return Table(fields)


def int_type(bits=64, signed=True) -> Table:
    return Table({0: ("i32", bits), 1: ("bool", int(signed))})


def schema_message(fields, metadata=(), big_endian=False) -> bytes:
    """An encapsulated IPC Schema message (continuation, length, flatbuffer) holding ``fields``."""
    schema_fields = {0: ("i16", int(big_endian)), 1: ("ref", fields if isinstance(fields, Vector) else Vector(refs=fields))}
    if metadata:
        schema_fields[2] = ("ref", Vector(refs=[key_value(k, v) for k, v in metadata]))
    message = Table({0: ("i16", 4), 1: ("u8", 1), 2: ("ref", Table(schema_fields)), 3: ("i64", 0)})
    flatbuffer = build(message)
    return b"\xff\xff\xff\xff" + struct.pack("<i", len(flatbuffer)) + flatbuffer
