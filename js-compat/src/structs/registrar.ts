/**
 * The structs of one Registry (docs/FORMAT.md section 10): registered classes
 * by class ID and by class, the ext 1 extension that writes and reads
 * instances inside msgpack and the ext 2 one for lists of instances of one
 * definition (by columns, 10.3), the serializer of `serreg.structs` (the table in
 * front of a frame's value) and those of the struct class IDs and the carrier
 * (`serreg.struct`) at the top level. The Registry hands it what it needs as a
 * {@link StructHost}; it never imports the Registry.
 */
import { classIdHash, hashKey } from "../classId.js";
import { DeserializationError, RegistrationError, SerializationError } from "../errors.js";
import type { Writer } from "../msgpack/writer.js";
import type { OutOfBand } from "../oob.js";
import type { DecodeContext, Encoder, ExtensionType, Registration, Serializer } from "../serializer.js";
import { InlineSerializer } from "../standard/core.js";
import { OpaqueValue } from "../types/opaque.js";
import { PYOBJECTS_CLASS_ID } from "../pythonOnly.js";
import { StructValue } from "./carrier.js";
import { columnWriter } from "./columns.js";
import { columnConverter, readConverter } from "./read.js";
import { touchConverter, writeConverter } from "./write.js";
import type { FieldType, Fields } from "./fieldTypes.js";
import { StructSchema, type InstanceReader, type SchemaContext, type WritePlan } from "./schema.js";
import { CARRIER_CLASS_ID, DecodeScope, EncodeScope, STRUCTS_CLASS_ID, parseTable, readInstance, readList } from "./table.js";

/** What the struct support needs from its Registry. */
export interface StructHost {
  registerSerializer(classId: string, classes: readonly Function[] | null, serializer: Serializer): void;
  allowClassIds(...classIds: string[]): void;
  forObject(value: object): Registration | undefined;
  readonly limits: { readonly maxDepth: number | null; readonly maxMsgpackNesting: number | null };
}

/** A struct class named in a field type has not been registered (yet). */
class UnregisteredStructClass extends RegistrationError {
  override name = "RegistrationError";
}

const ENCODE = Symbol("serreg struct table (writing)");
const DECODE = Symbol("serreg struct tables (reading)");
const STRUCTS_HASH = classIdHash(STRUCTS_CLASS_ID);
const CACHE_MAX = 1024;

/** A Map key for a definition's bytes (one char per byte). */
function bytesKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

export class StructRegistry implements SchemaContext {
  private readonly byId = new Map<string, StructSchema>();
  private readonly byClass = new Map<Function, StructSchema>();
  private readonly carrierWriters = new Map<Uint8Array, WritePlan>();
  private readonly carrierReaders = new Map<string, InstanceReader>();
  /** Reads and writes struct instances as msgpack ext 1. */
  readonly extension: ExtensionType;
  /** Reads and writes lists of instances of one definition as msgpack ext 2 (offered every Array the codec writes). */
  readonly lists: ExtensionType;

  constructor(private readonly host: StructHost) {
    this.extension = {
      read: (payload, oob, context, base) => this.readPayload(payload, oob, context, base),
      writes: (value) => value instanceof StructValue || (typeof value === "object" && value !== null && this.byClass.has(Object.getPrototypeOf(value)?.constructor)),
      write: (w, value, encoder) => {
        const start = w.beginExt();
        this.writeArray(w, value, encoder);
        w.endExt(start, 1);
      },
    };
    this.lists = {
      read: (payload, oob, context, base) => readList(this.tables(context).at(-1), payload, base, context.exactFloats, () => context.unpack(payload, oob, base, true)),
      writes: () => false,
      write: () => {
        throw new SerializationError("ext 2 is written for lists of struct instances only");
      },
      writeArray: (w, items, encoder) => this.writeList(w, items, encoder, null),
    };
    host.registerSerializer(STRUCTS_CLASS_ID, null, new TableSerializer(this));
    host.registerSerializer(CARRIER_CLASS_ID, [StructValue], new InstanceSerializer(this, CARRIER_CLASS_ID));
  }

  /** Binds `cls` to `classId` as a struct of these fields (docs/FORMAT.md 10.2). */
  register(cls: Function, classId: string, fields: Fields, defaults: Readonly<Record<string, unknown>>): void {
    if (typeof cls !== "function") throw new RegistrationError(`registerStruct takes a class, not ${typeof cls}`);
    if (typeof classId !== "string" || !classId) throw new RegistrationError(`a struct class ID is a non-empty string, not ${String(classId)}`);
    if (fields === null || typeof fields !== "object") throw new RegistrationError(`struct '${classId}': fields are an object of name -> type`);
    const existing = this.byId.get(classId);
    if (existing !== undefined && existing.cls !== cls) throw new RegistrationError(`class ID '${classId}' is already the struct ${existing.cls.name}`);
    const schema = new StructSchema(cls, classId, fields, defaults, this);
    const saved = [this.byId.get(classId), this.byClass.get(cls)] as const;
    this.byId.set(classId, schema);
    this.byClass.set(cls, schema); // before compiling: a class may nest itself
    try {
      try {
        schema.compile();
      } catch (error) {
        if (!(error instanceof UnregisteredStructClass)) throw error; // compiled on first use instead
      }
      this.host.registerSerializer(classId, [cls], new InstanceSerializer(this, classId));
    } catch (error) {
      if (saved[0] === undefined) this.byId.delete(classId);
      else this.byId.set(classId, saved[0]);
      if (saved[1] === undefined) this.byClass.delete(cls);
      else this.byClass.set(cls, saved[1]);
      if (error instanceof TypeError) throw new RegistrationError(error.message);
      throw error;
    }
    this.host.allowClassIds(classId);
  }

  /** Forgets the struct class of `classId` (its serializer was unregistered): its instances read as carriers again. */
  forget(classId: string): void {
    const schema = this.byId.get(classId);
    if (schema === undefined) return;
    this.byId.delete(classId);
    if (this.byClass.get(schema.cls) === schema) this.byClass.delete(schema.cls);
  }

  // SchemaContext

  classIdOfClass(cls: Function): string {
    const schema = this.byClass.get(cls);
    if (schema === undefined) throw new UnregisteredStructClass(`${cls.name} is named in a struct field but is not a registered struct; register it with registry.registerStruct`);
    return schema.classId;
  }

  structClassId(value: unknown): string | null {
    if (value instanceof StructValue) return value.classId;
    if (typeof value !== "object" || value === null) return null;
    return this.byClass.get(Object.getPrototypeOf(value)?.constructor)?.classId ?? null;
  }

  classIdOf(value: unknown): string | null {
    return typeof value === "object" && value !== null ? this.host.forObject(value)?.classId ?? null : null;
  }

  writeInstance(w: Writer, value: unknown, encoder: Encoder): void {
    this.extension.write(w, value, encoder);
  }

  writeList(w: Writer, items: readonly unknown[], encoder: Encoder, accepts: ((classId: string) => boolean) | null): boolean {
    const plan = this.listPlan(items);
    if (plan === null || (accepts !== null && !accepts(plan.classId))) return false;
    const scope = this.encodeScope(encoder);
    const maxDepth = this.host.limits.maxDepth ?? 1000;
    if (scope.depth >= maxDepth) throw new SerializationError(`structs are nested more than maxDepth=${maxDepth} deep, or a struct contains itself`);
    const index = scope.indexOf(plan.key, plan.definition); // before any value in the columns (10.3)
    const names = plan.names;
    const count = items.length;
    const start = w.beginExt();
    w.arrayHeader(2 + names.length);
    w.int(index);
    w.int(count);
    scope.depth++;
    try {
      const carried = items[0] instanceof StructValue;
      const values = new Array<unknown>(count);
      for (let i = 0; i < names.length; i++) {
        if (carried) for (let k = 0; k < count; k++) values[k] = (items[k] as StructValue).values[i];
        else {
          const name = names[i]!;
          for (let k = 0; k < count; k++) values[k] = (items[k] as Record<string, unknown>)[name];
        }
        plan.columns[i]!(w, values, encoder);
      }
    } finally {
      scope.depth--;
    }
    w.endExt(start, 2);
    return true;
  }

  /** The plan of the one definition every item is an instance of (with at least one field), or null. */
  private listPlan(items: readonly unknown[]): WritePlan | null {
    const first = items[0];
    if (typeof first !== "object" || first === null) return null;
    if (first instanceof StructValue) {
      const plan = this.carrierWriter(first);
      if (!plan.names.length) return null;
      for (let k = 1; k < items.length; k++) {
        const item = items[k];
        if (!(item instanceof StructValue) || (item.definition !== first.definition && this.carrierWriter(item).key !== plan.key)) return null;
      }
      return plan;
    }
    const cls = Object.getPrototypeOf(first)?.constructor;
    const schema = this.byClass.get(cls);
    if (schema === undefined) return null;
    for (let k = 1; k < items.length; k++) {
      const item = items[k];
      if (typeof item !== "object" || item === null || Object.getPrototypeOf(item)?.constructor !== cls) return null;
    }
    const plan = schema.compile();
    return plan.names.length ? plan : null;
  }

  private encodeScope(encoder: Encoder): EncodeScope {
    let scope = encoder.scope.get(ENCODE) as EncodeScope | undefined;
    if (scope === undefined) encoder.scope.set(ENCODE, (scope = new EncodeScope()));
    return scope;
  }

  // Writing

  /** Writes a struct value's instance array `[index, v0, ...]` (the ext 1 payload). */
  writeArray(w: Writer, value: unknown, encoder: Encoder): void {
    const scope = this.encodeScope(encoder);
    const carried = value instanceof StructValue;
    const plan: WritePlan = carried ? this.carrierWriter(value) : this.byClass.get(Object.getPrototypeOf(value).constructor)!.compile();
    const names = plan.names;
    const maxDepth = this.host.limits.maxDepth ?? 1000;
    if (scope.depth >= maxDepth) throw new SerializationError(`structs are nested more than maxDepth=${maxDepth} deep, or a struct contains itself`);
    const index = scope.indexOf(plan.key, plan.definition);
    scope.depth++;
    let i = 0;
    try {
      if (plan.touching) {
        // Structs first met inside set fields take their indices first, as in Python (write.touchConverter).
        for (; i < names.length; i++) plan.touches[i]?.(carried ? value.values[i] : (value as Record<string, unknown>)[names[i]!], encoder);
      }
      w.arrayHeader(1 + names.length);
      w.int(index);
      const writers = plan.writers;
      if (carried) for (i = 0; i < names.length; i++) writers[i]!(w, value.values[i], encoder);
      else for (i = 0; i < names.length; i++) writers[i]!(w, (value as Record<string, unknown>)[names[i]!], encoder);
    } catch (error) {
      if (error instanceof SerializationError) error.within(`.${names[i]}`);
      throw error;
    } finally {
      scope.depth--;
    }
  }

  private carrierWriter(value: StructValue): WritePlan {
    let carrier = this.carrierWriters.get(value.definition);
    if (carrier === undefined) {
      const where = (i: number): string => `${value.classId}.${value.fieldNames[i]}`;
      const writers = value.types.map((type, i) => writeConverter(type, where(i), this));
      const touches = value.types.map((type, i) => touchConverter(type, where(i), this));
      const columns = value.types.map((type, i) => columnWriter(type, where(i), value.fieldNames[i]!, this));
      carrier = {
        key: `carrier:${bytesKey(value.definition)}`, classId: value.classId, definition: value.definition, names: value.fieldNames,
        writers, columns, touches, touching: touches.some((t) => t !== null),
      };
      if (this.carrierWriters.size >= CACHE_MAX) this.carrierWriters.clear();
      this.carrierWriters.set(value.definition, carrier);
    }
    return carrier;
  }

  /** The table the serialize call wrote (null: no struct), to go in front of the value's section. */
  table(encoder: Encoder): Uint8Array | null {
    const scope = encoder.scope.get(ENCODE) as EncodeScope | undefined;
    return scope === undefined ? null : scope.table();
  }

  /** The ClassIDHash of a top-level value: a carrier goes under its own class ID. */
  topLevelHash(value: unknown, registration: Registration): Uint8Array {
    return value instanceof StructValue ? classIdHash(value.classId) : registration.hash;
  }

  // Reading

  private readerFor(classId: string, definition: Uint8Array, names: string[], types: FieldType[]): InstanceReader {
    const key = bytesKey(definition);
    const schema = this.byId.get(classId);
    if (schema !== undefined) return schema.reader(key, names, types);
    let reader = this.carrierReaders.get(key);
    if (reader === undefined) {
      const reads = types.map((type, i) => readConverter(type, null, `${classId}.${names[i]}`, this));
      const columns = types.map((type, i) => columnConverter(type, null, `${classId}.${names[i]}`, this));
      const fieldNames = Object.freeze([...names]);
      const frozenTypes = Object.freeze([...types]);
      const make = (values: unknown[]): StructValue => new StructValue(classId, fieldNames, Object.freeze(values), definition, frozenTypes);
      reader = {
        one: (items, exact) => make(reads.map((read, i) => read(items[i + 1], exact))),
        many: (count, cols, exact) => {
          const out = new Array<unknown>(count);
          for (let k = 0; k < count; k++) out[k] = make(columns.map((read, i) => (read === null ? cols[i]![k] : read(cols[i]![k], exact))));
          return out;
        },
      };
      if (this.carrierReaders.size >= CACHE_MAX) this.carrierReaders.clear();
      this.carrierReaders.set(key, reader);
    }
    return reader;
  }

  private tables(context: DecodeContext): DecodeScope[] {
    let stack = context.scope.get(DECODE) as DecodeScope[] | undefined;
    if (stack === undefined) context.scope.set(DECODE, (stack = []));
    return stack;
  }

  /** An instance from its array's bytes (an ext 1 payload, or a top-level struct's in-band). */
  readPayload(payload: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null, classId: string | null = null): unknown {
    const stack = this.tables(context);
    const scope = stack[stack.length - 1];
    if (scope === undefined) throw new DeserializationError("a struct instance (msgpack ext 1) outside any struct table (serreg.structs)", base);
    const items = context.unpack(payload, oob, base, true);
    // Under a struct's own class ID (an ext 0 section), the instance must be of a definition of that class ID.
    if (classId !== null && Array.isArray(items) && typeof items[0] === "number" && scope.classIds[items[0]] !== undefined && scope.classIds[items[0]] !== classId) {
      throw new DeserializationError(`a '${classId}' section holds an instance of definition ${items[0]} ('${scope.classIds[items[0]]}')`, base);
    }
    return readInstance(scope, items, base, context.exactFloats);
  }

  /** A `serreg.structs` in-band: the table, then the value's own section with the table in scope. */
  readTable(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): unknown {
    const topLevel = context.topLevel; // read first: decoding anything nested changes it
    const { scope, end } = parseTable(inBand, base, this.host.limits.maxMsgpackNesting, (c, d, n, t) => this.readerFor(c, d, n, t));
    const inner = inBand.subarray(end);
    const innerBase = base === null ? null : base + end;
    if (inner.length < 8) throw new DeserializationError("the value after the struct table is too short to hold a ClassIDHash", innerBase);
    const stack = this.tables(context);
    stack.push(scope);
    try {
      const key = hashKey(inner);
      if (scope.classIds.some((c) => hashKey(classIdHash(c)) === key)) {
        // A top-level struct: its class ID's hash, then its instance array.
        const itemsBase = innerBase === null ? null : innerBase + 8;
        const items = context.unpack(inner.subarray(8), oob, itemsBase, true);
        if (Array.isArray(items) && Number.isInteger(items[0]) && (items[0] as number) >= 0 && (items[0] as number) < scope.classIds.length
          && hashKey(classIdHash(scope.classIds[items[0] as number]!)) !== key) {
          throw new DeserializationError("the top-level struct's ClassIDHash is not the class ID of the definition it names", innerBase);
        }
        return readInstance(scope, items, itemsBase, context.exactFloats);
      }
      const value = context.section(inner, oob, innerBase, topLevel);
      // A value of unknown class ID is kept with its table, so it is written back whole.
      if (value instanceof OpaqueValue && (value.classId === null || value.classId === PYOBJECTS_CLASS_ID)) return new OpaqueValue(STRUCTS_HASH, STRUCTS_CLASS_ID, inBand, value.buffers);
      return value;
    } finally {
      stack.pop();
    }
  }
}

/** `serreg.structs`: read only (the registry writes the table in front of a value). */
class TableSerializer implements Serializer<unknown> {
  constructor(private readonly structs: StructRegistry) {}
  serialize(): never {
    throw new SerializationError("serreg.structs is written by the registry in front of a value holding structs, never on its own");
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): unknown {
    return this.structs.readTable(inBand, oob, context, base);
  }
}

/** A struct class ID (or the carrier's) at the top level: its in-band is the instance array. */
class InstanceSerializer extends InlineSerializer<unknown> {
  constructor(private readonly structs: StructRegistry, readonly classId: string) {
    super();
  }
  write(w: Writer, value: unknown, encoder: Encoder): void {
    this.structs.writeArray(w, value, encoder);
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): unknown {
    return this.structs.readPayload(inBand, oob, context, base, this.classId === CARRIER_CLASS_ID ? null : this.classId);
  }
}
