"""Arrow data pyarrow can read but not build: month and day-time interval tables, and legacy values.

``interval_table`` writes an IPC stream of a time32[s] (or timestamp[ms]) column and
changes its type tag to Interval, whose YEAR_MONTH (DAY_TIME) layout is the same
width: pyarrow reads such tables (Arrow C++ makes them) but has no Python array
class for their columns. ``legacy_date64`` and ``wide_decimal`` are arrays as
Arrow 0.14-1.0 wrote them, which Arrow's full validation rejects.
"""

from __future__ import annotations

import io

import pyarrow as pa


def interval_table(kind: str) -> pa.Table:
    """A table of one column 'iv' of month_interval ("month") or day_time_interval ("day")."""
    src = pa.array([1, None, 3], pa.time32("s")) if kind == "month" else pa.array([86400000, None, 5], pa.timestamp("ms"))
    t = pa.table({"iv": src})
    sink = io.BytesIO()
    with pa.ipc.new_stream(sink, t.schema) as w:
        w.write_table(t)
    data = bytearray(sink.getvalue())
    tag = 9 if kind == "month" else 10
    for pos in range(len(t.schema.serialize())):
        if data[pos] == tag:
            trial = bytearray(data)
            trial[pos] = 11
            try:
                out = pa.ipc.open_stream(bytes(trial)).read_all()
            except (pa.ArrowException, OSError):
                continue
            if "interval" in str(out.schema):
                return out
    raise RuntimeError("no type tag to change")


def legacy_date64() -> pa.Array:
    """date64 whose first value (1 ms) is not a whole day."""
    return pa.Array.from_buffers(pa.date64(), 2, [None, pa.py_buffer((1).to_bytes(8, "little") + (86400000).to_bytes(8, "little"))])


def wide_decimal() -> pa.Array:
    """decimal128(3, 0) holding 123456."""
    return pa.Array.from_buffers(pa.decimal128(3, 0), 1, [None, pa.py_buffer((123456).to_bytes(16, "little"))])
