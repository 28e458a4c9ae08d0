"""The pickle5 fallback: out-of-band buffers, registered serializers inside pickles, clear errors."""

import dataclasses
import socket
import threading

import numpy as np
import pyarrow as pa
import pytest

import serreg
from pickling import pickling_registry
from serreg.wire.class_id import class_id_hash

from values import arrow_table


# These tests pin the pickle fallback's own frames (conftest.py: plain objects pickled, not implicit structs).
pytestmark = pytest.mark.usefixtures("plain_objects_pickled")



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


# ---- a value holding fallback values is pickled whole, in one pickle call


class Plain:
    """No serializer registered: the fallback takes it."""

    def __init__(self, n, payload=None):
        self.n = n
        self.payload = payload

    def __eq__(self, other):
        return type(other) is Plain and other.n == self.n


def _frame(value, registry=serreg):
    return bytearray(registry.serialize(value).to_bytes())


def test_a_list_of_fallback_values_is_one_pickle():
    value = [Plain(i) for i in range(100)]
    result = serreg.serialize(value)
    assert bytes(result.in_band_buffer)[:8] == class_id_hash("serreg.pickle5")
    assert serreg.deserialize(result) == value
    assert serreg.deserialize(_frame(value)) == value


def test_an_object_referenced_twice_comes_back_shared():
    shared = Plain(7, payload=[1, 2])
    value = {"a": shared, "b": [shared, (shared,)]}
    for back in (serreg.deserialize(serreg.serialize(value)), serreg.deserialize(_frame(value))):
        assert back["a"] is back["b"][0] is back["b"][1][0]
        assert back["a"].payload is back["b"][0].payload


def test_registered_values_inside_stay_out_of_band_and_zero_copy():
    arrays = [np.arange(10_000, dtype=np.float64) + i for i in range(3)]
    table = arrow_table(5_000)
    value = [Plain(i, payload=a) for i, a in enumerate(arrays)] + [Plain(9, payload=table), arrays[0]]
    result = serreg.serialize(value)
    assert len(bytes(result.in_band_buffer)) < 4096  # the pickle holds no array or column data
    in_process = serreg.deserialize(result)
    for back, a in zip(in_process[:3], arrays):
        assert np.shares_memory(back.payload, a)
    frame = _frame(value)
    frame_bytes = np.frombuffer(frame, dtype=np.uint8)
    back = serreg.deserialize(frame)
    for item, a in zip(back[:3], arrays):
        assert np.array_equal(item.payload, a) and np.shares_memory(item.payload, frame_bytes)
    assert back[3].payload.equals(table)
    # The array referenced twice is written once and comes back as one object.
    assert back[4] is back[0].payload
    assert sum(b.nbytes for b in result.out_of_band_buffers) < 4 * arrays[0].nbytes + table.nbytes + 4096


def test_untrusted_mode_refuses_the_whole_value_pickle_without_unpickling():
    calls = []
    value = [1, "x", _Recording(calls)]
    frame = _frame(value)
    with pytest.raises(serreg.UntrustedClassIDError):
        serreg.deserialize(frame, trusted=False)
    with pytest.raises(serreg.UntrustedClassIDError):
        serreg.Registry(trusted=False).deserialize(frame)
    assert calls == []
    assert serreg.deserialize(frame)[:2] == [1, "x"]


def test_limits_apply_to_whole_value_frames():
    frame = _frame([Plain(1, payload=np.arange(100)), Plain(2, payload=np.arange(100))])
    with pytest.raises(serreg.LimitExceededError):
        serreg.deserialize(frame, limits=serreg.Limits(max_buffers=1))
    with pytest.raises(serreg.LimitExceededError):
        serreg.deserialize(frame, limits=serreg.Limits(max_frame_size=len(frame) - 1))


def test_cross_language_and_canonical_still_refuse():
    with pytest.raises(serreg.CrossLanguageError) as info:
        serreg.serialize([1, Plain(1)], cross_language=True)
    assert info.value.path == "obj[1]"
    with pytest.raises(serreg.CanonicalFormError):
        serreg.serialize([1, Plain(1)], canonical=True)


def test_memoryview_and_registered_types_inside_a_whole_value_pickle():
    class Celsius:
        def __init__(self, degrees):
            self.degrees = degrees

    class CelsiusSerializer(serreg.Serializer):
        calls = 0

        def serialize(self, obj):
            CelsiusSerializer.calls += 1
            return serreg.SerializationResult(str(obj.degrees).encode(), [])

        def deserialize(self, in_band, oob):
            return Celsius(float(bytes(in_band)))

    registry = pickling_registry()
    registry.register_serializer("test.Celsius", Celsius, CelsiusSerializer())  # the register callback sees it
    value = [memoryview(b"abc"), Plain(1, payload=Celsius(21.5)), Celsius(3.0)]
    back = registry.deserialize(_frame(value, registry))
    assert bytes(back[0]) == b"abc" and back[1] == Plain(1)
    assert type(back[1].payload) is Celsius and back[1].payload.degrees == 21.5 and back[2].degrees == 3.0
    assert CelsiusSerializer.calls == 2


def test_a_failing_whole_value_pickle_names_the_culprit():
    with pytest.raises(serreg.SerializationError) as info:
        serreg.serialize({"ok": Plain(1), "bad": [threading.Lock()]})
    assert info.value.path == 'obj["bad"][0]'


def test_per_value_mode_pickles_each_fallback_value_on_its_own():
    registry = pickling_registry()
    registry.configure_fallback(whole_values=False)
    value = [1, Plain(1), Plain(2)]
    result = registry.serialize(value)
    assert bytes(result.in_band_buffer)[:8] == class_id_hash("list")
    assert registry.deserialize(_frame(value, registry)) == value
    with pytest.raises(TypeError):
        registry.configure_fallback(whole_values="yes")


def test_a_user_serializer_for_a_type_pickle_writes_itself_keeps_per_value_mode():
    class TupleAsList(serreg.Serializer):
        def serialize(self, obj):
            return serreg.SerializationResult(b"\x01" + bytes(obj), [])

        def deserialize(self, in_band, oob):
            return ("mine",) + tuple(bytes(in_band)[1:])

    registry = pickling_registry()
    registry.register_serializer("test.tuple", tuple, TupleAsList())
    back = registry.deserialize(_frame([(1, 2), Plain(3)], registry))
    assert back == [("mine", 1, 2), Plain(3)]  # pickle would have written the tuple itself
    registry.unregister_serializer("test.tuple")
    assert bytes(registry.serialize([(1, 2), Plain(3)]).in_band_buffer)[:8] == class_id_hash("serreg.pickle5")


def test_a_fallback_of_the_users_own_is_given_one_value_at_a_time():
    seen = []

    class Repr(serreg.Serializer):
        class_id = "test.repr"

        def serialize(self, obj):
            seen.append(type(obj))
            return serreg.SerializationResult(repr(obj.n).encode(), [])

        def deserialize(self, in_band, oob):
            return Plain(int(bytes(in_band)))

    registry = pickling_registry()
    registry.register_fallback_serializer(Repr())
    assert registry.deserialize(_frame([Plain(1), Plain(2)], registry)) == [Plain(1), Plain(2)]
    assert seen == [Plain, Plain]


_MAIN_SCRIPT = """
import dataclasses, json, pickle, sys
import cloudpickle, serreg

@dataclasses.dataclass
class Reading:
    sensor: int
    value: float
    unit: str

value = [Reading(i, i * 0.5, "degC") for i in range(1000)]
serreg.default_registry().configure_fallback(implicit_structs=False)  # the pickle, not implicit structs
frame = serreg.serialize(value).to_bytes()
back = serreg.deserialize(frame)
assert back == value and type(back[0]) is Reading
pickled = cloudpickle.dumps(value, protocol=5)
print(json.dumps({"frame": len(frame), "cloudpickle": len(pickled),
                  "names": frame.count(b"Reading"), "names_in_cloudpickle": pickled.count(b"Reading")}))
"""


def test_main_classes_are_written_by_value_once_per_frame():
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _MAIN_SCRIPT], check=True, capture_output=True, text=True).stdout
    sizes = json.loads(out)
    # The frame is cloudpickle's pickle of the list plus the frame header and the ClassIDHash.
    assert sizes["frame"] <= sizes["cloudpickle"] + 64, sizes
    assert sizes["names"] == sizes["names_in_cloudpickle"] < 10, sizes  # the class is written once


def test_importable_dataclasses_cost_what_pickle_costs():
    import pickle

    value = [Experiment(f"run{i}", None, None) for i in range(1000)]
    frame = _frame(value)
    assert len(frame) <= len(pickle.dumps(value, protocol=5)) + 64
    assert serreg.deserialize(frame) == value


class _Recording:
    """Unpickling it appends to a list (it must never happen in untrusted mode)."""

    def __init__(self, calls):
        self.calls = calls

    def __reduce__(self):
        return (_record, (self.calls,))


def _record(calls):
    calls.append("unpickled")
    return calls


class _ViaCopyreg:
    def __init__(self, n):
        self.n = n


def _rebuild_via_copyreg(n):
    return _ViaCopyreg(n * 10)


def test_copyreg_reducers_and_own_reduce_methods_are_honoured_in_a_whole_value_pickle():
    import copyreg

    copyreg.pickle(_ViaCopyreg, lambda obj: (_rebuild_via_copyreg, (obj.n,)))
    try:
        back = serreg.deserialize(_frame([_ViaCopyreg(1), _ViaCopyreg(2), Plain(3), _Recording([])]))
    finally:
        del copyreg.dispatch_table[_ViaCopyreg]
    assert [back[0].n, back[1].n] == [10, 20] and back[2] == Plain(3)
    assert back[3] == ["unpickled"]  # _Recording.__reduce__ ran on the way out, _record on the way back


def test_a_serializer_called_directly_writes_fallback_values_one_by_one():
    registry = pickling_registry()
    serializer = registry.get_serializer(tuple)
    result = serializer.serialize((1, Plain(2)))  # no serialize() call around it: nothing to pickle whole
    assert isinstance(result, serreg.SerializationResult)
    assert serializer.deserialize(memoryview(bytes(result.in_band_buffer)), iter(result.out_of_band_buffers)) == (1, Plain(2))
