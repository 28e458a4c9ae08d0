/**
 * The struct table of a frame (docs/FORMAT.md 10.1, 10.3, 10.4): the
 * definitions met while writing, in first-use order, and their parsing,
 * checked against the limits of 10.4, when reading.
 *
 * An {@link EncodeScope} lives in one serialize call (`encoder.scope`): every
 * instance written takes the index of its definition from it. A
 * {@link DecodeScope} is the table of one `serreg.structs` section being read:
 * one reader per definition; an ext 1 anywhere inside that section is read by
 * {@link readInstance} against the innermost table.
 */
import { DeserializationError, LimitExceededError } from "../errors.js";
import { readValue, type ReadOptions } from "../msgpack/reader.js";
import { Writer } from "../msgpack/writer.js";
import { parseType, type FieldType } from "./fieldTypes.js";
import type { InstanceReader } from "./schema.js";

export const STRUCTS_CLASS_ID = "serreg.structs";
export const CARRIER_CLASS_ID = "serreg.struct";
export const MAX_DEFINITIONS = 65535;
export const MAX_FIELDS = 65535;

/** Definitions written so far in one serialize call, in first-use order. */
export class EncodeScope {
  private readonly indices = new Map<unknown, number>();
  private readonly definitions: Uint8Array[] = [];
  /** Struct instances open inside each other right now. */
  depth = 0;

  /** The index of the definition `key` stands for, added on first use. */
  indexOf(key: unknown, definition: Uint8Array): number {
    let index = this.indices.get(key);
    if (index === undefined) {
      index = this.definitions.length;
      if (index >= MAX_DEFINITIONS) throw new LimitExceededError(`a frame holds at most ${MAX_DEFINITIONS} struct definitions`);
      this.indices.set(key, index);
      this.definitions.push(definition);
    }
    return index;
  }

  /** The table (a msgpack array of the definitions), or null when no struct was written. */
  table(): Uint8Array | null {
    if (!this.definitions.length) return null;
    const w = new Writer(64);
    w.arrayHeader(this.definitions.length);
    for (const d of this.definitions) w.raw(d);
    return w.bytes();
  }
}

/** The readers of one table: `readers[i]` builds an instance of definition i. */
export class DecodeScope {
  constructor(
    readonly readers: readonly InstanceReader[],
    readonly classIds: readonly string[],
    readonly fieldCounts: readonly number[],
  ) {}
}

/** Decides how instances of one definition are read: a registered class's reader, or the carrier's. */
export type ReaderFor = (classId: string, definition: Uint8Array, names: string[], types: FieldType[]) => InstanceReader;

/** Parses the table at the start of a `serreg.structs` in-band; returns its scope and where the inner section starts. */
export function parseTable(inBand: Uint8Array, base: number | null, maxNesting: number | null, readerFor: ReaderFor): { scope: DecodeScope; end: number } {
  const at = (offset: number): number | null => (base === null ? null : base + offset);
  const b = inBand[0];
  let count: number;
  let pos: number;
  if (b !== undefined && b >= 0x90 && b <= 0x9f) [count, pos] = [b & 0x0f, 1];
  else if (b === 0xdc && inBand.length >= 3) [count, pos] = [(inBand[1]! << 8) | inBand[2]!, 3];
  else if (b === 0xdd && inBand.length >= 5) [count, pos] = [inBand[1]! * 0x1000000 + ((inBand[2]! << 16) | (inBand[3]! << 8) | inBand[4]!), 5];
  else throw new DeserializationError("the struct table (serreg.structs) must start with a msgpack array of definitions", at(0));
  if (count > MAX_DEFINITIONS) throw new LimitExceededError(`the struct table declares ${count} definitions; at most ${MAX_DEFINITIONS} (docs/FORMAT.md 10.4)`, at(0));
  if (count > inBand.length - pos) throw new DeserializationError(`the struct table declares ${count} definitions but only ${inBand.length - pos} bytes follow`, at(0));
  const options: ReadOptions = { ext: null, maxNesting, exactFloats: true, dicts: "auto", base };
  const cursor = { pos };
  const readers: InstanceReader[] = [];
  const classIds: string[] = [];
  const counts: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = cursor.pos;
    const definition = readValue(inBand, start, inBand.length, options, cursor);
    const where = `struct definition ${index}`;
    try {
      if (!Array.isArray(definition) || definition.length !== 2 || typeof definition[0] !== "string" || !definition[0]) {
        throw new DeserializationError(`${where} must be [class ID: non-empty str, fields: array]`);
      }
      const [classId, fields] = definition as [string, unknown];
      const named = `${where} ('${classId}')`;
      if (!Array.isArray(fields)) throw new DeserializationError(`${named}: fields must be an array of [name, type]`);
      if (fields.length > MAX_FIELDS) throw new LimitExceededError(`${named} declares ${fields.length} fields; at most ${MAX_FIELDS} (docs/FORMAT.md 10.4)`);
      const names: string[] = [];
      const types: FieldType[] = [];
      for (const field of fields) {
        if (!Array.isArray(field) || field.length !== 2 || typeof field[0] !== "string" || !field[0]) {
          throw new DeserializationError(`${named}: every field must be [name: non-empty str, type]`);
        }
        names.push(field[0]);
        types.push(parseType(field[1], `${classId}.${field[0]}`));
      }
      if (new Set(names).size !== names.length) throw new DeserializationError(`${named}: field names repeat`);
      readers.push(readerFor(classId, inBand.slice(start, cursor.pos), names, types));
      classIds.push(classId);
      counts.push(names.length);
    } catch (error) {
      if (error instanceof DeserializationError && error.offset === null) error.offset = at(start);
      if (error instanceof DeserializationError) error.refresh();
      throw error;
    }
  }
  return { scope: new DecodeScope(readers, classIds, counts), end: cursor.pos };
}

/** Reads one instance array `[index, v...]` (an ext 1 payload, decoded) with the innermost table. */
export function readInstance(scope: DecodeScope | undefined, items: unknown, base: number | null, exactFloats: boolean): unknown {
  if (scope === undefined) throw new DeserializationError("a struct instance (msgpack ext 1) outside any struct table (serreg.structs)", base);
  if (!Array.isArray(items) || typeof items[0] !== "number" || !Number.isInteger(items[0])) {
    throw new DeserializationError("a struct instance must be an array [definition index, field values...]", base);
  }
  const index = items[0];
  if (index < 0 || index >= scope.readers.length) {
    throw new DeserializationError(`struct instance names definition ${index}, but the table holds ${scope.readers.length}`, base);
  }
  const expected = scope.fieldCounts[index]!;
  if (items.length !== expected + 1) {
    throw new DeserializationError(`struct '${scope.classIds[index]}': an instance array holds ${items.length - 1} field value(s), its definition declares ${expected}`, base);
  }
  try {
    return scope.readers[index]!(items, exactFloats);
  } catch (error) {
    if (error instanceof DeserializationError && error.offset === null) {
      error.offset = base;
      error.refresh();
    }
    throw error;
  }
}
