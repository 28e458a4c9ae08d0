"""The Arrow type corpus (tests/arrow_corpus.py) through every step: in one process, through
bytes, through the Java echo fixture, and the Python digest against the Java digest.

Each case must come back exact (same schema with metadata, same values, same types) at
every step where it is carried, and must never go through the Python-only fallback: a
table serreg carries natively serializes with ``cross_language=True``. A case Java
cannot hold is refused at serialize time with ``cross_language=True`` (naming the
column and type), so no step accepts what a later step refuses.

``python tests/test_arrow_corpus.py`` prints the exact share per type family and step
(the report of issue 15).
"""

from __future__ import annotations

import collections
import sys

import msgpack
import pyarrow as pa
import pytest

import arrow_legacy
import serreg
from arrow_corpus import cases
from java_fixture import JavaProcess
from serreg.wire.class_id import class_id_hash

CASES = cases()
IDS = [f"{family}:{name}"[:120] for family, name, _ in CASES]
STEPS = ("xlang", "in-process", "bytes", "java", "digest", "java1", "digest1")


def exact(a, b) -> bool:
    """Same schema (metadata included), same values and types, chunking aside.

    pyarrow 26's ``equals`` says False for some equal arrays (a sliced dense union of run-end
    encoded values is not equal to its own ``pa.concat_arrays`` copy), so equal Python values
    count too once the schemas are equal."""
    if type(a) is not type(b) or not a.schema.equals(b.schema, check_metadata=True):
        return False
    return a.equals(b) or a.to_pylist() == b.to_pylist()


def native(table) -> bool:
    """``cross_language=True`` takes it (Java reads it back)."""
    try:
        serreg.serialize(table, cross_language=True)
    except serreg.SerregError:
        return False
    return True


def in_process(table) -> bool:
    return exact(table, serreg.deserialize(serreg.serialize(table)))


def through_bytes(table) -> bool:
    """Exact from a trusted read; an untrusted read (which keeps a Python extension type as its
    storage and metadata, docs/FORMAT.md 6.4) loses nothing: written again and read trusted, it is exact."""
    frame = serreg.serialize(table).to_bytes()
    untrusted = serreg.deserialize(frame, trusted=False)
    again = serreg.deserialize(serreg.serialize(untrusted).to_bytes())
    return exact(table, serreg.deserialize(bytearray(frame))) and exact(table, again)


def through_java(process: JavaProcess, table) -> bool:
    reply = process.round_trip(serreg.serialize(table, cross_language=True).to_bytes())
    return exact(table, serreg.deserialize(reply))


def same_digest(process: JavaProcess, table) -> bool:
    reply = process.round_trip(serreg.serialize(table, cross_language=True).to_bytes())
    return serreg.deserialize(reply) == serreg.digest(table)


def one_batch(table):
    """The table as one batch: ``combine_chunks()``, or, where pyarrow cannot combine the batches
    (dictionaries with nulls, an extension type inside run-ends), its last (sliced) batch alone."""
    try:
        return table.combine_chunks()
    except pa.ArrowException:
        return pa.Table.from_batches([table.to_batches()[-1]])


def run_step(step: str, table, echo=None, digest=None):
    """True (exact), False (wrong), or the exception's text."""
    try:
        if step == "xlang":
            return native(table)
        if step == "in-process":
            return in_process(table)
        if step == "bytes":
            return through_bytes(table)
        if step == "java":
            return through_java(echo, table)
        if step == "digest":
            return same_digest(digest, table)
        one = one_batch(table)  # the way out a several-batches refusal names
        return through_java(echo, one) if step == "java1" else same_digest(digest, one)
    except Exception as error:  # noqa: BLE001 - the report counts every failure
        return f"{type(error).__name__}: {error}"


@pytest.fixture(scope="module")
def java_digest(java_jar):
    process = JavaProcess("digest")
    yield process
    process.close()


def java_refusal(table):
    """The CrossLanguageError ``cross_language=True`` raises for ``table``, or None."""
    try:
        serreg.serialize(table, cross_language=True)
    except serreg.CrossLanguageError as error:
        return error
    return None


@pytest.mark.parametrize("family,name,table", CASES, ids=IDS)
def test_corpus_case_is_exact_in_process_and_through_bytes(family, name, table):
    assert in_process(table)
    assert through_bytes(table)  # untrusted too: native, never the pickle fallback


@pytest.mark.parametrize("family,name,table", CASES, ids=IDS)
def test_corpus_case_has_a_digest_or_a_refusal_naming_its_column(family, name, table):
    try:
        assert len(serreg.digest(table)) == 32
    except serreg.CanonicalFormError as error:  # nested dictionaries in several batches (pyarrow cannot join them)
        assert "column 0 ('c')" in str(error) and "dictionar" in name, error


@pytest.mark.parametrize("family,name,table", CASES, ids=IDS)
def test_corpus_case_is_exact_through_java_with_equal_digests_or_refused_by_column(
        java_echo, java_digest, family, name, table):
    refusal = java_refusal(table)
    if refusal is not None and "combine_chunks" in str(refusal):
        table = one_batch(table)  # the way out it names
        refusal = java_refusal(table)
    if refusal is not None:  # refused before anything is written, naming the column and its type
        assert str(refusal).startswith("column '") and ": " in str(refusal), refusal
        return
    assert through_java(java_echo, table)
    assert same_digest(java_digest, table)


def test_a_dictionary_of_dictionaries_is_refused_with_its_column_path_and_type():
    inner = pa.array(["a", "b", "a"]).dictionary_encode()
    outer = pa.DictionaryArray.from_arrays(pa.array([0, 2, None], pa.int8()), inner)
    table = pa.table({"f3": pa.array([[0]], pa.list_(pa.int8()))}).append_column(
        "g", pa.ListArray.from_arrays(pa.array([0, 3], pa.int32()), outer).cast(pa.list_(outer.type)))
    with pytest.raises(serreg.SerializationError) as error:
        serreg.serialize(table)
    assert "column 'g.item': dictionary<values=dictionary<values=string, indices=int32, ordered=0>, indices=int8" \
        in str(error.value)


@pytest.mark.parametrize("kind,name", [("month", "month_interval"), ("day", "day_time_interval")])
def test_intervals_pyarrow_cannot_hold_are_refused_with_column_and_type(kind, name):
    table = arrow_legacy.interval_table(kind)
    for cross_language in (False, True):
        with pytest.raises(serreg.SerializationError) as error:
            serreg.serialize(table, cross_language=cross_language)
        assert f"column 'iv': {name}" in str(error.value)


@pytest.mark.parametrize("make", [arrow_legacy.legacy_date64, arrow_legacy.wide_decimal])
def test_legacy_values_full_validation_rejects_are_refused_when_written_not_only_when_read(make):
    table = pa.table({"old": make()})
    with pytest.raises(serreg.SerializationError) as error:
        serreg.serialize(table)
    assert f"column 'old': {table.schema.field(0).type}: Arrow's full validation rejects it" in str(error.value)


@pytest.mark.parametrize("make", [arrow_legacy.legacy_date64, arrow_legacy.wide_decimal])
def test_legacy_values_are_refused_by_both_readers(java_echo, make):
    array = make()
    schema = pa.schema([pa.field("old", array.type)]).serialize().to_pybytes()
    in_band = class_id_hash("ArrowTable") + msgpack.packb([schema, [[len(array), [[len(array), 0, 2]]]]])
    frame = serreg.SerializationResult(in_band, [memoryview(b""), memoryview(array.buffers()[1])]).to_bytes()
    with pytest.raises(serreg.DeserializationError):
        serreg.deserialize(frame, trusted=False)
    with pytest.raises(serreg.RemoteError, match="full validation"):
        serreg.deserialize(java_echo.round_trip(frame))


def report(out=sys.stdout) -> dict:
    """Exact share per family and step; returns {family: {step: (exact, total)}}."""
    echo, digest = JavaProcess("echo"), JavaProcess("digest")
    counts: dict = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    failures = []
    try:
        for family, name, table in CASES:
            for step in STEPS:
                outcome = run_step(step, table, echo, digest)
                for key in (family, "all"):
                    counts[key][step][1] += 1
                    counts[key][step][0] += outcome is True
                if outcome is not True:
                    failures.append((step, family, name, outcome))
    finally:
        echo.close()
        digest.close()
    print(f"{'family':<12}" + "".join(f"{s:>14}" for s in STEPS), file=out)
    for family in sorted(counts, key=lambda f: (f == "all", f)):
        row = counts[family]
        print(f"{family:<12}" + "".join(f"{row[s][0]:>6}/{row[s][1]:<3}{100 * row[s][0] // row[s][1]:>3}%"
                                        for s in STEPS), file=out)
    return {"counts": counts, "failures": failures}


if __name__ == "__main__":
    result = report()
    if "-v" in sys.argv:
        for step, family, name, outcome in result["failures"]:
            print(f"{step:<10} {family:<11} {name[:70]:<70} {str(outcome)[:200]}")
