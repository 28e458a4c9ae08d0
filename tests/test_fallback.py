"""The pickle5 fallback: out-of-band buffers, registered serializers inside pickles, clear errors."""

import dataclasses
import socket
import threading

import numpy as np
import pyarrow as pa
import pytest

import serreg
from serreg.wire.class_id import class_id_hash

from values import arrow_table


@dataclasses.dataclass
class Experiment:
    name: str
    table: pa.Table
    weights: np.ndarray


def test_dataclass_holding_arrow_table_uses_the_arrow_serializer_inside_pickle():
    table = arrow_table(10_000)
    value = Experiment("run", table, np.arange(50_000.0))
    result = serreg.serialize(value)
    in_band = bytes(result.in_band_buffer)
    assert in_band[:8] == class_id_hash("serreg.pickle5")
    assert b"ArrowTable" in in_band and b"numpy.ndarray" in in_band  # the registered serializers ran
    # ... and their buffers stayed out-of-band: the pickle in-band is small.
    assert len(in_band) < 4096
    assert sum(b.nbytes for b in result.out_of_band_buffers) >= table.nbytes + value.weights.nbytes
    back = serreg.deserialize(result)
    assert back.table.equals(table) and np.shares_memory(back.weights, value.weights)
    framed = serreg.deserialize(bytearray(result.to_bytes()))
    assert framed.table.equals(table) and np.array_equal(framed.weights, value.weights)


def test_cross_language_refuses_fallback_values_naming_path_and_type():
    value = {"rows": [1, 2, 3, Experiment("x", arrow_table(1), np.zeros(1))]}
    with pytest.raises(serreg.CrossLanguageError) as info:
        serreg.serialize(value, cross_language=True)
    error = info.value
    assert error.path == 'obj["rows"][3]'
    assert error.value_type is Experiment
    assert "Experiment" in str(error) and "register_serializer" in str(error)
    assert 'obj["rows"][3]' in str(error)


def test_cross_language_allows_registered_and_standard_values():
    value = {"t": arrow_table(3), "a": np.arange(3), "s": {1, 2}, "n": (np.int8(1), None)}
    back = serreg.deserialize(serreg.serialize(value, cross_language=True).to_bytes())
    assert back["t"].equals(value["t"]) and back["s"] == {1, 2}


def test_unserializable_value_names_path_and_type():
    lock = threading.Lock()
    with pytest.raises(serreg.SerializationError) as info:
        serreg.serialize({"config": {"workers": [None, lock]}})
    assert info.value.path == 'obj["config"]["workers"][1]'
    assert "lock" in str(info.value) and "register_serializer" in str(info.value)
    with socket.socket() as sock, pytest.raises(serreg.SerializationError) as info:
        serreg.serialize([sock])
    assert info.value.path == "obj[0]" and info.value.value_type is socket.socket


def test_nested_serialize_calls_report_the_full_path():
    class Box:
        def __init__(self, items):
            self.items = items

    class BoxSerializer(serreg.Serializer):
        def serialize(self, box):
            inner = serreg.serialize(box.items)
            return serreg.SerializationResult(inner.in_band_buffer, inner.out_of_band_buffers)

        def deserialize(self, in_band_buffer, oob_iterator):
            return Box(serreg.deserialize(in_band_buffer, oob_iterator))

    serreg.register_serializer("test.Box", Box, BoxSerializer())
    try:
        with pytest.raises(serreg.SerializationError) as info:
            serreg.serialize({"box": Box([1, threading.Lock()])})
        assert info.value.path == 'obj["box"]<Box>[1]'
        with pytest.raises(serreg.SerializationError) as info:
            serreg.serialize([Box([Box([threading.Lock()])])])
        assert info.value.path == "obj[0]<Box>[0]<Box>[0]"
    finally:
        serreg.unregister_serializer("test.Box")


def test_function_and_lambda_go_through_cloudpickle():
    offset = 10
    back = serreg.deserialize(serreg.serialize({"f": lambda x: x + offset}).to_bytes())
    assert back["f"](1) == 11


def test_pickle_buffers_are_out_of_band():
    import pickle

    buffer = pickle.PickleBuffer(bytearray(100_000))
    result = serreg.serialize(buffer)
    assert [b.nbytes for b in result.out_of_band_buffers] == [100_000]
