"""Hostile frames read by Python and by the TypeScript reader (js-compat/), answer beside answer.

``corpora()`` gathers the frames: the hostile seeds the Python tests build (fuzz/hostile_seeds.py,
which the Java mutation run uses too), every fuzz finding kept in tests/fuzz_regressions/, and the
Arrow schema messages with one flatbuffer table broken (tests/arrow_table_faults.py). ``compare``
sends each to the TypeScript check fixture (``check.js``: trusted, then untrusted) and sorts each
answer against Python's:

- ``same``: both read a value, and TypeScript's value, written again, reads in Python as Python's;
- ``both refuse``: both raise a deliberate error (``words`` then says whether TypeScript's carries
  the words and byte Python's does, for the broken-table frames);
- ``TypeScript refuses``: Python reads a value, TypeScript refuses it with a check of its own (a type
  it does not read, for instance);
- ``a value JS can hold``: Python refuses what a Python value cannot be (``LANGUAGE_DIFFERENCES``);
- ``carried opaque``: Python refuses, TypeScript (trusted) carries a value of a class ID it does not read
  as an OpaqueValue, unread, written back byte for byte (a pickle, an ArrowTensor...);
- findings: ``escaped`` (not a SerregError, a catch-all's error around another exception, no answer in
  time, the process died), ``TypeScript reads a refused frame``, ``values differ``, ``not written``.

Run as a script it prints the counts and the findings: ``python tests/typescript_differential.py``.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import msgpack

import serreg
from serreg.wire.class_id import class_id_hash

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "fuzz"))

from arrow_table_faults import faults, schema_message  # noqa: E402
from hostile_seeds import corpus  # noqa: E402
from inputs import frame_from_input  # noqa: E402
from struct_shapes import register as register_shapes  # noqa: E402
from test_cross_language import same  # noqa: E402  (puts tests/vectors on sys.path)
from make_python_vectors import registry as vectors_registry  # noqa: E402
from typescript_fixture import TypeScriptCheck  # noqa: E402

__all__ = ["FINDINGS", "LANGUAGE_DIFFERENCES", "REGISTRY", "WORDS", "Answer", "compare", "corpora", "python_answer"]

REGRESSIONS = HERE / "fuzz_regressions"
# The words of a refusal by Python's schema walk (what TypeScript's must say too, byte included).
WORDS = re.compile(r"invalid Arrow schema message: .+ of the message\)")
# What the check fixture registers too: example.Point and the struct shapes (a struct of a registered class
# reads by that class's definition, dropping fields the frame's definition adds, in both languages).
REGISTRY = register_shapes(vectors_registry())
# Frames Python refuses for what a Python value cannot be and a JS one can: a list or map as a map key or
# set member (JS Map and Set take any value), map keys or set members sharing a hash (hash flooding,
# refused in untrusted mode: JS hashes differently; js-compat/README.md), and a nested value of a class ID
# nothing is registered for (trusted mode carries it opaque in TypeScript), and an Arrow extension type
# pyarrow resolves (arrow.uuid) refusing its storage type (TypeScript resolves no extension type: it reads
# the storage column and keeps the extension keys as field metadata). TypeScript reads these.
LANGUAGE_DIFFERENCES = re.compile(
    r"unhashable type|have the same hash|no serializer is registered for ClassIDHash|Invalid storage type for")
FINDINGS = ("escaped", "TypeScript reads a refused frame", "values differ", "not written")


def arrow_frame(message: bytes) -> bytes:
    return serreg.SerializationResult(class_id_hash("ArrowTable") + msgpack.packb([message, []]), []).to_bytes()


def js_schema_message() -> bytes:
    """A Schema message of every type table the TypeScript reader reads (no union, interval or dictionary:
    with those, it refuses every message, and a broken table elsewhere would go unseen)."""
    import pyarrow as pa

    fields = [
        pa.field("i", pa.int32()), pa.field("f", pa.float64()), pa.field("dec", pa.decimal128(10, 2)),
        pa.field("d", pa.date32()), pa.field("t", pa.time64("us")), pa.field("ts", pa.timestamp("ms", tz="UTC")),
        pa.field("l", pa.list_(pa.int8())), pa.field("s", pa.struct([pa.field("a", pa.bool_()), pa.field("b", pa.utf8())])),
        pa.field("fsb", pa.binary(4)), pa.field("fsl", pa.list_(pa.int64(), 2)), pa.field("m", pa.map_(pa.utf8(), pa.int32())),
        pa.field("du", pa.duration("s")), pa.field("lb", pa.large_binary()), pa.field("lu", pa.large_utf8(), metadata={"k": "v"}),
        pa.field("ll", pa.large_list(pa.null())),
    ]
    return bytes(pa.schema(fields, metadata={"sk": "sv"}).serialize())


def corpora() -> dict[str, dict[str, bytes]]:
    """The frames by corpus and name."""
    return {
        "hostile seeds": corpus(),
        "fuzz regressions": {p.name: frame_from_input(p.read_bytes()) for p in sorted(REGRESSIONS.glob("*.bin"))},
        "broken Arrow tables": {name: arrow_frame(message) for name, message in faults(schema_message()).items()},
        "broken Arrow tables, types TypeScript reads": {
            name: arrow_frame(message) for name, message in faults(js_schema_message()).items()},
    }


def python_answer(frame: bytes, trusted: bool) -> tuple[str, Any]:
    try:
        return "value", REGISTRY.deserialize(frame, trusted=trusted)
    except serreg.DeserializationError as error:
        return "refused: " + str(error), None


class Answer:
    """One frame in one mode: Python's outcome, TypeScript's, and how they compare."""

    def __init__(self, name: str, trusted: bool, python: str, typescript: str, kind: str) -> None:
        self.name, self.trusted, self.python, self.typescript, self.kind = name, trusted, python, typescript, kind

    def __str__(self) -> str:
        mode = "trusted" if self.trusted else "untrusted"
        return f"{self.name} ({mode}): {self.kind}\n  Python:     {self.python[:300]}\n  TypeScript: {self.typescript[:300]}"


def _kind(frame: bytes, python: str, py_value: Any, typescript: str, written: bytes | None, trusted: bool) -> str:
    if typescript.startswith("ESCAPED"):
        return "escaped"
    if typescript.startswith("value (not written"):
        return "not written"
    ts_value = typescript.startswith("value")
    if python == "value":
        if not ts_value:
            return "TypeScript refuses"
        if not trusted:
            return "same"  # the trusted mode compares the value
        if written is None:
            return "not written"
        if written == frame:
            return "same"  # written back byte for byte
        try:
            echoed = REGISTRY.deserialize(written, trusted=True)
        except serreg.DeserializationError:
            return "values differ"
        try:
            return "same" if same(py_value, echoed) else "values differ"
        except RecursionError:  # values nested at the depth limit: compare what Python writes of each
            return "same" if REGISTRY.serialize(py_value).to_bytes() == REGISTRY.serialize(echoed).to_bytes() else "values differ"
    if ts_value:
        if typescript.startswith("value (opaque") and trusted:
            return "carried opaque"
        if LANGUAGE_DIFFERENCES.search(python) and (trusted or "no serializer is registered" not in python):
            return "a value JS can hold"
        return "TypeScript reads a refused frame"
    return "both refuse"


def compare(frames: dict[str, bytes], check: TypeScriptCheck) -> Iterator[Answer]:
    """Each frame's answers, trusted then untrusted."""
    for name, frame in frames.items():
        typescript = check.answer(frame)
        for trusted, ts in zip((True, False), typescript[:2]):
            python, value = python_answer(frame, trusted)
            yield Answer(name, trusted, python, ts, _kind(frame, python, value, ts, typescript[2], trusted))


def main() -> None:
    from typescript_fixture import build

    build()
    check = TypeScriptCheck()
    for corpus_name, frames in corpora().items():
        answers = list(compare(frames, check))
        counts = Counter(a.kind for a in answers)
        worded = sum(1 for a in answers if a.kind == "both refuse" and (m := WORDS.search(a.python)) and m.group(0) in a.typescript)
        print(f"{corpus_name}: {len(frames)} frames, {len(answers)} answers: "
              + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f"; refusals with Python's schema words {worded}")
        for answer in answers:
            if answer.kind in FINDINGS:
                print("  " + str(answer).replace("\n", "\n  "))
    check.close()


if __name__ == "__main__":
    main()
