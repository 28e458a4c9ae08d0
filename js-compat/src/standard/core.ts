/**
 * Serializers of the core standard class IDs (docs/FORMAT.md, section 6.1):
 * None, bool, int, float, str, bytes, list, dict, tuple, set, frozenset,
 * bytearray, memoryview, complex. Each in-band is one msgpack value.
 */
import type { DecodeContext, Encoder } from "../serializer.js";
import { DeserializationError, SerializationError } from "../errors.js";
import { Writer } from "../msgpack/writer.js";
import type { OutOfBand } from "../oob.js";
import { SerializationResult } from "../result.js";
import type { Serializer } from "../serializer.js";
import { FrozenSet, MEMORYVIEW_ITEM_SIZES, PyByteArray, PyMemoryView, Tuple } from "../types/containers.js";
import { Complex, Float64 } from "../types/numbers.js";

/** Top-level bytes at least this long travel out-of-band (section 6.1). */
export const BYTES_OUT_OF_BAND_THRESHOLD = 65536;
const INT64_MIN = -(2n ** 63n);
const UINT64_END = 2n ** 64n;
/**
 * The longest big int bin (section 6.1): every value of that many bytes fits a V8 BigInt (under
 * 2^30 bits) and a Java BigInteger. Python's serreg/standard/scalars.py MAX_INT_BYTES.
 */
export const MAX_INT_BYTES = 2 ** 27 - 1;

/** Base of serializers whose in-band is written into the caller's writer. */
export abstract class InlineSerializer<T> implements Serializer<T> {
  abstract write(w: Writer, value: T, context: Encoder): void;
  abstract deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): T;
  serialize(value: T, context: Encoder): SerializationResult {
    const w = new Writer(64);
    const saved = context.oob;
    context.oob = [];
    try {
      this.write(w, value, context);
      return new SerializationResult(w.bytes(), context.oob);
    } finally {
      context.oob = saved;
    }
  }
}

export function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null) return "nil";
  if (value instanceof Map || (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)) return "a map";
  if (value instanceof Uint8Array) return "a bin";
  if (value instanceof Float64 || (typeof value === "number" && !Number.isSafeInteger(value))) return "a float";
  if (typeof value === "number" || typeof value === "bigint") return "an int";
  return `a ${typeof value}`;
}

/** A msgpack float read with exact floats: a Float64 or a number that is not a safe integer. */
export function asFloat(value: unknown, what: string): number {
  if (value instanceof Float64) return value.value;
  if (typeof value === "number" && !Number.isSafeInteger(value)) return value;
  throw new DeserializationError(`${what} must be a msgpack float 64, got ${describe(value)}`);
}

/**
 * Builds a value whose constructor checks its fields (a date, a decimal's text, a
 * memoryview's shape against its bytes): the RangeError or TypeError it throws is a
 * deliberate refusal, with the same words, not a catch-all's.
 */
export function checked<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof RangeError || error instanceof TypeError) throw new DeserializationError(error.message);
    throw error;
  }
}

/** A msgpack int that fits a safe integer. */
export function asInt(value: unknown, what: string): number {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "bigint") throw new DeserializationError(`${what} must be an int of at most 2^53 - 1 in magnitude, got ${value}`);
  throw new DeserializationError(`${what} must be an int, got ${describe(value)}`);
}

export function asArray(value: unknown, what: string, length?: number): unknown[] {
  if (!Array.isArray(value) || (length !== undefined && value.length !== length)) {
    throw new DeserializationError(`${what} in-band must be ${length === undefined ? "an array" : `an array of ${length}`}, got ${describe(value)}`);
  }
  return value;
}

type Kind = "None" | "bool" | "str" | "list" | "dict";

/** None, bool, str, list and dict: the in-band is the value as msgpack. */
export class NativeSerializer extends InlineSerializer<unknown> {
  constructor(readonly kind: Kind) {
    super();
  }
  write(w: Writer, value: unknown, context: Encoder): void {
    context.tree(w, value);
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): unknown {
    const value = context.unpack(inBand, oob, base);
    const ok =
      this.kind === "None" ? value === null
      : this.kind === "bool" ? typeof value === "boolean"
      : this.kind === "str" ? typeof value === "string"
      : this.kind === "list" ? Array.isArray(value)
      : value instanceof Map || (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype);
    if (!ok) throw new DeserializationError(`expected a msgpack ${this.kind === "None" ? "nil" : this.kind === "list" ? "array" : this.kind === "dict" ? "map" : this.kind} value, got ${describe(value)}`);
    return value;
  }
}

/** In range: a msgpack int. Beyond 64 bits: bin of the minimal two's-complement little-endian bytes. */
export class IntSerializer extends InlineSerializer<number | bigint> {
  write(w: Writer, value: number | bigint): void {
    if (typeof value === "number") {
      if (!Number.isSafeInteger(value)) throw new TypeError(`${value} is not a safe integer`);
      w.int(value);
    } else if (value >= INT64_MIN && value < UINT64_END) w.bigint(value);
    else w.bin(bigintToBytes(value));
  }
  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null): number | bigint {
    const value = context.plain(inBand, base);
    if (typeof value === "number" && Number.isSafeInteger(value)) return value;
    if (typeof value === "bigint") return value;
    if (value instanceof Uint8Array && value.length > 0) {
      if (value.length > MAX_INT_BYTES) {
        throw new DeserializationError(`a big int's bin holds ${value.length} bytes, more than ${MAX_INT_BYTES} (docs/FORMAT.md, section 6.1)`);
      }
      const big = bytesToBigint(value);
      return big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big;
    }
    throw new DeserializationError(`an int must be a msgpack int or a non-empty bin, got ${describe(value)}`);
  }
}

/** The number of bits of a non-negative bigint, from its hex digits (linear; toString(2) is 4 times longer). */
export function bitLength(magnitude: bigint): number {
  if (magnitude === 0n) return 0;
  const hex = magnitude.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0]!, 16)));
}

/**
 * The minimal two's-complement little-endian bytes of v, through its hex digits: linear in its size
 * (shifting a bigint 8 bits at a time copies it each time: a 100 KB int took about 1 s).
 */
export function bigintToBytes(v: bigint): Uint8Array {
  const size = Math.floor((bitLength(v >= 0n ? v : ~v) + 8) / 8);
  if (size > MAX_INT_BYTES) {
    throw new SerializationError(`an int of ${size} bytes is longer than a frame may carry (${MAX_INT_BYTES} bytes, docs/FORMAT.md, section 6.1)`);
  }
  const hex = BigInt.asUintN(size * 8, v).toString(16).padStart(size * 2, "0");
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const at = hex.length - 2 * i - 2;
    out[i] = (HEX_VALUE[hex.charCodeAt(at)]! << 4) | HEX_VALUE[hex.charCodeAt(at + 1)]!;
  }
  return out;
}

const HEX_DIGITS = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));
const HEX_VALUE = new Uint8Array(128);
for (let d = 0; d < 16; d++) HEX_VALUE["0123456789abcdef".charCodeAt(d)] = d;

/** The value of two's-complement little-endian bytes, through their hex digits (linear in their length). */
export function bytesToBigint(bytes: Uint8Array): bigint {
  const digits = new Array<string>(bytes.length);
  for (let i = 0; i < bytes.length; i++) digits[i] = HEX_DIGITS[bytes[bytes.length - 1 - i]!]!;
  return BigInt.asIntN(bytes.length * 8, BigInt(`0x${digits.join("")}`));
}

export class FloatSerializer extends InlineSerializer<number | Float64> {
  write(w: Writer, value: number | Float64): void {
    w.f64(typeof value === "number" ? value : value.value);
  }
  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext): number | Float64 {
    if (inBand.length !== 9 || inBand[0] !== 0xcb) throw new DeserializationError("a float must be a msgpack float 64");
    const v = new DataView(inBand.buffer, inBand.byteOffset, 9).getFloat64(1);
    return context.exactFloats && Number.isSafeInteger(v) ? new Float64(v) : v;
  }
}

/** Small bytes in-band as bin; 65,536 bytes or more as nil plus one out-of-band buffer (a view, no copy). */
export class BytesSerializer extends InlineSerializer<Uint8Array> {
  write(w: Writer, value: Uint8Array, context: Encoder): void {
    if (value.length >= BYTES_OUT_OF_BAND_THRESHOLD) {
      w.nil();
      context.oob.push(value);
    } else w.bin(value);
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): Uint8Array {
    if (inBand.length === 1 && inBand[0] === 0xc0) return oob.take("bytes");
    const value = context.plain(inBand, base);
    if (!(value instanceof Uint8Array)) throw new DeserializationError(`bytes must be a msgpack bin, got ${describe(value)}`);
    return value;
  }
}

export class TupleSerializer extends InlineSerializer<Tuple> {
  write(w: Writer, value: Tuple, context: Encoder): void {
    context.array(w, value.items);
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): Tuple {
    return new Tuple(asArray(context.unpack(inBand, oob, base), "tuple"));
  }
}

/** Members sorted by their encoded msgpack bytes (unsigned, shorter first on a common prefix). */
export class SetSerializer extends InlineSerializer<Iterable<unknown>> {
  constructor(readonly frozen: boolean) {
    super();
  }
  write(w: Writer, value: Iterable<unknown>, context: Encoder): void {
    const encoded: { bytes: Uint8Array; buffers: Uint8Array[] }[] = [];
    const saved = context.oob;
    try {
      for (const member of value) {
        context.oob = [];
        const mw = new Writer(32);
        context.tree(mw, member);
        encoded.push({ bytes: mw.bytes(), buffers: context.oob });
      }
    } finally {
      context.oob = saved;
    }
    encoded.sort((a, b) => compareBytes(a.bytes, b.bytes));
    w.arrayHeader(encoded.length);
    for (const e of encoded) {
      w.raw(e.bytes);
      for (const b of e.buffers) context.oob.push(b);
    }
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): Set<unknown> | FrozenSet {
    const members = asArray(context.unpack(inBand, oob, base), this.frozen ? "frozenset" : "set");
    return this.frozen ? new FrozenSet(members) : new Set(members);
  }
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

export class ByteArraySerializer extends InlineSerializer<PyByteArray> {
  write(w: Writer, value: PyByteArray, context: Encoder): void {
    w.nil();
    context.oob.push(value.bytes);
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand): PyByteArray {
    if (inBand.length !== 1 || inBand[0] !== 0xc0) throw new DeserializationError("a bytearray in-band must be nil (its bytes are one out-of-band buffer)");
    return new PyByteArray(oob.take("bytearray"));
  }
}

export class MemoryViewSerializer extends InlineSerializer<PyMemoryView> {
  write(w: Writer, value: PyMemoryView, context: Encoder): void {
    w.arrayHeader(2);
    w.str(value.format);
    w.arrayHeader(value.shape.length);
    for (const n of value.shape) w.int(n);
    context.oob.push(value.bytes);
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): PyMemoryView {
    const [format, shape] = asArray(context.plain(inBand, base), "memoryview", 2);
    if (typeof format !== "string" || MEMORYVIEW_ITEM_SIZES[format] === undefined) {
      throw new DeserializationError(`memoryview format ${JSON.stringify(format)} is not a single native struct character`);
    }
    const dims = asArray(shape, "memoryview shape").map((n) => asInt(n, "a memoryview dimension"));
    const bytes = oob.take("memoryview");
    return checked(() => new PyMemoryView(format, dims, bytes));
  }
}

export class ComplexSerializer extends InlineSerializer<Complex> {
  write(w: Writer, value: Complex): void {
    w.arrayHeader(2);
    w.f64(value.real);
    w.f64(value.imag);
  }
  deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null): Complex {
    const [re, im] = asArray(context.plain(inBand, base), "complex", 2);
    return new Complex(asFloat(re, "complex real part"), asFloat(im, "complex imaginary part"));
  }
}
