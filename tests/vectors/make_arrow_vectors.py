"""Writes the golden vectors of the Arrow types beyond the plain ones: tests/vectors/arrow/.

For each vector: <name>.frame (what ``serialize`` writes), <name>.canonical (the canonical
frame, whose SHA-256 is the digest) and an entry in manifest.json with the digest and
what Java does with it (``java``: "reads" - the frame goes through the Java echo and Java's
digest equals the manifest's; "opaque" - Java has no serializer for the class ID and echoes
the frame byte for byte; "refuses" - Java answers with an error frame).
tests/test_arrow_vectors.py checks every file against the code.

    python tests/vectors/make_arrow_vectors.py [OUTPUT_DIR]
"""

from __future__ import annotations

import decimal
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

import serreg

OUT = Path(__file__).resolve().parent / "arrow"


def _table(column, name="c") -> pa.Table:
    return pa.table({name: column})


def vectors() -> list:
    """(name, value, what Java does with it)."""
    strings = pa.array(["a", None, "ccc", "a"])
    return [
        ("dictionary_int8_string", _table(pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 0], pa.int8()),
                                                                           pa.array(["x", "y"]))), "reads"),
        ("dictionary_uint16_nested", _table(pa.DictionaryArray.from_arrays(
            pa.array([1, 0], pa.uint16()), pa.array([[1, 2], None], pa.list_(pa.int32())))), "reads"),
        ("sparse_union", _table(pa.UnionArray.from_sparse(pa.array([0, 1, 0], pa.int8()),
                                                          [pa.array([1, None, 3]), strings.slice(0, 3)])), "reads"),
        ("dense_union_codes", _table(pa.UnionArray.from_dense(
            pa.array([5, 9, 5], pa.int8()), pa.array([0, 0, 1], pa.int32()),
            [pa.array([1.5, -0.0]), pa.array(["z"])], ["f", "s"], [5, 9])), "reads"),
        ("run_end_encoded", _table(pa.RunEndEncodedArray.from_arrays(pa.array([2, 5], pa.int32()),
                                                                     pa.array(["x", None]))), "reads"),
        ("string_view", _table(pa.array(["short", None, "a value longer than twelve bytes"], pa.string_view())),
         "reads"),
        ("binary_view", _table(pa.array([b"\x00" * 13, b"", None], pa.binary_view())), "reads"),
        ("list_view_overlapping", _table(pa.ListViewArray.from_arrays(
            pa.array([2, 0, 1], pa.int32()), pa.array([2, 3, 0], pa.int32()), pa.array([1, 2, 3, 4]))), "reads"),
        ("large_list_view", _table(pa.array([[1], None, [2, 3]], pa.large_list_view(pa.int16()))), "reads"),
        ("month_day_nano", _table(pa.array([pa.MonthDayNano([1, -2, 3]), None], pa.month_day_nano_interval())),
         "reads"),
        ("uuid_extension", _table(pa.ExtensionArray.from_storage(pa.uuid(), pa.array([b"\x01" * 16, None],
                                                                                      pa.binary(16)))), "reads"),
        ("extension_by_metadata", pa.table({"c": pa.array([1, 2], pa.int64())}).cast(pa.schema([pa.field(
            "c", pa.int64(), metadata={"ARROW:extension:name": "example.unregistered",
                                       "ARROW:extension:metadata": "v1"})])), "reads"),
        ("decimal32", _table(pa.array([decimal.Decimal("1.25"), None], pa.decimal32(7, 2))), "refuses"),
        ("chunked_array", pa.chunked_array([[1, 2], [None]], pa.int32()), "opaque"),
        ("schema", pa.schema([pa.field("a", pa.string_view())], metadata={"k": "v"}), "opaque"),
        ("tensor", pa.Tensor.from_numpy(np.arange(6, dtype=np.int16).reshape(2, 3), dim_names=["r", "c"]), "opaque"),
        # (No pandas vector: pandas writes its own version into the schema metadata.)
    ]


def main(out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, value, java in vectors():
        frame = serreg.serialize(value).to_bytes()
        canonical = serreg.serialize(value, canonical=True).to_bytes()
        (out / f"{name}.frame").write_bytes(frame)
        (out / f"{name}.canonical").write_bytes(canonical)
        entries.append({"name": name, "frame": f"{name}.frame", "canonical": f"{name}.canonical",
                        "digest": hashlib.sha256(canonical).hexdigest(), "java": java})
    (out / "manifest.json").write_text(json.dumps({"vectors": entries}, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
