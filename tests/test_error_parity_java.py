"""Python (both codecs) and Java refuse the same hostile frames with the same error class at the same byte.

Every frame of the hostile corpus (tests/error_outcomes.py: fuzz/hostile_seeds.py and
tests/fuzz_regressions/) is read trusted and untrusted by Python's codec in this process, by the
other codec in a child process (``SERREG_PURE_PYTHON``), and by the Java fixture's
``check --classes`` mode. Each reading is a value or a refusal: its error class (Java's
FrameFormatException is Python's DeserializationError; XException is XError) and the byte offset
it names, the first byte that is wrong (docs/FORMAT.md, section 4.1).

The two Python codecs agree on every reading. Python and Java agree on every reading but those
in :data:`ACCEPTED`, each a difference the documents name (what one language can hold and the
other cannot, sections 3, 4, 4.3 and 10.5), or a refusal of Python's that names no offset (a value
nested in another, refused by its own serializer: Python knows the value, not the byte), and the
frames of :data:`TWO_FAULTS`. The test prints the counts and fails on any other disagreement.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

import serreg
from error_outcomes import frames, outcomes
from java_fixture import JavaProcess

TESTS = Path(__file__).resolve().parent
_OFFSET = re.compile(r"\(at byte offset (\d+)\)")
_JAVA_CLASSES = {"FrameFormatException": "DeserializationError", "UntrustedClassIdException": "UntrustedClassIDError",
                 "UnknownClassIdException": "UnknownClassIDError"}

Reading = tuple[str, Optional[str], Optional[int]]  # ("value" | "refused", error class, offset)


def _python(reading: list[Any]) -> Reading:
    return ("value", None, None) if reading[0] == "value" else ("refused", reading[0], reading[1])


def _java(line: str) -> Reading:
    if line == "value":
        return ("value", None, None)
    assert line.startswith("refused: "), line  # an escape is tests/test_hostile_seeds_java.py's finding
    name, _, message = line[len("refused: "):].partition(": ")
    offsets = _OFFSET.findall(message)
    return ("refused", _JAVA_CLASSES.get(name, name.replace("Exception", "Error")), int(offsets[-1]) if offsets else None)


def _python_refuses(pattern: str) -> Callable[[list[Any], str], bool]:
    """Python refuses with these words where Java reads on: a value, or a refusal of a later byte."""
    words = re.compile(pattern)

    def test(python: list[Any], java: str) -> bool:
        if python[0] == "value" or not words.search(python[2]):
            return False
        later = _java(java)[2]
        return java == "value" or (later is not None and python[1] is not None and later > python[1])

    return test


def _java_refuses(pattern: str) -> Callable[[list[Any], str], bool]:
    words = re.compile(pattern)
    return lambda python, java: python[0] == "value" and bool(words.search(java))


def _python_without_offset(python: list[Any], java: str) -> bool:
    ours, theirs = _python(python), _java(java)
    return ours[0] == theirs[0] == "refused" and ours[1] == theirs[1] and ours[2] is None and "inside " in python[2]


def _java_keeps_unknown(python: list[Any], java: str) -> bool:
    return python[0] == "UnknownClassIDError" and java == "value"


# Why a reading may differ between Python and Java: each test of a (Python reading, Java line) pair.
ACCEPTED: dict[str, Callable[[list[Any], str], bool]] = {
    # Section 7: a Python dict or set holds hashable keys only; a Java Map or Set holds a List as a key.
    "an unhashable map key or set member (Python cannot hold it)": _python_refuses(r"unhashable type"),
    # Section 4.3: Python refuses a map or set whose keys collide, in untrusted data (hash flooding).
    "keys with one hash in untrusted data (Python's hash-flooding bound)": _python_refuses(r"have the same hash"),
    # Section 4: a frame may be followed by other data; Python's deserialize is given exactly one frame.
    "bytes after the frame's total length (Python refuses them, Java reads the frame)":
        _python_refuses(r"^frame header says the frame is \d+ bytes, but \d+ bytes were given"),
    # Section 3: a reader may keep a value of an unknown class ID opaque; Java does so when it trusts the frame.
    "an unknown class ID in trusted mode (Java keeps the value opaque)": _java_keeps_unknown,
    # Section 4.3: Java refuses Arrow schemas Arrow Java cannot hold.
    "an Arrow schema Arrow Java cannot hold": _java_refuses(r"Arrow Java"),
    # Section 10.5: a wire float32 in a float64 struct field is rounded by Python, refused by Java.
    "a float32 in a float64 struct field (Java refuses it)": _java_refuses(r"expected a float 64, found FLOAT32"),
    "a value nested in another, refused by its serializer (Python names no offset)": _python_without_offset,
}

# Frames with two faults, where the two readers check in another order and each names the fault it
# met first (both are wrong bytes): name -> which faults.
TWO_FAULTS = {
    "structs instance array longer than its payload":
        "an instance array of 3 fields for a definition of 2 (Java checks the count first), cut short (Python reads it first)",
    "codec tuple 1,025 deep, then cut short, after a nested value":
        "an array declaring more items than bytes follow (Java checks a count at its header), in which arrays nest"
        " past the limit (Python's msgpack reader meets the depth first)",
    "regression arrow-sparse-union-abort":
        "an Arrow union node with a null count and with buffers its type does not have (Java checks the null count first)",
    "regression java-decimal-text-naming-a-catch-all":
        "a complex's in-band is a str (Java checks the type first) followed by more bytes (Python checks the end first)",
}


@pytest.fixture(scope="module")
def corpus() -> dict[str, bytes]:
    return frames()


@pytest.fixture(scope="module")
def python_readings(corpus) -> dict[str, list[list[Any]]]:
    return outcomes(corpus)


@pytest.fixture(scope="module")
def java_readings(java_jar, corpus) -> dict[str, list[str]]:
    process = JavaProcess("check", "--classes")
    try:
        return {name: serreg.deserialize(process.round_trip(frame)).split("\n") for name, frame in corpus.items()}
    finally:
        assert process.close() == 0


def test_the_other_python_codec_reads_every_frame_alike(python_readings):
    pure = os.environ.get("SERREG_PURE_PYTHON", "") not in ("", "0")
    env = {**os.environ, "SERREG_PURE_PYTHON": "" if pure else "1"}
    child = subprocess.run([sys.executable, str(TESTS / "error_outcomes.py")], env=env, capture_output=True,
                           text=True, timeout=600)
    assert child.returncode == 0, child.stderr[-2000:]
    other = json.loads(child.stdout)
    assert other.keys() == python_readings.keys()
    differ = [f"{name} ({mode}): {ours} | {theirs}" for name in other
              for mode, ours, theirs in zip(("trusted", "untrusted"), python_readings[name], other[name])
              if ours[:2] != theirs[:2]]
    assert not differ, "\n".join(differ[:20])


def test_python_and_java_name_the_same_class_and_offset(python_readings, java_readings):
    agree, accepted, differ = 0, Counter[str](), []
    for name, readings in python_readings.items():
        for mode, python, java in zip(("trusted", "untrusted"), readings, java_readings[name]):
            if _python(python) == _java(java):
                agree += 1
                continue
            reason = next((why for why, test in ACCEPTED.items() if test(python, java)), None)
            if reason is None and name in TWO_FAULTS and python[0] != "value" and java != "value":
                reason = "two faults, checked in another order"
            if reason is None:
                differ.append(f"{name} ({mode}):\n  Python: {python[-1]}\n  Java:   {java}")
            else:
                accepted[reason] += 1
    print(f"\n{agree} readings agree, {sum(accepted.values())} differ for a reason named, {len(differ)} differ")
    for reason, count in accepted.most_common():
        print(f"  {count:5d}  {reason}")
    assert not differ, f"{len(differ)} readings differ:\n" + "\n".join(differ[:30])
    assert agree > 10 * sum(accepted.values())
