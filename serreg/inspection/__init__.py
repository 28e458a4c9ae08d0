"""What a frame holds, read without running a serializer (behind ``serreg inspect``).

``report`` reads the header, the out-of-band table and the in-band section of each frame
(docs/FORMAT.md, section 4) into a :class:`FrameReport`; ``walk`` walks the msgpack of the
standard class IDs' in-bands without recursion, within the decoder's limits; ``as_json`` turns
reports into plain data and JSON text. Nothing is deserialized and nothing is unpickled, so
inspecting an untrusted file is safe.
"""

from __future__ import annotations

from .as_json import iter_json, to_json
from .report import (
    BufferInfo, FrameReport, alignment, class_names, containers_holding_values, inspect_frames, standard_class_names,
)
from .walk import Bin, MapEntries, ValueNode

__all__ = [
    "Bin",
    "BufferInfo",
    "FrameReport",
    "MapEntries",
    "ValueNode",
    "alignment",
    "class_names",
    "containers_holding_values",
    "inspect_frames",
    "iter_json",
    "standard_class_names",
    "to_json",
]
