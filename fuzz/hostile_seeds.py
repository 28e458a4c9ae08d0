"""Writes the hostile frames the Python tests build as a corpus for the Java reader.

The Python tests build many frames by hand that a mutation of a valid frame rarely reaches: struct
instances (ext 1) and lists of them (ext 2) with faults in their columns, strings that are not UTF-8
after a nested value, Arrow schema messages whose fields share names or form a DAG, nest 65 deep or
declare huge counts, or have one table or vtable outside the message or misaligned, msgpack headers claiming billions, values nested at and past the limits. This
gathers them (from the test modules, and a few built here), adds truncations of each, and writes
every one as NAME.frame into a directory:

    python fuzz/hostile_seeds.py java-compat/fixture/target/hostile-seeds

The Java mutation test (java-compat/fixture, MutationTest) reads that directory when it is there,
reads each frame as it is and uses it as a seed of its mutants; tests/test_hostile_seeds_java.py
sends every frame to the Java fixture's ``check`` mode, trusted and untrusted.
Run from the repository's root.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import msgpack

import serreg
from serreg.wire.class_id import class_id_hash

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import arrow_table_faults  # noqa: E402
import flatbuffer_craft as fb  # noqa: E402
import struct_hostile_in_bands  # noqa: E402
import struct_list_faults  # noqa: E402
import test_compiled_codec  # noqa: E402
import test_hostile_utf8  # noqa: E402

__all__ = ["DEFAULT_DIR", "corpus", "write"]

DEFAULT_DIR = ROOT / "java-compat" / "fixture" / "target" / "hostile-seeds"
TRUNCATIONS = 2  # cuts per frame, at a third and two thirds of it (frames are kept whole too)


def _frame(class_id: str, in_band: bytes, buffers: tuple[bytes, ...] = ()) -> bytes:
    return serreg.SerializationResult(class_id_hash(class_id) + in_band, [memoryview(b) for b in buffers]).to_bytes()


def _arrow(schema_part: object, batches: tuple[object, ...] = (), buffers: tuple[bytes, ...] = ()) -> bytes:
    return _frame("ArrowTable", msgpack.packb([schema_part, list(batches)]), buffers)


def _nested_ext(class_id: str, in_band: bytes) -> bytes:
    return bytes(msgpack.packb(msgpack.ExtType(0, class_id_hash(class_id) + in_band)))


def arrow_schema_tricks() -> dict[str, bytes]:
    """Schema messages built field by field: shared names and types, DAGs, depth, big declared counts."""
    out: dict[str, bytes] = {}
    name = fb.String("n" * 6_000)
    out["arrow fields sharing one name"] = _arrow(fb.schema_message([fb.field(name) for _ in range(300)]))
    for levels in (4, 18):
        inner = fb.field("leaf")
        for level in range(levels):
            inner = fb.field(f"s{level}", "Struct_", children=[inner, inner])
        out[f"arrow struct children DAG {levels} levels"] = _arrow(fb.schema_message([inner]))
    shared = fb.int_type(32)
    out["arrow shared type table"] = _arrow(fb.schema_message([fb.field("a", "Int", shared), fb.field("b", "Int", shared)]))
    value = fb.String("v" * 100)
    out["arrow shared metadata string"] = _arrow(fb.schema_message([fb.field("a", metadata=[("k1", value), ("k2", value)])]))
    for depth in (64, 65, 300):
        inner = fb.field("leaf")
        for level in range(depth - 1):
            inner = fb.field(f"l{level}", "List", children=[inner])
        out[f"arrow list fields {depth} deep"] = _arrow(fb.schema_message([inner]))
    for bits in (0, 7, 63, 128, -64, 1 << 30):
        out[f"arrow int of {bits} bits"] = _arrow(fb.schema_message([fb.field("x", "Int", fb.int_type(bits))]))
    out["arrow interval year-month"] = _arrow(fb.schema_message([fb.field("x", "Interval")]))
    out["arrow big-endian schema"] = _arrow(fb.schema_message([fb.field("x", "Int", fb.int_type(32))], big_endian=True))
    out["arrow many fields"] = _arrow(fb.schema_message([fb.field(f"f{i}") for i in range(3000)]))
    out["arrow not a flatbuffer"] = _arrow(b"\xff\xff\xff\x7f" + b"\x00" * 12)
    out["arrow empty schema bytes"] = _arrow(b"")
    out["arrow schema of a str"] = _arrow("schema")
    # A valid one-column table whose batch declares huge counts: rows, nodes, buffers.
    int_schema = fb.schema_message([fb.field("x", "Int", fb.int_type(64))])
    for rows in (1, 1 << 31, (1 << 63) - 1, -1):
        out[f"arrow batch of {rows} rows"] = _arrow(int_schema, ([rows, [[rows, 0]], [[0, 8], [0, 8]]],), (b"\x00" * 8,))
    out["arrow batch of 300000 empty batches"] = _arrow(int_schema, tuple([0, [[0, 0]], [[0, 0], [0, 0]]] for _ in range(3000)))
    out["arrow buffer index past the frame"] = _arrow(int_schema, ([1, [[1, 0]], [[0, 0], [5, 8]]],), (b"\x00" * 8,))
    # The canonical schema description nested past its limit.
    description: list[object] = ["leaf", ["Null"], True, None, []]
    for _ in range(65):
        description = ["l", ["List"], True, None, [description]]
    out["arrow canonical description 66 deep"] = _arrow([[description], None])
    # Each table of a schema message of every type broken in turn (vtable outside, odd vtable size, table
    # past the end, a field outside its table or misaligned): Arrow Java reads them before serreg's checks.
    for name, message in arrow_table_faults.faults(arrow_table_faults.schema_message()).items():
        out[f"arrow table {name}"] = _arrow(message)
    return out


def limit_edges() -> dict[str, bytes]:
    """Nesting at and past the limits, headers claiming billions, hash floods."""
    out: dict[str, bytes] = {}
    for depth in (1024, 1025, 100_000):
        out[f"msgpack arrays {depth} deep"] = _frame("list", b"\x91" * (depth - 1) + b"\xc0")
        out[f"msgpack maps {depth} deep"] = _frame("dict", b"\x81\xc0" * (depth - 1) + b"\xc0")
    for depth in (100, 101, 2000):
        blob = b"\x90"
        for _ in range(depth - 1):
            blob = b"\x91" + _nested_ext("tuple", blob)
        out[f"tuples {depth} deep"] = _frame("list", blob)
    for header in (b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff", b"\xc6\xff\xff\xff\xff",
                   b"\xc9\xff\xff\xff\xff\x00", b"\xdd\x7f\xff\xff\xff", b"\xdc\xff\xff"):
        out[f"header {header.hex()} claiming much"] = _frame("list", b"\x91" + header + b"\x01")
    for class_id in ("set", "frozenset", "tuple", "dict"):
        out[f"{class_id} declaring 2^32-1 items"] = _frame("list", b"\x91" + _nested_ext(class_id, b"\xdd\xff\xff\xff\xff\x01"))
    out["ext 1 with no payload"] = _frame("list", b"\x91\xd4\x01\x00")
    out["ext 2 with no payload"] = _frame("list", b"\x91\xc7\x00\x02")
    out["ext 0 of 7 bytes"] = _frame("list", b"\x91\xc7\x07\x00" + b"\x00" * 7)
    out["ext 32 with a negative length"] = _frame("list", b"\x91\xc9\xff\xff\xff\xff\x00")
    out["ndarray shape of 2^62"] = _frame("list", b"\x91" + _nested_ext("numpy.ndarray", msgpack.packb(["<f8", [1 << 62], 0])))
    out["big int of 100000 bytes"] = _frame("list", b"\x91" + _nested_ext("int", msgpack.packb(b"\xff" * 100_000)))
    return out


def struct_faults() -> dict[str, bytes]:
    """Struct tables, instances (ext 1) and lists of instances (ext 2) with faults (the tests' frames)."""
    out = {f"struct list {name}": entry[0] for name, entry in struct_list_faults.FAULTS.items()}
    out.update({f"struct instance {name}": entry[0] for name, entry in struct_list_faults.INSTANCE_FAULTS.items()})
    out["struct list good"] = struct_list_faults.GOOD
    out.update({f"structs {name}": frame for name, frame in struct_hostile_in_bands.HOSTILE.items()})
    # An ext 2 declaring huge counts: rows, columns.
    for header in (b"\x94\x00\xce\xff\xff\xff\xff", b"\x94\x00\xd2\x80\x00\x00\x00", b"\xdd\xff\xff\xff\xff\x00\x02"):
        payload = header + b"\x92\x01\x01\x92\x01\x01"
        out[f"struct list header {header.hex()}"] = struct_list_faults.instance_frame(b"\x93\x00\x01\x01").replace(
            b"\xc7\x04\x01\x93\x00\x01\x01", b"\xc7" + bytes([len(payload)]) + b"\x02" + payload)
    return out


def utf8_faults() -> dict[str, bytes]:
    out = {f"codec {name}": frame for name, frame in test_compiled_codec.HOSTILE.items()}
    for bad, (bad_bytes, _words) in test_hostile_utf8.BAD_STRS.items():
        for place in ("list item", "map key", "map value", "tuple item"):
            for before_name, before in (("nested", test_hostile_utf8.DECIMAL), ("plain", test_hostile_utf8.PLAIN)):
                class_id, data, _where = test_hostile_utf8.in_band(place, before, bad_bytes)
                out[f"utf8 {bad} {place} {before_name}"] = test_hostile_utf8.frame(class_id, data)
    return out


def corpus() -> dict[str, bytes]:
    """Every hostile frame by name, and TRUNCATIONS cuts of each under 64 KiB."""
    whole: dict[str, bytes] = {}
    for part in (struct_faults(), utf8_faults(), arrow_schema_tricks(), limit_edges()):
        whole.update(part)
    out = dict(whole)
    for name, frame in whole.items():
        if len(frame) > 1 << 16:
            continue
        for k in range(1, TRUNCATIONS + 1):
            cut = len(frame) * k // (TRUNCATIONS + 1)
            out[f"{name} cut at {cut}"] = frame[:cut]
    return out


def write(directory: Path) -> int:
    """Write the corpus as NAME.frame files (old .frame files removed first); returns how many."""
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("*.frame"):
        old.unlink()
    frames = corpus()
    for name, frame in frames.items():
        file_name = re.sub(r"[^A-Za-z0-9.,^-]+", "-", name).strip("-") + ".frame"
        (directory / file_name).write_bytes(frame)
    return len(frames)


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DIR
    print(f"{write(target)} hostile frames written to {target}")
