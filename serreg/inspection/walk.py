"""Walks the in-band sections of a frame for ``serreg inspect``, without recursion.

``serreg inspect`` promises that untrusted files are safe to look at, so the
walk obeys the decoder's limits and keeps no promise to anyone else's code:

- msgpack is read here, in pure Python, one item at a time from an explicit
  stack: nesting costs no C stack and no Python recursion, so neither deep
  files nor small thread stacks can crash it; containers nest at most
  :data:`~serreg.limits.MSGPACK_MAX_NESTING` deep inside one section and
  nested values (ext type 0) at most ``Limits.max_depth`` deep;
- maps become lists of (key, value) pairs, never dicts: no key is hashed, so
  keys with colliding hashes cost nothing extra;
- every item is charged against the memory budget of ``Limits`` (allowance
  plus ``memory_per_byte`` times the input's size) before it is kept;
- a declared length is checked against the bytes that follow before anything
  is read for it.

Each nested value becomes a :class:`ValueNode`; out-of-band buffers are given
to the values that own them in document order, as a reader would take them
(docs/FORMAT.md, section 3).
"""

from __future__ import annotations

import pickletools
import struct
from dataclasses import dataclass
from typing import Any, Optional

from ..codec.layout import NESTED_EXT_TYPE
from ..errors import DeserializationError, LimitExceededError
from ..limits import MSGPACK_MAX_NESTING, DecodeState, Limits
from ..standard import (
    ARROW_CHUNKED_ARRAY_CLASS_ID,
    ARROW_RECORD_BATCH_CLASS_ID,
    ARROW_SCHEMA_CLASS_ID,
    ARROW_TABLE_CLASS_ID,
    ARROW_TENSOR_CLASS_ID,
    FALLBACK_CLASS_ID,
    MASKED_ARRAY_CLASS_ID,
    NDARRAY_CLASS_ID,
    NUMPY_GENERIC_CLASS_IDS,
    PANDAS_DATAFRAME_CLASS_ID,
    PANDAS_SERIES_CLASS_ID,
    PYOBJECTS_CLASS_ID,
    STRUCTS_CLASS_ID,
)
from ..wire.class_id import CLASS_ID_HASH_SIZE

__all__ = ["Bin", "MapEntries", "ValueNode", "Walker"]

# Class IDs whose in-band is the ArrowTable one (docs/FORMAT.md, 6.4 and 6.5): their nodes say their buffers.
ARROW_CLASS_IDS = frozenset({ARROW_TABLE_CLASS_ID, ARROW_RECORD_BATCH_CLASS_ID, ARROW_CHUNKED_ARRAY_CLASS_ID,
                             ARROW_SCHEMA_CLASS_ID, PANDAS_DATAFRAME_CLASS_ID, PANDAS_SERIES_CLASS_ID})
# Standard class IDs that take exactly one out-of-band buffer of their own.
_ONE_BUFFER = frozenset({"bytearray", "memoryview", NDARRAY_CLASS_ID, ARROW_TENSOR_CLASS_ID, *NUMPY_GENERIC_CLASS_IDS.values()})
# What one msgpack item costs kept in the report, at most (CPython 3.11, measured): a pointer to
# it, plus for a container its list (80 bytes and a pointer per item), for a str its object
# (49 bytes and its text), for a bin a Bin (about 100 bytes), for a nested value its ValueNode.
ITEM_COST = 16
CONTAINER_COST = 96
STR_COST = 64
BIN_COST = 128
SECTION_COST = 256
_BIN_HEAD = 16


@dataclass(eq=False)
class Bin:
    """A msgpack bin value: its length and its first bytes."""

    length: int
    head: bytes


class MapEntries(list[tuple[Any, Any]]):
    """A msgpack map's entries, in order, as (key, value) pairs (keys need not be strings)."""


@dataclass(eq=False)
class ValueNode:
    """One serialized value: an in-band section (ClassIDHash + serializer in-band).

    ``value`` is the decoded msgpack in-band, with nested values as ValueNodes
    (None when it was not walked); ``buffers`` the indices of the out-of-band
    buffers the value's own serializer takes (None when unknown).
    """

    class_hash: bytes
    class_id: Optional[str]
    in_band_length: int
    buffers: Optional[list[int]] = None
    value: object = None
    walked: bool = False
    note: Optional[str] = None


_FIXED = {0xC0: None, 0xC2: False, 0xC3: True}
_UINTS = {0xCC: struct.Struct(">B"), 0xCD: struct.Struct(">H"), 0xCE: struct.Struct(">I"), 0xCF: struct.Struct(">Q")}
_INTS = {0xD0: struct.Struct(">b"), 0xD1: struct.Struct(">h"), 0xD2: struct.Struct(">i"), 0xD3: struct.Struct(">q")}
_FLOATS = {0xCA: struct.Struct(">f"), 0xCB: struct.Struct(">d")}
_LENGTHS = {1: struct.Struct(">B"), 2: struct.Struct(">H"), 4: struct.Struct(">I")}
_BIN = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_STR = {0xD9: 1, 0xDA: 2, 0xDB: 4}
_EXT = {0xC7: 1, 0xC8: 2, 0xC9: 4}
_FIXEXT = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}
_ARRAY = {0xDC: 2, 0xDD: 4}
_MAP = {0xDE: 2, 0xDF: 4}


class _Invalid(Exception):
    """Bad msgpack inside a section; reported with the section's class ID."""


class _Container:
    __slots__ = ("items", "remaining", "is_map", "key", "has_key")

    def __init__(self, count: int, is_map: bool) -> None:
        self.items = MapEntries() if is_map else []
        self.remaining = count
        self.is_map = is_map
        self.key = None
        self.has_key = False


class _Section:
    """A section being walked: its node, its body and the containers open in it."""

    __slots__ = ("node", "body", "position", "containers", "root")

    def __init__(self, node: ValueNode, body: memoryview) -> None:
        self.node = node
        self.body = body
        self.position = 0
        self.containers: list[Any] = []
        self.root = None


class Walker:
    """Walks in-band sections in document order, handing out buffer indices as a reader would."""

    def __init__(self, names: dict[Any, Any], buffer_count: int, limits: Limits, budget: DecodeState) -> None:
        self.names = names
        self.buffer_count = buffer_count
        self.owners: list[Any] = [None] * buffer_count  # class ID (or hash hex) of the value taking each buffer
        self.max_depth = limits.max_depth
        self.budget = budget
        self.next_buffer = 0
        self.lost = False  # True after a value whose buffer count is unknown
        self.msgpack_class_ids: frozenset[Any] = frozenset()

    def walk(self, in_band: memoryview, msgpack_class_ids: frozenset[str]) -> ValueNode:
        """The tree of the frame's in-band section (the top-level value)."""
        self.msgpack_class_ids = msgpack_class_ids
        root = self._open(in_band, top=True)
        if not isinstance(root, _Section):
            return root
        stack = [root]
        while True:
            section = stack[-1]
            try:
                item = self._next_item(section, len(stack))
            except _Invalid as error:
                raise DeserializationError(f"the {section.node.class_id} in-band is not valid msgpack: {error}") from None
            while True:  # hand the finished item to whatever holds it
                if isinstance(item, _Section):
                    stack.append(item)
                    break
                if section.containers:
                    container = section.containers[-1]
                    if not self._add(container, item):
                        break
                    section.containers.pop()
                    item = container.items
                    continue
                if section.position != section.body.nbytes:
                    raise DeserializationError(
                        f"the {section.node.class_id} in-band is not valid msgpack: "
                        f"{section.body.nbytes - section.position} bytes after its value"
                    )
                node = self._close(section, item)
                stack.pop()
                if not stack:
                    return node
                section = stack[-1]
                item = node

    # ------------------------------------------------------------------ sections

    def _open(self, section: memoryview, top: bool = False) -> ValueNode | _Section:
        """A ValueNode for a section that is not walked, or a _Section to walk."""
        if section.nbytes < CLASS_ID_HASH_SIZE:
            raise DeserializationError(f"a nested in-band section of {section.nbytes} bytes cannot hold a ClassIDHash")
        self.budget.charge(SECTION_COST, "inspected values")
        class_hash = bytes(section[:CLASS_ID_HASH_SIZE])
        body = section[CLASS_ID_HASH_SIZE:]
        class_id = self.names.get(class_hash)
        node = ValueNode(class_hash, class_id, body.nbytes)
        if class_id in self.msgpack_class_ids:
            return _Section(node, body)
        if class_id == FALLBACK_CLASS_ID:
            node.note = "pickle protocol 5 (scanned, not unpickled)"
            self._take(node, _pickle_buffer_count(body))
        else:
            if class_id == STRUCTS_CLASS_ID:
                node.note = "a struct table and the value after it (docs/FORMAT.md section 10): not walked"
            elif class_id == PYOBJECTS_CLASS_ID:
                node.note = ("plain Python objects: their pickled classes (not unpickled), then a struct table and the "
                             "value after it (docs/FORMAT.md section 10.9): not walked")
            else:
                node.note = "not a standard class ID: its in-band is not walked" if class_id else "unknown class ID"
            # Whose buffers are whose is certain only where docs/FORMAT.md, section 3, says so:
            # the top-level value owns every buffer, and none are left to own after the last one.
            if top:
                self._take(node, self.buffer_count - self.next_buffer)
            elif self.next_buffer == self.buffer_count:
                self._take(node, 0)
            else:
                self.lost = True
        return node

    def _close(self, section: _Section, value: Any) -> ValueNode:
        node = section.node
        node.value = value
        node.walked = True
        self._take(node, _own_buffer_count(node.class_id, value))
        return node

    def _take(self, node: ValueNode, count: int) -> None:
        if self.lost:
            return
        end = self.next_buffer + count
        if end > self.buffer_count:
            raise DeserializationError(
                f"a {node.class_id} value takes out-of-band buffer {end - 1}, but the frame has {self.buffer_count}"
            )
        node.buffers = list(range(self.next_buffer, end))
        owner = node.class_id or node.class_hash.hex()
        for index in node.buffers:
            self.owners[index] = owner
        self.next_buffer = end

    # ------------------------------------------------------------------ msgpack

    @staticmethod
    def _add(container: _Container, item: Any) -> bool:
        """Put ``item`` in ``container``; True when the container is complete."""
        if container.is_map:
            if not container.has_key:
                container.key = item
                container.has_key = True
                return False
            container.items.append((container.key, item))
            container.key = None
            container.has_key = False
        else:
            container.items.append(item)
        container.remaining -= 1
        return container.remaining == 0

    def _next_item(self, section: _Section, sections_open: int) -> Any:
        """Read one item at the section's position: a finished value, or a _Section to walk
        (an ext 0 value), or, for a container, its first item onwards (opened on the stack)."""
        body = section.body
        end = body.nbytes
        while True:
            position = section.position
            if position >= end:
                raise _Invalid("the document ends inside a value")
            self.budget.charge(ITEM_COST, "inspected values")
            byte = body[position]
            section.position = position + 1
            if byte <= 0x7F:
                return byte
            if byte >= 0xE0:
                return byte - 0x100
            if 0xA0 <= byte <= 0xBF:
                return self._str(section, byte & 0x1F)
            if 0x80 <= byte <= 0x9F or byte in _ARRAY or byte in _MAP:
                if byte <= 0x9F:
                    count, is_map = byte & 0x0F, byte <= 0x8F
                else:
                    is_map = byte in _MAP
                    count = self._length(section, _MAP[byte] if is_map else _ARRAY[byte])
                if count == 0:
                    self.budget.charge(CONTAINER_COST, "inspected values")
                    return MapEntries() if is_map else []
                if count * (2 if is_map else 1) > end - section.position:
                    raise _Invalid(f"a container declares {count} items, more than the bytes left can hold")
                self.budget.charge(CONTAINER_COST, "inspected values")
                if len(section.containers) >= MSGPACK_MAX_NESTING:
                    raise LimitExceededError(
                        f"msgpack containers are nested more than {MSGPACK_MAX_NESTING} deep (the decoder's limit)"
                    )
                section.containers.append(_Container(count, is_map))
                continue  # read its first item
            if byte in _FIXED:
                return _FIXED[byte]
            if byte in _UINTS or byte in _INTS or byte in _FLOATS:
                kind = _UINTS.get(byte) or _INTS.get(byte) or _FLOATS[byte]
                return self._unpack(section, kind)
            if byte in _STR:
                return self._str(section, self._length(section, _STR[byte]))
            if byte in _BIN:
                length = self._length(section, _BIN[byte])
                data = self._bytes(section, length)
                self.budget.charge(BIN_COST, "inspected values")
                return Bin(length, bytes(data[:_BIN_HEAD]))
            if byte in _EXT or byte in _FIXEXT:
                length = _FIXEXT[byte] if byte in _FIXEXT else self._length(section, _EXT[byte])
                code = self._unpack(section, _INTS[0xD0])
                payload = self._bytes(section, length)
                if code != NESTED_EXT_TYPE:
                    raise DeserializationError(
                        f"msgpack ext type {code} is not used by serreg (in a {section.node.class_id} in-band)"
                    )
                if self.max_depth is not None and sections_open >= self.max_depth:
                    raise LimitExceededError(
                        f"values are nested more than max_depth={self.max_depth} deep (the decoder's limit)"
                    )
                return self._open(payload)
            raise _Invalid(f"byte 0x{byte:02x} at {position} is not a msgpack type")

    def _bytes(self, section: _Section, length: int) -> memoryview:
        start = section.position
        if length > section.body.nbytes - start:
            raise _Invalid(f"a value declares {length} bytes, but {section.body.nbytes - start} are left")
        section.position = start + length
        return section.body[start:start + length]

    def _unpack(self, section: _Section, kind: struct.Struct) -> int:
        value: int = kind.unpack(self._bytes(section, kind.size))[0]
        return value

    def _length(self, section: _Section, size: int) -> int:
        return self._unpack(section, _LENGTHS[size])

    def _str(self, section: _Section, length: int) -> str:
        data = self._bytes(section, length)
        self.budget.charge(STR_COST + length, "inspected values")
        try:
            return str(data, "utf-8")
        except UnicodeDecodeError as error:
            raise _Invalid(f"a str is not UTF-8 ({error.reason})") from None


def _own_buffer_count(class_id: Optional[str], value: Any) -> int:
    if class_id in _ONE_BUFFER:
        return 1
    if class_id == "bytes":
        return 1 if value is None else 0
    if class_id == MASKED_ARRAY_CLASS_ID:  # the data's buffer, and the mask's unless it is nil (6.2.2)
        return 2 if type(value) is list and len(value) == 4 and value[1] is not None else 1
    if class_id in ARROW_CLASS_IDS:
        count = 0
        if type(value) is list and len(value) == 2 and type(value[1]) is list:
            for batch in value[1]:
                if type(batch) is not list or len(batch) != 2 or type(batch[1]) is not list:
                    break
                for node in batch[1]:
                    if type(node) is not list or len(node) != 3 or type(node[2]) is not int or node[2] < 0:
                        break
                    count += node[2]
                else:
                    continue
                break
            else:
                return count
        raise DeserializationError(
            f"the {class_id} in-band is not [schema, batches] with nodes of [length, null count, buffer count]"
        )
    return 0


def _pickle_buffer_count(body: memoryview) -> int:
    count = 0
    try:
        for opcode, _, _ in pickletools.genops(bytes(body)):
            if opcode.name == "NEXT_BUFFER":
                count += 1
    except Exception as error:  # pickletools reports a broken stream with several exception types
        raise DeserializationError(f"the serreg.pickle5 in-band is not a valid pickle: {error}") from None
    return count
