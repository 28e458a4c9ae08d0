"""Python -> TypeScript -> Python through the Node echo fixture (js-compat/, built by npm when stale).

Every value goes out as a frame, is decoded into TypeScript values by the echo fixture,
written again and decoded by Python: it must come back equal and of exactly the same
type, and (Arrow included: TypeScript writes a schema back with the bytes it came with)
byte for byte. The Node test suite of the package runs too (test_node_suite_passes).
"""

from __future__ import annotations

import datetime
import decimal
import json
import re
import subprocess
import sys
import uuid

import numpy as np
import pyarrow as pa
import pytest

import serreg
from example_point import Point
from python_only_types import Holder, PythonOnly
from test_cross_language import DTYPES, PYTHON_VECTORS, REGISTRY, VECTORS, _million_row_table, same
from typescript_fixture import JS_DIR, NODE_TESTS, TypeScriptBuildError, TypeScriptProcess, build, tools_missing
from values import NUMPY_SCALARS, STANDARD_VALUES

from make_python_vectors import TYPESCRIPT_REFUSES  # noqa: E402  (tests/vectors is on sys.path via test_cross_language)


@pytest.fixture(scope="module")
def ts_built():
    reason = tools_missing()
    if reason is not None:
        pytest.skip(reason)
    try:
        build()
    except TypeScriptBuildError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="module")
def ts_echo(ts_built):
    process = TypeScriptProcess()
    yield process
    assert process.close() == 0


def echo(process, value, registry=REGISTRY):
    sent = registry.serialize(value).to_bytes()
    reply = process.round_trip(sent)
    return registry.deserialize(reply), sent, reply


def test_node_suite_passes(ts_built):
    proc = subprocess.run(["node", "--test", str(NODE_TESTS)], cwd=JS_DIR, capture_output=True, text=True, timeout=600)
    summary = proc.stdout + proc.stderr
    assert proc.returncode == 0, summary[-4000:]
    passed = int(re.search(r"^# pass (\d+)", summary, re.M).group(1))
    failed = int(re.search(r"^# fail (\d+)", summary, re.M).group(1))
    assert failed == 0 and passed >= 50, summary[-2000:]


@pytest.mark.parametrize("name,value,java,identical", PYTHON_VECTORS, ids=[v[0] for v in PYTHON_VECTORS])
def test_python_vector_value_survives_typescript(ts_echo, name, value, java, identical):
    if name in TYPESCRIPT_REFUSES:
        with pytest.raises(serreg.RemoteError, match="TypeScript reader does not support|no serializer|class ID"):
            echo(ts_echo, value)
        return
    back, sent, reply = echo(ts_echo, value)
    assert same(value, back), f"{value!r} came back as {back!r}"
    assert bytes(reply) == sent, "TypeScript must write the value back byte for byte"


def _vector_files():
    out = []
    for producer in ("python", "java"):
        for entry in json.loads((VECTORS / producer / "manifest.json").read_text())["vectors"]:
            if entry["class_id"] != "serreg.error" and entry["name"] not in TYPESCRIPT_REFUSES:
                out.append(pytest.param(producer, entry["file"], id=f"{producer}-{entry['name']}"))
    return out


@pytest.mark.parametrize("producer,file", _vector_files())
def test_golden_vector_frames_come_back_identical(ts_echo, producer, file):
    data = (VECTORS / producer / file).read_bytes()
    assert bytes(ts_echo.round_trip(data)) == data


@pytest.mark.parametrize("name", sorted(STANDARD_VALUES))
def test_standard_type_table_round_trips(ts_echo, name):
    value = STANDARD_VALUES[name]
    back, sent, reply = echo(ts_echo, value)
    assert same(value, back), f"{value!r} came back as {back!r}"
    assert bytes(reply) == sent


@pytest.mark.parametrize("scalar", NUMPY_SCALARS, ids=lambda s: type(s).__name__)
def test_numpy_scalars_keep_their_width(ts_echo, scalar):
    back, sent, reply = echo(ts_echo, scalar)
    assert same(scalar, back)
    assert bytes(reply) == sent


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_nd_ndarray_of_every_dtype_both_ways(ts_echo, dtype, order):
    a = np.asarray((np.arange(60) % 13 - 6).reshape(3, 4, 5), order=order).astype(dtype, order=order)
    back, sent, reply = echo(ts_echo, a)
    assert same(a, back)
    assert bytes(reply) == sent


@pytest.mark.parametrize("a", [np.array(7, dtype="<i8"), np.zeros((0, 4), "<f4"), np.arange(10)[::2]], ids=["0d", "empty", "strided"])
def test_ndarray_edge_shapes(ts_echo, a):
    back, _, _ = echo(ts_echo, a)
    assert back.dtype == a.dtype and back.shape == a.shape and np.array_equal(back, a)


def test_broadcast_and_read_only_ndarrays_keep_strides_and_flag(ts_echo):
    broadcast = np.broadcast_to(np.arange(3, dtype="<f8"), (1000, 3))
    read_only = np.arange(6, dtype=">i4").reshape(2, 3)
    read_only.flags.writeable = False
    for a in (broadcast, read_only):
        back, sent, reply = echo(ts_echo, a)
        assert same(a, back) and back.strides == a.strides and not back.flags.writeable
        assert bytes(reply) == sent
    assert len(sent) < 1000, "the broadcast array travels as its one row"


@pytest.mark.parametrize("value,named", [
    (np.array(["2024-01-01", "NaT"], dtype=">M8[ns]"), "datetime64"),
    (np.array([1, 2], dtype="<m8[25s]"), "timedelta64"),
    (np.array([b"ab"], dtype="S2"), "bytes"),
    (np.array(["ab"], dtype=">U2"), "str"),
    (np.zeros(2, dtype="V3"), "void"),
    (np.zeros(2, dtype=[("a", "<i4"), ("b", ">f8")]), "structured"),
])
def test_typescript_refuses_the_dtypes_it_has_no_array_for_by_name(ts_echo, value, named):
    with pytest.raises(serreg.RemoteError, match=named):
        REGISTRY.deserialize(ts_echo.round_trip(REGISTRY.serialize(value).to_bytes()))


def test_million_row_arrow_table_both_ways(ts_echo):
    table = _million_row_table()
    back, sent, reply = echo(ts_echo, table)
    assert isinstance(back, pa.Table) and back.equals(table)
    assert bytes(reply) == sent


def test_arrow_table_of_several_batches_and_nested_types(ts_echo):
    batch = pa.record_batch({
        "l": pa.array([[1, 2], None, []], pa.list_(pa.int32())),
        "ll": pa.array([["a"], None, ["b", None]], pa.large_list(pa.string())),
        "s": pa.array([{"a": 1, "b": "x"}, None, {"a": None, "b": "z"}], pa.struct([("a", pa.int64()), ("b", pa.string())])),
        "t": pa.array([0, 1, None], pa.timestamp("us", tz="UTC")),
        "d": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50")], pa.decimal128(5, 2)),
        "b": pa.array([True, None, False]),
        "m": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int64())),
        "f": pa.array([[1.0, 2.0], None, [3.0, 4.0]], pa.list_(pa.float64(), 2)),
        "h": pa.array([1.5, None, -2.0], pa.float16()),
        "n": pa.nulls(3),
        "day": pa.array([datetime.date(2024, 1, 2), None, datetime.date(1970, 1, 1)], pa.date32()),
        "dur": pa.array([1, None, -5], pa.duration("ms")),
        "fsb": pa.array([b"abc", None, b"xyz"], pa.binary(3)),
        "lb": pa.array([b"x", None, b""], pa.large_binary()),
    })
    table = pa.Table.from_batches([batch, batch])
    back, sent, reply = echo(ts_echo, table)
    assert back.equals(table) and back.num_rows == 6
    assert bytes(reply) == sent
    rb, sent, reply = echo(ts_echo, batch)
    assert isinstance(rb, pa.RecordBatch) and rb.equals(batch)


def test_nested_containers(ts_echo):
    value = {
        "list": [1, [2.5, [None, b"x", "y"]], (np.int16(3), frozenset({1, 2}))],
        (1, "key"): {"inner": [np.arange(4, dtype="<u2"), bytearray(b"ab"), memoryview(b"cd")]},
        7: [Point(1.0, 2.0, "a"), {np.float32(0.5), 3}, datetime.date(2024, 1, 2)],
        "deep": [[[[[[{"k": (np.uint64(2**64 - 1),)}]]]]]],
        "0": "an array-index key makes TypeScript use a Map",
        "floats": [1.0, -0.0, 2**53 + 2.0, float("inf"), 0.5],
        "ints": [2**53 - 1, 2**53, -(2**63), 2**64 - 1, 2**70],
    }
    back, sent, reply = echo(ts_echo, value)
    assert same(value, back)
    assert bytes(reply) == sent


def test_example_point_pair(ts_echo):
    back, sent, reply = echo(ts_echo, Point(3.0, -4.5, "north"))
    assert back == Point(3.0, -4.5, "north")
    assert bytes(reply) == sent


def test_python_only_values_pass_through_typescript_opaque(ts_echo):
    value = [PythonOnly("nested", (1, 2)), {"holder": Holder(np.arange(5))}, np.arange(3, dtype="<i4")]
    back, sent, reply = echo(ts_echo, value)
    assert bytes(reply) == sent
    assert back[0] == value[0] and back[1] == value[1] and same(back[2], value[2])


def test_dataclass_values_pass_through_typescript_opaque(ts_echo):
    registry = serreg.Registry()
    serreg.configure_dataclasses(registry)
    value = {"p": PythonOnly("dc", (1,)), "after": np.arange(2, dtype="<i2")}
    sent = registry.serialize(value).to_bytes()
    reply = ts_echo.round_trip(sent)
    assert bytes(reply) == sent
    assert registry.deserialize(reply)["p"] == value["p"]


def test_garbage_frame_gets_an_error_frame_and_serving_continues(ts_echo):
    reply = ts_echo.round_trip(b"SREG" + b"\x07" * 40)
    with pytest.raises(serreg.RemoteError) as raised:
        serreg.deserialize(reply)
    assert "version 7" in raised.value.message
    back, _, _ = echo(ts_echo, [1, "still serving"])
    assert back == [1, "still serving"]


def test_widths_come_back_as_sent(ts_echo):
    values = [np.int8(-1), np.int16(-1), np.int32(-1), np.int64(-1), np.uint8(1), np.uint16(1), np.uint32(1),
              np.uint64(1), np.float16(1), np.float32(1), np.float64(1), np.complex64(1), np.complex128(1), np.bool_(True),
              1, 1.0, True, 2**70, -(2**63), uuid.UUID(int=5), decimal.Decimal("1.50")]
    back, sent, reply = echo(ts_echo, values)
    assert [type(v) for v in back] == [type(v) for v in values]
    assert bytes(reply) == sent


def test_version_1_signed_frames_are_refused_with_a_clear_message(ts_echo):
    for name in ("signed_list_v1.frame",):
        reply = ts_echo.round_trip((VECTORS / "signed" / name).read_bytes())
        with pytest.raises(serreg.RemoteError) as raised:
            serreg.deserialize(reply)
        assert "version 1 way (flag 0x01" in raised.value.message


def test_signed_frames_through_typescript_echo_with_a_key(ts_built):
    key = bytes(range(32))
    process = TypeScriptProcess("--key", key.hex())
    try:
        value = {"a": np.arange(5, dtype="<i8"), "t": (1, "x")}
        sent = serreg.serialize(value, key=key).to_bytes()
        reply = process.round_trip(sent)
        assert bytes(reply) == sent, "TypeScript checks the signature and signs the value back byte for byte"
        back = serreg.deserialize(reply, key=key)
        assert same(back["a"], value["a"]) and back["t"] == value["t"]
        for bad in (serreg.serialize(value).to_bytes(), serreg.serialize(value, key=bytes(range(1, 33))).to_bytes()):
            with pytest.raises(serreg.RemoteError):
                serreg.deserialize(process.round_trip(bad), key=key)
    finally:
        assert process.close() == 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
