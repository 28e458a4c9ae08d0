"""``serreg registry``: list the registered class IDs, their hashes, types and origins."""

from __future__ import annotations

from typing import Any

import json

from .._default import default_registry
from ..errors import SerregError
from .common import CommandError, add_import_option, import_modules, report_failure

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "registry",
        help="list the registered class IDs with their ClassIDHash, type and origin (plug-ins loaded)",
        description=(
            "List every class ID in the default registry: its ClassIDHash (hex, wire order), the Python "
            "type it serves and where it came from (serreg's standard types, the fallback, a plug-in from "
            "the serreg.serializers entry-point group, or user code). Every installed plug-in is loaded first."
        ),
    )
    parser.add_argument("--json", action="store_true", help="print JSON for programs instead of a table")
    add_import_option(parser)
    parser.set_defaults(run=run)


def run(args: Any) -> int:
    try:
        import_modules(args.imports)
        rows: list[dict[str, Any]] = [
            {
                "class_id": r.class_id,
                "class_id_hash": r.class_hash.hex(),
                "type": f"{r.cls.__module__}.{r.cls.__qualname__}",
                "origin": r.origin,
                "python_only": r.python_only,
            }
            for r in default_registry().registrations()
        ]
    except (CommandError, SerregError) as error:
        return report_failure("registry", error)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    headers = {"class_id": "CLASS ID", "class_id_hash": "CLASSIDHASH", "type": "TYPE", "origin": "ORIGIN"}
    widths = {key: max(len(title), *(len(row[key]) for row in rows)) for key, title in headers.items()}
    print("  ".join(title.ljust(widths[key]) for key, title in headers.items()).rstrip())
    for row in rows:
        print("  ".join(row[key].ljust(widths[key]) for key in headers).rstrip())
    return 0
