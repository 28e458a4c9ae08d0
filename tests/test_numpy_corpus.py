"""The numpy corpus (tests/numpy_corpus.py): every dtype family, byte order and layout, in-process,
through bytes, through the Java echo fixture and through both digests."""

from __future__ import annotations

import pytest

import serreg
from java_fixture import JavaProcess
from numpy_corpus import FAMILIES, LAYOUTS, check, corpus

CORPUS = corpus(24)


def test_corpus_covers_every_family_and_layout():
    assert {c.family for c in CORPUS} == set(FAMILIES)
    assert {c.layout for c in CORPUS} == set(LAYOUTS)
    assert {c.value.dtype.str[0] for c in CORPUS if hasattr(c.value, "dtype")} == {"<", ">", "|"}


@pytest.fixture(scope="module")
def java_digest(java_jar):
    process = JavaProcess("digest")
    yield process
    assert process.close() == 0


def test_java_digest_mode_answers_with_the_digest(java_digest):
    registry = serreg.Registry()
    value = {"a": [1, 2.5, "x"]}
    reply = registry.deserialize(java_digest.round_trip(registry.serialize(value).to_bytes()))
    assert reply == registry.digest(value)
