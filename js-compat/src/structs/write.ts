/**
 * Field values to the wire, one writer per field type (docs/FORMAT.md 10.2):
 * each checks a value against its field's type and writes it into the codec's
 * Writer (ints in range and exact, float32 rounded to the nearest binary32, an
 * enum member as its name, set members sorted by their bytes), or throws a
 * SerializationError naming the field and the value. Nothing that would change
 * a value is coerced.
 */
import { SerializationError } from "../errors.js";
import { LoneSurrogateError, Writer } from "../msgpack/writer.js";
import type { Encoder } from "../serializer.js";
import { compareBytes } from "../standard/core.js";
import { Tuple, FrozenSet } from "../types/containers.js";
import { Float32, Float64 } from "../types/numbers.js";
import { entriesOf, show, type ConvertContext } from "./context.js";
import { EXT0_ATOMS, FieldType, describeType } from "./fieldTypes.js";

export type WriteField = (w: Writer, value: unknown, encoder: Encoder) => void;

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
      const accepts = structItems(type.args[0]!);
      return (w, value, encoder) => {
        const items = Array.isArray(value) ? value : value instanceof Tuple ? value.items : null;
        if (items === null) throw bad(value);
        // Instances of one definition go as ext 2 (10.3); anything else is an array, each item checked.
        if (accepts !== null && items.length && ctx.writeList(w, items, encoder, accepts)) return;
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

/** For a list's item type: which struct class IDs its items may be (any, for `any`), or null when they are no structs. */
function structItems(item: FieldType): ((classId: string) => boolean) | null {
  if (item.kind === "optional") return structItems(item.args[0]!);
  if (item.kind === "any") return () => true;
  if (item.kind !== "struct") return null;
  const wanted = item.classId;
  return (classId) => classId === wanted;
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
