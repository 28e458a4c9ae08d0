"""The hostile frames the Python tests build (fuzz/hostile_seeds.py) read by the Java reader.

Each frame goes to the Java fixture's ``check`` mode, which reads it trusted and untrusted and says
how each reading ended: a value, or a DeserializationException raised by a check. Anything else (an
IndexOutOfBounds, a NegativeArraySize, an Error such as OutOfMemoryError or StackOverflowError, a
catch-all's DeserializationException, or no answer within its time bound) is a finding. A refusal's
message must say where (its byte offset).
"""

import sys
from pathlib import Path

import pytest

import serreg
from java_fixture import JavaProcess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))

from hostile_seeds import corpus  # noqa: E402

CORPUS = corpus()


def test_the_corpus_holds_each_kind_of_hostile_frame():
    assert len(CORPUS) > 300
    for kind in ("struct list", "struct instance", "utf8", "arrow", "msgpack arrays", "cut at"):
        assert any(kind in name for name in CORPUS), kind


@pytest.fixture(scope="module")
def java_check(java_jar):
    process = JavaProcess("check")
    yield process
    assert process.close() == 0


def test_every_hostile_frame_is_a_value_or_a_deliberate_refusal_in_java(java_check):
    escaped, refused, values = [], 0, 0
    for name, frame in CORPUS.items():
        answer = serreg.deserialize(java_check.round_trip(frame))
        assert isinstance(answer, str), (name, answer)
        for mode, line in zip(("trusted", "untrusted"), answer.split("\n")):
            if line.startswith("ESCAPED"):
                escaped.append(f"{name} ({mode}): {line}")
            elif line.startswith("refused: "):
                refused += 1
                words = line[len("refused: "):]
                # Where: the byte offset (a struct field's type mismatch had none before).
                assert "byte offset" in words, (name, mode, words)
            else:
                assert line == "value", (name, mode, line)
                values += 1
    assert not escaped, "\n".join(escaped[:20])
    assert refused > len(CORPUS)  # most of them are refused, in both modes


def test_a_table_of_no_batches_with_a_dictionary_column_echoes_through_java(java_echo):
    # Java read it as a root whose dictionary-encoded column had no dictionaries attached, which its
    # writer refused ("the root has dictionary-encoded columns but no dictionaries"); the hostile seeds'
    # mutation run found it (tests/fuzz_regressions/java-hostile-arrow-dictionary-without-batches.bin).
    import pyarrow as pa

    schema = pa.schema([pa.field("a", pa.dictionary(pa.int32(), pa.string()))])
    table = pa.Table.from_batches([], schema)
    echoed = serreg.deserialize(java_echo.round_trip(serreg.serialize(table).to_bytes()))
    assert isinstance(echoed, pa.Table) and echoed.num_rows == 0
    assert echoed.schema.field("a").type == pa.dictionary(pa.int32(), pa.string())


def test_a_dictionary_encoding_whose_vtable_lies_outside_the_message_is_refused_in_java_as_in_python(java_check):
    # Java's schema walk did not look at a field's DictionaryEncoding table, so Arrow Java read one whose
    # vtable lies past the end of the message (here its last two bytes) as an empty table, where Python
    # refuses it (tests/fuzz_regressions/java-arrow-dictionary-encoding-vtable-outside-message.bin).
    path = Path(__file__).parent / "fuzz_regressions" / "java-arrow-dictionary-encoding-vtable-outside-message.bin"
    frame = path.read_bytes()[1:]  # input mode 0 (fuzz/inputs.py): the frame after one even byte
    expected = "the vtable of a DictionaryEncoding table lies outside the message"
    with pytest.raises(serreg.DeserializationError, match=expected):
        serreg.deserialize(frame, trusted=False)
    answer = serreg.deserialize(java_check.round_trip(frame))
    lines = answer.split("\n")
    assert len(lines) == 2, answer
    for line in lines:  # trusted, then untrusted
        assert line.startswith("refused: ") and expected in line, answer
        assert "(in column 0 ('d'), at byte 136 of the message)" in line and "byte offset" in line, answer
