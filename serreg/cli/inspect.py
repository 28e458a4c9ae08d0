"""``serreg inspect``: show what a frame holds, without deserializing it."""

from __future__ import annotations

import json
import sys

from .._default import default_registry
from ..errors import SerregError
from ..inspection import Bin, MapEntries, ValueNode, class_names, containers_holding_values, inspect_frames
from ..inspection_json import iter_json, to_json
from .common import CommandError, add_import_option, import_modules, report_failure
from typing import Any

__all__ = ["add_parser", "run"]

_LINE = 110  # longest value shown on one line before it is cut


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "inspect",
        help="show a frame's structure: format version, class IDs, in-band sizes, out-of-band buffers, nested values",
        description=(
            "Show the structure of the serreg frame(s) in FILE: format version, class IDs (named where "
            "known), in-band sizes, out-of-band buffers with their sizes, offsets and alignment, and the "
            "tree of nested values. Nothing is deserialized (pickled values are scanned, never unpickled), "
            "so untrusted files are safe to inspect. Exits with status 1 and a one-line error on a bad file."
        ),
    )
    parser.add_argument("file", metavar="FILE", help="a file holding one or more frames, or - for standard input")
    parser.add_argument("--json", action="store_true", help="print JSON for programs instead of text")
    add_import_option(parser)
    parser.set_defaults(run=run)


def run(args: Any) -> int:
    try:
        import_modules(args.imports)
        names = class_names(default_registry())
        data = _read_input(args.file)
        reports = list(inspect_frames(data, names))
        if args.json:
            text = "".join(iter_json({"file": args.file, "frames": to_json(reports)}))
        else:
            lines: list[Any] = []
            for report in reports:
                _report_lines(report, len(reports) > 1, lines)
            text = "\n".join(lines)
    except (CommandError, SerregError, OSError) as error:
        return report_failure("inspect", error)
    except Exception as error:  # a bug here must still end in one line, never a traceback
        return report_failure("inspect", RuntimeError(f"internal error while inspecting: {type(error).__name__}: {error}"))
    print(text)
    return 0


def _read_input(name: str) -> bytes:
    """The bytes of FILE, or of standard input for "-", read into private memory: a file
    that another process shortens while it is read cannot take the process down (as a
    memory-mapped one could, with SIGBUS)."""
    if name == "-":
        return sys.stdin.buffer.read()
    with open(name, "rb") as file:
        return file.read()


# ----------------------------------------------------------------- text output


def _report_lines(report: Any, numbered: bool, lines: list[Any]) -> None:
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
