"""The standard payloads of the benchmark suite, built at full size or scaled down.

Every payload is built by a function of ``scale`` (1.0 = the sizes the README
names); tests run the suite at a tiny scale so it cannot rot. The names keep
the full-size label even when scaled; the JSON report records the real sizes.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable


@dataclasses.dataclass
class Record:
    """The five-field dataclass payload (importable, so pickle writes it by reference)."""

    id: int
    name: str
    score: float
    active: bool
    tags: list[Any]


def _count(n: int, scale: float) -> int:
    return max(1, int(n * scale))


def small_dict(scale: float) -> dict[str, float | str | list[int] | bool]:
    return {"a": 1, "b": 2.5, "c": "hello", "d": [1, 2, 3], "e": True}


def ints_1k(scale: float) -> list[Any]:
    return list(range(_count(1000, scale)))


def strs_10k(scale: float) -> list[Any]:
    return [f"s{i}" for i in range(_count(10000, scale))]


def records_1k(scale: float) -> list[Any]:
    return [{"id": i, "name": f"user{i}", "score": i * 0.5, "tags": ["a", "b"]} for i in range(_count(1000, scale))]


def bytes_10MB(scale: float) -> bytes:
    # Not all zeros, so no layer can take a shortcut on a constant buffer.
    size = _count(10_000_000, scale)
    pattern = bytes(range(256))
    return (pattern * (size // 256 + 1))[:size]


def ndarray_100MB(scale: float) -> Any:
    import numpy as np

    return np.arange(_count(100_000_000 // 8, scale), dtype=np.float64)


def arrow_1M(scale: float) -> Any:
    import numpy as np
    import pyarrow as pa

    rows = _count(1_000_000, scale)
    return pa.table({
        "id": pa.array(np.arange(rows, dtype=np.int64)),
        "value": pa.array(np.arange(rows, dtype=np.float64) * 0.25),
        "name": pa.array([f"row{i}" for i in range(rows)], type=pa.string()),
    })


def dataclass_1(scale: float) -> Record:
    return Record(7, "user7", 3.5, True, ["a", "b"])


def dataclasses_1k(scale: float) -> list[Any]:
    return [Record(i, f"user{i}", i * 0.5, i % 2 == 0, ["a", "b"]) for i in range(_count(1000, scale))]


# Payload name -> builder, in the order of the issue.
PAYLOADS: dict[str, Callable[[float], object]] = {
    "small_dict": small_dict,
    "ints_1k": ints_1k,
    "strs_10k": strs_10k,
    "records_1k": records_1k,
    "bytes_10MB": bytes_10MB,
    "ndarray_100MB": ndarray_100MB,
    "arrow_1M": arrow_1M,
    "dataclass": dataclass_1,
    "dataclasses_1k": dataclasses_1k,
}

# Payloads whose bulk can travel out-of-band, without a copy.
ZERO_COPY = frozenset({"bytes_10MB", "ndarray_100MB", "arrow_1M"})


def describe(value: Any) -> str:
    """A short description of a payload's real size, for the report."""
    kind = type(value)
    if kind is list:
        return f"list of {len(value)}"
    if kind is dict:
        return f"dict of {len(value)}"
    if kind is bytes:
        return f"{len(value):,} bytes"
    if kind.__name__ == "ndarray":
        return f"{value.dtype} {value.shape}, {value.nbytes:,} bytes"
    if kind.__name__ == "Table":
        return f"Arrow table {value.num_rows:,} rows x {value.num_columns}, {value.nbytes:,} bytes"
    return kind.__name__


def same_value(expected: Any, actual: Any) -> bool:
    """True when ``actual`` equals ``expected`` and has the same types all the way down."""
    kind = type(expected)
    if type(actual) is not kind:
        return False
    if kind is list or kind is tuple:
        return len(expected) == len(actual) and all(same_value(a, b) for a, b in zip(expected, actual))
    if kind is dict:
        return list(expected) == list(actual) and all(same_value(v, actual[k]) for k, v in expected.items())
    if dataclasses.is_dataclass(kind):
        return all(
            same_value(getattr(expected, f.name), getattr(actual, f.name)) for f in dataclasses.fields(expected)
        )
    if kind.__name__ == "ndarray":
        import numpy as np

        return expected.dtype == actual.dtype and expected.shape == actual.shape and np.array_equal(expected, actual)
    if kind.__name__ == "Table":
        return bool(expected.schema.equals(actual.schema) and expected.equals(actual))
    return bool(expected == actual)
