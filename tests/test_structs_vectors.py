"""The struct golden vectors (tests/vectors/structs, docs/FORMAT.md section 10): each is read
and written back byte for byte (a legacy one as the vector it rewrites to), by a registry of
the shapes and by a relay that knows none, and is what Python writes today."""

from __future__ import annotations

import sys

import pytest

import serreg
from struct_round_trips import frame, registry  # noqa: F401  (registry: a fixture)


_VECTORS = __import__("pathlib").Path(__file__).resolve().parent / "vectors" / "structs"
_MANIFEST = __import__("json").loads((_VECTORS / "manifest.json").read_text())


@pytest.mark.parametrize("entry", _MANIFEST, ids=lambda e: e["name"])
def test_golden_vectors_read_and_write_back_byte_for_byte(registry, entry):
    data = (_VECTORS / entry["file"]).read_bytes()
    assert __import__("hashlib").sha256(data).hexdigest() == entry["digest"]
    # A legacy vector (arrays of ext 1, written before ext 2) is written again as the vector it rewrites to.
    expected = (_VECTORS / entry.get("rewrites_to", entry["file"])).read_bytes()
    assert entry.get("legacy", False) == (expected != data)
    value, carried = registry.deserialize(data, trusted=False), serreg.Registry().deserialize(data, trusted=False)
    assert value == registry.deserialize(expected)
    assert frame(registry, value) == expected
    assert frame(serreg.Registry(), carried) == expected


def test_golden_vectors_are_what_python_writes_today(registry, tmp_path):
    sys.path.insert(0, str(_VECTORS.parent))
    import make_struct_vectors

    make_struct_vectors.main(tmp_path)
    for entry in _MANIFEST:
        assert entry.get("legacy") or (tmp_path / entry["file"]).read_bytes() == (_VECTORS / entry["file"]).read_bytes(), entry["name"]
