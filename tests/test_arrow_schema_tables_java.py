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
