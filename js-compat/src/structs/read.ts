/**
 * Field values from the wire, one reader per (writer type, reader type) pair
 * (docs/FORMAT.md 10.2, 10.4): each takes a decoded msgpack value, checks it
 * against the *writer's* type and builds the *reader's* value (a bigint for
 * `bigint64`, an enum member from its name); a carrier (no reader type) keeps
 * the plain form. Errors name the field and what the frame holds.
 */
import { DeserializationError } from "../errors.js";
import { Float64 } from "../types/numbers.js";
import { entriesOf, show, type ConvertContext } from "./context.js";
import { EXT0_ATOMS, FieldType, describeType, packedColumn } from "./fieldTypes.js";

export type ReadField = (value: unknown, exactFloats: boolean) => unknown;

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
    // As `any` reads a float: a whole value stays a Float64 (exact floats), so it is written back as a float.
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
      if (typeof value === "bigint" && reader !== null) throw beyondSafe(where, value);
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

/** The message of an int64 value a `number` field cannot hold. */
function beyondSafe(where: string, value: bigint): DeserializationError {
  return new DeserializationError(`${where}: ${value} is beyond Number.MAX_SAFE_INTEGER; declare the field "bigint64" or "biguint64" to read it as a bigint`);
}

/**
 * The reader of the values of an ext 2 column (10.3) written as `writer`, built
 * as `reader`'s value (null: a carrier's plain form); null when the values are
 * taken as they are. Packed columns (ints, floats, bools) come already checked
 * against the writer's type by columns.ts; array columns hold field values,
 * read as {@link readConverter} reads them.
 */
export function columnConverter(writer: FieldType, reader: FieldType | null, where: string, ctx: ConvertContext): ReadField | null {
  const packed = packedColumn(writer);
  if (packed === null) return readConverter(writer, reader, where, ctx);
  let target = reader;
  while (target !== null && target.kind === "optional") target = target.args[0]!;
  if (target === null || packed === "bool") return null;
  if (target.kind === "any") {
    if (packed === "int") return null;
    // As `any` reads a float: a whole value stays a Float64 (exact floats), so it is written back as a float.
    return (value, exact) => (exact && Number.isSafeInteger(value) ? new Float64(value as number) : value);
  }
  if (packed !== "int") return null; // float64, or float32 widened: the number itself
  if (target.big) return (value) => (typeof value === "bigint" ? value : BigInt(value as number));
  return (value) => {
    if (typeof value === "bigint") throw beyondSafe(where, value);
    return value;
  };
}
