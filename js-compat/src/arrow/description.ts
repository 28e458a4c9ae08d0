/**
 * The canonical Arrow schema description (docs/FORMAT.md, section 9.5): a msgpack
 * array that canonical frames carry instead of an IPC Schema message. Readers
 * accept it in the same place; this module turns it into an apache-arrow Schema.
 */
import * as arrow from "apache-arrow";
import { DeserializationError } from "../errors.js";
import { decodeUtf8 } from "../text.js";
import { FIELD_COST, type Charge } from "./schema.js";

const UNITS: Record<string, arrow.TimeUnit> = {
  SECOND: arrow.TimeUnit.SECOND, MILLISECOND: arrow.TimeUnit.MILLISECOND,
  MICROSECOND: arrow.TimeUnit.MICROSECOND, NANOSECOND: arrow.TimeUnit.NANOSECOND,
};

function bad(what: string): DeserializationError {
  return new DeserializationError(`invalid Arrow schema description: ${what}`);
}

function list(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw bad(`${what} must be an array`);
  return value;
}

function metadata(value: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (value === null) return out;
  const entries = value instanceof Map ? [...value.entries()] : typeof value === "object" ? Object.entries(value as object) : null;
  if (entries === null) throw bad("metadata must be nil or a map");
  for (const [k, v] of entries) {
    const text = (x: unknown): string => (x instanceof Uint8Array ? decodeUtf8(x, 0, x.length) : typeof x === "string" ? x : (() => { throw bad("metadata keys and values are bin"); })());
    out.set(text(k), text(v));
  }
  return out;
}

function unit(value: unknown): arrow.TimeUnit {
  const u = typeof value === "string" ? UNITS[value] : undefined;
  if (u === undefined) throw bad(`unknown time unit ${String(value)}`);
  return u;
}

function int(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw bad(`${what} must be an int`);
  return value;
}

function field(value: unknown, depth: number, charge: Charge): arrow.Field {
  if (depth > 64) throw bad("fields nest more than 64 deep");
  const [name, type, nullable, meta, children] = list(value, "a field");
  if (typeof name !== "string" || typeof nullable !== "boolean") throw bad("a field is [name, type, nullable, metadata, children]");
  charge(FIELD_COST + 2 * name.length, "Arrow schema fields");
  const kids = list(children, "children").map((c) => field(c, depth + 1, charge));
  return new arrow.Field(name, makeType(list(type, "a type"), kids), nullable, metadata(meta ?? null));
}

function makeType(t: unknown[], kids: arrow.Field[]): arrow.DataType {
  const one = (): arrow.Field => {
    if (kids.length !== 1) throw bad(`${String(t[0])} has one child`);
    return kids[0]!;
  };
  switch (t[0]) {
    case "Null": return new arrow.Null();
    case "Bool": return new arrow.Bool();
    case "Int": return new arrow.Int(t[2] === true, int(t[1], "bitWidth") as 8 | 16 | 32 | 64);
    case "FloatingPoint": {
      const p = t[1] === "HALF" ? arrow.Precision.HALF : t[1] === "SINGLE" ? arrow.Precision.SINGLE : t[1] === "DOUBLE" ? arrow.Precision.DOUBLE : null;
      if (p === null) throw bad("unknown float precision");
      return new arrow.Float(p);
    }
    case "Decimal": return new arrow.Decimal(int(t[2], "scale"), int(t[1], "precision"), int(t[3], "bitWidth"));
    case "Date": return new arrow.Date_(t[1] === "DAY" ? arrow.DateUnit.DAY : arrow.DateUnit.MILLISECOND);
    case "Time": return new arrow.Time(unit(t[1]), int(t[2], "bitWidth") as 32 | 64);
    case "Timestamp": return new arrow.Timestamp(unit(t[1]), typeof t[2] === "string" ? t[2] : null);
    case "Duration": return new arrow.Duration(unit(t[1]));
    case "Binary": return new arrow.Binary();
    case "Utf8": return new arrow.Utf8();
    case "LargeBinary": return new arrow.LargeBinary();
    case "LargeUtf8": return new arrow.LargeUtf8();
    case "FixedSizeBinary": return new arrow.FixedSizeBinary(int(t[1], "byteWidth"));
    case "List": return new arrow.List(one());
    case "LargeList": return new arrow.LargeList(one());
    case "FixedSizeList": return new arrow.FixedSizeList(int(t[1], "listSize"), one());
    case "Struct_": return new arrow.Struct(kids);
    case "Map": return new arrow.Map_(one() as arrow.Field<arrow.Struct>, t[1] === true);
    default: throw bad(`unknown type ${JSON.stringify(String(t[0]))}`);
  }
}

/** The Schema a section 9.5 description describes. */
export function schemaFromDescription(description: unknown, charge: Charge): arrow.Schema {
  const [fields, meta] = list(description, "the schema");
  return new arrow.Schema(list(fields, "fields").map((f) => field(f, 1, charge)), metadata(meta ?? null));
}
