"""What a frame holds, read without running a serializer (behind ``serreg inspect``).

The header, the out-of-band table and the in-band section are read as
docs/FORMAT.md, section 4, lays them out. The in-band of every standard class
ID (section 6) is msgpack; it is walked, with each nested value (ext type 0)
becoming a :class:`ValueNode` of its own, and out-of-band buffers are given to
the values that own them in document order, as a reader would consume them.

Nothing is deserialized: no serializer runs and pickled values are scanned
with :mod:`pickletools`, never unpickled, so inspecting an untrusted file is
safe. The in-band of a class ID that is not standard is not walked (only its
serializer knows its layout); how many buffers such a value owns is known only
where docs/FORMAT.md, section 3, makes it certain (at the top level, or when no
buffer is left), and otherwise the buffers from it on are not attributed.
"""

from __future__ import annotations

import math
import pickletools
from dataclasses import dataclass
from typing import Iterator, Optional

import msgpack

from .codec.layout import NESTED_EXT_TYPE
from .errors import DeserializationError
from .standard import (
    ARROW_RECORD_BATCH_CLASS_ID,
    ARROW_TABLE_CLASS_ID,
    FALLBACK_CLASS_ID,
    NDARRAY_CLASS_ID,
    STANDARD_CLASS_IDS,
)
from .wire.class_id import CLASS_ID_HASH_SIZE, class_id_hash
from .wire.frame import HEADER, HEADER_SIZE, FrameView

__all__ = [
    "Bin",
    "BufferInfo",
    "FrameReport",
    "MapEntries",
    "ValueNode",
    "class_names",
    "inspect_frames",
    "standard_class_names",
    "to_json",
]

# docs/FORMAT.md, section 6: the standard class IDs whose serializer in-band is one msgpack value.
MSGPACK_CLASS_IDS = STANDARD_CLASS_IDS - {FALLBACK_CLASS_ID}
ARROW_CLASS_IDS = frozenset({ARROW_TABLE_CLASS_ID, ARROW_RECORD_BATCH_CLASS_ID})

# Standard class IDs that take exactly one out-of-band buffer of their own.
_ONE_BUFFER = frozenset({"bytearray", "memoryview", NDARRAY_CLASS_ID})


def standard_class_names() -> dict[bytes, str]:
    """ClassIDHash -> class ID for every standard class ID (no plug-in needs to be importable)."""
    return {class_id_hash(class_id): class_id for class_id in STANDARD_CLASS_IDS}


def class_names(registry) -> dict[bytes, str]:
    """ClassIDHash -> class ID for the standard class IDs and everything ``registry`` knows (plug-ins loaded)."""
    names = standard_class_names()
    for registration in registry.registrations():
        names[registration.class_hash] = registration.class_id
    return names


@dataclass(eq=False)
class Bin:
    """A msgpack bin value: its length and its first bytes."""

    length: int
    head: bytes


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


@dataclass
class BufferInfo:
    index: int
    offset: int
    length: int
    alignment: int
    owner: Optional[str] = None  # class ID (ClassIDHash hex if unknown) of the value that takes it, when known


@dataclass
class FrameReport:
    start: int  # where the frame starts in the input
    length: int
    version: int
    in_band_offset: int
    in_band_length: int
    buffers: list[BufferInfo]
    root: ValueNode
    unattributed_from: Optional[int] = None  # first buffer that could not be attributed
    signed: bool = False  # flag 0x01: ends with a 32-byte HMAC-SHA256 trailer (not checked here)


def alignment(offset: int, cap: int = 4096) -> int:
    """The largest power of two (at most ``cap``) that divides ``offset``."""
    if offset == 0:
        return cap
    return min(offset & -offset, cap)


def inspect_frames(data, names: dict[bytes, str]) -> Iterator[FrameReport]:
    """Describe each of the consecutive frames in ``data``.

    Raises DeserializationError, naming the frame and where it starts, for
    input that is not a sequence of valid frames.
    """
    view = memoryview(data)
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")
    if view.nbytes == 0:
        raise DeserializationError("the input is empty: no serreg frame in it")
    start = 0
    index = 0
    while start < view.nbytes:
        rest = view[start:]
        length = HEADER.unpack_from(rest, 0)[7] if rest.nbytes >= HEADER_SIZE else rest.nbytes
        if rest.nbytes >= HEADER_SIZE and HEADER_SIZE <= length < rest.nbytes:
            rest = rest[:length]
        try:
            yield _inspect_frame(FrameView(rest), start, names)
        except DeserializationError as error:
            raise DeserializationError(f"frame {index} (starting at byte {start} of the input): {error}") from None
        start += rest.nbytes
        index += 1


def _inspect_frame(frame: FrameView, start: int, names: dict[bytes, str]) -> FrameReport:
    buffers = [
        BufferInfo(i, offset, view.nbytes, alignment(offset))
        for i, (offset, view) in enumerate(zip(frame.buffer_offsets, frame.buffers))
    ]
    walker = _Walker(names, buffers)
    root = walker.section(frame.in_band, top=True)
    report = FrameReport(
        start=start,
        length=frame.total_length,
        version=frame.version,
        in_band_offset=frame.in_band_offset,
        in_band_length=frame.in_band.nbytes,
        buffers=buffers,
        root=root,
        signed=frame.signed,
    )
    if walker.lost:
        report.unattributed_from = walker.next_buffer
    elif walker.next_buffer != len(buffers):
        raise DeserializationError(
            f"the frame holds {len(buffers)} out-of-band buffers, but its values take {walker.next_buffer}"
        )
    return report


class _Walker:
    """Walks in-band sections in document order, handing out buffer indices as a reader would."""

    def __init__(self, names: dict[bytes, str], buffers: list[BufferInfo]) -> None:
        self.names = names
        self.buffers = buffers
        self.next_buffer = 0
        self.lost = False  # True after a value whose buffer count is unknown

    def section(self, section: memoryview, top: bool = False) -> ValueNode:
        if section.nbytes < CLASS_ID_HASH_SIZE:
            raise DeserializationError(f"a nested in-band section of {section.nbytes} bytes cannot hold a ClassIDHash")
        class_hash = bytes(section[:CLASS_ID_HASH_SIZE])
        body = section[CLASS_ID_HASH_SIZE:]
        class_id = self.names.get(class_hash)
        node = ValueNode(class_hash, class_id, body.nbytes)
        if class_id in MSGPACK_CLASS_IDS:
            node.value = self._unpack(body, class_id)
            node.walked = True
            self._take(node, self._own_buffer_count(class_id, node.value))
        elif class_id == FALLBACK_CLASS_ID:
            node.note = "pickle protocol 5 (scanned, not unpickled)"
            self._take(node, _pickle_buffer_count(body))
        else:
            node.note = "not a standard class ID: its in-band is not walked" if class_id else "unknown class ID"
            # Whose buffers are whose is certain only where docs/FORMAT.md, section 3, says so:
            # the top-level value owns every buffer, and none are left to own after the last one.
            if top:
                self._take(node, len(self.buffers) - self.next_buffer)
            elif self.next_buffer == len(self.buffers):
                self._take(node, 0)
            else:
                self.lost = True
        return node

    def _take(self, node: ValueNode, count: int) -> None:
        if self.lost:
            return
        end = self.next_buffer + count
        if end > len(self.buffers):
            raise DeserializationError(
                f"a {node.class_id} value takes out-of-band buffer {end - 1}, but the frame has {len(self.buffers)}"
            )
        node.buffers = list(range(self.next_buffer, end))
        for index in node.buffers:
            self.buffers[index].owner = node.class_id or node.class_hash.hex()
        self.next_buffer = end

    def _unpack(self, body: memoryview, class_id: str):
        def ext_hook(code, payload):
            if code != NESTED_EXT_TYPE:
                raise DeserializationError(f"msgpack ext type {code} is not used by serreg (in a {class_id} in-band)")
            return self.section(memoryview(payload))

        try:
            value = msgpack.unpackb(
                body, ext_hook=ext_hook, raw=False, strict_map_key=False, use_list=False, max_bin_len=body.nbytes
            )
        except DeserializationError:
            raise
        except Exception as error:  # msgpack reports bad data with several exception types
            raise DeserializationError(
                f"the {class_id} in-band is not valid msgpack: {type(error).__name__}: {error}"
            ) from None
        return _shape(value)

    @staticmethod
    def _own_buffer_count(class_id: str, value) -> int:
        if class_id in _ONE_BUFFER:
            return 1
        if class_id == "bytes":
            return 1 if value is None else 0
        if class_id in ARROW_CLASS_IDS:
            try:
                return sum(node[2] for batch in value[1] for node in batch[1])
            except (TypeError, IndexError) as error:
                raise DeserializationError(f"the {class_id} in-band is not [schema, batches]: {error}") from None
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


def _shape(value):
    """msgpack's decoded tree in inspection terms: arrays as lists, maps as lists of pairs, bin as Bin."""
    kind = type(value)
    if kind is tuple:
        return [_shape(item) for item in value]
    if kind is dict:
        return MapEntries([(_shape(k), _shape(v)) for k, v in value.items()])
    if kind is bytes:
        return Bin(len(value), value[:16])
    return value


class MapEntries(list):
    """A msgpack map's entries, in order, as (key, value) pairs (keys need not be strings)."""


# ----------------------------------------------------------------- plain data for --json


def to_json(reports: list[FrameReport]) -> list[dict]:
    """The reports as JSON-ready dicts."""
    return [
        {
            "start": report.start,
            "length": report.length,
            "format_version": report.version,
            "in_band": {"offset": report.in_band_offset, "length": report.in_band_length},
            "buffers": [
                {"index": b.index, "offset": b.offset, "length": b.length, "alignment": b.alignment, "owner": b.owner}
                for b in report.buffers
            ],
            "unattributed_from": report.unattributed_from,
            "signed": report.signed,
            "value": _node_json(report.root),
        }
        for report in reports
    ]


def _node_json(node: ValueNode) -> dict:
    return {
        "class_id": node.class_id,
        "class_id_hash": node.class_hash.hex(),
        "in_band_length": node.in_band_length,
        "buffers": node.buffers,
        "value": _value_json(node.value) if node.walked else None,
        "note": node.note,
    }


def _value_json(value):
    if isinstance(value, ValueNode):
        return _node_json(value)
    if isinstance(value, MapEntries):
        return {"map": [[_value_json(k), _value_json(v)] for k, v in value]}
    if isinstance(value, list):
        return [_value_json(item) for item in value]
    if isinstance(value, Bin):
        return {"bin": {"length": value.length, "head": value.head.hex()}}
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    return value
