/**
 * What the field converters of write.ts and read.ts share: the struct
 * registry's answers they need ({@link ConvertContext}) and how a value is
 * shown in error messages.
 */
import type { Writer } from "../msgpack/writer.js";
import type { Encoder } from "../serializer.js";
import { bitLength } from "../standard/core.js";
import { Float64 } from "../types/numbers.js";

/** What converters need from the struct registry. */
export interface ConvertContext {
  /** The struct class ID a value is written under (registered class or carrier), or null. */
  structClassId(value: unknown): string | null;
  /** The class ID a non-native value is written under (ext 0), or null. */
  classIdOf(value: unknown): string | null;
  /** Writes a struct value as one msgpack ext 1. */
  writeInstance(w: Writer, value: unknown, encoder: Encoder): void;
  /**
   * Writes a non-empty list as one ext 2 (10.3) when its items are instances of
   * one definition with fields whose class ID `accepts` takes, and returns true;
   * false (nothing written) otherwise.
   */
  writeList(w: Writer, items: readonly unknown[], encoder: Encoder, accepts: ((classId: string) => boolean) | null): boolean;
}

/** A value as error messages show it: `the number 300`, `a PyDate`. */
export function show(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  if (typeof value === "bigint") {
    // Decimal digits cost time superlinear in a bigint's length (1 MB: 1.7 s): a big one is named by its size.
    const bits = bitLength(value >= 0n ? value : ~value); // as Java's BigInteger.bitLength
    return bits > 192 ? `a bigint of ${bits} bits` : `the bigint ${value}n`;
  }
  if (typeof value === "number" || typeof value === "boolean") return `the ${typeof value} ${value}`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value instanceof Float64) return `the float ${value.value}`;
  return `a ${(value as object).constructor?.name ?? "null-prototype object"}`;
}


/** The entries of a Map or of a plain object, else null. */
export function entriesOf(value: unknown): Iterable<[unknown, unknown]> | null {
  if (value instanceof Map) return value;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) return Object.entries(value);
  return null;
}

