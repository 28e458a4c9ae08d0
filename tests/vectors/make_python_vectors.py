"""Writes the Python-made golden vectors: tests/vectors/python/<name>.frame + manifest.json.

Each vector names the Java value it must decode to, as serreg.fixture.Describe prints it
(the JUnit suite checks that), and whether Java writes it back byte for byte (everything but
Arrow, whose schema message Java encodes with its own flatbuffer layout).

    python tests/vectors/make_python_vectors.py [OUTPUT_DIR]
"""

from __future__ import annotations

import array
import datetime
import decimal
import json
import sys
import uuid
import zoneinfo
from pathlib import Path

import msgpack
import numpy as np
import pyarrow as pa

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import serreg  # noqa: E402
from serreg.serializers.numpy_array import array_meta  # noqa: E402
from example_point import Point, register as register_point  # noqa: E402
from python_only_types import UNSHARED_CLASS_ID, Holder, PythonOnly, Unshared, UnsharedSerializer  # noqa: E402

OUT = HERE / "python"


def registry(whole_values: bool = True) -> serreg.Registry:
    """The registry the vectors are written with: the standard one plus example.Point and Unshared."""
    r = serreg.Registry()
    register_point(r)
    r.register_serializer(UNSHARED_CLASS_ID, Unshared, UnsharedSerializer())
    # The pickle5_* vectors pin the fallback's frames: plain objects are pickled, not implicit structs.
    r.configure_fallback(whole_values=whole_values, implicit_structs=False)
    return r


def dtype_describe(spec) -> str:
    """A dtype's in-band description as Java's DType.toString prints it."""
    if isinstance(spec, str):
        return spec
    itemsize, fields, aligned = spec
    described = [f"['{n}', {o}, {dtype_describe(d)}, {list(s)}, {'nil' if t is None else repr(t)}]" for n, o, d, s, t in fields]
    return f"[{itemsize}, [{', '.join(described)}], {str(aligned).lower()}]"


# Vectors written with configure_fallback(whole_values=False).
PER_VALUE = frozenset({"pickle5_in_list", "pickle5_with_buffer_then_array"})


def ndarray_describe(a: np.ndarray) -> str:
    meta, data = array_meta(a)
    layout = meta[2] if len(meta) == 3 or meta[3] is None else f"C, strides {meta[3]}"
    read_only = ", read-only" if len(meta) == 5 and meta[4] else ""
    return f"NDArray({dtype_describe(meta[0])}, {list(a.shape)}, {layout}{read_only}, {bytes(data).hex()})"


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


STRUCTURED = np.dtype({"names": ["id", "pos", "when", "inner"], "titles": ["Identifier", None, None, None],
                       "formats": ["<i4", (">f8", (2,)), "<M8[ms]", [("a", "|S2"), ("b", ">U1")]],
                       "offsets": [0, 8, 24, 33], "itemsize": 48})

def _structured() -> np.ndarray:
    a = np.zeros(2, dtype=STRUCTURED)
    a["id"] = [7, -1]
    a["pos"] = [[0.5, -2.0], [1e300, -0.0]]
    a["when"] = np.array(["2024-01-01T00:00:00.001", "NaT"], dtype="<M8[ms]")
    a["inner"]["a"] = [b"hi", b"x"]
    a["inner"]["b"] = ["\u00e9", "z"]
    return a


# Vectors the TypeScript reader refuses (docs/FORMAT.md 7.1): ndarrays of kinds M, m, S, U, V and structured.
# (Masked arrays and the scalars carried as 0-d arrays have no TypeScript serializer: at the top
# level of a frame they pass through as opaque values.)
TYPESCRIPT_REFUSES = frozenset({
    "ndarray_datetime_big_endian", "ndarray_timedelta_unit_count", "ndarray_bytes", "ndarray_str_big_endian",
    "ndarray_void", "ndarray_structured",
})


DTYPES = ["|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16"]


def vectors() -> list:
    """(name, value, expected Java description, Java writes it back identically)."""
    v = [
        ("none", None, "null", True),
        ("bool_false", False, "Boolean(false)", True),
        ("int_zero", 0, "Long(0)", True),
        ("int_long_min", -(2**63), "Long(-9223372036854775808)", True),
        ("int_2_pow_63", 2**63, "BigInteger(9223372036854775808)", True),
        ("int_huge_negative", -(2**200), f"BigInteger({-(2**200)})", True),
        ("float_nan", float("nan"), "Double(NaN)", True),
        ("float_tenth", 0.1, "Double(0.1)", True),
        ("float_small", 1e-05, "Double(1.0E-5)", True),
        ("str_empty", "", 'String("")', True),
        ("str_unicode", "\u00fc\u20ac\U0001f600", 'String("\\u00fc\\u20ac\\ud83d\\ude00")', True),
        ("bytes_empty", b"", "byte[]()", True),
        ("bytes_large_oob", bytes(range(256)) * 256, "byte[](" + (bytes(range(256)) * 256).hex() + ")", True),
        ("list_nested", [[1, [2, []]], {}], "ArrayList[ArrayList[Long(1), ArrayList[Long(2), ArrayList[]]], LinkedHashMap{}]", True),
        ("dict_any_keys", {"z": 1, "a": {b"k": 2.5}, 7: None, (1, "t"): True},
         'LinkedHashMap{String("z"): Long(1), String("a"): LinkedHashMap{byte[](6b): Double(2.5)}, Long(7): null,'
         ' Tuple[Long(1), String("t")]: Boolean(true)}', True),
        ("tuple_empty", (), "Tuple[]", True),
        ("set_mixed", {b"b", "a", 2}, 'LinkedHashSet{Long(2), String("a"), byte[](62)}', True),
        ("frozenset", frozenset({1.5, -1}), "FrozenSet{Double(1.5), Long(-1)}", True),
        ("bytearray", bytearray(b"xyz"), "PyByteArray(78797a)", True),
        ("memoryview_double", memoryview(array.array("d", [1.0, 2.0])), "PyMemoryView(d, [2], 000000000000f03f0000000000000040)", True),
        ("memoryview_2d", memoryview(bytes(range(6))).cast("B", (2, 3)), "PyMemoryView(B, [2, 3], 000102030405)", True),
        ("complex", complex(-0.0, float("inf")), "Complex(-0.0, Infinity)", True),
        ("datetime_naive", datetime.datetime(2000, 1, 1, 0, 0, 0, 5), "LocalDateTime(2000-01-01T00:00:00.000005)", True),
        ("datetime_utc", datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc), "OffsetDateTime(2024-05-06T07:08:09Z)", True),
        ("datetime_zone", datetime.datetime(2024, 7, 1, 12, 0, tzinfo=zoneinfo.ZoneInfo("Europe/Paris")),
         "ZonedDateTime(2024-07-01T12:00+02:00[Europe/Paris])", True),
        ("date_min", datetime.date(1, 1, 1), "LocalDate(0001-01-01)", True),
        ("time_noon", datetime.time(12, 0), "LocalTime(12:00)", True),
        ("time_offset", datetime.time(1, 2, 3, 4, tzinfo=datetime.timezone(datetime.timedelta(hours=-9, minutes=-30))),
         "OffsetTime(01:02:03.000004-09:30)", True),
        ("timedelta_negative", datetime.timedelta(microseconds=-1), "Duration(PT-0.000001S)", True),
        ("timedelta_days", datetime.timedelta(days=400, seconds=5), "Duration(PT9600H5S)", True),
        ("decimal", decimal.Decimal("3.14159"), "BigDecimal(3.14159)", True),
        ("decimal_small_exponent", decimal.Decimal("1.2E-10"), "BigDecimal(1.2E-10)", True),
        ("decimal_negative_zero", decimal.Decimal("-0"), "SpecialDecimal(-0)", True),
        ("decimal_negative_infinity", decimal.Decimal("-Infinity"), "SpecialDecimal(-Infinity)", True),
        ("uuid", uuid.UUID(int=1), "UUID(00000000-0000-0000-0000-000000000001)", True),
        ("numpy_int8", np.int8(-128), "Byte(-128)", True),
        ("numpy_int16", np.int16(-32768), "Short(-32768)", True),
        ("numpy_int32", np.int32(2**31 - 1), "Integer(2147483647)", True),
        ("numpy_float32", np.float32(0.1), "Float(0.1)", True),
        ("numpy_uint8", np.uint8(255), "UInt8(255)", True),
        ("numpy_uint16", np.uint16(65535), "UInt16(65535)", True),
        ("numpy_uint32", np.uint32(2**32 - 1), "UInt32(4294967295)", True),
        ("numpy_uint64", np.uint64(2**63), "UInt64(9223372036854775808)", True),
        ("numpy_bool", np.bool_(False), "NumpyScalar(bool, Boolean(false))", True),
        ("numpy_int64", np.int64(2**40), "NumpyScalar(int64, Long(1099511627776))", True),
        ("numpy_float16", np.float16(-2.5), "NumpyScalar(float16, Short(-16128))", True),
        ("numpy_float64", np.float64(-0.5), "NumpyScalar(float64, Double(-0.5))", True),
        ("numpy_complex64", np.complex64(1j), "NumpyScalar(complex64, Complex(0.0, 1.0))", True),
        ("numpy_complex128", np.complex128(2 - 3j), "NumpyScalar(complex128, Complex(2.0, -3.0))", True),
    ]
    for dtype in DTYPES:
        a = (np.arange(24) % 7).reshape(2, 3, 4).astype(dtype)
        v.append((f"ndarray_{dtype[1:]}_3d", a, ndarray_describe(a), True))
    for name, a in [
        ("ndarray_big_endian", np.arange(5, dtype=">u4")),
        ("ndarray_fortran", np.asfortranarray(np.arange(6, dtype="<f8").reshape(2, 3))),
        ("ndarray_0d", np.array(3.5)),
        ("ndarray_zero_size", np.zeros((0, 3), dtype="<i4")),
        ("ndarray_datetime_big_endian", np.array(["2024-02-29T12:00", "NaT", "1969-12-31T23:59:59.999"], dtype=">M8[ns]")),
        ("ndarray_timedelta_unit_count", np.array([[1, -2], [3, -(2**63)]], dtype="<m8[25s]")),
        ("ndarray_bytes", np.array([b"ab", b"", b"xyz"], dtype="S3")),
        ("ndarray_str_big_endian", np.array(["h\u00e9", "\U0001f600"], dtype=">U2")),
        ("ndarray_void", np.frombuffer(bytes(range(6)), dtype="V3")),
        ("ndarray_structured", _structured()),
        ("ndarray_broadcast", np.broadcast_to(np.arange(3, dtype="<i2"), (4, 3))),
        ("ndarray_read_only", _read_only(np.arange(4, dtype=">f4"))),
    ]:
        v.append((name, a, ndarray_describe(a), True))
    masked = np.ma.MaskedArray(np.arange(3, dtype="<i8"), mask=[False, True, False], fill_value=-1, hard_mask=True)
    v.append(("masked_array", masked, f"MaskedArray({ndarray_describe(masked.data)}, {ndarray_describe(masked.mask)}, "
              f"{np.int64(-1).tobytes().hex()}, true)", True))
    v.append(("numpy_datetime64", np.datetime64("2024-01-02", "D"),
              f"NumpyGenericScalar(datetime64, {ndarray_describe(np.array(np.datetime64('2024-01-02', 'D')))})", True))
    text = np.str_("h\u00e9llo")
    v.append(("numpy_str_", text, f"NumpyGenericScalar(str_, {ndarray_describe(np.array(text))})", True))
    table = pa.table({"a": pa.array([1, None, 3], pa.int64()), "s": pa.array(["x", "yy", None], pa.string())})
    v.append(("arrow_table", table,
              'VectorSchemaRoot(Schema<a: Int(64, true), s: Utf8>, rows=3, "a\\ts\\n1\\tx\\nnull\\tyy\\n3\\tnull\\n")', False))
    batch = pa.record_batch({"f": pa.array([0.5, 1.5], pa.float64())})
    v.append(("arrow_record_batch", batch, 'ArrowRecordBatch(Schema<f: FloatingPoint(DOUBLE)>, rows=2, "f\\n0.5\\n1.5\\n")', False))
    v.append(("example_point", Point(1.5, -2.0, "p"), "Point[x=1.5, y=-2.0, label=p]", True))
    v.append(("nested_oob_order", [np.arange(3, dtype="<i2"), {"b": bytearray(b"\x01")}, (np.uint16(7), Point(0.0, 1.0, "q"))],
              "ArrayList[NDArray(<i2, [3], C, 000001000200), LinkedHashMap{String(\"b\"): PyByteArray(01)},"
              " Tuple[UInt16(7), Point[x=0.0, y=1.0, label=q]]]", True))
    v.append(("pickle5_dataclass", PythonOnly("only python", (1, 2)), "OpaqueValue(serreg.pickle5)", True))
    # Written value by value (PER_VALUE): each pickle nested where it sits, its buffers counted by readers.
    v.append(("pickle5_in_list", [1, PythonOnly("nested", ()), "after"],
              'ArrayList[Long(1), OpaqueValue(serreg.pickle5), String("after")]', True))
    v.append(("pickle5_with_buffer_then_array", [Holder(np.arange(4, dtype="<i8")), np.arange(2, dtype="<u1")],
              "ArrayList[OpaqueValue(serreg.pickle5), NDArray(|u1, [2], C, 0001)]", True))
    # The default writer: a value holding fallback values is one pickle, registered values inside out-of-band.
    v.append(("pickle5_whole_list", [1, PythonOnly("nested", ()), "after", PythonOnly("nested", ())],
              "OpaqueValue(serreg.pickle5)", True))
    v.append(("pickle5_whole_with_buffers", [Holder(np.arange(4, dtype="<i8")), np.arange(2, dtype="<u1")],
              "OpaqueValue(serreg.pickle5)", True))
    v.append(("unknown_class_id", Unshared(b"abc"), "OpaqueValue(" + serreg.wire.class_id.class_id_hash(UNSHARED_CLASS_ID).hex() + ")", True))
    v.append(("error_frame", serreg.RemoteError("boom from python"), None, True))
    return v


def frame_bytes(r: serreg.Registry, value) -> bytes:
    return r.serialize(value).to_bytes()


def main(out: Path = OUT) -> None:
    r, per_value = registry(), registry(whole_values=False)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.frame"):
        old.unlink()
    entries = []
    class_ids = {registration.class_hash: registration.class_id for registration in r.registrations()}
    for name, value, java, java_identical in vectors():
        data = frame_bytes(per_value if name in PER_VALUE else r, value)
        (out / f"{name}.frame").write_bytes(data)
        entries.append({
            "name": name,
            "file": f"{name}.frame",
            "class_id": class_ids[data[32 + 16 * int.from_bytes(data[8:12], "little"):][:8]],
            "java": java,
            "java_error": value.message if isinstance(value, serreg.RemoteError) else None,
            "java_writes_identical": java_identical,
        })
    manifest = {"producer": "python", "format_version": 1, "vectors": entries}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {len(entries)} vectors to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
