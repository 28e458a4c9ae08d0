"""The ``serreg`` command line; each sub-command is a module in serreg/commands/."""

from __future__ import annotations

import argparse
import sys

from .commands import bench, demo

# Each module adds its own sub-parser; add a command by adding its module here.
COMMANDS = [demo, bench]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="serreg", description="serreg: a pluggable, cross-language serializer registry.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
