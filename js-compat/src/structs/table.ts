/**
 * The struct table of a frame (docs/FORMAT.md 10.1, 10.3, 10.4): the
 * definitions met while writing, in first-use order, and their parsing,
 * checked against the limits of 10.4, when reading.
 *
 * An {@link EncodeScope} lives in one serialize call (`encoder.scope`): every
 * instance written takes the index of its definition from it. A
 * {@link DecodeScope} is the table of one `serreg.structs` section being read:
 * one reader per definition; an ext 1 anywhere inside that section is read by
 * {@link readInstance} against the innermost table, an ext 2 (a list of
 * instances by columns, 10.3) by {@link readList}.
 */
import { DeserializationError, LimitExceededError } from "../errors.js";
import { readValue, type ReadOptions } from "../msgpack/reader.js";
import { Writer } from "../msgpack/writer.js";
import { readColumn } from "./columns.js";
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
    /** Per definition, its field names and the writer's types. */
    readonly names: readonly (readonly string[])[],
    readonly types: readonly (readonly FieldType[])[],
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
  const allNames: string[][] = [];
  const allTypes: FieldType[][] = [];
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
      allNames.push(names);
      allTypes.push(types);
    } catch (error) {
      if (error instanceof DeserializationError && error.offset === null) error.offset = at(start);
      if (error instanceof DeserializationError) error.refresh();
      throw error;
    }
  }
  return { scope: new DecodeScope(readers, classIds, counts, allNames, allTypes), end: cursor.pos };
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
    return scope.readers[index]!.one(items, exactFloats);
  } catch (error) {
    if (error instanceof DeserializationError && error.offset === null) {
      error.offset = base;
      error.refresh();
    }
    throw error;
  }
}

/** Reads a msgpack uint at `pos` (any width); null if the byte there starts no uint. */
function readUint(b: Uint8Array, pos: number): [value: number, end: number] | null {
  const c = b[pos];
  if (c === undefined) return null;
  if (c <= 0x7f) return [c, pos + 1];
  const width = c === 0xcc ? 1 : c === 0xcd ? 2 : c === 0xce ? 4 : c === 0xcf ? 8 : 0;
  if (width === 0 || pos + 1 + width > b.length) return null;
  let v = 0;
  for (let i = 1; i <= width; i++) v = v * 256 + b[pos + i]!;
  return [v, pos + 1 + width]; // beyond 2^53 a number rounds, but it is then far beyond any table or payload
}

/**
 * Reads an ext 2 payload `[index, count, c_0, ..., c_{n-1}]` (10.3) with the
 * innermost table: the header is checked before anything is decoded (`count`
 * against the bytes left), then `unpack()` decodes the payload (nested values
 * included) and every column is checked against its field's type. Gives the
 * list of the instances, built by the definition's reader.
 */
export function readList(scope: DecodeScope | undefined, payload: Uint8Array, base: number | null, exactFloats: boolean, unpack: () => unknown): unknown[] {
  const at = (i: number): number | null => (base === null ? null : base + i);
  if (scope === undefined) throw new DeserializationError("a list of struct instances (msgpack ext 2) outside any struct table (serreg.structs)", base);
  const b = payload[0];
  let length: number;
  let pos: number;
  if (b !== undefined && b >= 0x90 && b <= 0x9f) [length, pos] = [b & 0x0f, 1];
  else if (b === 0xdc && payload.length >= 3) [length, pos] = [(payload[1]! << 8) | payload[2]!, 3];
  else if (b === 0xdd && payload.length >= 5) [length, pos] = [payload[1]! * 0x1000000 + ((payload[2]! << 16) | (payload[3]! << 8) | payload[4]!), 5];
  else throw new DeserializationError("a list of struct instances (msgpack ext 2) must be an array [index, count, columns...]", base);
  const index = readUint(payload, pos);
  if (index === null) throw new DeserializationError("a list of struct instances (msgpack ext 2) must start with its definition index (a msgpack uint)", at(pos));
  const count = readUint(payload, index[1]);
  if (count === null) throw new DeserializationError("a list of struct instances (msgpack ext 2): its count must follow the definition index (a msgpack uint)", at(index[1]));
  const [i, n] = [index[0], count[0]];
  if (i >= scope.readers.length) throw new DeserializationError(`a list of struct instances (msgpack ext 2) names definition ${i}, but the table holds ${scope.readers.length}`, at(pos));
  const classId = scope.classIds[i]!;
  const fields = scope.fieldCounts[i]!;
  const where = `struct '${classId}': a list of its instances (msgpack ext 2)`;
  if (fields === 0) throw new DeserializationError(`${where}: its definition has no fields, so its lists are arrays`, base);
  if (length !== 2 + fields) throw new DeserializationError(`${where} is an array of ${length} items; its definition's ${fields} field(s) make ${2 + fields}`, base);
  const left = payload.length - count[1];
  if (n < 1 || n > left) throw new DeserializationError(`${where} declares ${n} instances; a count is at least 1 and at most the ${left} bytes left`, at(index[1]));
  const items = unpack() as unknown[];
  const names = scope.names[i]!;
  const types = scope.types[i]!;
  const columns = new Array<unknown[]>(fields);
  for (let f = 0; f < fields; f++) {
    const column = items[2 + f];
    // A bin column is a view of the payload: its bytes have frame offsets.
    const inPayload = column instanceof Uint8Array && column.buffer === payload.buffer
      && column.byteOffset >= payload.byteOffset && column.byteOffset + column.length <= payload.byteOffset + payload.length;
    const offsetOf = (k: number): number | null => (inPayload ? at((column as Uint8Array).byteOffset - payload.byteOffset + k) : base);
    columns[f] = readColumn(types[f]!, column, n, `struct '${classId}', field '${names[f]}'`, offsetOf);
  }
  try {
    return scope.readers[i]!.many(n, columns, exactFloats);
  } catch (error) {
    if (error instanceof DeserializationError && error.offset === null) {
      error.offset = base;
      error.refresh();
    }
    throw error;
  }
}
