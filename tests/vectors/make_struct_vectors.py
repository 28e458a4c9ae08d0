"""Writes the struct golden vectors: tests/vectors/structs/<name>.srg + manifest.json (docs/FORMAT.md 10.8).

Every implementation reads each frame and writes it back byte for byte: through the
classes of tests/struct_shapes.py (Java: serreg.fixture.StructShapes), and through the data
carrier when the class IDs are not registered.

    python tests/vectors/make_struct_vectors.py [OUTPUT_DIR]
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import serreg  # noqa: E402
from struct_shapes import Pair, Point, everything, register, tree, widths  # noqa: E402

OUT = HERE / "structs"


def vectors() -> list:
    """(name, value, description)."""
    return [
        ("point", Point(1, -2, 3), "a top-level struct: the table, then ClassIDHash(shapes.Point) + its array"),
        ("points_3", [Point(i, i * 2, -i) for i in range(3)], "a list of three points: one definition, three ext 1"),
        ("widths", widths(), "every exact width at its extreme values"),
        ("everything", everything(), "every field type: enum, list, map, set, tuple, optional, standard types, any, nested"),
        ("tree", tree(), "a struct nested in itself (list of children), kw_only defaults"),
        ("pair", Pair("left", 2), "a NamedTuple"),
        ("mixed", {"pair": Pair("a"), "points": (Point(0, 0, 0),), "tree": tree()},
         "structs of several definitions inside standard containers (dict, tuple)"),
    ]


def main(out: Path) -> None:
    registry = register(serreg.Registry())
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for name, value, description in vectors():
        frame = registry.serialize(value).to_bytes()
        (out / f"{name}.srg").write_bytes(frame)
        manifest.append({"name": name, "file": f"{name}.srg", "description": description,
                         "digest": hashlib.sha256(frame).hexdigest()})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
