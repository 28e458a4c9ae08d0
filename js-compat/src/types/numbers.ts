/**
 * Small value classes for the numbers a JS `number` cannot tell apart
 * (docs/FORMAT.md, section 7, TypeScript column):
 *
 * - {@link Float64}: a Python `float` that holds a whole value (1.0, -0.0). A plain
 *   number with a safe-integer value is written as an `int`, so such floats come
 *   back wrapped to keep their type; `valueOf()` gives the number.
 * - {@link Float32}: `numpy.float32`, kept at 32 bits (msgpack float 32).
 * - {@link Complex}: Python `complex` (two float 64).
 * - {@link NumpyScalar}: the other numpy scalars, with their numpy name kept.
 */

/** A float 64 whose value is a safe integer (so a plain number would be written as an int). */
export class Float64 {
  constructor(readonly value: number) {
    if (typeof value !== "number") throw new TypeError(`Float64 holds a number, not ${typeof value}`);
  }
  valueOf(): number {
    return this.value;
  }
  toString(): string {
    return Object.is(this.value, -0) ? "-0.0" : Number.isInteger(this.value) ? `${this.value}.0` : String(this.value);
  }
  toJSON(): number {
    return this.value;
  }
}

/** numpy.float32: the value rounded to binary32 (`Math.fround`), NaN payload kept in `bits`. */
export class Float32 {
  readonly value: number;
  /** The IEEE binary32 bit pattern written on the wire. */
  readonly bits: number;
  constructor(value: number, bits?: number) {
    if (typeof value !== "number") throw new TypeError(`Float32 holds a number, not ${typeof value}`);
    this.value = Math.fround(value);
    this.bits = bits !== undefined ? bits >>> 0 : float32Bits(this.value);
  }
  static fromBits(bits: number): Float32 {
    return new Float32(float32FromBits(bits), bits);
  }
  valueOf(): number {
    return this.value;
  }
  toString(): string {
    return String(this.value);
  }
  toJSON(): number {
    return this.value;
  }
}

/** Python complex: two float 64. */
export class Complex {
  constructor(readonly real: number, readonly imag: number) {
    if (typeof real !== "number" || typeof imag !== "number") throw new TypeError("Complex parts are numbers");
  }
  toString(): string {
    return `(${this.real}${this.imag < 0 || Object.is(this.imag, -0) ? "-" : "+"}${Math.abs(this.imag)}j)`;
  }
}

export type NumpyScalarName =
  | "bool" | "int8" | "int16" | "int32" | "int64" | "uint8" | "uint16" | "uint32" | "uint64"
  | "float16" | "float64" | "complex64" | "complex128";

const INT_RANGES: Record<string, [bigint, bigint]> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 2n ** 8n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

/**
 * A numpy scalar other than float32 (which is {@link Float32}), its width kept.
 * `value`: boolean for bool; number for int8..int32 and uint8..uint32; bigint for
 * int64 and uint64; number for float16 and float64 (float16 keeps its bit pattern
 * in `bits`); {@link Complex} for complex64 and complex128 (complex64 parts are
 * rounded to binary32).
 */
export class NumpyScalar {
  readonly name: NumpyScalarName;
  readonly value: boolean | number | bigint | Complex;
  /** float16 only: the IEEE binary16 bit pattern (0..65535). */
  readonly bits: number | null;

  constructor(name: NumpyScalarName, value: boolean | number | bigint | Complex, bits?: number) {
    this.name = name;
    this.bits = null;
    if (name === "bool") {
      if (typeof value !== "boolean") throw new TypeError("numpy.bool holds a boolean");
    } else if (name in INT_RANGES) {
      const [lo, hi] = INT_RANGES[name]!;
      const wide = name === "int64" || name === "uint64";
      if (typeof value !== "bigint" && !(typeof value === "number" && Number.isSafeInteger(value))) {
        throw new TypeError(`numpy.${name} holds an integer (number or bigint), not ${String(value)}`);
      }
      const big = BigInt(value);
      if (big < lo || big > hi) throw new RangeError(`${big} is out of range for numpy.${name}`);
      value = wide ? big : Number(big);
    } else if (name === "float16") {
      if (typeof value !== "number") throw new TypeError("numpy.float16 holds a number");
      this.bits = bits !== undefined ? bits & 0xffff : float16Bits(value);
      value = float16FromBits(this.bits);
    } else if (name === "float64") {
      if (typeof value !== "number") throw new TypeError("numpy.float64 holds a number");
    } else if (name === "complex64" || name === "complex128") {
      if (!(value instanceof Complex)) throw new TypeError(`numpy.${name} holds a Complex`);
      if (name === "complex64") value = new Complex(Math.fround(value.real), Math.fround(value.imag));
    } else {
      throw new TypeError(`unknown numpy scalar name ${String(name)}`);
    }
    this.value = value;
  }

  valueOf(): unknown {
    return this.value;
  }
  toString(): string {
    return `numpy.${this.name}(${String(this.value)})`;
  }
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

export function float32Bits(v: number): number {
  F32[0] = v;
  return U32[0]!;
}

export function float32FromBits(bits: number): number {
  U32[0] = bits >>> 0;
  return F32[0]!;
}

/** IEEE binary16 bits to a number (exact). */
export function float16FromBits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** A number to IEEE binary16 bits, rounding to nearest even (NaN as 0x7e00). */
export function float16Bits(v: number): number {
  if (Number.isNaN(v)) return 0x7e00;
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  let a = Math.abs(v);
  if (a === Infinity) return sign | 0x7c00;
  if (a >= 65520) return sign | 0x7c00; // rounds past the largest finite half
  if (a < 2 ** -24 * 0.5) return sign; // below half the smallest subnormal
  let exponent = Math.floor(Math.log2(a));
  if (2 ** exponent > a) exponent -= 1;
  else if (2 ** (exponent + 1) <= a) exponent += 1;
  if (exponent < -14) {
    // Subnormal: units of 2^-24.
    const units = roundEven(a / 2 ** -24);
    return sign | units; // units may reach 1024, which is the smallest normal: same bits
  }
  let mantissa = roundEven((a / 2 ** exponent - 1) * 1024);
  if (mantissa === 1024) {
    mantissa = 0;
    exponent += 1;
  }
  if (exponent > 15) return sign | 0x7c00;
  return sign | ((exponent + 15) << 10) | mantissa;
}

function roundEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}
