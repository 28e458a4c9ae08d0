/**
 * The write side of the msgpack codec (docs/FORMAT.md, section 3): walks a value
 * tree without recursion, writing the native values as plain msgpack and every
 * other value as ext 0 (ClassIDHash + its serializer's in-band), appending that
 * value's out-of-band buffers at that moment, so document order is buffer order.
 *
 * Native values (docs/FORMAT.md, section 7, TypeScript column): null; boolean;
 * number (a safe integer other than -0 is an int, anything else a float 64);
 * bigint in [-2^63, 2^64) (an int; beyond it, ext 0 `int`); string; Uint8Array
 * and Buffer (bin); Float64 (float 64); Array (array); plain objects (own
 * enumerable string keys) and Map (map). `undefined`, functions and symbols
 * have no serreg form. A non-empty Array is first offered to the extension that
 * writes lists (structs of one definition become ext 2, docs/FORMAT.md 10.3).
 */
import { CrossLanguageError, SerializationError, SerregError } from "./errors.js";
import { LoneSurrogateError, Writer } from "./msgpack/writer.js";
import { SerializationResult } from "./result.js";
import { Float64 } from "./types/numbers.js";
import { OpaqueValue } from "./types/opaque.js";
import { pythonOnlyClassId } from "./pythonOnly.js";
import type { Encoder as EncodeContext, ExtensionType, RegistryTables } from "./serializer.js";

const INT64_MIN = -(2n ** 63n);
const UINT64_END = 2n ** 64n;
const BUFFER_PROTO: object | null = typeof Buffer === "function" ? Buffer.prototype : null;

class ArrayFrame {
  i = 0;
  constructor(readonly items: unknown[]) {}
  step(): string {
    return `[${this.i - 1}]`;
  }
}

class ObjectFrame {
  i = 0;
  constructor(readonly obj: Record<string, unknown>, readonly keys: string[]) {}
  step(): string {
    return `[${JSON.stringify(this.keys[this.i - 1])}]`;
  }
}

class MapFrame {
  key: unknown = undefined;
  value: unknown = undefined;
  valueNext = false;
  constructor(readonly entries: Iterator<[unknown, unknown]>) {}
  step(): string {
    return `[${describeKey(this.key)}]`;
  }
}

function describeKey(key: unknown): string {
  if (typeof key === "string") return JSON.stringify(key);
  if (typeof key === "bigint") return `${key}n`;
  if (key !== null && typeof key === "object") return `<${key.constructor?.name ?? "Object"}>`;
  return String(key);
}

export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  return `a ${(value as object).constructor?.name ?? "null-prototype object"}`;
}

/** One serialize call's state: the out-of-band buffers so far and the nesting depth. */
export class Encoder implements EncodeContext {
  /** Out-of-band buffers, in document order. */
  oob: Uint8Array[] = [];
  private depth = 0;
  private extensionScope: Map<unknown, unknown> | null = null;
  /** The extensions offered every non-empty Array before it is written (struct lists, ext 2), in registration order; null if none. */
  private readonly arrays: ExtensionType[] | null = null;

  /** Per-call state of extensions (ext types 1..127): one serialize call is one scope. */
  get scope(): Map<unknown, unknown> {
    return (this.extensionScope ??= new Map());
  }

  constructor(
    readonly tables: RegistryTables,
    readonly crossLanguage: boolean,
    readonly maxDepth: number | null,
    readonly maxNesting: number,
  ) {
    for (const extension of tables.extensions.values()) {
      if (extension.writeArray !== undefined) (this.arrays ??= []).push(extension);
    }
  }

  /** Packs a value tree into msgpack bytes plus the buffers of the nested values in it. */
  pack(value: unknown): SerializationResult {
    const saved = this.oob;
    this.oob = [];
    try {
      const w = new Writer(64);
      this.tree(w, value);
      return new SerializationResult(w.bytes(), this.oob);
    } finally {
      this.oob = saved;
    }
  }

  /** Writes `root` as one msgpack value. */
  tree(w: Writer, root: unknown): void {
    const stack: (ArrayFrame | ObjectFrame | MapFrame)[] = [];
    let v = root;
    try {
      for (;;) {
        switch (typeof v) {
          case "string":
            w.str(v);
            break;
          case "number":
            if (Number.isSafeInteger(v) && !(v === 0 && 1 / v < 0)) w.int(v);
            else w.f64(v);
            break;
          case "boolean":
            w.bool(v);
            break;
          case "bigint":
            if (v >= INT64_MIN && v < UINT64_END) w.bigint(v);
            else this.nested(w, v);
            break;
          case "object": {
            if (v === null) {
              w.nil();
              break;
            }
            const proto = Object.getPrototypeOf(v);
            if (proto === Array.prototype) {
              const items = v as unknown[];
              if (items.length && this.arrays !== null && this.offerArray(w, items)) break;
              w.arrayHeader(items.length);
              if (items.length) this.open(stack, new ArrayFrame(items));
            } else if (proto === Object.prototype || proto === null) {
              const obj = v as Record<string, unknown>;
              const keys = Object.keys(obj);
              w.mapHeader(keys.length);
              if (keys.length) this.open(stack, new ObjectFrame(obj, keys));
            } else if (proto === Map.prototype) {
              const map = v as Map<unknown, unknown>;
              w.mapHeader(map.size);
              if (map.size) this.open(stack, new MapFrame(map.entries()));
            } else if (proto === Uint8Array.prototype || proto === BUFFER_PROTO) {
              w.bin(v as Uint8Array);
            } else if (proto === Float64.prototype) {
              w.f64((v as Float64).value);
            } else {
              this.nested(w, v);
            }
            break;
          }
          default:
            throw new SerializationError(`${v === undefined ? "undefined" : `a ${typeof v}`} has no serreg form (use null for None)`);
        }
        // Move to the next value of the innermost open container.
        for (;;) {
          const top = stack[stack.length - 1];
          if (top === undefined) return;
          if (top instanceof ArrayFrame) {
            if (top.i < top.items.length) {
              v = top.items[top.i++];
              break;
            }
          } else if (top instanceof ObjectFrame) {
            if (top.i < top.keys.length) {
              const key = top.keys[top.i++]!;
              w.str(key);
              v = top.obj[key];
              break;
            }
          } else if (top.valueNext) {
            top.valueNext = false;
            v = top.value;
            break;
          } else {
            const next = top.entries.next();
            if (!next.done) {
              [top.key, top.value] = next.value;
              top.valueNext = true;
              v = top.key;
              break;
            }
          }
          stack.pop();
        }
      }
    } catch (error) {
      let located: SerializationError;
      if (error instanceof SerializationError) located = error;
      else if (error instanceof LoneSurrogateError) located = new SerializationError(error.message);
      else throw error;
      for (let i = stack.length - 1; i >= 0; i--) located.within(stack[i]!.step());
      throw located;
    }
  }

  /** True if an extension wrote `items` (one ext of its type) in place of a msgpack array. */
  private offerArray(w: Writer, items: unknown[]): boolean {
    for (const extension of this.arrays!) if (extension.writeArray!(w, items, this)) return true;
    return false;
  }

  /** Writes `items` as a msgpack array, whatever they hold (a tuple's in-band: never ext 2). */
  array(w: Writer, items: readonly unknown[]): void {
    w.arrayHeader(items.length);
    for (let i = 0; i < items.length; i++) {
      try {
        this.tree(w, items[i]);
      } catch (error) {
        if (error instanceof SerializationError) error.within(`[${i}]`);
        throw error;
      }
    }
  }

  private open(stack: unknown[], frame: ArrayFrame | ObjectFrame | MapFrame): void {
    if (stack.length >= this.maxNesting) {
      throw new SerializationError(`value is nested more than ${this.maxNesting} arrays and maps deep, or contains itself`);
    }
    stack.push(frame);
  }

  /** Writes a non-native value as ext 0: ClassIDHash + its serializer's in-band. */
  nested(w: Writer, value: unknown): void {
    if (value instanceof OpaqueValue) {
      // By ClassIDHash: an opaque value built without its class ID is refused too.
      const pythonOnly = this.crossLanguage ? pythonOnlyClassId(value.classIdHash) : null;
      if (pythonOnly !== null) {
        throw new CrossLanguageError(`an opaque ${pythonOnly} value can only be read by Python (crossLanguage: true refuses it)`);
      }
      const start = w.beginExt();
      w.raw(value.classIdHash);
      w.raw(value.inBand);
      w.endExt(start, 0);
      for (const b of value.buffers) this.oob.push(b);
      return;
    }
    if (this.tables.extensions.size) {
      for (const extension of this.tables.extensions.values()) {
        if (extension.writes(value)) {
          extension.write(w, value, this);
          return;
        }
      }
    }
    const registration = typeof value === "bigint" ? this.tables.byId("int") : this.tables.forObject(value as object);
    if (registration === undefined) {
      throw new SerializationError(`no serializer is registered for ${describeValue(value)}; register one with registry.registerSerializer(classId, Class, serializer)`);
    }
    if (this.maxDepth !== null && this.depth >= this.maxDepth) {
      throw new SerializationError(`values are nested more than maxDepth=${this.maxDepth} deep through serializers, or a value contains itself`);
    }
    this.depth++;
    try {
      const start = w.beginExt();
      w.raw(registration.hash);
      this.body(w, registration.serializer, registration.classId, value);
      w.endExt(start, 0);
    } finally {
      this.depth--;
    }
  }

  /** Writes a serializer's in-band for `value` into `w` (no ClassIDHash). */
  body(w: Writer, serializer: RegistryTablesSerializer, classId: string, value: unknown): void {
    try {
      if (serializer.write !== undefined) {
        serializer.write(w, value, this);
        return;
      }
      const result = serializer.serialize(value, this);
      w.raw(result.inBand);
      for (const b of result.buffers) this.oob.push(b);
    } catch (error) {
      if (error instanceof SerregError) throw error;
      if (error instanceof LoneSurrogateError) throw new SerializationError(error.message);
      const e = error as Error;
      throw new SerializationError(`the serializer for class ID '${classId}' failed on ${describeValue(value)}: ${e?.name ?? "Error"}: ${e?.message ?? String(error)}`);
    }
  }
}

type RegistryTablesSerializer = ReturnType<RegistryTables["byId"]>["serializer"];
