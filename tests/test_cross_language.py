"""Python <-> Java through the Java fixture (java-compat/, built by the java_jar fixture)."""

from __future__ import annotations

import array
import datetime
import decimal
import json
import math
import struct
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET
import zipfile
import zoneinfo
from pathlib import Path

import msgpack
import numpy as np
import pyarrow as pa
import pytest

import serreg
from example_point import Point
from flatbuffer_craft import String, field, schema_message
import numpy_corpus
from java_fixture import MODULES, PUBLISHED_MODULES, ROOT, JavaProcess, javadoc_jars, surefire_reports
from python_only_types import Holder, PythonOnly
from serreg.wire.class_id import class_id_hash

sys.path.insert(0, str(ROOT / "tests" / "vectors"))
import make_python_vectors  # noqa: E402

VECTORS = ROOT / "tests" / "vectors"
REGISTRY = make_python_vectors.registry()
PYTHON_VECTORS = [v for v in make_python_vectors.vectors() if not isinstance(v[1], serreg.RemoteError)]


def same(a, b) -> bool:
    """Equal value and exactly the same type, recursively (widths, byte order and NaNs included)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ma.MaskedArray):
        return numpy_corpus.same(a, b)
    if isinstance(a, np.ndarray):
        order = lambda x: "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"  # noqa: E731
        return a.dtype == b.dtype and a.shape == b.shape and order(a) == order(b) and a.tobytes() == b.tobytes()
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)
    if isinstance(a, decimal.Decimal):
        return str(a) == str(b)
    if isinstance(a, memoryview):
        return a.format == b.format and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return len(a) == len(b) and all(same(ka, kb) and same(va, vb) for (ka, va), (kb, vb) in zip(a.items(), b.items()))
    if isinstance(a, (pa.Table, pa.RecordBatch)):
        return a.equals(b)
    if isinstance(a, (datetime.datetime, datetime.time)):
        return a == b and a.fold == b.fold and a.utcoffset() == b.utcoffset() and a.tzinfo == b.tzinfo
    return a == b


def echo(process: JavaProcess, value, registry=REGISTRY):
    """Send ``value`` through Java and back; return (decoded reply, sent frame, reply frame)."""
    sent = registry.serialize(value).to_bytes()
    reply = process.round_trip(sent)
    return registry.deserialize(reply), sent, reply


def test_junit_suite_ran_without_failures(java_jar):
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for module in MODULES:
        reports = surefire_reports(module)
        assert reports, f"the Maven build left no surefire reports for {module}"
        for report in reports:
            suite = ET.parse(report).getroot()
            for key in totals:
                totals[key] += int(suite.get(key))
    assert totals["tests"] >= 200, totals
    assert totals["failures"] == 0 and totals["errors"] == 0, totals


@pytest.mark.parametrize("module,page", [("serreg-core", "serreg/SerializerRegistry.html"),
                                         ("serreg-arrow", "serreg/arrow/ArrowSerializers.html")])
def test_javadoc_of_the_published_modules_built(java_jar, module, page):
    # The javadoc plugin's jar goal runs in the package phase of serreg-core and serreg-arrow and
    # fails the build on any javadoc error, so its jar exists only if javadoc reported none.
    assert set(PUBLISHED_MODULES) == {"serreg-core", "serreg-arrow"}
    jars = javadoc_jars(module)
    assert jars, f"no javadoc jar for {module}: javadoc failed or was skipped"
    with zipfile.ZipFile(jars[-1]) as z:
        assert page in z.namelist(), sorted(z.namelist())[:20]


@pytest.mark.parametrize("name,value,java,identical", PYTHON_VECTORS, ids=[v[0] for v in PYTHON_VECTORS])
def test_python_value_survives_java(java_echo, name, value, java, identical):
    back, sent, reply = echo(java_echo, value)
    assert same(value, back), f"{value!r} came back as {back!r}"
    if identical:
        assert bytes(reply) == sent, "Java must write the value back byte for byte"


def _java_manifest():
    return json.loads((VECTORS / "java" / "manifest.json").read_text())["vectors"]


def _eval_namespace():
    return {"np": np, "pa": pa, "datetime": datetime, "decimal": decimal, "uuid": uuid, "zoneinfo": zoneinfo,
            "array": array, "Point": Point, "math": math}


@pytest.mark.parametrize("entry", _java_manifest(), ids=lambda e: e["name"])
def test_java_vector_decodes_to_expected_python_value(entry):
    data = (VECTORS / "java" / entry["file"]).read_bytes()
    if entry["python_error"] is not None:
        with pytest.raises(serreg.RemoteError) as raised:
            REGISTRY.deserialize(data)
        assert raised.value.message == entry["python_error"]
        return
    expected = eval(entry["python"], _eval_namespace())  # the manifest's expressions are ours
    # From writable memory: arrays decoded from bytes are read-only and would be written back so.
    value = REGISTRY.deserialize(bytearray(data))
    assert same(expected, value), f"expected {expected!r}, decoded {value!r}"
    if entry["class_id"] not in ("ArrowTable", "ArrowRecordBatch"):
        assert REGISTRY.serialize(value).to_bytes() == data, "Python must write Java's frame byte for byte"


def test_python_still_writes_the_committed_python_vectors(tmp_path):
    subprocess.run([sys.executable, str(VECTORS / "make_python_vectors.py"), str(tmp_path)], check=True, capture_output=True)
    committed = sorted(p.name for p in (VECTORS / "python").iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == committed
    for name in committed:
        assert (tmp_path / name).read_bytes() == (VECTORS / "python" / name).read_bytes(), name


DTYPES = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16",
          ">i2", ">i4", ">i8", ">u2", ">u4", ">u8", ">f2", ">f4", ">f8", ">c8", ">c16"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_nd_ndarray_of_every_dtype_both_ways(java_echo, dtype, order):
    a = np.asarray((np.arange(60) % 13 - 6).reshape(3, 4, 5), order=order).astype(dtype, order=order)
    back, sent, reply = echo(java_echo, a)
    assert same(a, back)
    assert bytes(reply) == sent
    assert back.flags.writeable, "decoded from a writable reply buffer, the array is a writable view"


@pytest.mark.parametrize("a", [np.array(7, dtype="<i8"), np.zeros((0, 4), "<f4"), np.arange(10)[::2]], ids=["0d", "empty", "strided"])
def test_ndarray_edge_shapes(java_echo, a):
    back, _, _ = echo(java_echo, a)
    assert back.dtype == a.dtype and back.shape == a.shape and np.array_equal(back, a)


def _million_row_table() -> pa.Table:
    n = 1_000_000
    return pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "x": pa.array(np.linspace(0, 1, n)),
        "name": pa.array([f"row{i % 1000}" for i in range(n)], pa.string()),
    })


def test_million_row_arrow_table_both_ways(java_echo):
    table = _million_row_table()
    back, _, _ = echo(java_echo, table)
    assert isinstance(back, pa.Table) and back.num_rows == 1_000_000
    assert back.equals(table)
    again, _, _ = echo(java_echo, back)
    assert again.equals(table)


def test_arrow_table_of_several_batches_and_nested_types(java_echo):
    batch = pa.record_batch({
        "l": pa.array([[1, 2], None, []], pa.list_(pa.int32())),
        "s": pa.array([{"a": 1, "b": "x"}, None, {"a": None, "b": "z"}], pa.struct([("a", pa.int64()), ("b", pa.string())])),
        "t": pa.array([0, 1, None], pa.timestamp("us", tz="UTC")),
        "d": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50")], pa.decimal128(5, 2)),
        "b": pa.array([True, None, False]),
    })
    table = pa.Table.from_batches([batch, batch])
    back, _, _ = echo(java_echo, table)
    assert back.equals(table), "two batches are concatenated in Java and come back as one"
    rb, sent, reply = echo(java_echo, batch)
    assert isinstance(rb, pa.RecordBatch) and rb.equals(batch)


def test_nested_containers(java_echo):
    value = {
        "list": [1, [2.5, [None, b"x", "y"]], (np.int16(3), frozenset({1, 2}))],
        (1, "key"): {"inner": [np.arange(4, dtype="<u2"), bytearray(b"ab"), memoryview(b"cd")]},
        7: [Point(1.0, 2.0, "a"), {np.float32(0.5), 3}, datetime.date(2024, 1, 2)],
        "deep": [[[[[[{"k": (np.uint64(2**64 - 1),)}]]]]]],
    }
    back, sent, reply = echo(java_echo, value)
    assert same(value, back)
    assert bytes(reply) == sent


def test_example_point_pair_both_ways(java_echo):
    back, sent, reply = echo(java_echo, Point(3.0, -4.5, "north"))
    assert back == Point(3.0, -4.5, "north")
    assert bytes(reply) == sent
    java_made = (VECTORS / "java" / "example_point.frame").read_bytes()
    assert REGISTRY.deserialize(java_made) == Point(1.5, -2.0, "p")


def test_python_only_values_pass_through_java_opaque(java_echo):
    value = [PythonOnly("nested", (1, 2)), {"holder": Holder(np.arange(5))}, np.arange(3, dtype="<i4")]
    back, sent, reply = echo(java_echo, value)
    assert bytes(reply) == sent
    assert back[0] == value[0] and back[1] == value[1] and same(back[2], value[2])


def test_garbage_frame_gets_an_error_frame_and_serving_continues(java_echo):
    reply = java_echo.round_trip(b"SREG" + b"\x07" * 40)
    with pytest.raises(serreg.RemoteError) as raised:
        serreg.deserialize(reply)
    assert "version 7" in raised.value.message
    back, _, _ = echo(java_echo, [1, "still serving"])
    assert back == [1, "still serving"]


def test_signed_frames_through_java_echo_with_a_key(java_jar):
    key = bytes(range(32))
    process = JavaProcess("echo", "--key", key.hex())
    try:
        value = {"a": np.arange(5, dtype="<i8"), "t": (1, "x")}
        sent = serreg.serialize(value, key=key).to_bytes()
        reply = process.round_trip(sent)
        assert bytes(reply) == sent, "Java checks the signature and signs the value back byte for byte"
        back = serreg.deserialize(reply, key=key)
        assert same(back["a"], value["a"]) and back["t"] == value["t"]
        # Unsigned, other-key and altered frames are refused by Java; its error frames are signed too.
        altered = bytearray(sent)
        altered[40] ^= 1
        for bad, why in ((serreg.serialize(value).to_bytes(), "not signed"),
                         (serreg.serialize(value, key=bytes(range(1, 33))).to_bytes(), "another key"),
                         (bytes(altered), "another key or altered")):
            with pytest.raises(serreg.RemoteError) as raised:
                serreg.deserialize(process.round_trip(bad), key=key)
            assert why in raised.value.message
    finally:
        assert process.close() == 0


def test_java_refuses_retired_v1_signed_frames(java_jar):
    key = bytes(range(32))
    process = JavaProcess("echo", "--key", key.hex())
    try:
        v1 = (Path(__file__).parent / "vectors" / "signed" / "signed_list_v1.frame").read_bytes()
        with pytest.raises(serreg.RemoteError) as raised:
            serreg.deserialize(process.round_trip(v1), key=key)
        assert "retired signature scheme" in raised.value.message
    finally:
        assert process.close() == 0


def test_a_schema_whose_fields_share_one_name_gets_an_error_frame_from_java(java_echo):
    # Arrow Java copies a shared name into every field: on c2967a7 this 216 KB frame made the
    # echo fixture die of an OutOfMemoryError (issue 11, section 1).
    name = String("n" * 60_000)
    in_band = class_id_hash("ArrowTable") + msgpack.packb([schema_message([field(name) for _ in range(3000)]), []])
    reply = java_echo.round_trip(serreg.SerializationResult(in_band).to_bytes())
    with pytest.raises(serreg.RemoteError) as raised:
        serreg.deserialize(reply)
    assert "shared" in raised.value.message, raised.value.message
    back, _, _ = echo(java_echo, [1, "still serving"])
    assert back == [1, "still serving"]


def test_widths_come_back_as_sent(java_echo):
    values = [np.int8(-1), np.int16(-1), np.int32(-1), np.int64(-1), np.uint8(1), np.uint16(1), np.uint32(1),
              np.uint64(1), np.float16(1), np.float32(1), np.float64(1), np.complex64(1), np.complex128(1), np.bool_(True),
              1, 1.0, True, 2**70, -(2**63)]
    back, sent, reply = echo(java_echo, values)
    assert [type(v) for v in back] == [type(v) for v in values]
    assert bytes(reply) == sent


def test_large_replies_never_overwrite_a_value_still_alive(java_echo):
    # JavaProcess.receive reuses the buffer of an earlier large reply only once nothing views it.
    a = np.arange(300_000, dtype="<f8")
    first = REGISTRY.deserialize(java_echo.round_trip(REGISTRY.serialize(a).to_bytes()))
    second = REGISTRY.deserialize(java_echo.round_trip(REGISTRY.serialize(a[::-1].copy()).to_bytes()))
    assert np.array_equal(first, a) and np.array_equal(second, a[::-1])
    del first, second
    third = REGISTRY.deserialize(java_echo.round_trip(REGISTRY.serialize(a * 2).to_bytes()))
    assert np.array_equal(third, a * 2)
