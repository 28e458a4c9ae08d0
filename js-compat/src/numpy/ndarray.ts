/**
 * numpy arrays as @stdlib/ndarray ndarrays (docs/FORMAT.md, section 6.2).
 *
 * Reading: the ndarray's buffer is a view of the out-of-band buffer (no copy)
 * whenever the buffer's address is a multiple of the item size, which it is in
 * any frame that starts at an 8-byte-aligned address (buffers sit at
 * 64-byte-aligned offsets from the frame start); otherwise the bytes are copied
 * once into fresh memory. Little-endian dtypes map to stdlib dtypes over typed
 * arrays (`|b1` bool, `|i1` int8, `|u1` uint8, `<i2` int16, `<u2` uint16,
 * `<i4` int32, `<u4` uint32, `<f4` float32, `<f8` float64, `<c8` complex64,
 * `<c16` complex128; `<i8` and `<u8` are "generic" over BigInt64Array and
 * BigUint64Array, read as bigint). `<f2` (float16) and every big-endian dtype
 * have no typed array in Node: their buffer is a {@link ByteOrderAccessor}, a
 * DataView-based accessor array over the frame's bytes (no copy; each get/set
 * converts one element). Order "C" is row-major, "F" column-major, offset 0;
 * explicit strides (broadcast arrays) become element strides, and a read-only
 * array is a stdlib ndarray with `readonly: true`.
 *
 * Writing a stdlib ndarray gives the frame Python would: a C-contiguous array as
 * "C" (0-d and 1-d included), an F-contiguous one as "F", its bytes not copied;
 * any other layout (strided, negative strides, a non-zero offset is fine) as a
 * packed C-order copy.
 */
import { createRequire } from "node:module";
import { float16Bits, float16FromBits } from "../types/numbers.js";

const require = createRequire(import.meta.url);

/** The part of a stdlib ndarray serreg reads and writes. */
export interface StdlibNdarray {
  readonly dtype: string;
  readonly shape: number[];
  readonly strides: number[];
  readonly offset: number;
  readonly order: "row-major" | "column-major";
  readonly data: unknown;
  readonly flags?: { READONLY?: boolean };
  get(...indices: number[]): unknown;
}

type NdarrayCtor = new (dtype: string, buffer: unknown, shape: number[], strides: number[], offset: number, order: string, options?: { readonly?: boolean }) => StdlibNdarray;
export const ndarray: NdarrayCtor = require("@stdlib/ndarray/ctor");
export const baseNdarray: NdarrayCtor = require("@stdlib/ndarray/base/ctor");
const BooleanArray: new (buffer: ArrayBuffer, byteOffset: number, length: number) => { buffer: ArrayBuffer; byteOffset: number; length: number } = require("@stdlib/array/bool");
const Complex64Array: new (buffer: ArrayBuffer, byteOffset: number, length: number) => { buffer: ArrayBuffer; byteOffset: number; length: number } = require("@stdlib/array/complex64");
const Complex128Array: typeof Complex64Array = require("@stdlib/array/complex128");
const Complex64: new (re: number, im: number) => object = require("@stdlib/complex/float32/ctor");
const Complex128: new (re: number, im: number) => object = require("@stdlib/complex/float64/ctor");
const real: (z: object) => number = require("@stdlib/complex/float64/real");
const imag: (z: object) => number = require("@stdlib/complex/float64/imag");
export const isNdarrayLike: (value: unknown) => boolean = require("@stdlib/assert/is-ndarray-like");

/** The dtype strings of section 6.2. */
export const STANDARD_DTYPES: ReadonlySet<string> = new Set([
  "|b1", "|i1", "|u1",
  ...["i2", "i4", "i8", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"].flatMap((t) => [`<${t}`, `>${t}`]),
]);

export function itemSize(dtype: string): number {
  return Number(dtype.slice(2));
}

const LITTLE: Record<string, [string, new (buffer: ArrayBuffer, byteOffset: number, length: number) => unknown]> = {
  "|b1": ["bool", BooleanArray],
  "|i1": ["int8", Int8Array],
  "|u1": ["uint8", Uint8Array],
  "<i2": ["int16", Int16Array],
  "<u2": ["uint16", Uint16Array],
  "<i4": ["int32", Int32Array],
  "<u4": ["uint32", Uint32Array],
  "<i8": ["generic", BigInt64Array],
  "<u8": ["generic", BigUint64Array],
  "<f4": ["float32", Float32Array],
  "<f8": ["float64", Float64Array],
  "<c8": ["complex64", Complex64Array],
  "<c16": ["complex128", Complex128Array],
};

const STDLIB_DTYPE: Record<string, string> = {
  i2: "int16", u2: "uint16", i4: "int32", u4: "uint32", i8: "generic", u8: "generic",
  f2: "float16", f4: "float32", f8: "float64", c8: "complex64", c16: "complex128",
};

/**
 * An accessor array (stdlib's get/set protocol) over raw bytes in either byte
 * order: float16 of both orders and every big-endian dtype. Elements are
 * converted one at a time through a DataView; the bytes are never copied.
 */
export class ByteOrderAccessor {
  readonly length: number;
  private readonly view: DataView;
  private readonly little: boolean;
  private readonly kind: string;
  private readonly size: number;

  constructor(readonly numpyDtype: string, readonly bytes: Uint8Array) {
    this.kind = numpyDtype.slice(1);
    this.size = itemSize(numpyDtype);
    this.little = numpyDtype[0] !== ">";
    this.length = bytes.length / this.size;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get(i: number): unknown {
    const v = this.view;
    const at = i * this.size;
    const le = this.little;
    switch (this.kind) {
      case "i2": return v.getInt16(at, le);
      case "u2": return v.getUint16(at, le);
      case "i4": return v.getInt32(at, le);
      case "u4": return v.getUint32(at, le);
      case "i8": return v.getBigInt64(at, le);
      case "u8": return v.getBigUint64(at, le);
      case "f2": return float16FromBits(v.getUint16(at, le));
      case "f4": return v.getFloat32(at, le);
      case "f8": return v.getFloat64(at, le);
      case "c8": return new Complex64(v.getFloat32(at, le), v.getFloat32(at + 4, le));
      default: return new Complex128(v.getFloat64(at, le), v.getFloat64(at + 8, le));
    }
  }

  set(value: unknown, i: number): void {
    const v = this.view;
    const at = i * this.size;
    const le = this.little;
    switch (this.kind) {
      case "i2": v.setInt16(at, Number(value), le); break;
      case "u2": v.setUint16(at, Number(value), le); break;
      case "i4": v.setInt32(at, Number(value), le); break;
      case "u4": v.setUint32(at, Number(value), le); break;
      case "i8": v.setBigInt64(at, BigInt(value as bigint), le); break;
      case "u8": v.setBigUint64(at, BigInt(value as bigint), le); break;
      case "f2": v.setUint16(at, float16Bits(Number(value)), le); break;
      case "f4": v.setFloat32(at, Number(value), le); break;
      case "f8": v.setFloat64(at, Number(value), le); break;
      case "c8": v.setFloat32(at, real(value as object), le); v.setFloat32(at + 4, imag(value as object), le); break;
      default: v.setFloat64(at, real(value as object), le); v.setFloat64(at + 8, imag(value as object), le);
    }
  }
}

/** Row-major (C) or column-major (F) element strides of `shape`. */
export function contiguousStrides(shape: readonly number[], order: "C" | "F"): number[] {
  const strides = new Array<number>(shape.length);
  let step = 1;
  if (order === "C") {
    for (let i = shape.length - 1; i >= 0; i--) {
      strides[i] = step;
      step *= shape[i]! || 1;
    }
  } else {
    for (let i = 0; i < shape.length; i++) {
      strides[i] = step;
      step *= shape[i]! || 1;
    }
  }
  return shape.length ? strides : [0];
}

/**
 * A stdlib ndarray over `bytes` holding a numpy array of `dtype` (a section 6.2
 * dtype string), `shape` and order. The bytes are viewed, not copied, when their
 * address is a multiple of the item size; otherwise copied once.
 */
export function ndarrayFromNumpy(dtype: string, shape: readonly number[], order: "C" | "F", bytes: Uint8Array,
  elementStrides: number[] | null = null, readOnly = false): StdlibNdarray {
  const size = itemSize(dtype);
  const count = bytes.length / size;
  let buffer: unknown;
  let stdlibDtype: string;
  const little = LITTLE[dtype];
  if (little !== undefined && dtype !== "<f2") {
    const data = bytes.byteOffset % Math.min(size, 8) === 0 ? bytes : bytes.slice();
    stdlibDtype = little[0];
    buffer = new little[1](data.buffer as ArrayBuffer, data.byteOffset, count);
  } else {
    stdlibDtype = STDLIB_DTYPE[dtype.slice(1)]!;
    buffer = new ByteOrderAccessor(dtype, bytes);
  }
  const strides = elementStrides ?? contiguousStrides(shape, order);
  return new ndarray(stdlibDtype, buffer, [...shape], strides, 0, order === "C" ? "row-major" : "column-major", { readonly: readOnly });
}

/** The numpy dtype string of a stdlib ndarray, and the raw bytes its buffer holds (a view). */
export function numpyDtypeOf(array: StdlibNdarray): { dtype: string; bytes: Uint8Array } {
  const data = array.data as { buffer?: ArrayBuffer; byteOffset?: number; byteLength?: number; length: number };
  if (data instanceof ByteOrderAccessor) return { dtype: data.numpyDtype, bytes: data.bytes };
  const typed: [unknown, string, number][] = [
    [Int8Array, "|i1", 1], [Uint8Array, "|u1", 1], [Uint8ClampedArray, "|u1", 1], [Int16Array, "<i2", 2], [Uint16Array, "<u2", 2],
    [Int32Array, "<i4", 4], [Uint32Array, "<u4", 4], [BigInt64Array, "<i8", 8], [BigUint64Array, "<u8", 8],
    [Float32Array, "<f4", 4], [Float64Array, "<f8", 8], [BooleanArray, "|b1", 1], [Complex64Array, "<c8", 8], [Complex128Array, "<c16", 16],
  ];
  for (const [ctor, dtype, size] of typed) {
    if (data instanceof (ctor as Function)) {
      return { dtype, bytes: new Uint8Array(data.buffer!, data.byteOffset!, data.length * size) };
    }
  }
  throw new TypeError(`a stdlib ndarray of dtype '${array.dtype}' over a ${data?.constructor?.name ?? typeof data} has no numpy dtype (use a typed-array buffer)`);
}

/** True if element strides `strides` lay `shape` out contiguously in `order` (numpy's flag rules). */
export function isContiguous(shape: readonly number[], strides: readonly number[], order: "C" | "F"): boolean {
  if (shape.some((n) => n === 0)) return true;
  let expected = 1;
  const n = shape.length;
  for (let k = 0; k < n; k++) {
    const i = order === "C" ? n - 1 - k : k;
    if (shape[i] !== 1 && strides[i] !== expected) return false;
    expected *= shape[i]!;
  }
  return true;
}

/** Copies the elements of a strided layout into packed C order (item-size byte copies). */
export function packC(bytes: Uint8Array, size: number, shape: readonly number[], strides: readonly number[], offset: number): Uint8Array {
  let count = 1;
  for (const n of shape) count *= n;
  const out = new Uint8Array(count * size);
  if (count === 0) return out;
  const index = new Array<number>(shape.length).fill(0);
  let source = offset;
  for (let e = 0; e < count; e++) {
    const from = source * size;
    out.set(bytes.subarray(from, from + size), e * size);
    for (let d = shape.length - 1; d >= 0; d--) {
      index[d]!++;
      source += strides[d]!;
      if (index[d]! < shape[d]!) break;
      source -= strides[d]! * shape[d]!;
      index[d] = 0;
    }
  }
  return out;
}
