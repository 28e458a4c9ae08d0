/**
 * Field values to and from the wire, one converter per field type (docs/FORMAT.md 10.2).
 *
 * A write converter checks a value against its field's type and writes it into
 * the codec's Writer (ints in range and exact, float32 rounded to the nearest
 * binary32, an enum member as its name, set members sorted by their bytes), or
 * throws a SerializationError naming the field and the value. A read converter
 * takes a decoded msgpack value, checks it against the *writer's* type and
 * builds the *reader's* value (a bigint for `bigint64`, an enum member from its
 * name); a carrier (no reader type) keeps the plain form. Nothing that would
 * change a value is coerced.
 */
import { DeserializationError, SerializationError } from "../errors.js";
import { LoneSurrogateError, Writer } from "../msgpack/writer.js";
import type { Encoder } from "../serializer.js";
import { compareBytes } from "../standard/core.js";
import { Tuple, FrozenSet } from "../types/containers.js";
import { Float32, Float64 } from "../types/numbers.js";
import { EXT0_ATOMS, FieldType, describeType } from "./fieldTypes.js";

/** What converters need from the struct registry. */
export interface ConvertContext {
  /** The struct class ID a value is written under (registered class or carrier), or null. */
  structClassId(value: unknown): string | null;
  /** The class ID a non-native value is written under (ext 0), or null. */
  classIdOf(value: unknown): string | null;
  /** Writes a struct value as one msgpack ext 1. */
  writeInstance(w: Writer, value: unknown, encoder: Encoder): void;
}

export type WriteField = (w: Writer, value: unknown, encoder: Encoder) => void;
export type ReadField = (value: unknown, exactFloats: boolean) => unknown;

export function show(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  if (typeof value === "bigint") return `the bigint ${value}n`;
  if (typeof value === "number" || typeof value === "boolean") return `the ${typeof value} ${value}`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value instanceof Float64) return `the float ${value.value}`;
  return `a ${(value as object).constructor?.name ?? "null-prototype object"}`;
}

function members(value: unknown): Iterable<unknown> | null {
  if (value instanceof Set || value instanceof FrozenSet || Array.isArray(value)) return value;
  return null;
}

/** The writer of values of `type`; `where` (`example.Point.x`) names the field in errors. */
export function writeConverter(type: FieldType, where: string, ctx: ConvertContext): WriteField {
  const bad = (value: unknown, why = ""): SerializationError =>
    new SerializationError(`${where}: ${show(value)} does not fit the field's type ${describeType(type)}${why}`);
  const range = type.range;
  if (range !== null) {
    const [low, high] = range;
    return (w, value) => {
      if (typeof value === "number") {
        if (!Number.isSafeInteger(value)) throw bad(value, Number.isInteger(value) ? " (not a safe integer: pass a bigint)" : "");
        if (value < low || value > high) throw bad(value, " (out of range)");
        w.int(value);
      } else if (typeof value === "bigint") {
        if (value < low || value > high) throw bad(value, " (out of range)");
        w.bigint(value);
      } else throw bad(value);
    };
  }
  switch (type.kind) {
    case "float64":
      return (w, value) => {
        if (typeof value === "number") w.f64(value);
        else if (value instanceof Float64 || value instanceof Float32) w.f64(value.value);
        else throw bad(value);
      };
    case "float32":
      return (w, value) => {
        const v = typeof value === "number" ? value : value instanceof Float64 || value instanceof Float32 ? value.value : null;
        if (v === null) throw bad(value);
        const rounded = Math.fround(v);
        if (Number.isFinite(v) && !Number.isFinite(rounded)) throw bad(value, " (beyond float32's range)");
        w.f64(rounded);
      };
    case "bool":
      return (w, value) => {
        if (typeof value !== "boolean") throw bad(value);
        w.bool(value);
      };
    case "str":
      return (w, value) => {
        if (typeof value !== "string") throw bad(value);
        try {
          w.str(value);
        } catch (error) {
          if (error instanceof LoneSurrogateError) throw bad(value, ` (${error.message})`);
          throw error;
        }
      };
    case "bytes":
      return (w, value) => {
        if (!(value instanceof Uint8Array)) throw bad(value);
        w.bin(value);
      };
    case "enum": {
      const byValue = type.members === null ? null : new Map([...type.members].map(([name, v]) => [v, name]));
      return (w, value) => {
        const name = byValue === null ? (typeof value === "string" ? value : undefined) : byValue.get(value);
        if (name === undefined) throw bad(value, byValue === null ? "" : ` (members: ${[...byValue.values()].join(", ")})`);
        w.str(name);
      };
    }
    case "any":
      return (w, value, encoder) => encoder.tree(w, value);
    case "struct":
      return (w, value, encoder) => {
        if (ctx.structClassId(value) !== type.classId) throw bad(value);
        ctx.writeInstance(w, value, encoder);
      };
    case "optional": {
      const inner = writeConverter(type.args[0]!, where, ctx);
      return (w, value, encoder) => (value === null || value === undefined ? w.nil() : inner(w, value, encoder));
    }
    case "list": {
      const inner = writeConverter(type.args[0]!, where, ctx);
      return (w, value, encoder) => {
        const items = Array.isArray(value) ? value : value instanceof Tuple ? value.items : null;
        if (items === null) throw bad(value);
        w.arrayHeader(items.length);
        for (const item of items) inner(w, item, encoder);
      };
    }
    case "set": {
      const inner = writeConverter(type.args[0]!, where, ctx);
      return (w, value, encoder) => writeSet(w, value, encoder, inner, bad);
    }
    case "map": {
      const key = writeConverter(type.args[0]!, where, ctx);
      const item = writeConverter(type.args[1]!, where, ctx);
      const strKeys = type.args[0]!.kind === "str";
      return (w, value, encoder) => {
        if (value instanceof Map) {
          w.mapHeader(value.size);
          for (const [k, v] of value) {
            key(w, k, encoder);
            item(w, v, encoder);
          }
        } else if (strKeys && value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
          const entries = Object.entries(value);
          w.mapHeader(entries.length);
          for (const [k, v] of entries) {
            w.str(k);
            item(w, v, encoder);
          }
        } else throw bad(value);
      };
    }
    case "tuple": {
      const items = type.args.map((a) => writeConverter(a, where, ctx));
      return (w, value, encoder) => {
        const values = Array.isArray(value) ? value : value instanceof Tuple ? value.items : null;
        if (values === null || values.length !== items.length) throw bad(value);
        w.arrayHeader(items.length);
        for (let i = 0; i < items.length; i++) items[i]!(w, values[i], encoder);
      };
    }
    default:
      if (EXT0_ATOMS.has(type.kind)) {
        return (w, value, encoder) => {
          if (ctx.classIdOf(value) !== type.kind) throw bad(value);
          encoder.tree(w, value);
        };
      }
      throw new TypeError(`${where}: no writer for field type ${describeType(type)}`);
  }
}

/** Set members, each written alone, sorted by their bytes (as `set`, 6.1), their buffers kept with them. */
function writeSet(w: Writer, value: unknown, encoder: Encoder, inner: WriteField, bad: (v: unknown) => Error): void {
  const items = members(value);
  if (items === null) throw bad(value);
  const encoded: { bytes: Uint8Array; buffers: Uint8Array[] }[] = [];
  const saved = encoder.oob;
  try {
    for (const member of items) {
      encoder.oob = [];
      const mw = new Writer(32);
      inner(mw, member, encoder);
      encoded.push({ bytes: mw.bytes(), buffers: encoder.oob });
    }
  } finally {
    encoder.oob = saved;
  }
  encoded.sort((a, b) => compareBytes(a.bytes, b.bytes));
  w.arrayHeader(encoded.length);
  for (const e of encoded) {
    w.raw(e.bytes);
    for (const b of e.buffers) encoder.oob.push(b);
  }
}

/** Visits the set members inside a field value before the field is written (see {@link touchConverter}). */
export type TouchField = (value: unknown, encoder: Encoder) => void;

/**
 * For a type holding sets (not counting those inside nested structs): a pass
 * that writes each set's members once, output dropped, before the struct's
 * fields are written. Python converts a struct's fields before packing them,
 * and a set field's members are packed (to sort them) during that conversion,
 * so structs first met inside sets take their table index before the struct's
 * other fields; this keeps the table in Python's order. Null when the type holds no set.
 */
export function touchConverter(type: FieldType, where: string, ctx: ConvertContext): TouchField | null {
  switch (type.kind) {
    case "set": {
      const write = writeConverter(type, where, ctx);
      return (value, encoder) => {
        const saved = encoder.oob;
        encoder.oob = [];
        try {
          write(new Writer(32), value, encoder);
        } finally {
          encoder.oob = saved;
        }
      };
    }
    case "optional": case "list": {
      const inner = touchConverter(type.args[0]!, where, ctx);
      if (inner === null) return null;
      if (type.kind === "optional") return (value, encoder) => (value === null || value === undefined ? undefined : inner(value, encoder));
      return (value, encoder) => {
        const items = Array.isArray(value) ? value : value instanceof Tuple ? value.items : [];
        for (const item of items) inner(item, encoder);
      };
    }
    case "map": {
      const key = touchConverter(type.args[0]!, where, ctx);
      const item = touchConverter(type.args[1]!, where, ctx);
      if (key === null && item === null) return null;
      return (value, encoder) => {
        for (const [k, v] of entriesOf(value) ?? []) {
          key?.(k, encoder);
          item?.(v, encoder);
        }
      };
    }
    case "tuple": {
      const items = type.args.map((a) => touchConverter(a, where, ctx));
      if (items.every((i) => i === null)) return null;
      return (value, encoder) => {
        const values = Array.isArray(value) ? value : value instanceof Tuple ? value.items : [];
        items.forEach((touch, i) => touch?.(values[i], encoder));
      };
    }
    default:
      return null;
  }
}

/** A msgpack float 64 as read with exact floats (Float64, or a number that is not a safe integer), else null. */
function floatOf(value: unknown): number | null {
  if (value instanceof Float64) return value.value;
  if (typeof value === "number" && !Number.isSafeInteger(value)) return value;
  return null;
}

/** Whole-valued floats unwrapped (a deserialize call with exactFloats: false), in plain containers. */
function plainFloats(value: unknown): unknown {
  if (value instanceof Float64) return value.value;
  if (Array.isArray(value)) return value.map(plainFloats);
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [plainFloats(k), plainFloats(v)]));
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = plainFloats(v);
    return out;
  }
  return value;
}

function entriesOf(value: unknown): Iterable<[unknown, unknown]> | null {
  if (value instanceof Map) return value;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) return Object.entries(value);
  return null;
}

/**
 * The reader of values written as `writer`, built as `reader`'s value (null: a
 * carrier's plain form). The pair must pass {@link widens}.
 */
export function readConverter(writer: FieldType, reader: FieldType | null, where: string, ctx: ConvertContext): ReadField {
  const bad = (value: unknown): DeserializationError =>
    new DeserializationError(`${where}: the frame holds ${show(value)} in a field of type ${describeType(writer)}`);
  if (reader !== null && reader.kind === "optional" && writer.kind !== "optional") return readConverter(writer, reader.args[0]!, where, ctx);
  if (reader !== null && reader.kind === "any" && writer.kind !== "any") {
    const plain = readConverter(writer, null, where, ctx);
    if (writer.kind !== "float64" && writer.kind !== "float32") return plain;
    // As \`any\` reads a float: a whole value stays a Float64 (exact floats), so it is written back as a float.
    return (value, exact) => {
      const v = plain(value, exact) as number;
      return exact && Number.isSafeInteger(v) ? new Float64(v) : v;
    };
  }
  const range = writer.range;
  if (range !== null) {
    const [low, high] = range;
    const big = reader?.big ?? false;
    return (value) => {
      if ((typeof value !== "number" || !Number.isSafeInteger(value)) && typeof value !== "bigint") throw bad(value);
      if (value < low || value > high) throw bad(value);
      if (big) return BigInt(value);
      if (typeof value === "bigint" && reader !== null) {
        throw new DeserializationError(`${where}: ${value} is beyond Number.MAX_SAFE_INTEGER; declare the field "bigint64" or "biguint64" to read it as a bigint`);
      }
      return value;
    };
  }
  switch (writer.kind) {
    case "float64": case "float32":
      return (value) => {
        const v = floatOf(value);
        if (v === null) throw bad(value);
        return v;
      };
    case "bool": case "str": case "bytes": {
      const test = writer.kind === "bool" ? (v: unknown) => typeof v === "boolean"
        : writer.kind === "str" ? (v: unknown) => typeof v === "string" : (v: unknown) => v instanceof Uint8Array;
      return (value) => {
        if (!test(value)) throw bad(value);
        return value;
      };
    }
    case "enum": {
      const members = reader?.kind === "enum" ? reader.members : null;
      return (value) => {
        if (typeof value !== "string") throw bad(value);
        if (members === null) return value;
        if (!members.has(value)) throw new DeserializationError(`${where}: the enum has no member named ${JSON.stringify(value)} (members: ${[...members.keys()].join(", ")})`);
        return members.get(value);
      };
    }
    case "any":
      return (value, exact) => (exact ? value : plainFloats(value));
    case "struct":
      return (value) => {
        if (ctx.structClassId(value) !== writer.classId) throw bad(value);
        return value;
      };
    case "optional": {
      const inner = readConverter(writer.args[0]!, reader === null ? null : reader.args[0]!, where, ctx);
      return (value, exact) => (value === null ? null : inner(value, exact));
    }
    case "list": case "set": {
      const inner = readConverter(writer.args[0]!, reader === null ? null : reader.args[0]!, where, ctx);
      const asSet = writer.kind === "set";
      return (value, exact) => {
        if (!Array.isArray(value)) throw bad(value);
        const items = value.map((item) => inner(item, exact));
        return asSet ? new Set(items) : items;
      };
    }
    case "map": {
      const key = readConverter(writer.args[0]!, reader === null ? null : reader.args[0]!, where, ctx);
      const item = readConverter(writer.args[1]!, reader === null ? null : reader.args[1]!, where, ctx);
      return (value, exact) => {
        const entries = entriesOf(value);
        if (entries === null) throw bad(value);
        const out = new Map<unknown, unknown>();
        for (const [k, v] of entries) out.set(key(k, exact), item(v, exact));
        return out;
      };
    }
    case "tuple": {
      const items = writer.args.map((a, i) => readConverter(a, reader === null ? null : reader.args[i]!, where, ctx));
      return (value, exact) => {
        if (!Array.isArray(value) || value.length !== items.length) throw bad(value);
        return items.map((read, i) => read(value[i], exact));
      };
    }
    default:
      if (EXT0_ATOMS.has(writer.kind)) {
        return (value) => {
          if (ctx.classIdOf(value) !== writer.kind) throw bad(value);
          return value;
        };
      }
      throw new DeserializationError(`${where}: no reader for field type ${describeType(writer)}`);
  }
}
