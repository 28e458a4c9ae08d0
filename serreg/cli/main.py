"""The ``serreg`` command line: the parser and ``main``; each sub-command is a module of serreg/cli/."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from .._version import __version__
from ..codec import BACKEND
from . import bench, demo, inspect, registry

# Each module adds its own sub-parser; add a command by adding its module here.
COMMANDS = [demo, inspect, registry, bench]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="serreg",
        description="serreg: a pluggable, cross-language serializer registry.",
        epilog="Run 'serreg COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"serreg {__version__} (codec: {BACKEND})")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line with ``argv`` (default: the process's arguments); return the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:
        # The reader of our output went away (``serreg inspect FILE | head``): not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
