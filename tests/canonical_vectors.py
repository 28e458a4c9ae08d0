"""The golden canonical vectors of tests/vectors/canonical/ (docs/FORMAT.md, section 9.9).

Each vector is a value built with a deliberately untidy history (dicts filled
out of order, F-order and big-endian arrays, sliced and chunked tables, -0.0,
NaN payloads). The stored frame is its canonical frame; manifest.json gives
its SHA-256 digest. Every implementation reads each frame, writes the value
again in canonical form and must get the same bytes.

Regenerate (only when section 9 changes, and say so in the commit):

    python tests/canonical_vectors.py
"""

import datetime
import decimal
import hashlib
import json
import os
import struct
import sys
import uuid
import zoneinfo

import numpy as np
import pyarrow as pa

VECTOR_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors", "canonical")
MANIFEST = "manifest.json"


def _nan(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _dict_out_of_order():
    value = {}
    for key in ["zeta", 3, "alpha", -7, b"bin", (1, "t"), None, 2.5]:
        value[key] = str(key)
    return value


def _set_filled_twice():
    members = {f"m{i}" for i in range(20)}
    members.update(range(-5, 5))
    members.difference_update(range(0, 5))
    return members


def _table():
    table = pa.table({
        "i8": pa.array([1, -2, None, 4, 5, 6], pa.int8()),
        "u64": pa.array([0, 2**64 - 1, 7, None, 9, 10], pa.uint64()),
        "f32": pa.array([-0.0, 1.5, None, float("nan"), 3.0, -4.0], pa.float32()),
        "f64": pa.array([_nan(0xFFF8000000000123), -0.0, 2.0, None, 1e300, 5e-324], pa.float64()),
        "s": pa.array(["a", None, "", "ünïcode", "x" * 40, "z"]),
        "bin": pa.array([b"\x00", b"", None, b"\xff\xfe", b"b", b"c"], pa.large_binary()),
        "bool": pa.array([True, False, None, True, False, True]),
        "date": pa.array([0, 19000, None, -1, 1, 2], pa.date32()),
        "ts": pa.array([0, 1, 2, None, 4, 5], pa.timestamp("ns", "Europe/Paris")),
        "dec": pa.array([decimal.Decimal("1.23"), None, decimal.Decimal("-0.01"), decimal.Decimal("0"),
                         decimal.Decimal("99999999.99"), decimal.Decimal("5")], pa.decimal128(10, 2)),
        "null": pa.nulls(6),
    }).replace_schema_metadata({"z": "last", "a": "first"})
    # Slice the rows out of a bigger table and split them into three chunks.
    bigger = pa.concat_tables([table.slice(4), table, table.slice(0, 3)])
    rows = bigger.slice(2, 6)
    return pa.concat_tables([rows.slice(0, 1), rows.slice(1, 3), rows.slice(4)])


def _nested_table():
    return pa.table({
        "list": pa.array([[1, 2], None, [], [3]], pa.list_(pa.field("element", pa.int32()))),
        "large_list": pa.array([["a"], ["b", None], None, []], pa.large_list(pa.string())),
        "fixed": pa.array([[1.0, -0.0], None, [2.0, 3.0], [4.0, 5.0]], pa.list_(pa.float64(), 2)),
        "struct": pa.array([{"x": 1, "y": [True]}, None, {"x": None, "y": None}, {"x": 4, "y": []}],
                           pa.struct([("x", pa.int16()), ("y", pa.list_(pa.bool_()))])),
        "map": pa.array([[("k", 1)], None, [], [("a", None), ("b", 2)]], pa.map_(pa.string(), pa.int64())),
        "fsb": pa.array([b"abc", None, b"xyz", b"\x00\x00\x00"], pa.binary(3)),
    }).slice(0, 4)


def _structured_untidy():
    dtype = np.dtype({"names": ["flag", "x", "sub"], "formats": ["|b1", ">f8", [("t", "<m8[D]"), ("c", ">c8")]],
                      "offsets": [1, 4, 13], "titles": [None, "The X", None], "itemsize": 32})
    raw = bytearray(b"\xaa" * 64)
    a = np.frombuffer(raw, dtype=dtype)
    a["flag"] = True
    a.view(np.uint8).reshape(2, 32)[:, 1] = 2  # a bool byte that is neither 0 nor 1
    a["x"] = [_nan(0xFFF8000000000123), -0.0]
    a["sub"]["t"] = [3, -(2**63)]
    a["sub"]["c"] = [complex(-0.0, 1), complex(float("nan"), -0.0)]
    return a


VECTORS = [
    ("none", "None", lambda: None),
    ("bool", "True", lambda: True),
    ("int_uint8", "200 (uint 8)", lambda: 200),
    ("int_negative", "-2**63 (int 64)", lambda: -(2**63)),
    ("int_beyond_64_bits", "-(2**100) + 1 (bin, two's complement)", lambda: -(2**100) + 1),
    ("float_negative_zero", "-0.0, written as 0.0", lambda: -0.0),
    ("float_nan_payload", "a negative NaN with a payload, written as the canonical NaN", lambda: _nan(0xFFF0000000000001)),
    ("str", "a non-ASCII str", lambda: "héllo ✓ 🌍"),
    ("bytes_small", "bytes in-band", lambda: bytes(range(40))),
    ("bytes_large", "65,536 bytes out-of-band", lambda: bytes(range(256)) * 256),
    ("bytearray", "bytearray, out-of-band", lambda: bytearray(b"mutable bytes")),
    ("list", "list of mixed values", lambda: [1, "two", 3.5, None, [True, False], b"x"]),
    ("tuple", "nested tuples", lambda: (1, (2, (3, ())), "t")),
    ("dict_out_of_order", "dict filled in unsorted order, keys of several types", _dict_out_of_order),
    ("set", "set filled, grown and shrunk", _set_filled_twice),
    ("frozenset", "frozenset of tuples", lambda: frozenset({(1, 2), (0, -1), ("a",)})),
    ("complex", "complex(-0.0, NaN)", lambda: complex(-0.0, float("nan"))),
    ("datetime_naive_fold", "naive datetime with fold=1, written with fold 0",
     lambda: datetime.datetime(2024, 2, 29, 23, 59, 58, 123456, fold=1)),
    ("datetime_named_offset", "fixed offset with a name, written without it",
     lambda: datetime.datetime(2024, 1, 1, 8, tzinfo=datetime.timezone(datetime.timedelta(hours=-5, minutes=-30), "X"))),
    ("datetime_zone_ambiguous", "IANA zone, ambiguous time, fold=1 kept",
     lambda: datetime.datetime(2024, 11, 3, 1, 30, tzinfo=zoneinfo.ZoneInfo("America/New_York"), fold=1)),
    ("date", "date", lambda: datetime.date(1999, 12, 31)),
    ("time_offset", "time with a fixed offset", lambda: datetime.time(1, 2, 3, 4, tzinfo=datetime.timezone.utc)),
    ("timedelta", "negative timedelta", lambda: datetime.timedelta(days=-3, seconds=5, microseconds=7)),
    ("decimal_trailing_zeros", "Decimal('-1.2300E+5'), written as -1.23E+5", lambda: decimal.Decimal("-1.2300E+5")),
    ("decimal_negative_zero", "Decimal('-0.000'), written as 0", lambda: decimal.Decimal("-0.000")),
    ("decimal_nan_payload", "Decimal('-NaN7'), written as NaN", lambda: decimal.Decimal("-NaN7")),
    ("uuid", "uuid", lambda: uuid.UUID("12345678-1234-5678-1234-567812345678")),
    ("memoryview", "2-d memoryview of int64 with format l", lambda: memoryview(bytes(range(48))).cast("l", (2, 3))),
    ("ndarray_f_order", "float64 3x4 F-order array with -0.0 and a NaN payload",
     lambda: np.asfortranarray(np.array([[0, -0.0, 1, 2], [3, _nan(0x7FF0000000000001), 5, 6], [7, 8, 9, 10]]))),
    ("ndarray_big_endian", "big-endian int32 array, strided", lambda: np.arange(20, dtype=">i4")[::3]),
    ("ndarray_bool", "bool array", lambda: np.array([[True, False], [False, True]])),
    ("ndarray_0d", "0-d complex64 array", lambda: np.array(1 - 2j, dtype=np.complex64)),
    ("ndarray_empty", "zero-size float16 array of shape (0, 3)", lambda: np.zeros((0, 3), dtype=np.float16)),
    ("numpy_scalars", "one numpy scalar of every standard type", lambda: [
        np.bool_(True), np.int8(-128), np.int16(-300), np.int32(2**31 - 1), np.int64(-(2**63)),
        np.uint8(255), np.uint16(65535), np.uint32(2**32 - 1), np.uint64(2**64 - 1),
        np.float16(-0.0), np.float32("nan"), np.float64(-1.5), np.complex64(complex(-0.0, 1)), np.complex128(3.5 - 1j),
    ]),
    ("ndarray_datetime_units", "big-endian datetime64[25s] and timedelta64[ns] arrays, F-order and sliced",
     lambda: [np.asfortranarray(np.array([[0, 1], [-(2**63), 7]], dtype=">M8[25s]")), np.arange(9, dtype=">m8[ns]")[::4]]),
    ("ndarray_strings", "S, big-endian U and V arrays", lambda: [
        np.array([b"a", b"bcd"], dtype="S3"), np.array(["\u00e9t\u00e9", "\U0001f600"], dtype=">U3"),
        np.frombuffer(bytes(range(4)), dtype="V2")]),
    ("ndarray_structured_padding", "structured big-endian fields with garbage padding, NaN payloads and bool bytes 2",
     _structured_untidy),
    ("ndarray_broadcast_read_only", "a read-only stride-0 broadcast of a -0.0 row",
     lambda: np.broadcast_to(np.array([-0.0, 1.0], dtype="<f4"), (3, 2))),
    ("masked_array", "masked array with a big-endian fill value and a mask",
     lambda: np.ma.MaskedArray(np.array([1.5, -0.0, 2.0], dtype=">f8"), mask=[0, 1, 0], fill_value=-0.0)),
    ("numpy_generic_scalars", "datetime64, timedelta64, bytes_, str_ and void scalars", lambda: [
        np.datetime64("2024-02-29T12", "h"), np.timedelta64(-3, "W"), np.bytes_(b"ab"), np.str_(""),
        np.void(b"\x00\x01")]),
    ("arrow_table", "sliced, three-chunk table of flat types with nulls, metadata", _table),
    ("arrow_nested_table", "list, large list, fixed-size list, struct, map, fixed-size binary", _nested_table),
    ("arrow_record_batch", "a record batch sliced out of a bigger one",
     lambda: pa.record_batch({"a": pa.array([1, 2, 3, None, 5]), "b": pa.array(["x", "y", None, "w", "v"])}).slice(1, 3)),
    ("nested_mixed", "dict holding arrays, a table and a set",
     lambda: {"table": _table(), "weights": np.arange(6.0).reshape(2, 3).T, "tags": {"b", "a"}, "n": 1}),
]


def build(name: str):
    for vector_name, _, builder in VECTORS:
        if vector_name == name:
            return builder()
    raise KeyError(name)


def write(registry=None) -> None:
    """Write every vector's frame and the manifest."""
    if registry is None:
        import serreg

        registry = serreg.default_registry()
    from serreg.wire.frame import FrameView

    os.makedirs(VECTOR_DIR, exist_ok=True)
    manifest = []
    for name, description, builder in VECTORS:
        frame = registry.serialize(builder(), canonical=True).to_bytes()
        class_hash = bytes(FrameView(frame).in_band[:8])
        class_id = next(r.class_id for r in registry.registrations() if r.class_hash == class_hash)
        file = f"{name}.srg"
        with open(os.path.join(VECTOR_DIR, file), "wb") as f:
            f.write(frame)
        manifest.append({"name": name, "file": file, "digest": hashlib.sha256(frame).hexdigest(),
                         "class_id": class_id, "description": description})
    with open(os.path.join(VECTOR_DIR, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    write()
    print(f"wrote {len(VECTORS)} vectors to {os.path.relpath(VECTOR_DIR)}")
