"""The golden vectors of the Arrow types beyond the plain ones (tests/vectors/arrow/, written by
tests/vectors/make_arrow_vectors.py): the code writes exactly the committed frames and canonical
frames, reads them back untrusted to the value they were made from, and Java reads those marked
``java`` back to equal values with the digest in the manifest."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

import serreg
from java_fixture import JavaProcess

VECTORS = Path(__file__).resolve().parent / "vectors"
sys.path.insert(0, str(VECTORS))
import make_arrow_vectors  # noqa: E402

MANIFEST = {e["name"]: e for e in json.loads((VECTORS / "arrow" / "manifest.json").read_text())["vectors"]}
VALUES = make_arrow_vectors.vectors()


def equal(a, b) -> bool:
    if hasattr(a, "schema") and not a.schema.equals(b.schema, check_metadata=True):
        return False
    if hasattr(a, "dim_names") and a.dim_names != b.dim_names:
        return False
    return a.equals(b) if not hasattr(a, "metadata") else a.equals(b, check_metadata=True)


def test_the_manifest_lists_every_vector_and_file():
    assert sorted(MANIFEST) == sorted(name for name, _, _ in VALUES)
    files = {p.name for p in (VECTORS / "arrow").iterdir()} - {"manifest.json"}
    assert files == {f"{n}.{kind}" for n in MANIFEST for kind in ("frame", "canonical")}


@pytest.mark.parametrize("name,value,java", VALUES, ids=[v[0] for v in VALUES])
def test_the_code_writes_the_committed_bytes_and_reads_them_back(name, value, java):
    entry = MANIFEST[name]
    frame = (VECTORS / "arrow" / entry["frame"]).read_bytes()
    canonical = (VECTORS / "arrow" / entry["canonical"]).read_bytes()
    assert serreg.serialize(value).to_bytes() == frame
    assert serreg.serialize(value, canonical=True).to_bytes() == canonical
    assert hashlib.sha256(canonical).hexdigest() == entry["digest"] == serreg.digest(value).hex()
    assert equal(value, serreg.deserialize(frame, trusted=False))
    assert serreg.digest(serreg.deserialize(canonical, trusted=False)) == serreg.digest(value)


@pytest.fixture(scope="module")
def java_digest(java_jar):
    process = JavaProcess("digest")
    yield process
    process.close()


@pytest.mark.parametrize("name", [n for n, e in MANIFEST.items() if e["java"] == "reads"])
def test_java_reads_the_vector_to_an_equal_value_with_the_manifest_digest(java_echo, java_digest, name):
    entry = MANIFEST[name]
    frame = (VECTORS / "arrow" / entry["frame"]).read_bytes()
    value = serreg.deserialize(frame)
    assert equal(value, serreg.deserialize(java_echo.round_trip(frame)))
    assert serreg.deserialize(java_digest.round_trip(frame)).hex() == entry["digest"]


@pytest.mark.parametrize("name", [n for n, e in MANIFEST.items() if e["java"] == "opaque"])
def test_java_echoes_the_class_ids_it_has_no_serializer_for_byte_for_byte(java_echo, name):
    frame = (VECTORS / "arrow" / MANIFEST[name]["frame"]).read_bytes()
    assert bytes(java_echo.round_trip(frame)) == frame


@pytest.mark.parametrize("name", [n for n, e in MANIFEST.items() if e["java"] == "refuses"])
def test_java_refuses_the_vectors_it_cannot_read_and_python_refuses_them_cross_language(java_echo, name):
    frame = (VECTORS / "arrow" / MANIFEST[name]["frame"]).read_bytes()
    with pytest.raises(serreg.RemoteError):
        serreg.deserialize(java_echo.round_trip(frame))
    with pytest.raises(serreg.CrossLanguageError, match="column 'c'"):
        serreg.serialize(serreg.deserialize(frame), cross_language=True)
