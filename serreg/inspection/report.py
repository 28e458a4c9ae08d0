"""What a frame holds, read without running a serializer: the report of each frame.

The header, the out-of-band table and the in-band section are read as
docs/FORMAT.md, section 4, lays them out. The in-band of every standard class
ID (section 6) is msgpack; it is walked (:mod:`serreg.inspection.walk`), with
each nested value (ext type 0) becoming a :class:`ValueNode` of its own, and
out-of-band buffers are given to the values that own them in document order,
as a reader would consume them.

Nothing is deserialized: no serializer runs and pickled values are scanned
with :mod:`pickletools`, never unpickled, and the walk obeys the decoder's
:class:`~serreg.Limits` (depth, nesting, memory budget) without recursion, so
inspecting an untrusted file is safe. The in-band of a class ID that is not
standard is not walked (only its serializer knows its layout); how many
buffers such a value owns is known only where docs/FORMAT.md, section 3,
makes it certain (at the top level, or when no buffer is left), and otherwise
the buffers from it on are not attributed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Optional

from ..errors import DeserializationError
from ..limits import DEFAULT_LIMITS, DecodeState, Limits
from ..standard import (
    FALLBACK_CLASS_ID, PYOBJECTS_CLASS_ID, STANDARD_CLASS_IDS, STRUCT_CARRIER_CLASS_ID, STRUCTS_CLASS_ID,
)
from ..wire.class_id import class_id_hash
from ..wire.frame import HEADER, HEADER_SIZE, FrameView
from .walk import Bin, MapEntries, ValueNode, Walker

__all__ = [
    "BufferInfo",
    "FrameReport",
    "alignment",
    "class_names",
    "containers_holding_values",
    "inspect_frames",
    "standard_class_names",
]

# docs/FORMAT.md, section 6: the standard class IDs whose serializer in-band is one msgpack value.
# The struct table (docs/FORMAT.md section 10) is not one msgpack value: shown, not walked.
MSGPACK_CLASS_IDS = STANDARD_CLASS_IDS - {FALLBACK_CLASS_ID, STRUCTS_CLASS_ID, STRUCT_CARRIER_CLASS_ID,
                                          PYOBJECTS_CLASS_ID}


def standard_class_names() -> dict[bytes, str]:
    """ClassIDHash -> class ID for every standard class ID (no plug-in needs to be importable)."""
    return {class_id_hash(class_id): class_id for class_id in STANDARD_CLASS_IDS}


def class_names(registry: Any) -> dict[bytes, str]:
    """ClassIDHash -> class ID for the standard class IDs and everything ``registry`` knows (plug-ins loaded)."""
    names = standard_class_names()
    for registration in registry.registrations():
        names[registration.class_hash] = registration.class_id
    return names


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
    signed: bool = False  # flag 0x02: ends with a 32-byte HMAC-SHA256 trailer (not checked here)


def alignment(offset: int, cap: int = 4096) -> int:
    """The largest power of two (at most ``cap``) that divides ``offset``."""
    if offset == 0:
        return cap
    return min(offset & -offset, cap)


def inspect_frames(data: Any, names: dict[bytes, str], limits: Limits = DEFAULT_LIMITS) -> Iterator[FrameReport]:
    """Describe each of the consecutive frames in ``data``, within the decoder's ``limits``
    (the memory budget is that of one frame the size of ``data``).

    Raises DeserializationError (LimitExceededError for a limit), naming the
    frame and where it starts, for input that is not a sequence of valid frames.
    """
    view = memoryview(data)
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")
    if view.nbytes == 0:
        raise DeserializationError("the input is empty: no serreg frame in it")
    budget = DecodeState(None, None, limits.max_depth)
    budget.set_budget(view.nbytes, limits)
    start = 0
    index = 0
    while start < view.nbytes:
        rest = view[start:]
        length = HEADER.unpack_from(rest, 0)[7] if rest.nbytes >= HEADER_SIZE else rest.nbytes
        if rest.nbytes >= HEADER_SIZE and HEADER_SIZE <= length < rest.nbytes:
            rest = rest[:length]
        try:
            yield _inspect_frame(FrameView(rest, limits), start, names, limits, budget)
        except DeserializationError as error:
            error.message = f"frame {index} (starting at byte {start} of the input): {error.message}"
            raise error.with_traceback(None) from None
        start += rest.nbytes
        index += 1


def _inspect_frame(frame: FrameView, start: int, names: dict[bytes, str], limits: Limits,
                   budget: DecodeState) -> FrameReport:
    buffers = [
        BufferInfo(i, offset, view.nbytes, alignment(offset))
        for i, (offset, view) in enumerate(zip(frame.buffer_offsets, frame.buffers))
    ]
    walker = Walker(names, len(buffers), limits, budget)
    root = walker.walk(frame.in_band, MSGPACK_CLASS_IDS)
    for info, owner in zip(buffers, walker.owners):
        info.owner = owner
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


def containers_holding_values(root: ValueNode) -> set[int]:
    """The ids of the lists and maps under ``root`` that hold a nested value (ValueNode) at
    any depth: what the text output shows as a tree rather than on one line."""
    holding: set[int] = set()
    # Post-order without recursion: a container is decided after everything in it.
    stack = [(root, False)]
    parents: list[Any] = []
    while stack:
        item, done = stack.pop()
        if done:
            parents.pop()
            if id(item) in holding and parents:
                holding.add(id(parents[-1]))
            continue
        if isinstance(item, ValueNode):
            if parents:
                holding.add(id(parents[-1]))
            if item.walked and isinstance(item.value, (list, ValueNode)):
                stack.append((item.value, False))  # type: ignore[arg-type]  # lists are walked too, below
            continue
        if isinstance(item, list):
            parents.append(item)
            stack.append((item, True))
            children = [part for pair in item for part in pair] if isinstance(item, MapEntries) else item
            stack.extend((child, False) for child in children if isinstance(child, (list, ValueNode)))
    return holding
