"""Writes the struct golden vectors: tests/vectors/structs/<name>.srg + manifest.json (docs/FORMAT.md 10.8).

Every implementation reads each frame and writes it back byte for byte: through the
classes of tests/struct_shapes.py (Java: serreg.fixture.StructShapes), and through the data
carrier when the class IDs are not registered.

Legacy vectors (``"legacy": true`` in the manifest, ``legacy_<name>.srg``) are frames written
before ext 2 (docs/FORMAT.md 10.3): lists of instances as arrays of ext 1. Every implementation
reads them (through its classes and the carrier) and, written again, gets the bytes of the vector
named by ``"rewrites_to"`` (the same value, lists as ext 2). They are never written: this script
keeps the files it finds and checks their digests.

The canonical vectors (canonical_<name>.srg + canonical.json, docs/FORMAT.md 10.5) are canonical
frames: every implementation reads each one, through its classes and through the carrier, and
writes it again in canonical form, byte for byte, with the manifest's digest.

    python tests/vectors/make_struct_vectors.py [OUTPUT_DIR]
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import serreg  # noqa: E402
from struct_shapes import Group, Pair, Point, everything, register, rows, tree, widths  # noqa: E402

OUT = HERE / "structs"


def vectors() -> list:
    """(name, value, description)."""
    return [
        ("point", Point(1, -2, 3), "a top-level struct: the table, then ClassIDHash(shapes.Point) + its array"),
        ("points_3", [Point(i, i * 2, -i) for i in range(3)],
         "a list of three points: one ext 2, columns x (kind 0), y (kind 0), z (kind 1, zigzag)"),
        ("widths", widths(), "every exact width at its extreme values"),
        ("everything", everything(), "every field type: enum, list, map, set, tuple, optional, standard types, any, nested"),
        ("tree", tree(), "a struct nested in itself (list of children: ext 2, or an empty array), kw_only defaults"),
        ("pair", Pair("left", 2), "a NamedTuple"),
        ("mixed", {"pair": Pair("a"), "points": (Point(0, 0, 0),), "tree": tree()},
         "structs of several definitions inside standard containers (dict, tuple: an array of ext 1)"),
        ("columns", rows(),
         "an ext 2 with every column kind: uint32 and int8 (kind 0), int64 (kind 1, its extremes), float64, "
         "float32, bool, str and list[str] arrays, a struct column, a list[Point] field (empty arrays and ext 2), "
         "an optional struct, an any column holding a list of points (ext 2)"),
    ]


# (name, the vector it rewrites to): frames written before ext 2, read and never written.
LEGACY = [
    ("legacy_points_3", "points_3", "a list of three points as an array of three ext 1, written before ext 2; read, "
     "never written (written again: points_3)"),
    ("legacy_tree", "tree", "a struct nested in itself, its children lists as arrays of ext 1, written before "
     "ext 2; read, never written (written again: tree)"),
    ("legacy_mixed", "mixed", "structs of several definitions in standard containers, lists as arrays of ext 1, "
     "written before ext 2; read, never written (written again: mixed)"),
]


def _nan(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def group(reverse: bool = False) -> Group:
    """A Group built in one of two orders (its set, its map): the same value either way."""
    members = [Pair("b", 2), Pair("a", 1), Pair("a", -1), Pair("", 0)]
    weights = [("w", 0.1), ("z", -0.0), ("a", _nan(0xFFF8000000000123)), ("m", 3.0)]
    if reverse:
        members.reverse()
        weights.reverse()
    return Group("g", frozenset(members), dict(weights), leader=Pair("lead", 7), extra={"k": (1, 2), "j": -0.0})


def mixed(reverse: bool = False) -> dict:
    """Structs of three definitions in a set (its members sorted by bytes holding the final indices),
    struct keys in a dict, a tree and points; the dict filled in one of two orders."""
    entries = [
        ("set", frozenset({Pair("x"), dataclasses.replace(widths(), f32=-0.0), Pair("a", 3)})),
        ("keys", {Pair("z"): 1, Pair("a"): 2} if not reverse else {Pair("a"): 2, Pair("z"): 1}),
        ("tree", tree()),
        ("points", [Point(5, 6, 7), Point(-1, 0, 1)]),
    ]
    return dict(reversed(entries) if reverse else entries)


def canonical_vectors() -> list:
    """(name, build(reverse: bool) -> value, description): ``build(True)`` is the same value with another history."""
    return [
        ("point", lambda r: Point(1, -2, 3), "a top-level struct"),
        ("tree", lambda r: tree(), "structs nested in a struct (list of children), optional fields"),
        ("reverse_first_use", lambda r: [Point(0, 0, 0), Pair("a", 1)],
         "two definitions met in the reverse of their sorted order (shapes.Point first, shapes.Pair sorts first)"),
        ("group", group, "a set of structs, a map of float32 values (-0.0, a NaN payload, 0.1 rounded), an optional "
         "struct, any"),
        ("widths_float32", lambda r: dataclasses.replace(widths(), f32=-0.0, f64=_nan(0x7FF0000000000001)),
         "every exact width; float32 -0.0 and a float64 signaling NaN made canonical"),
        ("everything", lambda r: everything(), "every field type: map with -0.0, set, decimal 1.50, tuple, any"),
        ("mixed", mixed, "three definitions in one set, struct dict keys, a tree and points"),
        ("columns", canonical_rows, "an ext 2 with every column kind, its float columns canonical: float64 -0.0 "
         "and a NaN payload, float32 -0.0 and a NaN; a dict in an any column; an ext 2 in a list[Point] field"),
    ]


def canonical_rows(reverse: bool = False) -> list:
    """rows() with -0.0 and NaN payloads in its float columns, a dict filled in one of two orders."""
    first, second, third = rows()
    first.ratio = _nan(0xFFF8000000000123)
    second.weight = -0.0
    third.weight = _nan(0x7FF0000000000001)
    third.extra = {"k": 1, "a": [2.5, -0.0]} if not reverse else {"a": [2.5, -0.0], "k": 1}
    return [first, second, third]


def main(out: Path) -> None:
    registry = register(serreg.Registry())
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for name, value, description in vectors():
        frame = registry.serialize(value).to_bytes()
        (out / f"{name}.srg").write_bytes(frame)
        manifest.append({"name": name, "file": f"{name}.srg", "description": description,
                         "digest": hashlib.sha256(frame).hexdigest()})
    for name, rewrites_to, description in LEGACY:
        frame = (OUT / f"{name}.srg").read_bytes()  # kept as written before ext 2
        if out != OUT:
            (out / f"{name}.srg").write_bytes(frame)
        manifest.append({"name": name, "file": f"{name}.srg", "description": description,
                         "digest": hashlib.sha256(frame).hexdigest(), "legacy": True,
                         "rewrites_to": f"{rewrites_to}.srg"})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    canonical = []
    for name, build, description in canonical_vectors():
        frame = registry.serialize(build(False), canonical=True).to_bytes()
        file = f"canonical_{name}.srg"
        (out / file).write_bytes(frame)
        canonical.append({"name": name, "file": file, "description": description,
                          "digest": hashlib.sha256(frame).hexdigest()})
    (out / "canonical.json").write_text(json.dumps(canonical, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
