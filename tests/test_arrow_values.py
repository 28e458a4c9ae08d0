"""pyarrow ChunkedArray, Schema and Tensor, and pandas DataFrame and Series through Arrow.

Each comes back exact in one process, through bytes (untrusted too) and through
the Java echo fixture (which holds these class IDs opaque and writes them back
byte for byte), and has a digest; hostile headers are errors.
"""

from __future__ import annotations

import msgpack
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import serreg
from serreg.wire.class_id import class_id_hash

VALUES = [
    pa.chunked_array([[1, 2], [], [3, None]], pa.int64()),
    pa.chunked_array([], pa.string()),
    pa.chunked_array([pa.array(["a", "b", "a"]).dictionary_encode(), pa.array(["c"]).dictionary_encode()]),
    pa.chunked_array([pa.UnionArray.from_sparse(pa.array([0, 1], pa.int8()), [pa.array([1, 2]), pa.array(["x", "y"])])]),
    pa.schema([pa.field("x", pa.int8(), metadata={"unit": "m"}), pa.field("d", pa.dictionary(pa.int16(), pa.string()))],
              metadata={"owner": "me"}),
    pa.Tensor.from_numpy(np.arange(12, dtype=np.int16).reshape(3, 4), dim_names=["rows", "cols"]),
    pa.Tensor.from_numpy(np.asfortranarray(np.arange(6.0).reshape(2, 3))),
    pa.Tensor.from_numpy(np.zeros((0, 5), dtype=np.uint8)),
]


def same(a, b) -> bool:
    if isinstance(a, pd.Series):
        return a.equals(b) and a.name == b.name and a.dtype == b.dtype and a.index.equals(b.index)
    if isinstance(a, pd.DataFrame):
        return a.equals(b) and (a.dtypes == b.dtypes).all() and a.index.equals(b.index)
    if isinstance(a, pa.Schema):
        return a.equals(b, check_metadata=True)
    if isinstance(a, pa.Tensor):
        return a.equals(b) and a.dim_names == b.dim_names
    return type(a) is type(b) and a.type == b.type and a.num_chunks == b.num_chunks and a.equals(b)


FRAMES = [
    pd.DataFrame({"a": [1, 2, 3], "b": ["x", None, "z"], "c": pd.Categorical(["p", "q", "p"]),
                  "t": pd.to_datetime(["2020-01-01", None, "2021-06-30"]).tz_localize("UTC")},
                 index=pd.Index([10, 20, 30], name="i")),
    pd.DataFrame({"x": np.arange(5.0)}),
    pd.Series([1.5, None, 3.0], name="s"),
    pd.Series(["a", "b"], name=7, index=pd.Index(["p", "q"])),
    pd.Series([True, False]),
]


@pytest.mark.parametrize("value", VALUES + FRAMES, ids=lambda v: type(v).__name__)
def test_value_is_exact_in_process_through_bytes_and_untrusted_with_a_digest(value):
    result = serreg.serialize(value)
    assert same(value, serreg.deserialize(result))
    frame = result.to_bytes()
    assert same(value, serreg.deserialize(frame, trusted=False))
    assert same(value, serreg.deserialize(bytearray(frame)))
    assert len(serreg.digest(value)) == 32


@pytest.mark.parametrize("value", VALUES + FRAMES, ids=lambda v: type(v).__name__)
def test_value_survives_the_java_echo(java_echo, value):
    try:
        frame = serreg.serialize(value, cross_language=True).to_bytes()
    except serreg.CrossLanguageError as error:  # a dictionary column: refused by name
        assert "column '" in str(error) and "dictionary" in str(error)
        return
    reply = java_echo.round_trip(frame)
    assert same(value, serreg.deserialize(reply))


def test_dataframe_numeric_columns_are_views_of_a_writable_frame():
    frame = bytearray(serreg.serialize(pd.DataFrame({"x": np.arange(1000.0)})).to_bytes())
    back = serreg.deserialize(frame)
    column = back["x"].to_numpy()
    assert np.shares_memory(column, np.frombuffer(frame, dtype=np.uint8))


def test_a_series_whose_name_is_not_plain_takes_the_fallback():
    series = pd.Series([1, 2], name=("a", 1))
    with pytest.raises(serreg.CrossLanguageError):
        serreg.serialize(series, cross_language=True)
    assert serreg.deserialize(serreg.serialize(series)).name == ("a", 1)


def tensor_frame(header, data=b"") -> bytes:
    in_band = class_id_hash("ArrowTensor") + msgpack.packb(header)
    return serreg.SerializationResult(in_band, [memoryview(data)]).to_bytes()


@pytest.mark.parametrize("header,data", [
    (["<i8", [2, 2], "C", []], b"\x00" * 8),  # too short for its shape
    (["<O", [1], "C", []], b"\x00" * 8),  # not a tensor value type
    (["<i1", [1] * 65, "C", []], b"\x00"),  # too many dimensions
    (["<i1", [2], "X", []], b"\x00\x00"),  # no such order
    (["<i1", [2], "C", ["a", "b"]], b"\x00\x00"),  # names for dimensions it does not have
    (["<i1", [-1], "C", []], b""),
])
def test_hostile_tensor_headers_are_errors(header, data):
    with pytest.raises(serreg.DeserializationError):
        serreg.deserialize(tensor_frame(header, data), trusted=False)


def test_a_chunked_array_frame_with_two_columns_is_an_error():
    table = pa.table({"a": [1], "b": [2]})
    in_band = class_id_hash("ArrowChunkedArray") + bytes(serreg.serialize(table).in_band_buffer)[8:]
    frame = serreg.SerializationResult(in_band, list(serreg.serialize(table).out_of_band_buffers)).to_bytes()
    with pytest.raises(serreg.DeserializationError, match="one column"):
        serreg.deserialize(frame, trusted=False)


def test_hostile_pandas_metadata_is_an_error_or_a_frame_never_another_exception():
    import json
    import random

    frame = pd.DataFrame({"a": [1, 2, 3], "b": ["x", None, "z"]}, index=pd.Index([10, 20, 30], name="i"))
    table = pa.Table.from_pandas(frame)
    metadata = json.loads(table.schema.metadata[b"pandas"])
    rng = random.Random(5)
    replacements = [None, 0, -1, 10**12, "x", [], {}, [{"kind": "range", "start": 0, "stop": 10**12, "step": 1}],
                    "categorical", "datetime64[ns]", "object", "int64", "__index_level_0__"]
    outcomes = set()
    for _ in range(300):
        hostile = json.loads(json.dumps(metadata))
        target = hostile
        path = rng.choice([["index_columns"], ["columns", 0, "pandas_type"], ["columns", 1, "numpy_type"],
                           ["columns", 0, "metadata"], ["column_indexes"], ["columns", 2, "name"], ["columns"]])
        for key in path[:-1]:
            target = target[key] if not isinstance(target, list) or key < len(target) else target[-1]
        last = path[-1]
        if isinstance(target, list):
            last = min(last, len(target) - 1)
        target[last] = rng.choice(replacements)
        mutated = table.replace_schema_metadata({b"pandas": json.dumps(hostile).encode()})
        data = serreg.serialize(mutated).to_bytes()
        in_band = class_id_hash("pandas.DataFrame") + bytes(serreg.serialize(mutated).in_band_buffer)[8:]
        data = serreg.SerializationResult(in_band, list(serreg.serialize(mutated).out_of_band_buffers)).to_bytes()
        try:
            value = serreg.deserialize(data, trusted=False)
        except serreg.DeserializationError:
            outcomes.add("error")
        else:
            assert isinstance(value, pd.DataFrame)
            outcomes.add("frame")
    assert "error" in outcomes
