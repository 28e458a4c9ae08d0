"""The ``serreg`` command line: the parser and ``main``; each sub-command is a module of serreg/cli/."""

from __future__ import annotations

import argparse
import os
import platform
import sys
from typing import Any, NoReturn, Optional, Sequence

from .._version import __version__
from ..codec import BACKEND, COMPILED, SCAN_COMPILED
from ..implicit.walk import COMPILED as WALK_COMPILED
from ..wire.frame import COMPILED as FRAME_COMPILED
from ..wire.frame import FORMAT_VERSION
from . import bench, demo, inspect, registry

__all__ = ["COMMANDS", "build_parser", "main", "version_text"]

# Each module adds its own sub-parser; add a command by adding its module here.
COMMANDS = [demo, inspect, registry, bench]


def version_text() -> str:
    """What ``serreg --version`` prints: the version, the frame format, the codec in use, Python."""
    # The compiled parts of the codec and the frame (each beside its pure-Python twin) in use.
    parts = (
        ("serreg.codec._core", COMPILED),
        ("serreg.codec._scan", SCAN_COMPILED),
        ("serreg.wire._frame", FRAME_COMPILED),
        ("serreg.implicit._walk", WALK_COMPILED),
    )
    compiled = [name for name, in_use in parts if in_use]
    if compiled:
        codec = f"{BACKEND} (" + ", ".join(compiled) + ")"
    elif os.environ.get("SERREG_PURE_PYTHON", "") not in ("", "0"):
        codec = f"{BACKEND} (SERREG_PURE_PYTHON is set)"
    else:
        codec = f"{BACKEND} (the compiled extension is not built)"
    return (
        f"serreg {__version__}\n"
        f"frame format version {FORMAT_VERSION}\n"
        f"codec: {codec}\n"
        f"Python {platform.python_version()} ({platform.python_implementation()})\n"
    )


class _Version(argparse.Action):
    """``--version``: print :func:`version_text` as it is (argparse's own action re-wraps lines)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the version, the frame format and the codec in use, and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: Optional[str] = None) -> NoReturn:
        sys.stdout.write(version_text())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="serreg",
        description="serreg: a pluggable, cross-language serializer registry.",
        epilog="Run 'serreg COMMAND --help' for the options of a command. Exit status: 0 done, 1 a file, frame "
        "or module given failed (one line on standard error says what and where), 2 a wrong command line.",
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line with ``argv`` (default: the process's arguments); return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
        return status
    except BrokenPipeError:
        # The reader of our output went away (``serreg inspect FILE | head``): not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
