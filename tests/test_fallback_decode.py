"""The short way of ``deserialize`` for a top-level value that is not plain msgpack (a pickle).

A trusted call with the registry's own limits, outside any other deserialize
call, decodes the top-level value without the nested decoder's frames. Every
test here compares it with the long way (the same call with ``trusted=True``
or ``limits=`` given, which the short way leaves alone): same values, same
errors, same limits, same state for what is decoded inside the pickle.
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import serreg
from pickling import pickling_registry
from serreg.errors import DeserializationError, LimitExceededError, UntrustedClassIDError
from serreg.limits import DECODE_STATE
from serreg.result import NO_BUFFERS, OutOfBandBuffers
from serreg.wire.class_id import class_id_hash


# These tests pin the pickle fallback's own frames (conftest.py: plain objects pickled, not implicit structs).
pytestmark = pytest.mark.usefixtures("plain_objects_pickled")



@dataclasses.dataclass
class Row:
    name: str
    value: Any


def _both_ways(registry: serreg.Registry, data: Any) -> tuple[Any, Any]:
    """(short way, long way) of deserialize(data): a value, or the exception raised."""
    out = []
    for options in ({}, {"trusted": True}):
        try:
            out.append(registry.deserialize(data, **options))
        except Exception as error:  # noqa: BLE001 (compared below)
            out.append(error)
    return out[0], out[1]


def _same_error(short: Any, long: Any, kind: type) -> None:
    assert isinstance(short, kind) and isinstance(long, kind)
    assert type(short) is type(long) and str(short) == str(long)


@pytest.mark.parametrize("via", ["result", "bytes"])
def test_values_and_out_of_band_buffers(via: str):
    registry = pickling_registry()
    value = Row("array", np.arange(1000.0))
    for _ in range(3):
        result = registry.serialize(value)
        data = result if via == "result" else result.to_bytes()
        short, long = _both_ways(registry, data)
        assert short.name == long.name == "array"
        assert np.array_equal(short.value, value.value) and np.array_equal(long.value, value.value)


@pytest.mark.parametrize("via", ["result", "bytes"])
def test_the_memory_budget_applies_inside_the_pickle(via: str):
    table = pa.table({"x": list(range(1000))})
    value = Row("table", table)
    writer = pickling_registry()
    result = writer.serialize(value)
    data = result if via == "result" else result.to_bytes()
    tight = serreg.Limits(memory_per_byte=0, memory_allowance=64)
    registry = serreg.Registry(limits=tight)
    with pytest.raises(LimitExceededError, match="memory_allowance"):
        registry.deserialize(data)  # the registry's own limits: the short way
    with pytest.raises(LimitExceededError, match="memory_allowance"):
        writer.deserialize(data, limits=tight)  # limits given: the long way
    assert writer.deserialize(data).value.equals(table)


@pytest.mark.parametrize("via", ["result", "bytes"])
def test_max_depth_zero_refuses_the_value(via: str):
    result = pickling_registry().serialize(Row("d", 1))
    data = result if via == "result" else result.to_bytes()
    registry = serreg.Registry(limits=serreg.Limits(max_depth=0))
    with pytest.raises(LimitExceededError, match="max_depth=0"):
        registry.deserialize(data)


def test_a_broken_pickle_names_the_class_id_and_offset_as_the_long_way():
    registry = pickling_registry()
    frame = bytearray(registry.serialize(Row("broken", 1)).to_bytes())
    frame[-5] ^= 0xFF  # a byte near the pickle's end: pickle fails
    short, long = _both_ways(registry, bytes(frame))
    _same_error(short, long, DeserializationError)
    assert short.class_id == "serreg.pickle5" and short.offset == long.offset


def test_untrusted_registries_still_refuse_pickles():
    frame = pickling_registry().serialize(Row("u", 1)).to_bytes()
    registry = serreg.Registry(trusted=False)
    with pytest.raises(UntrustedClassIDError):
        registry.deserialize(frame)
    with pytest.raises(UntrustedClassIDError):
        registry.deserialize(pickling_registry().serialize(Row("u", 1)))


_SEEN: list[Any] = []


def _probe(tag: str) -> str:
    state = DECODE_STATE.get()
    _SEEN.append((state.depth, state.budget is not None, state.allowed, state.unpickling is not None))
    return tag


class Probe:
    def __reduce__(self) -> Any:
        return _probe, ("probed",)


def test_code_run_by_the_unpickle_sees_the_state_of_the_call():
    registry = pickling_registry()
    frame = registry.serialize(Row("p", Probe())).to_bytes()
    _SEEN.clear()
    short, long = _both_ways(registry, frame)
    assert short == long == Row("p", "probed")
    assert _SEEN[0] == _SEEN[1] == (1, True, None, True)


def test_a_nested_deserialize_inside_the_unpickle_joins_the_call():
    registry = pickling_registry()
    _NESTED_REGISTRY[:] = [registry]
    inner = registry.serialize(Row("inner", np.arange(3))).to_bytes()
    outer = registry.serialize(Row("outer", _Nested(inner))).to_bytes()
    _SEEN.clear()
    short, long = _both_ways(registry, outer)
    assert short.value.name == long.value.name == "inner"
    assert np.array_equal(short.value.value, np.arange(3))
    assert _SEEN[0] == _SEEN[1] and _SEEN[0][0] is True  # the nested call ran in the outer call's state


_NESTED_REGISTRY: list[Any] = []


class _Nested:
    def __init__(self, frame: bytes) -> None:
        self.frame = frame

    def __reduce__(self) -> Any:
        return _nested_deserialize, (self.frame,)


def _nested_deserialize(frame: bytes) -> Any:
    outer = DECODE_STATE.get()
    seen: list[Any] = []
    value = _NESTED_REGISTRY[0].deserialize(frame)
    seen.append(DECODE_STATE.get() is outer and outer is not None)
    _SEEN.append(tuple(seen))
    return value


def test_the_fallback_called_directly_still_restores_registered_values():
    registry = pickling_registry()
    result = registry.serialize(Row("direct", np.arange(5)))
    pickle5 = registry.get_serializer("serreg.pickle5")
    in_band = memoryview(bytes(result.in_band_buffer))[8:]
    buffers = OutOfBandBuffers(result.out_of_band_buffers)
    value = pickle5.deserialize(in_band, buffers)
    assert np.array_equal(value.value, np.arange(5))
    with pytest.raises(DeserializationError, match="not with pickle.loads"):
        pickle.loads(in_band, buffers=list(result.out_of_band_buffers))


def test_a_frame_of_another_class_id_takes_the_same_short_way():
    registry = pickling_registry()
    registry.register_serializer(
        "test.Row", Row, serialize=lambda r: r.name.encode(), deserialize=lambda b: Row(bytes(b).decode(), None)
    )
    frame = registry.serialize(Row("registered", None)).to_bytes()
    assert class_id_hash("test.Row") in frame and class_id_hash("serreg.pickle5") not in frame
    short, long = _both_ways(registry, frame)
    assert short == long == Row("registered", None)
    assert registry.deserialize(registry.serialize(Row("r", None))) == Row("r", None)


def test_a_pickle_asking_for_a_missing_buffer_fails_the_same_with_or_without_the_shared_empty_iterator():
    registry = pickling_registry()
    result = registry.serialize(Row("buffer", pickle.PickleBuffer(bytearray(b"x" * 100))))
    assert len(result.out_of_band_buffers) == 1
    pickle5 = registry.get_serializer("serreg.pickle5")
    in_band = memoryview(bytes(result.in_band_buffer))[8:]
    errors = []
    for buffers in (NO_BUFFERS, OutOfBandBuffers([])):
        with pytest.raises(pickle.UnpicklingError) as caught:
            pickle5.deserialize(in_band, buffers)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    stripped = serreg.SerializationResult(bytes(result.in_band_buffer), [])
    short, long = _both_ways(registry, stripped)
    _same_error(short, long, DeserializationError)
    assert "out-of-band" in str(short)
