/**
 * One registered struct class: its definition, its field and column writers,
 * and its readers per writer definition (docs/FORMAT.md 10.2-10.4), which build
 * one instance from an ext 1 array or a list of them from ext 2 columns (10.3).
 *
 * Field types are resolved on first use, so a field may name a struct class
 * registered later (or the class itself). A reader is made per writer
 * definition met in a frame and kept: fields matched by name, the writer's
 * extra fields skipped, missing ones given the declared default (`null` for an
 * optional field), every type checked by the widening rule of 10.4.
 */
import { DeserializationError } from "../errors.js";
import { Writer } from "../msgpack/writer.js";
import { columnWriter, type ColumnWriter } from "./columns.js";
import type { ConvertContext } from "./context.js";
import { columnConverter, readConverter, type ReadField } from "./read.js";
import { touchConverter, writeConverter, type TouchField, type WriteField } from "./write.js";
import { FieldType, describeType, resolve, widens, writeType, type Fields } from "./fieldTypes.js";

/** Builds the instances of one writer definition. */
export interface InstanceReader {
  /** One instance from its ext 1 array `[index, v0, ...]` (length already checked). */
  one(items: readonly unknown[], exactFloats: boolean): unknown;
  /** `count` instances from ext 2 columns: `columns[i]` holds writer field i's values (checked by columns.readColumn). */
  many(count: number, columns: readonly (readonly unknown[])[], exactFloats: boolean): unknown[];
}

/** What a schema needs beyond the converters: the class ID of a struct class. */
export interface SchemaContext extends ConvertContext {
  classIdOfClass(cls: Function): string;
}

/** How instances of one definition are written (a registered class's, or a carrier's). */
export interface WritePlan {
  /** What the frame's table knows the definition by. */
  readonly key: unknown;
  readonly classId: string;
  /** The packed definition `[class_id, [[name, type]...]]`. */
  readonly definition: Uint8Array;
  readonly names: readonly string[];
  readonly writers: readonly WriteField[];
  /** Per field, the writer of its ext 2 column. */
  readonly columns: readonly ColumnWriter[];
  /** Per field, the pass over its set members before the fields are written (null: no set). */
  readonly touches: readonly (TouchField | null)[];
  readonly touching: boolean;
}

export interface Compiled extends WritePlan {
  readonly types: readonly FieldType[];
}

const READERS_MAX = 256;

/** Packs a definition (10.2) the way every serreg writer does (shortest msgpack forms). */
export function packDefinition(classId: string, names: readonly string[], types: readonly FieldType[]): Uint8Array {
  const w = new Writer(64);
  w.arrayHeader(2);
  w.str(classId);
  w.arrayHeader(names.length);
  names.forEach((name, i) => {
    w.arrayHeader(2);
    w.str(name);
    writeType(w, types[i]!);
  });
  return w.bytes();
}

export class StructSchema {
  private compiled: Compiled | null = null;
  private readonly readers = new Map<string, InstanceReader>();

  constructor(
    readonly cls: Function,
    readonly classId: string,
    readonly specs: Fields,
    /** Field name -> default value, or a function making one. */
    readonly defaults: Readonly<Record<string, unknown>>,
    private readonly ctx: SchemaContext,
  ) {
    const names = Object.keys(specs);
    if (names.length > 65535) throw new TypeError(`struct '${classId}' declares ${names.length} fields; at most 65,535`);
    for (const name of Object.keys(defaults)) {
      if (!(name in specs)) throw new TypeError(`struct '${classId}': a default is given for '${name}', which is not a declared field`);
    }
  }

  /** Names, types, definition and writers (resolved on first use). */
  compile(): Compiled {
    if (this.compiled !== null) return this.compiled;
    const names = Object.keys(this.specs);
    const types = names.map((name) => resolve(this.specs[name]!, `${this.classId}.${name}`, (cls) => this.ctx.classIdOfClass(cls)));
    const writers = names.map((name, i) => writeConverter(types[i]!, `${this.classId}.${name}`, this.ctx));
    const touches = names.map((name, i) => touchConverter(types[i]!, `${this.classId}.${name}`, this.ctx));
    const columns = names.map((name, i) => columnWriter(types[i]!, `${this.classId}.${name}`, name, this.ctx));
    const definition = packDefinition(this.classId, names, types);
    const classId = this.classId;
    this.compiled = Object.freeze({ key: this, classId, names, types, definition, writers, columns, touches, touching: touches.some((t) => t !== null) });
    return this.compiled;
  }

  /** The reader of instances written with this definition (`key` identifies its bytes). */
  reader(key: string, names: readonly string[], types: readonly FieldType[]): InstanceReader {
    let reader = this.readers.get(key);
    if (reader === undefined) {
      reader = this.makeReader(names, types);
      if (this.readers.size >= READERS_MAX) this.readers.clear();
      this.readers.set(key, reader);
    }
    return reader;
  }

  private makeReader(names: readonly string[], types: readonly FieldType[]): InstanceReader {
    const own = this.compile();
    const ownType = new Map(own.names.map((name, i) => [name, own.types[i]!]));
    const reads: { position: number; name: string; read: ReadField; column: ReadField | null }[] = [];
    names.forEach((name, i) => {
      const mine = ownType.get(name);
      if (mine === undefined) return; // the writer has it, this class does not: skipped
      const theirs = types[i]!;
      if (!widens(theirs, mine)) {
        throw new DeserializationError(`struct '${this.classId}', field '${name}': the writer's type is ${describeType(theirs)}, this reader's is ${describeType(mine)}, and the one does not widen to the other (docs/FORMAT.md 10.4)`);
      }
      const where = `${this.classId}.${name}`;
      reads.push({ position: i + 1, name, read: readConverter(theirs, mine, where, this.ctx), column: columnConverter(theirs, mine, where, this.ctx) });
    });
    const written = new Set(names);
    const missing: { name: string; make: () => unknown }[] = [];
    for (const [i, name] of own.names.entries()) {
      if (written.has(name)) continue;
      if (Object.prototype.hasOwnProperty.call(this.defaults, name)) {
        const given = this.defaults[name];
        missing.push({ name, make: typeof given === "function" ? (given as () => unknown) : () => given });
      } else if (own.types[i]!.kind === "optional") {
        missing.push({ name, make: () => null });
      } else {
        throw new DeserializationError(`struct '${this.classId}': the writer's definition has no field '${name}' and ${this.cls.name}.${name} has no default (give one with registerStruct(..., { defaults: { ${name}: ... } }), docs/FORMAT.md 10.4)`);
      }
    }
    // One step per own field, in the declared order: from the instance array (or column), or a default.
    const byName = new Map(reads.map((r) => [r.name, r]));
    const fromDefault = new Map(missing.map((m) => [m.name, m.make]));
    const steps = own.names.map((name) => {
      const read = byName.get(name);
      return read !== undefined ? { name, position: read.position, read: read.read, column: read.column, make: null }
        : { name, position: 0, read: null, column: null, make: fromDefault.get(name)! };
    });
    const proto = (this.cls as { prototype: object }).prototype;
    // Plain assignment unless a name is "__proto__" or meets an accessor up the prototype chain (no user code runs).
    const define = own.names.some((name) => name === "__proto__" || hasAccessor(proto, name));
    const set = (obj: Record<string, unknown>, name: string, value: unknown): void => {
      if (define) Object.defineProperty(obj, name, { value, writable: true, enumerable: true, configurable: true });
      else obj[name] = value;
    };
    return {
      one: (items, exact) => {
        const obj = Object.create(proto) as Record<string, unknown>;
        for (const step of steps) set(obj, step.name, step.read !== null ? step.read(items[step.position], exact) : step.make!());
        return obj;
      },
      many: (count, columns, exact) => {
        const out = new Array<unknown>(count);
        for (let k = 0; k < count; k++) {
          const obj = Object.create(proto) as Record<string, unknown>;
          for (let f = 0; f < steps.length; f++) {
            const step = steps[f]!;
            let value: unknown;
            if (step.make !== null) value = step.make(); // a default function runs once per instance
            else {
              value = columns[step.position - 1]![k];
              if (step.column !== null) value = step.column(value, exact);
            }
            if (define) set(obj, step.name, value);
            else obj[step.name] = value;
          }
          out[k] = obj;
        }
        return out;
      },
    };
  }
}

function hasAccessor(proto: object | null, name: string): boolean {
  for (let p = proto; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    const d = Object.getOwnPropertyDescriptor(p, name);
    if (d !== undefined) return d.set !== undefined || d.get !== undefined || !d.writable;
  }
  return false;
}
