"""The Java reader checks every table of an Arrow schema message as Python does: same words, same byte.

Java's ArrowIpcCheck (with IpcFlatbuffer and ArrowIpcTypes, the twins of arrow_ipc_check.py and
arrow_ipc_types.py) walks the flatbuffer before Arrow Java reads it. Arrow Java reads a table
through its vtable without asking where either lies, and before this walk checked them it read a
table whose vtable or fields lay outside the message, or outside the table, from other bytes, or
as an empty table, where Python refuses the frame. Each table of a message holding every kind
(tests/arrow_table_faults.py) is broken here, sent to the Java fixture's ``check`` mode (trusted,
then untrusted), and Java's refusal must say what Python's says, naming the same byte.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgpack
import pytest

import serreg
from arrow_table_faults import faults, schema_message
from java_fixture import JavaProcess
from serreg.wire.class_id import class_id_hash

REGRESSIONS = Path(__file__).parent / "fuzz_regressions"
WORDS = re.compile(r"invalid Arrow schema message: .+ of the message\)")

# Kept frames (input mode 0 of fuzz/inputs.py) Java read as values before its walk checked these
# tables, each with the words Python and Java now both say (tests/fuzz_regressions/README.md).
KEPT = {
    "java-arrow-schema-table-vtable-outside-message.bin":
        "the vtable of a Schema table lies outside the message (in the message, at byte 48 of the message)",
    "java-arrow-message-field-outside-table.bin":
        "field 0 of a Message table is misaligned or outside the table (in the message, at byte 38 of the message)",
    "java-arrow-field-table-runs-past-the-end.bin":
        "a Field table of 56 bytes runs past the end (in the message, at byte 1468 of the message)",
    "java-arrow-timestamp-table-vtable-outside-message.bin":
        "the vtable of a Timestamp table lies outside the message (in column 5 ('ts'), at byte 1244 of the message)",
    "java-arrow-metadata-table-runs-past-the-end.bin":
        "a KeyValue table of 1456 bytes runs past the end (in the message, at byte 68 of the message)",
    "java-arrow-offset-pointing-at-itself.bin":
        "an offset of 0 points at itself (in column 0 ('i'), at byte 1484 of the message)",
    "java-arrow-dictionary-encoding-vtable-outside-message.bin":
        "the vtable of a DictionaryEncoding table lies outside the message (in column 0 ('d'), at byte 136 of the message)",
}


def frame(message: bytes) -> bytes:
    return serreg.SerializationResult(class_id_hash("ArrowTable") + msgpack.packb([message, []]), []).to_bytes()


@pytest.fixture(scope="module")
def java_check(java_jar):
    process = JavaProcess("check")
    yield process
    assert process.close() == 0


def python_answer(data: bytes, trusted: bool) -> str:
    try:
        serreg.deserialize(data, trusted=trusted)
    except serreg.DeserializationError as error:
        return "refused: " + str(error)
    return "value"


def test_every_broken_table_gets_the_same_answer_in_java_as_in_python(java_check):
    differ = []
    broken = faults(schema_message())
    for name, message in broken.items():
        data = frame(message)
        lines = serreg.deserialize(java_check.round_trip(data)).split("\n")
        assert len(lines) == 2, (name, lines)
        for trusted, java in zip((True, False), lines):
            python = python_answer(data, trusted)
            words = WORDS.search(python)
            if python == java == "value" or words is not None and java.startswith("refused: ") and words.group(0) in java:
                continue
            differ.append(f"{name} (trusted={trusted}):\n  Python: {python}\n  Java:   {java}")
    assert not differ, f"{len(differ)} of {2 * len(broken)} answers differ:\n" + "\n".join(differ[:10])


@pytest.mark.parametrize("name", sorted(KEPT))
def test_a_kept_frame_is_refused_in_java_with_the_words_and_byte_python_says(java_check, name):
    data = (REGRESSIONS / name).read_bytes()[1:]
    expected = KEPT[name]
    for trusted in (True, False):
        assert expected in python_answer(data, trusted)
    lines = serreg.deserialize(java_check.round_trip(data)).split("\n")
    assert len(lines) == 2, lines
    for line in lines:  # trusted, then untrusted
        assert line.startswith("refused: ") and expected in line and "byte offset" in line, line


def test_a_table_of_no_batches_with_a_wide_fixed_size_binary_and_a_dictionary_echoes_through_java(java_echo):
    # Java sized the empty vectors of such a table at Arrow's default of 3,970 values: a fixed-size
    # binary of 64 MiB a value (in a frame of 260 bytes) asked for 266 GB, an OutOfMemoryError that
    # reached the registry's catch-all; Python reads it (tests/fuzz_regressions/README.md).
    import pyarrow as pa

    data = (REGRESSIONS / "java-hostile-arrow-wide-fixed-size-binary-without-batches.bin").read_bytes()[1:]
    table = serreg.deserialize(data)
    assert isinstance(table, pa.Table) and table.num_rows == 0
    echoed = serreg.deserialize(java_echo.round_trip(data))
    assert isinstance(echoed, pa.Table) and echoed.num_rows == 0
    assert echoed.schema.field("b").type == pa.binary(67108868)
    assert echoed.schema.field("d").type == pa.dictionary(pa.int8(), pa.utf8())


@pytest.mark.parametrize("bits", [32, 64])
def test_a_narrow_decimal_is_refused_in_java_by_the_walk_not_by_arrow_java_s_exception(java_check, bits):
    # Python reads 32- and 64-bit decimals; Arrow Java 18 threw IllegalArgumentException ("Library only
    # supports 128-bit and 256-bit decimal values") while converting the schema, which the reader wrapped
    # without a word of its own. The walk refuses them first, once Python's checks have passed.
    import pyarrow as pa

    schema = pa.schema([pa.field("d", pa.decimal32(7, 2) if bits == 32 else pa.decimal64(15, 3))])
    data = frame(schema.serialize().to_pybytes())
    assert python_answer(data, trusted=False) == "value"
    for line in serreg.deserialize(java_check.round_trip(data)).split("\n"):
        assert line.startswith(f"refused: invalid Arrow schema message: a Decimal type of {bits} bits, which Arrow Java "
                               "has no vector for (only 128 and 256 bits; docs/FORMAT.md, section 6.4) (in column 0 "
                               "('d'), at byte"), line


def test_a_struct_whose_children_share_a_name_is_refused_in_java(java_check):
    # Arrow Java keeps a struct's children by name: of a table of no batches with struct<a: bool, a: string>
    # it kept one child, and wrote the table back with 28 nodes for 29 fields (a mutant of the hostile
    # seeds, seed 23). Python reads it; Java refuses it, as cross_language=True refuses to write it.
    import pyarrow as pa

    data = (REGRESSIONS / "java-arrow-struct-children-sharing-a-name.bin").read_bytes()[1:]
    table = serreg.deserialize(data, trusted=False)
    assert isinstance(table, pa.Table) and [f.name for f in table.schema.field("s").type] == ["a", "a"]
    for line in serreg.deserialize(java_check.round_trip(data)).split("\n"):
        assert line.startswith("refused: Arrow field 's' is a struct whose children share the name 'a'; Arrow Java keeps "
                               "struct children by name (at byte offset"), line


@pytest.mark.parametrize("mode", ["sparse", "dense"])
def test_a_union_whose_children_share_a_name_is_refused_in_java_and_not_written_cross_language(java_check, mode):
    # Arrow Java keeps a union's children by name too: its loader failed on such a batch in its own words
    # ("not all nodes, buffers ... were consumed"), and cross_language=True wrote the table.
    import pyarrow as pa

    ids = pa.array([0, 1, 0], pa.int8())
    if mode == "sparse":
        union = pa.UnionArray.from_sparse(ids, [pa.array([1, 2, 3]), pa.array(["x", "y", "z"])], field_names=["a", "a"])
    else:
        union = pa.UnionArray.from_dense(ids, pa.array([0, 0, 1], pa.int32()), [pa.array([1, 3]), pa.array(["y"])],
                                         field_names=["a", "a"])
    table = pa.table({"u": union})
    with pytest.raises(serreg.CrossLanguageError, match="Arrow Java keeps union children by name"):
        serreg.serialize(table, cross_language=True)
    data = serreg.serialize(table).to_bytes()
    assert python_answer(data, trusted=False) == "value"
    for line in serreg.deserialize(java_check.round_trip(data)).split("\n"):
        assert line.startswith("refused: Arrow field 'u' is a union whose children share the name 'a'; Arrow Java keeps "
                               "union children by name (at byte offset"), line


def test_kept_frames_of_fields_without_names_are_refused_in_java_by_checks(java_check):
    # Mutants of the Arrow vectors (fuzz/arrow_schema_differential.py, seed 8) that Python reads, naming the
    # fields "": a sparse union's children (Java's loader failed in Arrow's words), and a list's child
    # (Arrow Java threw NullPointerException comparing its name with "[DEFAULT]").
    cases = {
        "java-arrow-union-children-without-names.bin":
            "refused: Arrow field '' is a union whose children share the name ''; Arrow Java keeps union children",
        "java-arrow-list-child-without-a-name.bin":
            "refused: invalid Arrow schema message: the field has no name, which Arrow Java cannot read in a list "
            "(in column 0 ('c') > child 0, at byte 172 of the message)",
    }
    for name, expected in cases.items():
        data = (REGRESSIONS / name).read_bytes()[1:]
        assert python_answer(data, trusted=False) == "value"
        for line in serreg.deserialize(java_check.round_trip(data)).split("\n"):
            assert line.startswith(expected) and "byte offset" in line, line
