"""Sample values of every built-in type, shared by the round-trip tests."""

import collections
import datetime
import decimal
import enum
import uuid
import zoneinfo

import numpy as np
import pyarrow as pa


class Color(enum.IntEnum):
    RED = 1


Pair = collections.namedtuple("Pair", "left right")

STANDARD_VALUES = {
    "none": None,
    "true": True,
    "false": False,
    "int_small": 7,
    "int_negative": -(2**63),
    "int_uint64_max": 2**64 - 1,
    "int_big": 2**200 + 1,
    "int_big_negative": -(2**100),
    "float": 1.5,
    "float_negative_zero": -0.0,
    "float_inf": float("inf"),
    "complex": complex(1.5, -2.0),
    "str": "héllo ✓",
    "str_empty": "",
    "bytes": b"\x00\xffabc",
    "bytes_large": bytes(range(256)) * 300,
    "bytearray": bytearray(b"mutable"),
    "list": [1, "two", 3.0, None],
    "tuple": (1, (2, 3), ()),
    "dict": {"a": 1, 2: "b", (3, 4): None, None: b"k", b"bk": 1.5, frozenset({1}): 0},
    "set": {1, "a", (2, 3)},
    "frozenset": frozenset({b"x", 2.5}),
    "datetime_naive": datetime.datetime(2024, 2, 29, 23, 59, 58, 123456),
    "datetime_utc": datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc),
    "datetime_offset": datetime.datetime(2024, 1, 1, 8, tzinfo=datetime.timezone(datetime.timedelta(hours=-5, minutes=-30))),
    "datetime_named_offset": datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=1), "CET")),
    "datetime_zone": datetime.datetime(2024, 11, 3, 1, 30, tzinfo=zoneinfo.ZoneInfo("America/New_York"), fold=1),
    "date": datetime.date(1999, 12, 31),
    "time": datetime.time(12, 30, 15, 5),
    "time_offset": datetime.time(1, 2, 3, tzinfo=datetime.timezone(datetime.timedelta(hours=2))),
    "timedelta": datetime.timedelta(days=-3, seconds=5, microseconds=7),
    "decimal": decimal.Decimal("-1.2300E+5"),
    "decimal_nan": decimal.Decimal("NaN"),
    "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "nested": {"rows": [{"id": i, "tags": ("x", i)} for i in range(3)], "empty": {}},
}

NUMPY_SCALARS = [
    np.bool_(True), np.int8(-128), np.int16(-300), np.int32(2**31 - 1), np.int64(-(2**63)),
    np.uint8(255), np.uint16(65535), np.uint32(2**32 - 1), np.uint64(2**64 - 1),
    np.float16(-1.5), np.float32(3.25), np.float64(-0.0), np.complex64(1 - 2j), np.complex128(3.5 + 1e-300j),
]

SUBCLASS_VALUES = {
    "ordered_dict": collections.OrderedDict([("b", 1), ("a", 2)]),
    "default_dict": collections.defaultdict(list, {"k": [1]}),
    "named_tuple": Pair(1, "two"),
    "int_enum": Color.RED,
    "counter": collections.Counter("abca"),
}


def arrow_table(rows: int = 5) -> pa.Table:
    return pa.table({
        "i": pa.array(range(rows), pa.int64()),
        "f": pa.array([i * 0.5 if i % 3 else None for i in range(rows)], pa.float64()),
        "s": pa.array([f"s{i}" if i % 4 else None for i in range(rows)]),
    })


def assert_same(actual, expected, path="value"):
    """Equal, and of exactly the same type all the way down."""
    assert type(actual) is type(expected), f"{path}: {type(actual)} is not {type(expected)}"
    if isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), path
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert list(actual.keys()) == list(expected.keys()), path
        for key in expected:
            assert_same(actual[key], expected[key], f"{path}[{key!r}]")
    elif isinstance(expected, float) and expected != expected:
        assert actual != actual, path
    elif isinstance(expected, np.ndarray):
        assert actual.dtype == expected.dtype and actual.shape == expected.shape, path
        assert np.array_equal(actual, expected, equal_nan=expected.dtype.kind in "fc"), path
    elif isinstance(expected, (pa.Table, pa.RecordBatch)):
        assert actual.equals(expected), path
    elif isinstance(expected, decimal.Decimal) and expected.is_nan():
        assert actual.is_nan(), path
    else:
        assert actual == expected, path
        if isinstance(expected, float):
            assert str(actual) == str(expected), path  # keeps -0.0
        if isinstance(expected, (datetime.datetime, datetime.time)):
            assert type(actual.tzinfo) is type(expected.tzinfo), path
            assert actual.tzname() == expected.tzname() and actual.fold == expected.fold, path
