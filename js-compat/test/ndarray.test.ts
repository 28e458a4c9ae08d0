/** ndarrays: stdlib ndarrays built in TypeScript give the frames Python writes; frames give views. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { deserialize, ndarrayFromNumpy, numpyDtypeOf, serialize } from "../src/index.js";
import { float16Bits } from "../src/types/numbers.js";
import { hex, vectors } from "./helpers.js";

const require = createRequire(import.meta.url);
const ndarray = require("@stdlib/ndarray/ctor");
const Complex64Array = require("@stdlib/array/complex64");
const Complex128Array = require("@stdlib/array/complex128");
const BooleanArray = require("@stdlib/array/bool");

const python = new Map(vectors("python").map((v) => [v.name, v.bytes]));
const values = Array.from({ length: 24 }, (_, i) => i % 7);

const BUILDERS: Record<string, () => unknown> = {
  b1: () => new ndarray("bool", new BooleanArray(values.map((v) => v !== 0)), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  i1: () => new ndarray("int8", Int8Array.from(values), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  u1: () => new ndarray("uint8", Uint8Array.from(values), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  i2: () => new ndarray("int16", Int16Array.from(values), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  u2: () => new ndarray("uint16", Uint16Array.from(values), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  i4: () => new ndarray("int32", Int32Array.from(values), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  u4: () => new ndarray("uint32", Uint32Array.from(values), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  i8: () => new ndarray("generic", BigInt64Array.from(values.map(BigInt)), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  u8: () => new ndarray("generic", BigUint64Array.from(values.map(BigInt)), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  f2: () => ndarrayFromNumpy("<f2", [2, 3, 4], "C", new Uint8Array(Uint16Array.from(values.map(float16Bits)).buffer)),
  f4: () => new ndarray("float32", Float32Array.from(values), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  f8: () => new ndarray("float64", Float64Array.from(values), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  c8: () => new ndarray("complex64", new Complex64Array(Float32Array.from(values.flatMap((v) => [v, 0]))), [2, 3, 4], [12, 4, 1], 0, "row-major"),
  c16: () => new ndarray("complex128", new Complex128Array(Float64Array.from(values.flatMap((v) => [v, 0]))), [2, 3, 4], [12, 4, 1], 0, "row-major"),
};

for (const [kind, build] of Object.entries(BUILDERS)) {
  test(`a stdlib ${kind} ndarray gives Python's frame, and reads back`, () => {
    const expected = python.get(`ndarray_${kind}_3d`)!;
    assert.equal(hex(serialize(build()).toBytes()), hex(expected));
    const read = deserialize(expected) as { shape: number[]; get(...i: number[]): unknown };
    assert.deepEqual(read.shape, [2, 3, 4]);
    const v = read.get(1, 2, 3);
    const want = values[23]!;
    if (kind === "b1") assert.equal(v, want !== 0);
    else if (kind === "i8" || kind === "u8") assert.equal(v, BigInt(want));
    else if (kind.startsWith("c")) assert.equal(String(v), `${want} + 0i`);
    else assert.equal(v, want);
  });
}

test("F order, big-endian, 0-d and zero-size arrays give Python's frames", () => {
  const f = new ndarray("float64", Float64Array.from([0, 3, 1, 4, 2, 5]), [2, 3], [1, 2], 0, "column-major");
  assert.equal(hex(serialize(f).toBytes()), hex(python.get("ndarray_fortran")!));
  const big = new Uint8Array(20);
  for (let i = 0; i < 5; i++) new DataView(big.buffer).setUint32(4 * i, i, false);
  assert.equal(hex(serialize(ndarrayFromNumpy(">u4", [5], "C", big)).toBytes()), hex(python.get("ndarray_big_endian")!));
  assert.equal(hex(serialize(new ndarray("float64", Float64Array.from([3.5]), [], [0], 0, "row-major")).toBytes()), hex(python.get("ndarray_0d")!));
  assert.equal(hex(serialize(new ndarray("int32", new Int32Array(0), [0, 3], [3, 1], 0, "row-major")).toBytes()), hex(python.get("ndarray_zero_size")!));
});

test("a strided or reversed view is written as a packed C-order copy", () => {
  const data = Float64Array.from({ length: 10 }, (_, i) => i);
  const strided = new ndarray("float64", data, [5], [2], 0, "row-major");
  const packed = new ndarray("float64", Float64Array.from([0, 2, 4, 6, 8]), [5], [1], 0, "row-major");
  assert.equal(hex(serialize(strided).toBytes()), hex(serialize(packed).toBytes()));
  const reversed = new ndarray("float64", data, [5], [-1], 4, "row-major");
  const expected = new ndarray("float64", Float64Array.from([4, 3, 2, 1, 0]), [5], [1], 0, "row-major");
  assert.equal(hex(serialize(reversed).toBytes()), hex(serialize(expected).toBytes()));
  const transposed = new ndarray("int16", Int16Array.from([0, 1, 2, 3, 4, 5]), [3, 2], [1, 3], 0, "row-major");
  const back = deserialize(serialize(transposed).toBytes()) as { order: string };
  assert.equal(back.order, "column-major", "a transposed C array is F-contiguous: sent as F without a copy");
});

test("arrays read from an aligned frame are views of it (no copy); unaligned ones are copied", () => {
  const frame = serialize(new ndarray("float64", Float64Array.from([1, 2, 3]), [3], [1], 0, "row-major")).toBytes();
  const view = deserialize(frame) as { data: Float64Array };
  assert.equal(view.data.buffer, frame.buffer);
  const shifted = new Uint8Array(frame.length + 1);
  shifted.set(frame, 1);
  const copy = deserialize(shifted.subarray(1)) as { data: Float64Array; get(i: number): number };
  assert.notEqual(copy.data.buffer, shifted.buffer);
  assert.equal(copy.get(2), 3);
  const big = deserialize(python.get("ndarray_big_endian")!) as { data: unknown };
  assert.equal(numpyDtypeOf(big as never).dtype, ">u4");
});
