"""The text ``serreg inspect`` prints for a frame's report: the header, the out-of-band buffers, and
the tree of values, one line per value, each cut to one screen line; all without recursion
(values may nest 1,024 deep)."""

from __future__ import annotations

import json
from typing import Any

from ..inspection import Bin, MapEntries, ValueNode, containers_holding_values

__all__ = ["report_lines"]

_LINE = 110  # longest value shown on one line before it is cut


def report_lines(report: Any, numbered: bool, lines: list[Any]) -> None:
    """Appends the text of one frame's report to ``lines``: header, buffers, the tree of values."""
    title = f"frame at byte {report.start}: " if numbered else "frame: "
    lines.append(f"{title}{report.length:,} bytes, format version {report.version}")
    if report.signed:
        lines.append(f"signed: HMAC-SHA256 trailer, 32 bytes at offset {report.length - 32:,} "
                     "(not checked here; deserialize(..., key=...) checks it)")
    lines.append(f"in-band section: {report.in_band_length:,} bytes at offset {report.in_band_offset} "
                 f"(ClassIDHash 8 + serializer in-band {report.in_band_length - 8:,})")
    lines.append(f"out-of-band buffers: {len(report.buffers)}")
    for buffer in report.buffers:
        owner = f"  {buffer.owner}" if buffer.owner else ""
        lines.append(f"  #{buffer.index:<3} offset {buffer.offset:>12,}  length {buffer.length:>12,}  "
                     f"alignment {buffer.alignment:>4}{owner}")
    if report.unattributed_from is not None:
        lines.append(f"  (buffers from #{report.unattributed_from} on belong to values of a class ID that is not "
                     "standard)")
    lines.append("value:")
    _tree_lines(report.root, containers_holding_values(report.root), lines)
    lines.append("")


def _node_title(node: Any) -> str:
    name = node.class_id if node.class_id else "?"
    parts = [f"{name} [{node.class_hash.hex()}] in-band {node.in_band_length:,} B"]
    if node.buffers:
        parts.append("buffer" + ("s" if len(node.buffers) > 1 else "") + " " + ", ".join(f"#{i}" for i in node.buffers))
    if node.note:
        parts.append(node.note)
    return ", ".join(parts)


def _tree_lines(root: Any, holding: set[Any], lines: list[Any]) -> None:
    """The tree of values, one line per value or container that holds values, without
    recursion (values may nest 1,024 deep)."""
    def holds(item: Any) -> bool:
        return isinstance(item, ValueNode) or id(item) in holding

    def children(value: Any, indent: str) -> list[Any]:
        if isinstance(value, ValueNode):  # an in-band that is one nested value (a tuple of one ext)
            return [(value, indent, "")]
        if isinstance(value, MapEntries):
            return [(item, indent, _inline(key, 60) + ": ") for key, item in value]
        return [(item, indent, f"[{i}]: ") for i, item in enumerate(value)]

    stack = [(root, "  ", "")]
    while stack:
        item, indent, label = stack.pop()
        if isinstance(item, ValueNode):
            title = label + _node_title(item)
            if not item.walked:
                lines.append(indent + title)
            elif not holds(item.value):
                lines.append(indent + _cut(f"{title} = {_inline(item.value)}"))
            else:
                lines.append(indent + title)
                stack.extend(reversed(children(item.value, indent + "    ")))
        elif holds(item):
            lines.append(indent + label + ("map" if isinstance(item, MapEntries) else "array") + f" of {len(item)}")
            stack.extend(reversed(children(item, indent + "    ")))
        else:
            lines.append(indent + _cut(label + _inline(item)))


def _inline(value: Any, width: int = _LINE) -> str:
    """One-line text of a value, cut after ``width`` characters (built only that far, without recursion)."""
    pieces: list[Any] = []
    size = 0
    stack = [value]
    while stack and size <= width:
        item = stack.pop()
        if type(item) is _Text:
            text = item.text
        elif isinstance(item, ValueNode):
            text = f"<{item.class_id or item.class_hash.hex()}>"
        elif isinstance(item, MapEntries):
            text = "{"
            parts: list[Any] = []
            for i, (key, entry) in enumerate(item):
                parts += [_Text(", ")] if i else []
                parts += [key, _Text(": "), entry]
            stack.append(_Text("}"))
            stack.extend(reversed(parts))
        elif isinstance(item, list):
            text = "["
            parts = []
            for i, entry in enumerate(item):
                parts += [_Text(", "), entry] if i else [entry]
            stack.append(_Text("]"))
            stack.extend(reversed(parts))
        elif isinstance(item, Bin):
            more = "…" if item.length > len(item.head) else ""
            text = f"bin({item.length} B: {item.head.hex()}{more})"
        elif isinstance(item, str):
            text = json.dumps(item[: width + 1], ensure_ascii=False)
        elif item is None:
            text = "nil"
        elif isinstance(item, bool):
            text = "true" if item else "false"
        else:
            text = repr(item)
        pieces.append(text)
        size += len(text)
    return _cut("".join(pieces), width)


class _Text:
    """Literal text inside _inline's stack (a str there is a value, shown quoted)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _cut(text: str, width: int = _LINE) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
