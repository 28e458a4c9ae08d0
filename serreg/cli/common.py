"""Options and error reporting shared by the sub-commands (not a command itself)."""

from __future__ import annotations

from typing import Any

import importlib
import sys

__all__ = ["CommandError", "add_import_option", "import_modules", "report_failure"]


class CommandError(Exception):
    """A failure to report as one line on standard error, with exit status 1."""


def add_import_option(parser: Any) -> None:
    parser.add_argument(
        "-i", "--import", dest="imports", action="append", default=[], metavar="MODULE",
        help="import MODULE first, so the serializers it registers are known (repeatable)",
    )


def import_modules(names: Any) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as error:  # the user's module may fail in any way; report it, no traceback
            raise CommandError(f"could not import {name!r}: {type(error).__name__}: {error}") from None


# Exit statuses of every command: 0 done, 1 a file, a frame or a module given failed (FAILURE),
# 2 the command line is wrong (USAGE_ERROR: argparse's own status, and an option naming what is not there).
FAILURE = 1
USAGE_ERROR = 2


def report_failure(command: str, error: Exception, status: int = FAILURE) -> int:
    print(f"serreg {command}: error: {error}", file=sys.stderr)
    return status
