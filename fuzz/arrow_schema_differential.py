"""Python against the Java reader over byte mutants of Arrow schema messages: the same answer, or a finding.

Each Arrow vector frame (tests/vectors/arrow and Java's tests/vectors/java/arrow_*.frame: pyarrow's and
Arrow Java's flatbuffer layouts) gets N mutants, one to three bytes of its schema message changed; each
is read by Python and by the Java fixture's ``check`` mode, trusted and untrusted. Kinds of outcome:

- ``same``: both read a value, or both refuse with the words and byte of the schema walk (Python's
  ``invalid Arrow schema message: ... of the message)`` inside Java's refusal);
- ``both refuse after the walk``: both refuse, Python after its walk (batch checks, Arrow validation),
  Java after it too or for one of its own reasons below;
- ``java only``: Python reads a value that Java refuses on purpose (metadata that is not UTF-8, 32- and
  64-bit decimals, struct or union children sharing a name, a list's child without a name, fixed-size
  binary of width 0: docs/FORMAT.md sections 4.3 and 6.4);
- ``ESCAPED`` (Java's catch-all or no answer) and ``DIFF`` (anything else): findings, printed.

    python fuzz/arrow_schema_differential.py SEED MUTANTS_PER_FRAME      # from the root, nice -n 10

Exits 1 if there was a finding.
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pyarrow as pa

import serreg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from java_fixture import JavaProcess  # noqa: E402

__all__ = ["classify", "frames", "mutants"]

WALK = re.compile(r"invalid Arrow schema message: .*? of the message\)")
JAVA_ONLY = ("which Arrow Java cannot read", "which Arrow Java has no vector for", "children by name", "Arrow Java holds widths")


def frames() -> dict[str, bytes]:
    """The Arrow vector frames holding a Table or RecordBatch, by file name."""
    paths = sorted((ROOT / "tests" / "vectors" / "arrow").glob("*.frame"))
    paths += sorted((ROOT / "tests" / "vectors" / "java").glob("arrow_*.frame"))
    out = {}
    for path in paths:
        data = path.read_bytes()
        if isinstance(serreg.deserialize(data), (pa.Table, pa.RecordBatch)):
            out[path.name] = data
    return out


def mutants(frame: bytes, count: int, rng: random.Random) -> list[bytes]:
    """``count`` copies of ``frame``, one to three bytes of its schema message's flatbuffer changed."""
    start = frame.find(b"\xff\xff\xff\xff")  # the schema message's continuation marker
    length = int.from_bytes(frame[start + 4: start + 8], "little")
    out = []
    for _ in range(count):
        m = bytearray(frame)
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(start + 8, start + 8 + length)
            m[k] = rng.choice([0, 0xFF, rng.randrange(256), m[k] ^ (1 << rng.randrange(8))])
        out.append(bytes(m))
    return out


def _python(frame: bytes, trusted: bool) -> str:
    try:
        serreg.deserialize(frame, trusted=trusted)
    except serreg.DeserializationError as error:
        return "refused: " + str(error)
    return "value"


def classify(python: str, java: str) -> str:
    words = WALK.search(python)
    if java.startswith("ESCAPED"):
        return "ESCAPED"
    if python == java == "value" or words is not None and words.group(0) in java:
        return "same"
    if python.startswith("refused") and java.startswith("refused") and words is None and (
            not WALK.search(java) or any(reason in java for reason in JAVA_ONLY)):
        return "both refuse after the walk"
    if python == "value" and any(reason in java for reason in JAVA_ONLY):
        return "java only"
    return "DIFF"


def main(seed: int, count: int) -> int:
    rng = random.Random(seed)
    java = JavaProcess("check")
    kinds: dict[str, int] = {}
    for name, frame in frames().items():
        for i, mutant in enumerate(mutants(frame, count, rng)):
            lines = serreg.deserialize(java.round_trip(mutant)).split("\n")
            for trusted, java_line in zip((True, False), lines):
                python = _python(mutant, trusted)
                kind = classify(python, java_line)
                kinds[kind] = kinds.get(kind, 0) + 1
                if kind in ("ESCAPED", "DIFF") and kinds[kind] <= 20:
                    print(f"{name} mutant {i} (seed {seed}, trusted={trusted}):\n  Python: {python[:300]}\n"
                          f"  Java:   {java_line[:300]}")
    java.close()
    print(f"seed {seed}, {count} mutants per frame: {kinds}")
    return 1 if kinds.get("ESCAPED") or kinds.get("DIFF") else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2])))
