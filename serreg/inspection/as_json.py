"""The reports of :mod:`serreg.inspection.report` as plain data and as JSON text (``serreg inspect --json``).

Both are built without recursion: the values of a frame may nest 1,024 deep, deeper than
``json.dumps`` (which recurses once per level) can go.
"""

from __future__ import annotations

import json
import math
from typing import Any, Iterator

from .report import FrameReport
from .walk import Bin, MapEntries, ValueNode

__all__ = ["iter_json", "to_json"]


def to_json(reports: list[FrameReport]) -> list[dict[Any, Any]]:
    """The reports as JSON-ready dicts (built without recursion: values may nest 1,024 deep)."""
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
            "value": _value_json(report.root),
        }
        for report in reports
    ]


def _value_json(value: Any) -> Any:
    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        item, parent, slot = stack.pop()
        out: Any
        if isinstance(item, ValueNode):
            out = {"class_id": item.class_id, "class_id_hash": item.class_hash.hex(),
                   "in_band_length": item.in_band_length, "buffers": item.buffers, "value": None, "note": item.note}
            if item.walked:
                stack.append((item.value, out, "value"))
        elif isinstance(item, MapEntries):
            pairs = [[None, None] for _ in item]
            out = {"map": pairs}
            for pair, (key, entry) in zip(pairs, item):
                stack.append((key, pair, 0))
                stack.append((entry, pair, 1))
        elif isinstance(item, list):
            out = [None] * len(item)
            stack.extend((entry, out, i) for i, entry in enumerate(item))
        elif isinstance(item, Bin):
            out = {"bin": {"length": item.length, "head": item.head.hex()}}
        elif isinstance(item, float) and not math.isfinite(item):
            out = {"float": repr(item)}
        else:
            out = item
        parent[slot] = out
    return holder[0]


def iter_json(value: Any, indent: int = 2) -> Iterator[str]:
    """The pieces of the JSON text of plain data (dicts with str keys, lists, str, numbers,
    bools, None), laid out as ``json.dumps(value, indent=indent)`` lays it out, without
    recursion (json.dumps recurses once per level and fails on values nested 1,024 deep)."""
    scalar = json.JSONEncoder().encode
    stack: list[Any] = []  # [items iterator, is a dict, level, first item still to come]

    def start(item: Any, level: int) -> str:
        if isinstance(item, (dict, list)) and item:
            is_dict = isinstance(item, dict)
            stack.append([iter(item.items()) if isinstance(item, dict) else iter(item), is_dict, level + 1, True])
            return "{" if is_dict else "["
        if isinstance(item, dict):
            return "{}"
        if isinstance(item, list):
            return "[]"
        return scalar(item)

    yield start(value, 0)
    while stack:
        frame = stack[-1]
        entry: Any = next(frame[0], _END)
        if entry is _END:
            stack.pop()
            yield "\n" + " " * (indent * (frame[2] - 1)) + ("}" if frame[1] else "]")
            continue
        yield ("\n" if frame[3] else ",\n") + " " * (indent * frame[2])
        frame[3] = False
        if frame[1]:
            key, entry = entry
            yield scalar(key) + ": "
        yield start(entry, frame[2])


_END = object()
