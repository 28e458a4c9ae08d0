"""``serreg inspect``: show what a frame holds, without deserializing it."""

from __future__ import annotations

import sys
from typing import Any

from .._default import default_registry
from ..errors import SerregError
from ..inspection import class_names, inspect_frames, iter_json, to_json
from .common import CommandError, add_import_option, import_modules, report_failure
from .inspect_text import report_lines

__all__ = ["add_parser", "run"]


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
                report_lines(report, len(reports) > 1, lines)
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
