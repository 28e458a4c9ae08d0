"""``serreg inspect``: show what a frame holds, without deserializing it."""

from __future__ import annotations

import json
import math
import mmap
import sys

from .._default import default_registry
from ..errors import SerregError
from ..inspection import Bin, MapEntries, ValueNode, class_names, inspect_frames, to_json
from .common import CommandError, add_import_option, import_modules, report_failure

_LINE = 110  # longest value shown on one line before it is cut


def add_parser(commands) -> None:
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


def run(args) -> int:
    try:
        import_modules(args.imports)
        names = class_names(default_registry())
        with _Input(args.file) as data:
            reports = list(inspect_frames(data, names))
    except (CommandError, SerregError, OSError) as error:
        return report_failure("inspect", error)
    if args.json:
        print(json.dumps({"file": args.file, "frames": to_json(reports)}, indent=2))
    else:
        for report in reports:
            _print_report(report, len(reports) > 1)
    return 0


class _Input:
    """The bytes of FILE (memory-mapped, so large frames are not read into memory) or of standard input."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._file = None
        self._map = None

    def __enter__(self):
        if self._name == "-":
            return sys.stdin.buffer.read()
        self._file = open(self._name, "rb")
        try:
            self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file cannot be mapped
            return b""
        return self._map

    def __exit__(self, *exc) -> None:
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:
                pass  # views into it are still alive; the process ends soon anyway
        if self._file is not None:
            self._file.close()


# ----------------------------------------------------------------- text output


def _print_report(report, numbered: bool) -> None:
    title = f"frame at byte {report.start}: " if numbered else "frame: "
    print(f"{title}{report.length:,} bytes, format version {report.version}")
    if report.signed:
        print(f"signed: HMAC-SHA256 trailer, 32 bytes at offset {report.length - 32:,} "
              "(not checked here; deserialize(..., key=...) checks it)")
    print(f"in-band section: {report.in_band_length:,} bytes at offset {report.in_band_offset} "
          f"(ClassIDHash 8 + serializer in-band {report.in_band_length - 8:,})")
    print(f"out-of-band buffers: {len(report.buffers)}")
    for buffer in report.buffers:
        owner = f"  {buffer.owner}" if buffer.owner else ""
        print(f"  #{buffer.index:<3} offset {buffer.offset:>12,}  length {buffer.length:>12,}  "
              f"alignment {buffer.alignment:>4}{owner}")
    if report.unattributed_from is not None:
        print(f"  (buffers from #{report.unattributed_from} on belong to values of a class ID that is not standard)")
    print("value:")
    _print_node(report.root, "  ", "")
    print()


def _node_title(node) -> str:
    name = node.class_id if node.class_id else "?"
    parts = [f"{name} [{node.class_hash.hex()}] in-band {node.in_band_length:,} B"]
    if node.buffers:
        parts.append("buffer" + ("s" if len(node.buffers) > 1 else "") + " " + ", ".join(f"#{i}" for i in node.buffers))
    if node.note:
        parts.append(node.note)
    return ", ".join(parts)


def _print_node(node, indent: str, label: str) -> None:
    title = label + _node_title(node)
    if not node.walked:
        print(indent + title)
        return
    if not _holds_nodes(node.value):
        print(indent + _cut(f"{title} = {_inline(node.value)}"))
        return
    print(indent + title)
    _print_children(node.value, indent + "    ")


def _print_children(value, indent: str) -> None:
    if isinstance(value, MapEntries):
        items = [(_cut(_inline(key), 60) + ": ", item) for key, item in value]
    else:
        items = [(f"[{i}]: ", item) for i, item in enumerate(value)]
    for label, item in items:
        if isinstance(item, ValueNode):
            _print_node(item, indent, label)
        elif _holds_nodes(item):
            print(indent + label + ("map" if isinstance(item, MapEntries) else "array") + f" of {len(item)}")
            _print_children(item, indent + "    ")
        else:
            print(indent + _cut(label + _inline(item)))


def _holds_nodes(value) -> bool:
    if isinstance(value, ValueNode):
        return True
    if isinstance(value, MapEntries):
        return any(_holds_nodes(k) or _holds_nodes(v) for k, v in value)
    if isinstance(value, list):
        return any(_holds_nodes(item) for item in value)
    return False


def _inline(value) -> str:
    if isinstance(value, ValueNode):
        return f"<{value.class_id or value.class_hash.hex()}>"
    if isinstance(value, MapEntries):
        return "{" + ", ".join(f"{_inline(k)}: {_inline(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(item) for item in value) + "]"
    if isinstance(value, Bin):
        more = "…" if value.length > len(value.head) else ""
        return f"bin({value.length} B: {value.head.hex()}{more})"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return repr(value)


def _cut(text: str, width: int = _LINE) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
