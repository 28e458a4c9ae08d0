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


@pytest.fixture(scope="module")
def checked(java_echo, java_digest):
    registry = serreg.Registry()
    for case in CORPUS:
        check(case, registry, java_echo, java_digest)
    return CORPUS


@pytest.mark.parametrize("family", [f for f in FAMILIES if f != "longdouble"])
def test_every_case_is_exact_in_process_through_bytes_java_and_both_digests(checked, family):
    failures = [(c.layout, getattr(c.value, "dtype", None), {k: v for k, v in c.results.items() if v is not True})
                for c in checked if c.family == family and not all(v is True for v in c.results.values())]
    assert not failures, failures[:5]


def test_long_doubles_are_python_only_and_refusals_name_the_dtype(checked):
    cases = [c for c in checked if c.family == "longdouble"]
    assert cases
    for case in cases:
        for step in ("native", "java", "digest"):
            error = case.results[step]
            assert isinstance(error, (serreg.CrossLanguageError, serreg.CanonicalFormError)), (case.layout, step, error)
            assert "float128" in str(error) or "complex256" in str(error) or "longdouble" in str(error), error
        # numpy's own pickle (the fallback) gives big-endian long doubles back in native order and
        # broadcast or read-only ones back as writable copies; little-endian packed ones are exact.
        little = getattr(case.value, "dtype", None) is not None and case.value.dtype.str[0] == "<"
        if little and case.layout in ("C", "F", "sliced", "reversed", "0-d", "zero-size", "scalar"):
            assert case.results["in-process"] is True and case.results["bytes"] is True, (case.layout, case.results)
