"""Measures what the worst known inputs cost each entry point: memory per input byte and time per MiB.

Issue 11, section 1 asks for the bound ``c x S + allowance`` (aim: 16 x S +
32 MiB) and time linear in S, for deserialize (trusted and not), digest,
canonical serialize, ``Store.put`` of a decoded value, ``Store.get`` and
``serreg inspect``. This script builds the adversarial inputs found so far,
each about SIZE bytes (default 2 MiB; the Arrow ones as large as their kind
allows), runs every entry point on each in a fresh process (so one
measurement's freed memory does not hide the next one's), and prints peak
memory growth (fuzz/amplification.py: resident set, Arrow's C++ included),
the bound 16 x S + 32 MiB, growth beyond 32 MiB per input byte (the factor
that counts once the allowance is spent), and seconds per MiB.

    python fuzz/worst_inputs.py [--size BYTES] [--only NAME]
    python fuzz/worst_inputs.py --write DIR   # the inputs as files, for the Java measurement

The Java twin (java-compat/fuzz, ``serreg.fuzz.WorstInputs DIR``) measures the
Java reader on the files ``--write`` leaves.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))

ENTRY_POINTS = ("deserialize untrusted", "deserialize trusted", "digest", "canonical serialize", "Store.put",
                "Store.get", "serreg inspect")


def inputs(size: int) -> dict:
    """name -> frame bytes of about ``size`` bytes."""
    import msgpack
    import numpy as np
    import pyarrow as pa

    import serreg
    from serreg.wire.class_id import class_id_hash

    def frame(class_id, in_band, buffers=()):
        return serreg.SerializationResult(class_id_hash(class_id) + in_band, [memoryview(b) for b in buffers]).to_bytes()

    n = size
    out = {
        "list of empty lists": frame("list", b"\xdd" + n.to_bytes(4, "big") + b"\x90" * n),
        "list of empty maps": frame("list", b"\xdd" + n.to_bytes(4, "big") + b"\x80" * n),
        "list of 2-char str": frame("list", b"\xdd" + (n // 3).to_bytes(4, "big") + b"\xa2ab" * (n // 3)),
        "dict of int keys": frame("dict", msgpack.packb({i: None for i in range(n // 6)})),
        "list of big ints": frame("list", msgpack.packb([2**63 + i for i in range(n // 9)])),
        "list of nested tuples": frame("list", msgpack.packb(
            [msgpack.ExtType(0, class_id_hash("tuple") + b"\x91\xc0")] * (n // 13))),
    }
    # Arrow: as many empty batches of a null column as the budget lets through, and as many columns.
    schema = pa.schema([pa.field("a", pa.null())]).serialize().to_pybytes()
    out["Arrow empty batches"] = frame("ArrowTable", msgpack.packb([schema, [[0, [[0, 0, 0]]]] * (n // 7)]))
    columns = pa.schema([pa.field(f"c{i}", pa.null()) for i in range(n // 44)]).serialize().to_pybytes()
    out["Arrow null columns"] = frame("ArrowTable", msgpack.packb([columns, [[0, [[0, 0, 0]] * (n // 44)]]]))
    # The review's DAG: 3,000 fields naming one 60 KB string (c2967a7: 172 MiB in pyarrow, OutOfMemoryError in Java).
    from flatbuffer_craft import String, field, schema_message
    shared = String("n" * 60_000)
    out["Arrow schema DAG (shared name)"] = frame("ArrowTable", msgpack.packb(
        [schema_message([field(shared) for _ in range(3000)]), []]))
    # The canonical form's worst: fixed-size lists of 2^20 empty structs per row, one row null.
    rows = 64
    fsl = pa.schema([pa.field("c", pa.list_(pa.struct([]), 2**20))]).serialize().to_pybytes()
    bitmap = np.packbits(np.arange(rows) != 3, bitorder="little").tobytes()
    out["Arrow fixed-size list of empty structs"] = frame(
        "ArrowTable", msgpack.packb([fsl, [[rows, [[rows, 1, 1], [rows * 2**20, 0, 1]]]]]), [bitmap, b""])
    return out


def measure_one(name: str, entry: str, size: int) -> dict:
    from amplification import measure

    import serreg
    from serreg import inspection
    from serreg.cas import Store

    data = inputs(size)[name]
    registry = serreg.Registry(trusted=False)
    scratch = tempfile.mkdtemp(prefix="serreg-worst-")
    value = None
    if entry in ("digest", "canonical serialize", "Store.put", "Store.get"):
        try:
            value = registry.deserialize(data)
        except serreg.DeserializationError as error:
            return {"outcome": f"not decoded: {type(error).__name__}"}
    store = Store(os.path.join(scratch, "store"), registry=registry)
    digest = None
    if entry == "Store.get":
        try:
            digest = store.put(value)
        except serreg.SerregError as error:
            return {"outcome": f"not stored: {type(error).__name__}"}
        value = None
    calls = {
        "deserialize untrusted": lambda: registry.deserialize(data, trusted=False),
        "deserialize trusted": lambda: registry.deserialize(data, trusted=True),
        "digest": lambda: registry.digest(value),
        "canonical serialize": lambda: registry.serialize(value, canonical=True).to_bytes(),
        "Store.put": lambda: store.put(value),
        "Store.get": lambda: store.get(digest),
        "serreg inspect": lambda: list(inspection.inspect_frames(data, inspection.standard_class_names())),
    }
    cost = measure(calls[entry])
    outcome = cost.outcome
    text = type(outcome).__name__ if isinstance(outcome, BaseException) else "value"
    return {"outcome": text, "bytes": len(data), "peak": cost.peak_bytes, "seconds": cost.seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2 * 2**20)
    parser.add_argument("--only")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # NAME ENTRY: measure in this process
    parser.add_argument("--write", metavar="DIR", help="write each input to DIR/NAME.frame and stop")
    args = parser.parse_args()
    if args.write:
        os.makedirs(args.write, exist_ok=True)
        for name, data in inputs(args.size).items():
            with open(os.path.join(args.write, name.replace(" ", "_") + ".frame"), "wb") as f:
                f.write(data)
        return
    if args.one:
        print(json.dumps(measure_one(args.one[0], args.one[1], args.size)))
        return
    names = [name for name in inputs(args.size) if args.only is None or args.only in name]
    print(f"{'input':40} {'entry point':22} {'bytes':>10} {'outcome':20} {'peak MiB':>9} {'bound':>7} "
          f"{'(peak-32M)/S':>12} {'s':>6} {'s/MiB':>7}")
    for name in names:
        for entry in ENTRY_POINTS:
            completed = subprocess.run([sys.executable, __file__, "--size", str(args.size), "--one", name, entry],
                                       capture_output=True, text=True)
            if completed.returncode:
                print(f"{name:40} {entry:22} CRASHED ({completed.returncode}): {completed.stderr[-300:]}")
                continue
            row = json.loads(completed.stdout.strip().splitlines()[-1])
            if "peak" not in row:
                print(f"{name:40} {entry:22} {'':>10} {row['outcome']:28}")
                continue
            mib = row["bytes"] / 2**20
            bound = 16 * row["bytes"] + 32 * 2**20
            beyond = max(0, row["peak"] - 32 * 2**20) / row["bytes"]
            print(f"{name:40} {entry:22} {row['bytes']:>10,} {row['outcome'][:20]:20} {row['peak'] / 2**20:>9.1f} "
                  f"{bound / 2**20:>7.1f} {beyond:>12.1f} {row['seconds']:>6.2f} {row['seconds'] / mib:>7.2f}"
                  + ("" if row["peak"] <= bound else "  over the bound"), flush=True)


if __name__ == "__main__":
    main()
