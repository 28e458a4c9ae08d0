"""``serreg demo``: round-trip a nested object holding an ndarray and an Arrow table.

Where numpy and pyarrow are not installed (``pip install serreg`` alone), the
object holds a large bytearray and a memoryview of an ``array.array`` instead,
which travel out-of-band the same way.
"""

from __future__ import annotations

from typing import Any

import argparse
import array
import datetime
import time

from .._default import deserialize, serialize

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "demo", help="round-trip a nested object with an ndarray and an Arrow table and show what was zero-copy"
    )
    parser.add_argument("--rows", type=_positive, default=1_000_000, help="rows of the demo table and matrix (default 1,000,000)")
    parser.set_defaults(run=run)


def _positive(text: str) -> int:
    try:
        rows = int(text)
    except ValueError:
        rows = 0
    if rows < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of rows, 1 or more, not {text!r}")
    return rows


def run(args: Any) -> int:
    """Round-trip the demo object; show what was zero-copy, the sizes and the timings."""
    try:
        import numpy as np  # optional (serreg[arrow]): the ndarray and Arrow table demo
        import pyarrow as pa
    except ImportError as error:
        print(f"numpy and pyarrow are not installed ({error}): showing the standard types only; "
              "pip install 'serreg[arrow]' adds an ndarray and an Arrow table\n")
        return _run_standard(args.rows)
    rows = args.rows
    array = np.arange(rows * 4, dtype=np.float64).reshape(rows, 4)
    table = pa.table({
        "id": pa.array(np.arange(rows, dtype=np.int64)),
        "score": pa.array(np.linspace(0, 1, rows)),
        "name": pa.array([f"row{i}" for i in range(min(rows, 1000))] * (rows // 1000) + [f"row{i}" for i in range(rows % 1000)]),
    })
    value = {"title": "serreg demo", "matrix": array, "table": table, "tags": ("a", "b"), "count": rows}

    deserialize(serialize({"warm": (np.zeros(1), table.slice(0, 1))}))  # loads the plug-ins once
    trip = _RoundTrip(value)
    result, back, frame, from_frame = trip.result, trip.back, trip.frame, trip.from_frame

    def shares(a: Any, b: Any) -> bool:
        return np.shares_memory(a, b)

    table_shared = all(
        back["table"].column(i).chunk(0).buffers()[-1].address == table.column(i).chunk(0).buffers()[-1].address
        for i in range(table.num_columns)
    )
    print(f"value: dict with a {array.shape} float64 ndarray and a {table.num_rows}-row Arrow table")
    print(f"equal after round trip: {np.array_equal(back['matrix'], array) and back['table'].equals(table)}")
    print(f"in-process ndarray zero-copy (shares memory): {shares(back['matrix'], array)}")
    print(f"in-process Arrow table zero-copy (same buffers): {table_shared}")
    print(f"in-band {len(result.in_band_buffer or b'')} bytes, {len(result.out_of_band_buffers)} out-of-band buffers, "
          f"{sum(b.nbytes for b in result.out_of_band_buffers) / 1e6:.1f} MB out-of-band")
    print(f"frame: {len(frame) / 1e6:.1f} MB; ndarray from frame is a view of it: "
          f"{from_frame['matrix'].base is not None and not from_frame['matrix'].flags.owndata}")
    print(trip.timings())
    return 0


def _run_standard(rows: int) -> int:
    """The demo with the standard types only: a bytearray and a memoryview travel out-of-band."""
    blob = bytearray(bytes(range(256)) * (rows * 32 // 256 + 1))[: rows * 32]
    samples = array.array("d", range(rows * 4))
    value = {
        "title": "serreg demo", "blob": blob, "samples": memoryview(samples), "tags": ("a", "b"),
        "when": datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc), "count": rows,
    }
    trip = _RoundTrip(value)
    result, back, frame, from_frame = trip.result, trip.back, trip.frame, trip.from_frame

    equal = bytes(back["blob"]) == bytes(blob) and back["samples"].tolist() == samples.tolist() and back["tags"] == ("a", "b")
    print(f"value: dict with a {len(blob):,}-byte bytearray and a memoryview of {len(samples):,} doubles")
    print(f"equal after round trip: {equal}")
    print(f"in-process bytearray zero-copy (the same object back): {back['blob'] is blob}")
    print(f"in-process memoryview zero-copy (a view of the same memory): {back['samples'].obj is samples}")
    print(f"in-band {len(result.in_band_buffer or b'')} bytes, {len(result.out_of_band_buffers)} out-of-band buffers, "
          f"{sum(memoryview(b).nbytes for b in result.out_of_band_buffers) / 1e6:.1f} MB out-of-band")
    print(f"frame: {len(frame) / 1e6:.1f} MB; memoryview from frame is a view of it: "
          f"{from_frame['samples'].obj is frame}; bytearray from frame: "
          f"{'a copy (a bytearray owns its memory)' if type(from_frame['blob']) is bytearray else 'a view'}")
    print(trip.timings())
    return 0


class _RoundTrip:
    """One timed round trip of a value: in process, then through a frame written into a bytearray."""

    def __init__(self, value: Any) -> None:
        start = time.perf_counter()
        self.result = serialize(value)
        serialized = time.perf_counter()
        self.back = deserialize(self.result)
        done = time.perf_counter()
        self.frame = bytearray(self.result.nbytes)
        self.result.write_to(_Sink(self.frame))
        framed = time.perf_counter()
        self.from_frame = deserialize(self.frame)
        self._times = (serialized - start, done - serialized, framed - done, time.perf_counter() - framed)

    def timings(self) -> str:
        serialize_s, deserialize_s, write_s, from_frame_s = self._times
        return (f"serialize {1e6 * serialize_s:.0f} us, deserialize {1e6 * deserialize_s:.0f} us, "
                f"write frame {1e3 * write_s:.1f} ms (copies {len(self.frame) / 1e6:.1f} MB once), "
                f"deserialize from frame {1e6 * from_frame_s:.0f} us")


class _Sink:
    """A file-like object writing into a preallocated bytearray (one copy per buffer)."""

    def __init__(self, target: bytearray) -> None:
        self._view = memoryview(target)
        self._position = 0

    def write(self, data: Any) -> int:
        data = memoryview(data)
        if data.format != "B" or data.ndim != 1:
            data = data.cast("B")
        size: int = data.nbytes
        self._view[self._position : self._position + size] = data
        self._position += size
        return size
