"""The hostile frames the Python tests build (fuzz/hostile_seeds.py) read by the Java reader.

Each frame goes to the Java fixture's ``check`` mode, which reads it trusted and untrusted and says
how each reading ended: a value, or a DeserializationException raised by a check. Anything else (an
IndexOutOfBounds, a NegativeArraySize, an Error such as OutOfMemoryError or StackOverflowError, a
catch-all's DeserializationException, or no answer within its time bound) is a finding. A refusal's
message must say where (an offset or a class ID).
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
                assert "offset" in words or "class ID" in words or "byte" in words, (name, mode, words)
            else:
                assert line == "value", (name, mode, line)
                values += 1
    assert not escaped, "\n".join(escaped[:20])
    assert refused > len(CORPUS)  # most of them are refused, in both modes
