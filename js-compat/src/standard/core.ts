/**
 * Serializers of the core standard class IDs (docs/FORMAT.md, section 6.1):
 * None, bool, int, float, str, bytes, list, dict, tuple, set, frozenset,
 * bytearray, memoryview, complex. Each in-band is one msgpack value.
 */
import type { DecodeContext, Encoder } from "../serializer.js";
import { DeserializationError } from "../errors.js";
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

/** A msgpack int that fits a safe integer. */
export function asInt(value: unknown, what: string): number {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  throw new DeserializationError(`${what} must be an int, got ${describe(value)}${typeof value === "bigint" ? ` (${value})` : ""}`);
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
      const big = bytesToBigint(value);
      return big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big;
    }
    throw new DeserializationError(`an int must be a msgpack int or a non-empty bin, got ${describe(value)}`);
  }
}

export function bigintToBytes(v: bigint): Uint8Array {
  const magnitude = v >= 0n ? v : ~v;
  const bits = magnitude === 0n ? 0 : magnitude.toString(2).length;
  const size = Math.floor((bits + 8) / 8);
  let u = BigInt.asUintN(size * 8, v);
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    out[i] = Number(u & 0xffn);
    u >>= 8n;
  }
  return out;
}

export function bytesToBigint(bytes: Uint8Array): bigint {
  let hex = "";
  for (let i = bytes.length - 1; i >= 0; i--) hex += bytes[i]!.toString(16).padStart(2, "0");
  return BigInt.asIntN(bytes.length * 8, BigInt(`0x${hex}`));
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
    return new PyMemoryView(format, dims, oob.take("memoryview"));
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
