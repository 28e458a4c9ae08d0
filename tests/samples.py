"""Real values of every standard type, for property tests and the fuzzer's seed corpus.

Every value here has a data-only serializer (no pickle fallback), so its frames
can be read in untrusted mode.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
import zoneinfo

import numpy as np
import pyarrow as pa


def standard_values() -> list:
    """Values of the core types (docs/FORMAT.md, section 6.1), alone and nested."""
    utc_plus_2 = datetime.timezone(datetime.timedelta(hours=2), "CEST")
    return [
        None, True, 0, -1, 2**63 - 1, -(2**63), 2**64 + 5, -(2**80), 1.5, float("-inf"), "", "héllo",
        b"", b"\x00\xff" * 10, b"x" * 70_000, [], [1, [2, [3, None]]], {}, {"a": 1, 2: "b", (1, 2): [3]},
        (), (1, "a", (2.5,)), {1, 2, 3}, frozenset({"x", b"y"}), bytearray(b"abc"),
        memoryview(b"abcdefgh").cast("i"), complex(1, -2),
        datetime.datetime(2024, 2, 29, 12, 30, 1, 5, tzinfo=utc_plus_2),
        datetime.datetime(2021, 11, 7, 1, 30, fold=1, tzinfo=zoneinfo.ZoneInfo("America/New_York")),
        datetime.date(1999, 12, 31), datetime.time(23, 59, 59, 999999), datetime.timedelta(days=-3, seconds=5),
        decimal.Decimal("-1.50E+3"), decimal.Decimal("NaN"), uuid.UUID(int=0x1234_5678_9ABC_DEF0),
        {"rows": [(i, str(i), i * 0.5) for i in range(5)], "set": {b"k", 7}},
    ]


def numpy_values() -> list:
    return [
        np.arange(12, dtype=np.int32).reshape(3, 4),
        np.asfortranarray(np.arange(6, dtype=">f8").reshape(2, 3)),
        np.zeros((0, 5), dtype=np.uint8),
        np.array(3.5, dtype=np.float16),
        np.array([True, False]),
        np.array([1 + 2j], dtype=np.complex64),
        np.int8(-5), np.uint64(2**64 - 1), np.float32(1.25), np.complex128(1 - 1j), np.bool_(True),
        {"a": np.ones(3), "b": [np.int16(7), np.arange(4, dtype=np.uint16)]},
    ]


def arrow_values() -> list:
    table = pa.table({
        "i": pa.array([1, None, 3], pa.int64()),
        "s": pa.array(["a", None, "ccc"]),
        "l": pa.array([[1, 2], [], None], pa.list_(pa.int32())),
        "st": pa.array([{"x": 1, "y": "p"}, None, {"x": 3, "y": None}]),
        "b": pa.array([True, False, None]),
        "n": pa.nulls(3),
        "m": pa.array([[("k", 1)], [], None], pa.map_(pa.string(), pa.int8())),
    })
    return [
        table,
        table.slice(1, 2),
        pa.record_batch({"f": pa.array([1.5, 2.5]), "d": pa.array([datetime.date(2020, 1, 1), None])}),
        pa.table({"x": pa.array([], pa.large_string())}),
        {"tables": [table.select(["i", "s"]), pa.record_batch({"u": pa.array([1], pa.uint8())})]},
    ]


def all_values() -> list:
    return standard_values() + numpy_values() + arrow_values()
