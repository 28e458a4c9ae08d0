"""The TypeScript reader (js-compat/) on hostile frames, answer beside Python's (tests/typescript_differential.py).

Every frame of the hostile seeds, the kept fuzz findings and the Arrow schema messages with one table broken
goes to the TypeScript check fixture, trusted and untrusted. Each answer must be Python's value (written back
by TypeScript and read again by Python), or a deliberate refusal (a SerregError raised by a check, never a
catch-all around a TypeError or RangeError from apache-arrow or JS, no hang, no crash) that says where; a
frame Python refuses may be read by TypeScript only for what a JS value can hold and a Python one cannot.
Where Python's schema walk refuses an Arrow message, TypeScript's (src/arrow/ipcCheck.ts) says the same words
with the same byte of the message.
"""

from __future__ import annotations

import decimal
import struct
from collections import Counter

import pyarrow as pa
import pytest

import serreg

from typescript_differential import FINDINGS, REGISTRY, REGRESSIONS, WORDS, arrow_frame, compare, corpora, js_schema_message, python_answer
from typescript_fixture import TypeScriptCheck
from test_typescript import ts_built  # noqa: F401  (module fixture: the built package)
from inputs import frame_from_input  # noqa: E402  (fuzz/, on sys.path through typescript_differential)

CORPORA = corpora()


@pytest.fixture(scope="module")
def ts_check(ts_built):  # noqa: F811
    check = TypeScriptCheck()
    yield check
    assert check.close() == 0


@pytest.fixture(scope="module")
def answers(ts_check):
    return {name: list(compare(frames, ts_check)) for name, frames in CORPORA.items()}


def test_the_corpora_hold_each_kind_of_frame():
    assert len(CORPORA["hostile seeds"]) > 1000
    assert len(CORPORA["fuzz regressions"]) >= 17
    assert len(CORPORA["broken Arrow tables"]) == 284
    assert len(CORPORA["broken Arrow tables, types TypeScript reads"]) > 200


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_every_answer_is_pythons_value_or_a_deliberate_refusal(answers, corpus):
    found = [str(a) for a in answers[corpus] if a.kind in FINDINGS]
    counts = Counter(a.kind for a in answers[corpus])
    assert not found, f"{len(found)} findings ({dict(counts)}):\n" + "\n".join(found[:10])
    assert counts["same"] + counts["both refuse"] > len(answers[corpus]) // 2, counts


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_a_typescript_refusal_says_where(answers, corpus):
    unplaced = [str(a) for a in answers[corpus]
                if a.typescript.startswith("refused: ") and "byte offset" not in a.typescript]
    assert not unplaced, "\n".join(unplaced[:10])


@pytest.mark.parametrize("corpus", ["broken Arrow tables", "broken Arrow tables, types TypeScript reads",
                                    "fuzz regressions", "hostile seeds"])
def test_an_arrow_schema_refused_by_python_s_walk_is_refused_in_typescript_with_its_words_and_byte(answers, corpus):
    differ, worded = [], 0
    for answer in answers[corpus]:
        words = WORDS.search(answer.python)
        if words is None:
            continue
        worded += 1
        if words.group(0) not in answer.typescript:
            differ.append(str(answer))
    assert worded > 10
    assert not differ, f"{len(differ)} of {worded} differ:\n" + "\n".join(differ[:10])


def test_a_schema_of_every_type_typescript_reads_echoes_through_the_walk(ts_check):
    # The walk refuses nothing apache-arrow for JS reads: the unbroken message reads in both languages.
    trusted, untrusted, written = ts_check.answer(arrow_frame(js_schema_message()))
    assert (trusted, untrusted) == ("value", "value")
    assert written == arrow_frame(js_schema_message())


# Mutants the TypeScript differential fuzz (fuzz/typescript_mutants.py) kept, with TypeScript's refusal now
# (tests/fuzz_regressions/README.md says what each one broke).
KEPT = {
    "ts-arrow-list-offset-below-the-one-before.bin":
        "refused: Arrow offsets of column 0 (\"l\") decrease at slot 1 (class ID 'ArrowRecordBatch', byte offset 96)",
    "ts-datetime-zone-key-of-no-zone.bin":
        "refused: no time zone found with key \"Amurica/New_York\" (an IANA zone key; docs/FORMAT.md, section 6.1) "
        "(class ID 'datetime', byte offset 32)",
    "ts-memoryview-shape-beyond-its-bytes.bin":
        "refused: memoryview of format i and shape [6] needs 24 bytes, not 8 (class ID 'memoryview', byte offset 48)",
    "ts-arrow-field-without-a-name.bin": "value",
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_a_kept_typescript_finding_gets_its_answer_in_both_modes(ts_check, name):
    frame = frame_from_input((REGRESSIONS / name).read_bytes())
    trusted, untrusted, written = ts_check.answer(frame)
    assert trusted == untrusted == KEPT[name]
    if KEPT[name] == "value":  # read as Python reads it (the field named ""), and written back byte for byte
        assert written == frame and REGISTRY.deserialize(frame).schema.names == [""]
    else:
        assert written is None


@pytest.mark.parametrize("bad", [b"\xffQQQ", b"QQQ\xe2", b"Q\xc3\xa9Q"])
def test_a_string_column_that_is_not_utf8_is_refused_as_in_python(ts_check, bad):
    # apache-arrow decodes strings when they are read, replacing what is not UTF-8 with U+FFFD: the column
    # read as a value holding other strings than the frame's, where Python refuses it (full validation).
    frame = REGISTRY.serialize(pa.table({"s": pa.array(["QQQQ", "RRRR", None, "é"])})).to_bytes().replace(b"QQQQ", bad)
    python = python_answer(frame, trusted=True)[0]
    trusted, untrusted, _ = ts_check.answer(frame)
    if bad == b"Q\xc3\xa9Q":  # UTF-8: read by both
        assert python == trusted == untrusted == "value"
        return
    assert python.startswith("refused: invalid Arrow string column: Invalid UTF8 sequence at string index 0")
    assert trusted == untrusted == ("refused: invalid Arrow string column: column 0 (\"s\") has an invalid UTF-8 sequence "
                                    "at string index 0 (class ID 'ArrowTable', byte offset 80)")


def _column(array: pa.Array, good: bytes, bad: bytes) -> tuple[bytes, bytes]:
    frame = REGISTRY.serialize(pa.table({"c": array})).to_bytes()
    assert frame.count(good) == 1
    return frame, frame.replace(good, bad)


# (column, the value's bytes, bytes of a value out of its domain, TypeScript's words): Arrow's full
# validation in Python refuses these; apache-arrow handed them out as they were.
OUT_OF_DOMAIN = {
    "decimal beyond its precision": (
        pa.array([decimal.Decimal("1.23"), None], pa.decimal128(3, 2)), struct.pack("<qq", 123, 0),
        struct.pack("<qq", 1000, 0), "invalid Arrow decimal128(3, 2) column: column 0 (\"c\") holds 1000 at slot 0, "
                                     "which does not fit its precision of 3 digits"),
    "negative decimal beyond its precision": (
        pa.array([decimal.Decimal("1.23")], pa.decimal256(3, 2)), struct.pack("<qqqq", 123, 0, 0, 0),
        struct.pack("<qqqq", -1000, -1, -1, -1), "invalid Arrow decimal256(3, 2) column: column 0 (\"c\") holds -1000 at "
                                                 "slot 0, which does not fit its precision of 3 digits"),
    "time32 past midnight": (
        pa.array([12345, None], pa.time32("s")), struct.pack("<i", 12345), struct.pack("<i", 86400),
        "invalid Arrow time32[s] column: column 0 (\"c\") holds 86400 at slot 0, outside the range [0, 86400) s"),
    "time64 below 0": (
        pa.array([5], pa.time64("ns")), struct.pack("<q", 5), struct.pack("<q", -5),
        "invalid Arrow time64[ns] column: column 0 (\"c\") holds -5 at slot 0, outside the range [0, 86400000000000) ns"),
    "date64 of a part of a day": (
        pa.array([86400000], pa.date64()), struct.pack("<q", 86400000), struct.pack("<q", 86400001),
        "invalid Arrow date64[ms] column: column 0 (\"c\") holds 86400001 at slot 0, which is not a whole number of days"),
}


@pytest.mark.parametrize("name", sorted(OUT_OF_DOMAIN))
def test_a_value_outside_its_arrow_type_s_domain_is_refused_as_in_python(ts_check, name):
    array, good, bad, words = OUT_OF_DOMAIN[name]
    frame, broken = _column(array, good, bad)
    assert ts_check.answer(frame)[:2] == ("value", "value")
    assert python_answer(broken, trusted=True)[0].startswith("refused: invalid Arrow")
    trusted, untrusted, _ = ts_check.answer(broken)
    assert trusted == untrusted == f"refused: {words} (class ID 'ArrowTable', byte offset 64)"


@pytest.mark.parametrize("side", [2**20, 2**40])
def test_a_broadcast_array_beyond_numpy_s_size_limit_is_refused_as_in_python(ts_check, side):
    # Strides of 0 let 8 bytes declare 2^80 elements: numpy refuses such an array (size times item size
    # beyond 2^63 - 1), TypeScript read it as a stdlib ndarray of 2^80 elements.
    import msgpack
    import numpy as np
    from numpy.lib.stride_tricks import as_strided

    result = REGISTRY.serialize(as_strided(np.ones(1), shape=(2, 2), strides=(0, 0)))
    in_band = bytes(result.in_band_buffer)
    meta = msgpack.unpackb(in_band[8:])
    meta[1] = [side, side]
    frame = serreg.SerializationResult(in_band[:8] + msgpack.packb(meta), list(result.out_of_band_buffers)).to_bytes()
    python = python_answer(frame, trusted=True)[0]
    trusted, untrusted, _ = ts_check.answer(frame)
    if side == 2**20:
        assert python == trusted == untrusted == "value"
        return
    assert "array is too big" in python
    assert trusted == untrusted == (
        "refused: ndarray of shape [1099511627776, 1099511627776] and dtype <f8 is too big: its size times its item size "
        "is beyond 2^63 - 1 bytes, numpy's limit (class ID 'numpy.ndarray', byte offset 48)")
