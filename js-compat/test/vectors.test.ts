/**
 * Every golden vector of Python and Java (and the canonical ones) decodes to the
 * TypeScript type of docs/FORMAT.md section 7, and every Python and Java vector
 * re-encodes byte for byte (Arrow included: the schema bytes are kept).
 * The signed vectors are version 1 (flag 0x01): refused with a clear message.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as arrow from "apache-arrow";
import {
  Complex, Decimal, Float32, Float64, FrozenSet, NumpyScalar, OpaqueValue, PyByteArray, PyDate, PyDateTime, PyMemoryView,
  PyTime, Registry, RemoteError, SignatureError, TimeDelta, Tuple, UUID, deserialize, serialize,
} from "../src/index.js";
import { register } from "../fixture/examplePoint.js";
import { hex, vectors } from "./helpers.js";

const registry = new Registry();
register(registry);

/** What each class ID decodes to in TypeScript (section 7). */
function checkType(classId: string, value: unknown): void {
  const is = (ok: boolean): void => assert.ok(ok, `${classId} decoded to ${String(value)}`);
  switch (classId) {
    case "None": return is(value === null);
    case "bool": return is(typeof value === "boolean");
    case "int": return is(typeof value === "bigint" || Number.isSafeInteger(value));
    case "float": return is(value instanceof Float64 || (typeof value === "number" && !Number.isSafeInteger(value)));
    case "str": return is(typeof value === "string");
    case "bytes": return is(value instanceof Uint8Array);
    case "list": return is(Array.isArray(value));
    case "dict": return is(value instanceof Map || Object.getPrototypeOf(value) === Object.prototype);
    case "tuple": return is(value instanceof Tuple);
    case "set": return is(value instanceof Set);
    case "frozenset": return is(value instanceof FrozenSet);
    case "bytearray": return is(value instanceof PyByteArray);
    case "memoryview": return is(value instanceof PyMemoryView);
    case "complex": return is(value instanceof Complex);
    case "datetime": return is(value instanceof PyDateTime);
    case "date": return is(value instanceof PyDate);
    case "time": return is(value instanceof PyTime);
    case "timedelta": return is(value instanceof TimeDelta);
    case "decimal": return is(value instanceof Decimal);
    case "uuid": return is(value instanceof UUID);
    case "numpy.float32": return is(value instanceof Float32);
    case "numpy.ndarray": return is(typeof (value as { dtype?: unknown }).dtype === "string");
    case "ArrowTable": return is(value instanceof arrow.Table);
    case "ArrowRecordBatch": return is(value instanceof arrow.RecordBatch);
    case "example.Point": return is((value as object).constructor.name === "Point");
    case "serreg.pickle5": case "python.only.Unshared": return is(value instanceof OpaqueValue);
    // No TypeScript serializer (docs/FORMAT.md 7.1): top-level values pass through opaque.
    case "numpy.ma.MaskedArray": case "numpy.datetime64": case "numpy.timedelta64": case "numpy.bytes_":
    case "numpy.str_": case "numpy.void": return is(value instanceof OpaqueValue);
    default:
      if (classId.startsWith("numpy.")) return is(value instanceof NumpyScalar && value.name === classId.slice(6));
      throw new Error(`no expectation for ${classId}`);
  }
}

/** Vectors this reader refuses (docs/FORMAT.md 7.1), and what the refusal says. */
const REFUSED: Record<string, RegExp> = {
  ndarray_datetime_big_endian: /does not support datetime64 arrays/,
  ndarray_timedelta_unit_count: /does not support timedelta64 arrays/,
  ndarray_bytes: /does not support bytes arrays/,
  ndarray_str_big_endian: /does not support str arrays/,
  ndarray_void: /does not support void arrays/,
  ndarray_structured: /does not support structured dtypes/,
  ndarray_datetime_units: /does not support datetime64 arrays/,
  ndarray_strings: /does not support bytes arrays/,
  ndarray_structured_padding: /does not support structured dtypes/,
  // Nested values of class IDs without a serializer here: their buffer counts are unknown.
  numpy_generic_scalars: /numpy\.datetime64|ClassIDHash|unknown class ID|buffers/,
};

function refused(name: string, bytes: Uint8Array): boolean {
  const why = REFUSED[name];
  if (why === undefined) return false;
  assert.throws(() => registry.deserialize(bytes), (e: unknown) => e instanceof Error && why.test(e.message));
  return true;
}

for (const producer of ["python", "java"] as const) {
  for (const v of vectors(producer)) {
    test(`${producer} vector ${v.name} decodes and re-encodes byte for byte`, () => {
      if (refused(v.name, v.bytes)) return;
      if (v.class_id === "serreg.error") {
        assert.throws(() => registry.deserialize(v.bytes), (e: unknown) => e instanceof RemoteError && e.remoteMessage === (v.entry["java_error"] ?? v.entry["python_error"]));
        return;
      }
      const value = registry.deserialize(v.bytes);
      checkType(v.class_id, value);
      assert.equal(hex(registry.serialize(value).toBytes()), hex(v.bytes));
    });
  }
}

for (const v of vectors("canonical")) {
  test(`canonical vector ${v.name} hashes to its digest and decodes`, () => {
    assert.equal(createHash("sha256").update(v.bytes).digest("hex"), v.entry["digest"]);
    if (refused(v.name, v.bytes)) return;
    const value = registry.deserialize(v.bytes);
    checkType(v.class_id, value);
    const again = registry.serialize(value).toBytes();
    // Not Arrow: byte for byte. Arrow: TypeScript writes an IPC schema, not the canonical description.
    if (!/arrow|nested_mixed/.test(v.name)) assert.equal(hex(again), hex(v.bytes));
    else assert.deepEqual(JSON.stringify(registry.deserialize(again), jsonable), JSON.stringify(value, jsonable));
  });
}

function jsonable(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof arrow.Table || value instanceof arrow.RecordBatch) return { schema: String(value.schema.fields.map((f) => `${f.name}:${f.type}`)), rows: value.toArray().map((r) => r?.toJSON()) };
  if (value instanceof Map) return [...value.entries()];
  if (value instanceof Set) return [...value];
  return value;
}

test("exact values of the Python vectors", () => {
  const get = (name: string): unknown => registry.deserialize(vectors("python").find((v) => v.name === name)!.bytes);
  assert.equal(get("int_long_min"), -(2n ** 63n));
  assert.equal(get("int_2_pow_63"), 2n ** 63n);
  assert.equal(get("int_huge_negative"), -(2n ** 200n));
  assert.equal(get("int_zero"), 0);
  assert.ok(Number.isNaN(get("float_nan") as number));
  assert.equal(get("float_tenth"), 0.1);
  assert.equal(get("str_unicode"), "\u00fc\u20ac\ud83d\ude00");
  assert.equal((get("bytes_large_oob") as Uint8Array).length, 65536);
  assert.equal(String(get("decimal")), "3.14159");
  assert.equal(String(get("decimal_small_exponent")), "1.2E-10");
  assert.equal(String(get("decimal_negative_zero")), "-0");
  assert.equal(String(get("uuid")), "00000000-0000-0000-0000-000000000001");
  assert.deepEqual(get("datetime_zone"), new PyDateTime(2024, 7, 1, 12, 0, 0, 0, 0, "Europe/Paris"));
  assert.deepEqual(get("timedelta_negative"), new TimeDelta(-1, 86399, 999999));
  const c = get("complex") as Complex;
  assert.ok(Object.is(c.real, -0) && c.imag === Infinity);
  assert.equal((get("numpy_float32") as Float32).value, Math.fround(0.1));
  assert.equal((get("numpy_uint64") as NumpyScalar).value, 2n ** 63n);
  assert.equal((get("numpy_float16") as NumpyScalar).bits, 0xc100);
  const keys = get("dict_any_keys") as Map<unknown, unknown>;
  assert.ok(keys instanceof Map && [...keys.keys()][2] === 7);
  const nd = get("ndarray_big_endian") as { dtype: string; get(i: number): unknown };
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => nd.get(i)), [0, 1, 2, 3, 4]);
  const f = get("ndarray_fortran") as { get(i: number, j: number): unknown; order: string };
  assert.equal(f.order, "column-major");
  assert.deepEqual([f.get(0, 0), f.get(0, 1), f.get(1, 2)], [0, 1, 5]);
});

test("signed vectors: version 1 (flag 0x01) refused with or without a key; version 2 checked as the manifest says", () => {
  const manifest = vectors("signed");
  const key = Buffer.from(manifest[0]!.entry["key_hex"] as string ?? "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "hex");
  let v1 = 0;
  for (const v of manifest) {
    if (v.bytes[5] === 0x01) {
      v1++;
      for (const options of [{}, { key }]) {
        assert.throws(() => deserialize(v.bytes, options), (e: unknown) => e instanceof SignatureError && /version 1 way \(flag 0x01/.test(e.message));
      }
    } else if (v.entry["expect"] === "value") {
      const value = registry.deserialize(v.bytes, { key });
      assert.equal(hex(registry.serialize(value, { key }).toBytes()), hex(v.bytes));
    } else {
      assert.throws(() => registry.deserialize(v.bytes, { key }), SignatureError);
      if (v.bytes[5] === 0x02) registry.deserialize(v.bytes);
    }
  }
  assert.ok(v1 > 0 || manifest.every((v) => v.bytes[5] !== 0x01));
  assert.ok(serialize([1]).toBytes()[5] === 0);
});
