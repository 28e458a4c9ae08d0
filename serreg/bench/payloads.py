"""The standard payloads, built at full size or scaled down, and the user's own.

Every payload is built by a function of ``scale`` (1.0 = the sizes the names
say); tests run the suite at a tiny scale so it cannot rot. The names keep
the full-size label even when scaled; the JSON report records the real sizes.
:func:`user_payloads` turns ``--payload module:callable`` and ``--frames
FILE`` into payloads of the same shape (their size is theirs, whatever the
scale).
"""

from __future__ import annotations

import dataclasses
import datetime
import importlib
import sys
from typing import Any, Callable

from .._default import deserialize
from ..errors import DeserializationError
from ..wire.frame import read_frame_bytes

__all__ = [
    "PAYLOADS", "ZERO_COPY", "Record", "arrow_1M", "bytes_10MB", "dataclass_1", "dataclasses_1k",
    "dataclasses_1k_main", "describe", "ints_1k", "ndarray_100MB", "nested_mixed", "records_1k", "same_value",
    "small_dict", "strs_10k", "user_payloads",
]


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


def _main_record_class() -> type:
    """A three-field dataclass living in ``__main__``, as a script's or a notebook's classes do.

    pickle writes it by reference (only a reader with the same ``__main__`` can load it);
    cloudpickle, and so serreg's fallback, writes the class by value.
    """
    main = sys.modules["__main__"]
    cls = getattr(main, "BenchMainRecord", None)
    if cls is None:
        cls = dataclasses.make_dataclass("BenchMainRecord", [("id", int), ("name", str), ("score", float)])
        cls.__module__ = "__main__"
        setattr(main, "BenchMainRecord", cls)
    return cls


def dataclasses_1k_main(scale: float) -> list[Any]:
    cls = _main_record_class()
    return [cls(i, f"user{i}", i * 0.5) for i in range(_count(1000, scale))]


_UTC2 = datetime.timezone(datetime.timedelta(hours=2))


def nested_mixed(scale: float) -> list[Any]:
    """Tuples, sets, datetimes, bytes and None inside lists and dicts: 100 such entries."""
    start = datetime.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=_UTC2)
    return [
        {
            "key": (i, f"k{i}"),
            "tags": {f"t{i % 7}", "all"},
            "at": start + datetime.timedelta(minutes=i),
            "day": datetime.date(2026, 1, 1 + i % 28),
            "blob": bytes([i % 256]) * 16,
            "missing": None,
            "pairs": [(i, i * 0.5), (None, b"")],
        }
        for i in range(_count(100, scale))
    ]


# Payload name -> builder.
PAYLOADS: dict[str, Callable[[float], object]] = {
    "small_dict": small_dict,
    "ints_1k": ints_1k,
    "strs_10k": strs_10k,
    "records_1k": records_1k,
    "nested_mixed": nested_mixed,
    "dataclass": dataclass_1,
    "dataclasses_1k": dataclasses_1k,
    "dataclasses_1k_main": dataclasses_1k_main,
    "bytes_10MB": bytes_10MB,
    "ndarray_100MB": ndarray_100MB,
    "arrow_1M": arrow_1M,
}


def _from_callable(spec: str) -> Callable[[float], object]:
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"--payload takes module:callable (say, mydata:make_value), not {spec!r}")

    def build(scale: float) -> Any:
        if "" not in sys.path:
            sys.path.insert(0, "")  # the current directory, as ``python -m`` has it
        target = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
        return target() if callable(target) else target

    return build


def _from_frames(path: str, index: int) -> Callable[[float], object]:
    def build(scale: float) -> Any:
        with open(path, "rb") as stream:
            for _ in range(index):
                read_frame_bytes(stream)
            return deserialize(read_frame_bytes(stream))

    return build


def user_payloads(callables: Any = (), frame_files: Any = ()) -> dict[str, Callable[[float], object]]:
    """Payloads of the user's own: ``module:callable`` (called with no argument; a non-callable
    attribute is the value itself) and every frame of each file of serreg frames (deserialized
    trusted: they are the user's own). Named by what they come from."""
    payloads: dict[str, Callable[[float], object]] = {}
    for spec in callables:
        payloads[spec] = _from_callable(spec)
    for path in frame_files:
        with open(path, "rb") as stream:
            count = start = 0
            try:
                while read_frame_bytes(stream) is not None:
                    count, start = count + 1, stream.tell()
            except DeserializationError as error:  # said of the file, as serreg inspect says it
                raise DeserializationError(f"{path}: frame {count} (starting at byte {start}): {error}") from None
        if count == 0:
            raise ValueError(f"{path} holds no serreg frame")
        for index in range(count):
            payloads[f"{path}#{index}" if count > 1 else path] = _from_frames(path, index)
    return payloads

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
    if kind is set or kind is frozenset:
        return expected == actual and all(type(a) in {type(e) for e in expected} for a in actual)
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
