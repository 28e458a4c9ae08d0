"""The golden canonical vectors (tests/vectors/canonical/) that every implementation checks."""

import hashlib
import json
import os
import random

import pytest

import serreg
from serreg.wire.class_id import class_id_hash
from serreg.wire.frame import FrameView

from canonical_vectors import MANIFEST, VECTOR_DIR, VECTORS, build
from histories import rehistory

with open(os.path.join(VECTOR_DIR, MANIFEST)) as _f:
    ENTRIES = json.load(_f)


def read_frame(entry) -> bytes:
    with open(os.path.join(VECTOR_DIR, entry["file"]), "rb") as f:
        return f.read()


def test_manifest_lists_every_vector_and_every_file():
    assert [e["name"] for e in ENTRIES] == [name for name, _, _ in VECTORS]
    assert sorted(os.listdir(VECTOR_DIR)) == sorted([e["file"] for e in ENTRIES] + [MANIFEST])


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_vector(entry):
    frame = read_frame(entry)
    digest = bytes.fromhex(entry["digest"])
    assert hashlib.sha256(frame).digest() == digest
    assert bytes(FrameView(frame).in_band[:8]) == class_id_hash(entry["class_id"])
    value = build(entry["name"])
    assert serreg.serialize(value, canonical=True).to_bytes() == frame
    assert serreg.digest(value) == digest
    # Read back and written again: the same frame (what the Java suite checks too).
    assert serreg.serialize(serreg.deserialize(frame), canonical=True).to_bytes() == frame
    for seed in range(3):
        assert serreg.digest(rehistory(build(entry["name"]), random.Random(seed))) == digest
