/**
 * The columns of an ext 2 list of struct instances (docs/FORMAT.md 10.3): one
 * writer per field type turns the values of one field across the instances
 * into its column (ints as a kind byte and LEB128 varints, zigzag when one is
 * negative; float64 / float32 as packed little-endian bit patterns; bools as
 * bytes; every other type as a msgpack array of field values), and
 * {@link readColumn} checks a column read from a frame and gives its values back.
 *
 * Int values are numbers while they are safe integers (the fast path) and
 * bigints beyond, both ways; the zigzag form is 64-bit two's complement.
 */
import { DeserializationError, SerializationError } from "../errors.js";
import type { Writer } from "../msgpack/writer.js";
import type { Encoder } from "../serializer.js";
import { Float32, Float64 } from "../types/numbers.js";
import { show, type ConvertContext } from "./context.js";
import { FieldType, describeType, packedColumn } from "./fieldTypes.js";
import { touchConverter, writeConverter } from "./write.js";

/** Writes the column of one field: `values` holds that field of every instance, in order. */
export type ColumnWriter = (w: Writer, values: readonly unknown[], encoder: Encoder) => void;

const MAX_VARINT = 10;
/** |v| up to this has an exact zigzag form as a number (2|v| stays below 2^53). */
const ZIGZAG_SAFE = 2 ** 52 - 1;
const TWO_POW_32 = 2 ** 32;

/** The column writer of a field of `type`; `where` (`example.Point.x`) and `name` (`x`) locate errors (`obj[3].x`). */
export function columnWriter(type: FieldType, where: string, name: string, ctx: ConvertContext): ColumnWriter {
  const misfit = (value: unknown, k: number, why = ""): SerializationError =>
    new SerializationError(`${where}: ${show(value)} does not fit the field's type ${describeType(type)}${why}`).within(`[${k}].${name}`);
  switch (packedColumn(type)) {
    case "int":
      return intColumn(type, misfit);
    case "float64": case "float32": {
      const single = type.kind === "float32";
      const size = single ? 4 : 8;
      return (w, values) => {
        const count = values.length;
        w.binHeader(size * count);
        w.ensure(size * count);
        const view = w.view;
        let p = w.pos;
        for (let k = 0; k < count; k++) {
          const value = values[k];
          const v = typeof value === "number" ? value : value instanceof Float64 || value instanceof Float32 ? value.value : null;
          if (v === null) throw misfit(value, k);
          if (single) {
            const rounded = Math.fround(v);
            if (Number.isFinite(v) && !Number.isFinite(rounded)) throw misfit(value, k, " (beyond float32's range)");
            view.setFloat32(p, rounded, true);
          } else view.setFloat64(p, v, true);
          p += size;
        }
        w.pos = p;
      };
    }
    case "bool":
      return (w, values) => {
        const count = values.length;
        w.binHeader(count);
        w.ensure(count);
        const buf = w.buf;
        let p = w.pos;
        for (let k = 0; k < count; k++) {
          const value = values[k];
          if (typeof value !== "boolean") throw misfit(value, k);
          buf[p++] = value ? 1 : 0;
        }
        w.pos = p;
      };
    default: {
      const write = writeConverter(type, where, ctx);
      // Python converts a whole column before packing it, and converting packs set members (to sort them):
      // structs first met inside the column's sets take their table index before the column's other structs.
      const touch = touchConverter(type, where, ctx);
      return (w, values, encoder) => {
        let k = 0;
        try {
          if (touch !== null) for (; k < values.length; k++) touch(values[k], encoder);
          w.arrayHeader(values.length);
          for (k = 0; k < values.length; k++) write(w, values[k], encoder);
        } catch (error) {
          if (error instanceof SerializationError) error.within(`[${k}].${name}`);
          throw error;
        }
      };
    }
  }
}

/** A bin: kind byte 0x00 (no value < 0, unsigned LEB128) or 0x01 (zigzag), then one varint per value. */
function intColumn(type: FieldType, misfit: (value: unknown, k: number, why?: string) => SerializationError): ColumnWriter {
  const [low, high] = type.range!;
  const [lowN, highN] = [Number(low), Number(high)];
  return (w, values) => {
    const count = values.length;
    let negative = false;
    for (let k = 0; k < count; k++) {
      const v = values[k];
      if (typeof v === "number") {
        if (!Number.isSafeInteger(v)) throw misfit(v, k, Number.isInteger(v) ? " (not a safe integer: pass a bigint)" : "");
        if (v < lowN || v > highN) throw misfit(v, k, " (out of range)");
        if (v < 0) negative = true;
      } else if (typeof v === "bigint") {
        if (v < low || v > high) throw misfit(v, k, " (out of range)");
        if (v < 0n) negative = true;
      } else throw misfit(v, k);
    }
    // The varints go after room for the longest bin header, which is then written and the bytes moved up to it.
    w.ensure(5 + 1 + MAX_VARINT * count);
    const buf = w.buf;
    const start = w.pos;
    let p = start + 5;
    buf[p++] = negative ? 1 : 0;
    for (let k = 0; k < count; k++) {
      const v = values[k] as number | bigint;
      if (typeof v === "number") {
        if (!negative) p = varint(buf, p, v);
        else if (v >= -ZIGZAG_SAFE && v <= ZIGZAG_SAFE) p = varint(buf, p, v < 0 ? -2 * v - 1 : 2 * v);
        else p = bigVarint(buf, p, zigzag(BigInt(v)));
      } else if (v <= 0xffffffffn && v >= 0n && !negative) p = varint(buf, p, Number(v));
      else p = bigVarint(buf, p, negative ? zigzag(v) : v);
    }
    const length = p - start - 5;
    w.binHeader(length);
    if (w.pos !== start + 5) buf.copyWithin(w.pos, start + 5, p);
    w.pos += length;
  };
}

function zigzag(v: bigint): bigint {
  return v < 0n ? -2n * v - 1n : 2n * v;
}

/** The unsigned LEB128 of `u` (an integer in [0, 2^53]) at `buf[p]`; returns the end. */
function varint(buf: Uint8Array, p: number, u: number): number {
  while (u >= TWO_POW_32) {
    buf[p++] = (u % 128) | 0x80;
    u = Math.floor(u / 128);
  }
  while (u > 0x7f) {
    buf[p++] = (u & 0x7f) | 0x80;
    u >>>= 7;
  }
  buf[p++] = u;
  return p;
}

function bigVarint(buf: Uint8Array, p: number, u: bigint): number {
  while (u > 0x7fn) {
    buf[p++] = Number(u & 0x7fn) | 0x80;
    u >>= 7n;
  }
  buf[p++] = Number(u);
  return p;
}

/**
 * The `count` values of a column of a field of the writer's `type`, checked
 * (10.3): ints as numbers (bigints beyond 2^53 - 1) in the type's range, floats
 * as numbers, bools as booleans, an array column as its decoded values.
 * `where` names struct and field; `offsetOf(i)` is the frame offset of byte i
 * of a bin column (null: unknown). Messages say what Python's say.
 */
export function readColumn(type: FieldType, column: unknown, count: number, where: string, offsetOf: (i: number) => number | null): unknown[] {
  const packed = packedColumn(type);
  const fail = (why: string, i: number): DeserializationError => new DeserializationError(`${where}: its ext 2 column ${why}`, offsetOf(i));
  if (packed === null) {
    if (!Array.isArray(column)) throw fail(`of type ${describeType(type)} must be a msgpack array, not ${show(column)}`, 0);
    if (column.length !== count) throw fail(`holds ${column.length} values, the list ${count}`, 0);
    return column;
  }
  if (!(column instanceof Uint8Array)) throw fail(`of type ${describeType(type)} must be a msgpack bin, not ${show(column)}`, 0);
  if (packed === "int") return readInts(type, column, count, fail);
  const size = packed === "float64" ? 8 : packed === "float32" ? 4 : 1;
  if (column.length !== size * count) throw fail(`(${type.kind}): a ${type.kind} column of ${count} values holds ${size * count} bytes, not ${column.length}`, 0);
  const out = new Array<unknown>(count);
  if (packed === "bool") {
    for (let k = 0; k < count; k++) {
      const b = column[k]!;
      if (b > 1) throw fail(`(bool): bool byte 0x${b.toString(16).padStart(2, "0")} (a bool is 0x00 or 0x01)`, k);
      out[k] = b === 1;
    }
    return out;
  }
  const view = new DataView(column.buffer, column.byteOffset, column.byteLength);
  if (packed === "float64") for (let k = 0; k < count; k++) out[k] = view.getFloat64(8 * k, true);
  else for (let k = 0; k < count; k++) out[k] = view.getFloat32(4 * k, true);
  return out;
}

function readInts(type: FieldType, bin: Uint8Array, count: number, refuse: (why: string, i: number) => DeserializationError): unknown[] {
  const [low, high] = type.range!;
  const [lowN, highN] = [Number(low), Number(high)];
  const fail = (why: string, i: number): DeserializationError => refuse(`(${type.kind}): ${why}`, i);
  const kind = bin[0];
  if (kind === undefined) throw fail("an integer column needs its kind byte", 0);
  if (kind > 1) throw fail(`kind byte 0x${kind.toString(16).padStart(2, "0")} (an integer column's is 0x00 or 0x01)`, 0);
  if (kind === 1 && low === 0n) throw fail("kind byte 0x01 (zigzag) in a column of an unsigned type", 0);
  const signed = kind === 1;
  const end = bin.length;
  const out = new Array<unknown>(count);
  let negative = false;
  let p = 1;
  for (let k = 0; k < count; k++) {
    const start = p;
    if (p >= end) throw fail(`the column holds ${k} values, the list ${count}`, p);
    let b = bin[p++]!;
    let u: number | bigint = b;
    if (b >= 0x80) {
      let n = 1;
      let scale = 128;
      u = b & 0x7f;
      do {
        if (p >= end) throw fail("the column ends inside a varint", start);
        b = bin[p++]!;
        if (++n === MAX_VARINT && b > 1) throw fail("a varint that does not fit 64 bits (more than 10 bytes, or a 10th byte above 0x01)", start);
        u += (b & 0x7f) * scale;
        scale *= 128;
      } while (b >= 0x80);
      if (b === 0) throw fail("a varint that is not minimal (its last byte is 0x00)", start);
      if (n > 7) {
        // Beyond 49 bits a number may round: redo it exactly.
        let big = 0n;
        for (let i = p - 1; i >= start; i--) big = (big << 7n) | BigInt(bin[i]! & 0x7f);
        u = big <= 9007199254740991n ? Number(big) : big;
      }
    }
    let v: number | bigint;
    if (!signed) v = u;
    else if (typeof u === "number") v = u % 2 === 0 ? u / 2 : -(u + 1) / 2;
    else {
      const z = (u >> 1n) ^ -(u & 1n);
      v = z >= -9007199254740991n && z <= 9007199254740991n ? Number(z) : z;
    }
    if (typeof v === "number" ? v < lowN || v > highN : v < low || v > high) {
      throw fail(`value ${k} of the column is ${v}, outside ${low} ... ${high}`, start);
    }
    if (v < 0) negative = true;
    out[k] = v;
  }
  if (p !== end) throw fail(`the column holds more than its ${count} values`, p);
  if (signed && !negative) throw fail("kind byte 0x01 (zigzag) in a column without a negative value", 0);
  return out;
}
