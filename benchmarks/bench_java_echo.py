"""Python -> Java -> Python echo throughput: serreg frames vs plain Arrow IPC streams.

Both paths use the same Java fixture jar and the same framing on the same kind of
pipe (8-byte little-endian length, then the message):

* serreg: ``serreg.serialize(value).write_to(stdin)`` (buffers written from the
  value's own memory), Java ``echo`` decodes into views of its read buffer
  (Arrow vectors wrap the frame memory, no copy) and writes the frame back,
  Python reads the reply into one bytearray and decodes views of it.
* Arrow IPC: ``pyarrow.ipc.new_stream`` writes the table, Java
  ``arrow-ipc-echo`` reads it with ArrowStreamReader and writes it back with
  ArrowStreamWriter, Python reads it with ``pyarrow.ipc.open_stream``.

MB/s = payload bytes (the value's buffer sizes) / round-trip seconds, one way;
medians of several runs after a warm-up.

The ndarray legs are measured one at a time with the fixture's ``legs`` mode:
Python -> Java sends the array and Java decodes it (the reply is None);
Java -> Python asks with an int and Java writes an NDArray it holds in heap
memory (built from a double[]), which Python reads and decodes.

    python benchmarks/bench_java_echo.py [--runs 5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

import serreg
from serreg.bench.measure import median_of_runs as measure

# The Java fixture's build and pipe protocol are the test suite's (tests/java_fixture.py):
# this developer script drives the very process the cross-language tests drive.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from java_fixture import JavaProcess, build_jar  # noqa: E402


def serreg_round_trip(process: JavaProcess, value):
    result = serreg.serialize(value)
    process.send(result.write_to, result.nbytes)
    return serreg.deserialize(process.receive())


def ipc_round_trip(process: JavaProcess, table: pa.Table) -> pa.Table:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    message = sink.getvalue()
    process.send(lambda f: f.write(memoryview(message)), message.size)
    return pa.ipc.open_stream(pa.py_buffer(process.receive())).read_all()


def python_to_java(process: JavaProcess, array: np.ndarray) -> None:
    assert serreg_round_trip(process, array) is None


def java_to_python(process: JavaProcess, count: int) -> np.ndarray:
    return serreg_round_trip(process, count)


def arrow_payload_bytes(table: pa.Table) -> int:
    return sum(buf.size for col in table.columns for chunk in col.chunks for buf in chunk.buffers() if buf is not None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    build_jar()

    n = 1_000_000
    table = pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "x": pa.array(np.random.default_rng(0).random(n)),
        "name": pa.array([f"name-{i % 10007}" for i in range(n)], pa.string()),
    })
    array = np.random.default_rng(1).random(100 * 1024 * 1024 // 8)

    echo = JavaProcess("echo")
    ipc = JavaProcess("arrow-ipc-echo")
    legs = JavaProcess("legs")
    try:
        assert np.array_equal(java_to_python(legs, 1000), np.arange(1000) * 0.25)
        assert serreg_round_trip(echo, table).equals(table)
        assert ipc_round_trip(ipc, table).equals(table)
        assert np.array_equal(serreg_round_trip(echo, array), array)
        rows = [
            ("Arrow table, 1M rows (int64, float64, string)", arrow_payload_bytes(table),
             lambda: serreg_round_trip(echo, table), lambda: ipc_round_trip(ipc, table)),
            ("ndarray float64, 100 MB", array.nbytes, lambda: serreg_round_trip(echo, array), None),
            ("ndarray float64, 100 MB, Python -> Java only", array.nbytes, lambda: python_to_java(legs, array), None),
            ("ndarray float64, 100 MB, Java -> Python only", array.nbytes, lambda: java_to_python(legs, array.size), None),
        ]
        print(f"{'value':<48} {'MB':>7} {'serreg MB/s':>12} {'Arrow IPC MB/s':>15}")
        for name, nbytes, serreg_fn, ipc_fn in rows:
            mb = nbytes / 1e6
            serreg_rate = mb / measure(serreg_fn, args.runs)
            ipc_rate = f"{mb / measure(ipc_fn, args.runs):15.0f}" if ipc_fn else f"{'n/a':>15}"
            print(f"{name:<48} {mb:7.1f} {serreg_rate:12.0f} {ipc_rate}")
    finally:
        echo.close()
        ipc.close()
        legs.close()


if __name__ == "__main__":
    main()
