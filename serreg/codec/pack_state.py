"""What a Packer's ``default`` needs to know about the pure codec's pack() call it serves.

:class:`PackState` is the ``state`` struct writers (ext 1 and ext 2, docs/FORMAT.md
section 10) are called with; :func:`substitute` marks, in a value tree, what msgpack
would pack by itself but must not (``Later``) and the lists written as ext 2
(``StructList``), both written when msgpack reaches them, in document order.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

from msgpack import ExtType, Packer, Unpacker

from ..errors import SerializationError

from ..result import SerializationResult
from ..structs.carrier import StructValue
from .layout import NESTED_EXT_TYPE
from .scan import holds_any
from .stack import WRITE_DEPTH

__all__ = ["EncodeNested", "Later", "PACKED_BY_MSGPACK", "PackState", "StructList", "check_whole", "substitute"]

# Runs one nested value through its serializer: (its ClassIDHash, its serializer's result).
EncodeNested = Callable[[object], "tuple[bytes, SerializationResult]"]

# What msgpack packs by itself (bytearray and memoryview aside, see scan.py).
PACKED_BY_MSGPACK = frozenset((type(None), bool, int, float, str, bytes, list, dict))


class PackState:
    """What a Packer's ``default`` needs to know about the pack() call it serves.

    Struct writers (ext 1, docs/FORMAT.md section 10) get it as their ``state``:
    ``pack_inner`` packs their instance array with this same ``default`` (one
    Packer per level of structs inside structs), ``any_value`` readies a field
    of type ``any``, ``sort_key`` orders the members of a set field,
    ``struct_list`` marks a list of instances of one definition to be written
    as ext 2 (10.3) when msgpack reaches it.
    """

    __slots__ = ("encode_nested", "oob", "ext_writers", "list_writers", "rewrite", "rewritten", "scan", "snapshot",
                 "inner", "level", "pack_leaf", "calls")

    def __init__(self, encode_nested: EncodeNested) -> None:
        self.encode_nested = encode_nested
        self.oob: Optional[list[Any]] = None
        self.ext_writers: Mapping[Any, Any] = {}
        self.list_writers: Mapping[Any, Any] = {}
        self.rewrite: tuple[Any, ...] = ()
        self.rewritten: frozenset[Any] = frozenset()
        self.scan: tuple[Any, ...] = ()  # what a tree must hold to be rewritten: rewrite, and every struct type
        self.snapshot: Any = None
        self.inner: list[Any] = []  # Packers for struct instance arrays, one per nesting level
        self.level = 0
        self.calls = 0  # calls of ``default`` so far: Python code that may have changed the value being packed
        # Packs the instance array of a struct of plain scalars (it calls no default, never nests).
        self.pack_leaf = Packer(strict_types=True, use_bin_type=True, autoreset=True).pack

    def pack_inner(self, items: list[Any]) -> bytes:
        level = self.level
        inner = self.inner
        if level == len(inner):
            inner.append(Packer(default=self.nested, strict_types=True, use_bin_type=True, autoreset=True))
        self.level = level + 1
        calls = self.calls
        plain = WRITE_DEPTH.enter_plain(items)  # the lists and dicts in its fields, on the Packer's walk
        try:
            packed: bytes = inner[level].pack(items)
        finally:
            WRITE_DEPTH.leave_plain(plain)
            self.level = level
        if self.calls != calls:
            check_whole(packed)
        return packed

    def use(self, snapshot: Any) -> None:
        """Read the registry's tables from ``snapshot`` (again only when it changed)."""
        if snapshot is not self.snapshot:
            self.rewrite = snapshot.rewritten_types
            self.rewritten = frozenset(self.rewrite)
            self.ext_writers = snapshot.ext_writers
            self.list_writers = snapshot.list_writers
            self.scan = self.rewrite + tuple(self.list_writers)
            self.snapshot = snapshot

    def any_value(self, value: Any) -> Any:
        """A field value of type ``any``, with the values msgpack must not pack itself marked."""
        if holds_any(value, self.scan):
            return substitute(value, self.rewritten, self.struct_list)
        return value

    def struct_list(self, items: list[Any]) -> Any:
        """``items`` marked to be written as ext 2, if it is a list of struct instances of one definition
        with at least one field (10.3); None otherwise (it stays an array)."""
        first = items[0]
        kind = type(first)
        writer = self.list_writers.get(kind)
        if writer is None or len(set(map(type, items))) != 1:
            return None
        if kind is StructValue:
            definition = first.definition
            if not first.field_names or any(item.definition != definition for item in items):
                return None
        return StructList(writer, items)

    def sort_key(self, value: Any) -> bytes:
        """The bytes a set member sorts by; its buffers are not kept (it is packed again in place)."""
        oob = self.oob
        self.oob = []
        try:
            return self.pack_inner(value)
        finally:
            self.oob = oob

    def nested(self, value: Any) -> ExtType:
        # Each call is a level of the Packer's recursion in C: counted against the thread's stack.
        self.calls += 1
        depth = WRITE_DEPTH
        depth.enter()
        try:
            kind = type(value)
            writer = self.ext_writers.get(kind)
            if writer is not None:
                return writer(value, self)
            if kind is StructList:
                return value.writer(value.items, self)
            if kind is Later:
                value = value.value
            class_hash, result = self.encode_nested(value)
        finally:
            depth.leave()
        assert self.oob is not None  # set by pack() before msgpack calls default
        self.oob.extend(result.out_of_band_buffers)
        in_band = result.in_band_buffer
        # bytes + any in-band gives bytes, so ExtType's own argument checks (run in
        # Python, once per nested value) are skipped through the namedtuple's _make.
        return make_ext((NESTED_EXT_TYPE, class_hash + in_band if in_band else class_hash))


make_ext = ExtType._make


def check_whole(packed: bytes) -> None:
    """Refuse a document msgpack packed that is not exactly one value: a list or dict changed while msgpack
    walked it (by a serializer called for a value inside it, or by another thread meanwhile) makes the Packer
    write more or fewer items than the header it wrote first, a frame that cannot be read."""
    unpacker = Unpacker(max_buffer_size=max(len(packed), 1))
    unpacker.feed(packed)
    try:
        unpacker.skip()
        whole = unpacker.tell() == len(packed)
    except Exception:  # OutOfData: items missing
        whole = False
    if not whole:
        raise SerializationError(
            "a list or dict changed while it was being serialized (by a serializer of a value inside it, or by "
            "another thread): it would be written as a frame that cannot be read; serialize a copy, or do not "
            "change a value while it is serialized", path="obj")


class StructList:
    """A list the codec writes as ext 2 (``writer(items, state)``) when msgpack reaches it."""

    __slots__ = ("writer", "items")

    def __init__(self, writer: Callable[..., Any], items: list[Any]) -> None:
        self.writer = writer
        self.items = items


class Later:
    """A value msgpack would pack by itself but must not: its serializer writes it when msgpack reaches it,
    so every nested value (and struct) is written in document order."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

def substitute(obj: Any, rewritten: frozenset[Any], struct_list: Any, root: bool = False, list_value: bool = True) -> Any:
    """Mark the values msgpack would pack by itself, but must not, and the lists written as ext 2.

    msgpack packs bytearray and memoryview as bin (they would come back as
    bytes), and list, dict, str ... without asking, so a user override of one
    of those is invisible to it; a list of struct instances of one definition
    is ext 2, not an array (10.3). The codec rewrites a tree only when the scan
    found such a value in it. The root is the value being packed by its own
    serializer, so it is never replaced; a root list is a list value (ext 2 if
    it qualifies) unless ``list_value`` is False (a tuple's items). Marked
    values are written when msgpack reaches them (in document order, so
    out-of-band buffers and struct definitions keep the order a reader meets them in).
    """
    kind = type(obj)
    if not root and kind in rewritten:
        return Later(obj)
    if kind is list:
        if obj and list_value:
            marked = struct_list(obj)
            if marked is not None:
                return marked
        kinds = set(map(type, obj))
        if list not in kinds and dict not in kinds and kinds.isdisjoint(rewritten):
            return obj
        return [substitute(item, rewritten, struct_list) for item in obj]
    if kind is dict:
        kinds = set(map(type, obj))
        kinds.update(map(type, obj.values()))
        if list not in kinds and dict not in kinds and kinds.isdisjoint(rewritten):
            return obj
        return {substitute(k, rewritten, struct_list): substitute(v, rewritten, struct_list) for k, v in obj.items()}
    return obj


