/**
 * The Registry: class IDs <-> serializers, and serialize/deserialize on top of
 * it (the names mirror Python's `serreg.Registry` and Java's
 * `SerializerRegistry`).
 *
 * Rules, as in Python and Java: a class ID is bound to one set of classes
 * (registering it again for other classes is refused; for the same classes it
 * replaces the serializer); a class ID whose ClassIDHash equals another's is
 * refused; a class may have several class IDs, the newest is used to write it,
 * frames under older IDs still read, and unregistering the newest brings the
 * previous one back. Lookup is by exact class (the object's prototype's
 * constructor), then by the serializers' `matches` (duck typing), newest first.
 * The native types (null, boolean, number, bigint, string, Uint8Array, Float64,
 * Array, plain objects, Map) are written by the codec and cannot be re-bound.
 */
import { classIdHash, hashKey, toHex } from "./classId.js";
import { Decoder, CODE_LOADING_CLASS_IDS } from "./decode.js";
import { Encoder } from "./encode.js";
import { DeserializationError, RegistrationError, SerializationError, SignatureError } from "./errors.js";
import { HEADER_SIZE, readFrame } from "./frame.js";
import { DEFAULT_LIMITS, Limits } from "./limits.js";
import { Writer } from "./msgpack/writer.js";
import { OutOfBand } from "./oob.js";
import { SerializationResult } from "./result.js";
import type { ExtensionType, Registration, RegistryTables, Serializer } from "./serializer.js";
import { SigningKey, toSigningKey } from "./signing.js";
import { Float64 } from "./types/numbers.js";
import { OpaqueValue } from "./types/opaque.js";
import { StructRegistry } from "./structs/registrar.js";
import type { Fields } from "./structs/fieldTypes.js";
import type { DefinedStruct, FieldsFitting, StructOptions } from "./structs/define.js";
import { timingSafeEqual } from "node:crypto";

/** The class IDs untrusted mode decodes by default (docs/FORMAT.md, section 4.4; Python's trust.py). */
export const STANDARD_DATA_CLASS_IDS: readonly string[] = Object.freeze([
  "None", "bool", "int", "float", "str", "bytes", "list", "dict", "tuple", "set", "frozenset",
  "bytearray", "memoryview", "complex", "datetime", "date", "time", "timedelta", "decimal", "uuid",
  "serreg.error",
  "numpy.ndarray", "numpy.bool", "numpy.int8", "numpy.int16", "numpy.int32", "numpy.int64",
  "numpy.uint8", "numpy.uint16", "numpy.uint32", "numpy.uint64", "numpy.float16", "numpy.float32",
  "numpy.float64", "numpy.complex64", "numpy.complex128",
  "ArrowTable", "ArrowRecordBatch",
  "serreg.structs", "serreg.struct",
]);

const BUFFER_CTOR: Function | null = typeof Buffer === "function" ? Buffer : null;
const NATIVE_CLASSES: ReadonlySet<Function> = new Set([Array, Object, Map, Uint8Array, Float64, ...(BUFFER_CTOR ? [BUFFER_CTOR] : [])]);
const NATIVE_PROTOS: ReadonlyMap<object, string> = new Map<object, string>([
  [Array.prototype, "list"], [Object.prototype, "dict"], [Map.prototype, "dict"], [Uint8Array.prototype, "bytes"],
  [Float64.prototype, "float"], ...(BUFFER_CTOR ? [[BUFFER_CTOR.prototype, "bytes"] as [object, string]] : []),
]);

export interface RegistryOptions {
  /** Install the standard serializers (core, numpy, Arrow); default true. */
  standard?: boolean;
  /** Default of deserialize's `trusted`; default true. */
  trusted?: boolean;
  /** Default limits of deserialize. */
  limits?: Limits;
  /** Class IDs untrusted mode decodes (default: the standard ones). */
  allowedClassIds?: Iterable<string>;
}

export interface SerializeOptions {
  /** Sign the frame (docs/FORMAT.md 4.2, version 2) with this key (at least 16 bytes). */
  key?: Uint8Array | SigningKey;
  /** Refuse values only Python can read (opaque `serreg.pickle5` / `serreg.pyobjects` / `serreg.dataclass`). */
  crossLanguage?: boolean;
}

export interface DeserializeOptions {
  /** false: refuse pickles, dataclasses and class IDs off the allow-list (default: the registry's). */
  trusted?: boolean;
  /** Require a frame signed with this key; the frame is copied, then verified, then decoded from the copy. */
  key?: Uint8Array | SigningKey;
  limits?: Limits;
  /** Whole-valued floats as Float64 (true, default: exact) or as plain numbers (false). */
  exactFloats?: boolean;
  /** Maps as plain objects where order-safe ("auto", default) or always as Map ("map"). */
  dicts?: "auto" | "map";
}

export type FrameInput = Uint8Array | ArrayBuffer | SharedArrayBuffer | DataView | SerializationResult;

let spareWriter: Writer | null = null;

export class Registry implements RegistryTables {
  trusted: boolean;
  limits: Limits;
  private readonly ids = new Map<string, Registration>();
  private readonly hashes = new Map<string, Registration>();
  private readonly byClass = new Map<Function, Registration[]>();
  private matchers: Registration[] = [];
  private allowed = new Set<string>();
  private readonly allowedIds = new Set<string>();
  private installingStandard = false;
  readonly extensions = new Map<number, ExtensionType>();
  private readonly structs: StructRegistry;

  constructor(options: RegistryOptions = {}) {
    this.trusted = options.trusted ?? true;
    this.limits = options.limits ?? DEFAULT_LIMITS;
    this.allowClassIds(...(options.allowedClassIds ?? STANDARD_DATA_CLASS_IDS));
    this.installingStandard = true;
    try {
      this.structs = new StructRegistry(this);
    } finally {
      this.installingStandard = false;
    }
    this.registerExtensionType(1, this.structs.extension);
    this.registerExtensionType(2, this.structs.lists);
    if (options.standard ?? true) {
      this.installingStandard = true;
      try {
        for (const install of STANDARD_INSTALLERS) install(this);
      } finally {
        this.installingStandard = false;
      }
    }
  }

  /** Bind `classId` to `serializer` for values whose exact class is one of `classes`. */
  registerSerializer(classId: string, classes: Function | readonly Function[] | null, serializer: Serializer): void {
    const list = classes === null ? [] : Array.isArray(classes) ? [...classes] : [classes as Function];
    if (typeof serializer?.serialize !== "function" || typeof serializer?.deserialize !== "function") {
      throw new RegistrationError(`a serializer needs serialize() and deserialize() methods (class ID '${classId}')`);
    }
    const hash = classIdHash(classId);
    const key = hashKey(hash);
    const existing = this.ids.get(classId);
    if (existing !== undefined && !sameClasses(existing.classes, list)) {
      throw new RegistrationError(`class ID '${classId}' is already bound to ${names(existing.classes)}; choose another class ID for ${names(list)} or unregister the old one first`);
    }
    const clash = this.hashes.get(key);
    if (clash !== undefined && clash.classId !== classId) {
      throw new RegistrationError(`class ID '${classId}' has the same ClassIDHash (${toHex(hash)}) as the registered class ID '${clash.classId}'; choose another class ID`);
    }
    if (!this.installingStandard) {
      for (const cls of list) {
        if (NATIVE_CLASSES.has(cls)) throw new RegistrationError(`${cls.name} is written natively by the msgpack codec; it cannot be bound to class ID '${classId}'`);
      }
    }
    const registration: Registration = Object.freeze({ classId, hash, key, serializer, classes: Object.freeze(list) });
    this.ids.set(classId, registration);
    this.hashes.set(key, registration);
    for (const cls of list) {
      const stack = (this.byClass.get(cls) ?? []).filter((r) => r.classId !== classId);
      stack.push(registration);
      this.byClass.set(cls, stack);
    }
    this.matchers = this.matchers.filter((r) => r.classId !== classId);
    if (typeof serializer.matches === "function") this.matchers.unshift(registration);
  }

  /**
   * Declare a cross-language struct (docs/FORMAT.md section 10): instances of
   * `cls` travel as field arrays under `classId`, their definition once per frame.
   * Field types are wire types ("int64", "str", t.list("float64"), t.struct(Other)...;
   * "bigint64" / "biguint64" for int64 / uint64 read as bigint); each must fit the
   * property it fills. `defaults` fill fields an older writer lacks (a function
   * makes a fresh value each time); optional fields default to null. Instances are
   * read without running the constructor. The class ID is allowed in untrusted mode.
   * A class made by {@link defineStruct} needs no other argument.
   */
  registerStruct(cls: DefinedStruct<any>): void;
  registerStruct<C extends abstract new (...args: any[]) => any, F extends Fields>(
    cls: C, classId: string, fields: F & FieldsFitting<InstanceType<C>, F>, options?: StructOptions<F>): void;
  registerStruct(cls: Function, classId?: string, fields?: Fields, options: StructOptions<Fields> = {}): void {
    const defined = cls as Partial<DefinedStruct<Fields>>;
    if (classId === undefined) {
      if (typeof defined.classId !== "string" || defined.fields === undefined) throw new RegistrationError(`registerStruct(${cls?.name}) needs a class ID and fields, unless the class was made by defineStruct`);
      this.structs.register(cls, defined.classId, defined.fields, defined.defaults ?? {});
      return;
    }
    this.structs.register(cls, classId, fields!, options.defaults ?? {});
  }

  /** Remove `classId`; its classes go back to the class ID registered before it, if any. */
  unregisterSerializer(classId: string): void {
    const registration = this.ids.get(classId);
    if (registration === undefined) throw new RegistrationError(`no serializer is registered under class ID '${classId}'`);
    this.ids.delete(classId);
    this.hashes.delete(registration.key);
    for (const cls of registration.classes) {
      const stack = (this.byClass.get(cls) ?? []).filter((r) => r.classId !== classId);
      if (stack.length) this.byClass.set(cls, stack);
      else this.byClass.delete(cls);
    }
    this.matchers = this.matchers.filter((r) => r.classId !== classId);
    this.structs.forget(classId);
  }

  /**
   * Plug in a msgpack ext type other than 0 (1..127; -1 is msgpack's timestamp,
   * never used). Every Registry has ext 1 and ext 2 already: cross-language structs
   * and lists of them (docs/FORMAT.md 10.3, see registerStruct). Frames holding an
   * ext type with no extension are refused.
   */
  registerExtensionType(type: number, extension: ExtensionType): void {
    if (!Number.isInteger(type) || type < 1 || type > 127) throw new RegistrationError(`ext type ${type} cannot be registered: 0 is the nested value, and extensions use 1..127`);
    if (this.extensions.has(type)) throw new RegistrationError(`ext type ${type} already has an extension`);
    this.extensions.set(type, extension);
  }

  getSerializer(classId: string): Serializer {
    return this.byId(classId).serializer;
  }

  isRegistered(classId: string): boolean {
    return this.ids.has(classId);
  }

  /** Registered class IDs, in registration order. */
  classIds(): string[] {
    return [...this.ids.keys()];
  }

  /** Let untrusted deserialize calls decode these class IDs (only for serializers safe on hostile bytes). */
  allowClassIds(...classIds: string[]): void {
    for (const classId of classIds) {
      if (CODE_LOADING_CLASS_IDS.has(classId)) {
        throw new RegistrationError(`class ID '${classId}' runs code while decoding in Python; it cannot be allowed in untrusted mode. Deserialize with trusted: true instead, and only frames from a sender you trust`);
      }
      this.allowedIds.add(classId);
      this.allowed.add(hashKey(classIdHash(classId)));
    }
  }

  get allowedClassIds(): ReadonlySet<string> {
    return this.allowedIds;
  }

  // RegistryTables

  byHash(key: string): Registration | undefined {
    return this.hashes.get(key);
  }

  byId(classId: string): Registration {
    const registration = this.ids.get(classId);
    if (registration === undefined) throw new RegistrationError(`no serializer is registered under class ID '${classId}'`);
    return registration;
  }

  forObject(value: object): Registration | undefined {
    const proto = Object.getPrototypeOf(value);
    const stack = proto === null ? undefined : this.byClass.get(proto.constructor);
    if (stack !== undefined) {
      for (let i = stack.length - 1; i >= 0; i--) {
        const r = stack[i]!;
        if (r.serializer.accepts === undefined || r.serializer.accepts(value)) return r;
      }
      return undefined;
    }
    for (const r of this.matchers) {
      if (r.serializer.matches!(value) && (r.serializer.accepts === undefined || r.serializer.accepts(value))) return r;
    }
    return undefined;
  }

  /** The registration that writes `value` at the top level of a frame. */
  private forValue(value: unknown): Registration {
    switch (typeof value) {
      case "boolean": return this.byId("bool");
      case "string": return this.byId("str");
      case "bigint": return this.byId("int");
      case "number": return this.byId(Number.isSafeInteger(value) && !Object.is(value, -0) ? "int" : "float");
      case "object": {
        if (value === null) return this.byId("None");
        const native = NATIVE_PROTOS.get(Object.getPrototypeOf(value) ?? Object.prototype);
        if (native !== undefined) return this.byId(native);
        const found = this.forObject(value);
        if (found !== undefined) return found;
        throw new SerializationError(`no serializer is registered for a ${value.constructor?.name ?? "null-prototype object"}; register one with registry.registerSerializer(classId, Class, serializer)`, "obj");
      }
      default:
        throw new SerializationError(`${value === undefined ? "undefined" : `a ${typeof value}`} has no serreg form (use null for None)`, "obj");
    }
  }

  /** Serialize `value`: the result's in-band starts with its ClassIDHash; `toBytes()` gives the frame. */
  serialize(value: unknown, options: SerializeOptions = {}): SerializationResult {
    const key = options.key === undefined ? null : toSigningKey(options.key);
    const encoder = new Encoder(this, options.crossLanguage ?? false, this.limits.maxDepth, this.limits.maxMsgpackNesting ?? Infinity);
    const w = spareWriter ?? new Writer();
    w.ensure(HEADER_SIZE);
    spareWriter = null;
    try {
      if (value instanceof OpaqueValue) {
        encoder.nested(w, value); // validates crossLanguage; then keep only the section
        const section = new Uint8Array(8 + value.inBand.length);
        section.set(value.classIdHash, 0);
        section.set(value.inBand, 8);
        return new SerializationResult(section, [...value.buffers], key);
      }
      const registration = this.forValue(value);
      w.pos = HEADER_SIZE; // room for the frame header: toBytes() then needs no copy
      w.raw(this.structs.topLevelHash(value, registration));
      encoder.body(w, registration.serializer, registration.classId, value);
      const table = this.structs.table(encoder);
      if (table !== null) return SerializationResult.withHeaderRoom(withTable(w, table), encoder.oob, key);
      return SerializationResult.withHeaderRoom(w.buf.slice(0, w.pos), encoder.oob, key);
    } catch (error) {
      if (error instanceof SerializationError && error.path === null) error.within("");
      throw error;
    } finally {
      w.reset();
      if (w.buf.length <= 1 << 20) spareWriter = w;
    }
  }

  /** Turn a frame (or an in-process SerializationResult) back into a value. */
  deserialize(data: FrameInput, options: DeserializeOptions = {}): unknown {
    const limits = options.limits ?? this.limits;
    const trusted = options.trusted ?? this.trusted;
    const decoder = (frameSize: number): Decoder => new Decoder(this, limits, trusted ? null : this.allowed, options.exactFloats ?? true, options.dicts ?? "auto", frameSize);
    const key = options.key === undefined ? null : toSigningKey(options.key);
    if (data instanceof SerializationResult) {
      if (key !== null) checkResultKey(data, key);
      const context = decoder(data.inBand.length + data.buffers.reduce((n, b) => n + b.length, 0));
      const oob = new OutOfBand(data.buffers);
      const value = context.section(data.inBand, oob, null, true);
      checkAllUsed(oob, "serialization result");
      return value;
    }
    let bytes = asBytes(data);
    // Decision 2: with a key, verify and decode the same bytes: a private copy of the frame.
    if (key !== null) bytes = bytes.slice();
    const frame = readFrame(bytes, limits, key);
    const context = decoder(bytes.length);
    const oob = new OutOfBand(frame.buffers);
    const value = context.section(frame.inBand, oob, frame.inBandOffset, true);
    checkAllUsed(oob, "frame");
    return value;
  }
}

/** Header room + ClassIDHash("serreg.structs") + table + the value's section (docs/FORMAT.md 10.1). */
function withTable(w: Writer, table: Uint8Array): Uint8Array {
  const section = w.buf.subarray(HEADER_SIZE, w.pos);
  const out = new Uint8Array(HEADER_SIZE + STRUCTS_HASH.length + table.length + section.length);
  out.set(STRUCTS_HASH, HEADER_SIZE);
  out.set(table, HEADER_SIZE + STRUCTS_HASH.length);
  out.set(section, HEADER_SIZE + STRUCTS_HASH.length + table.length);
  return out;
}

const STRUCTS_HASH = classIdHash("serreg.structs");

function asBytes(data: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && data instanceof SharedArrayBuffer)) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError(`deserialize takes a Uint8Array, ArrayBuffer, DataView or SerializationResult, not ${typeof data}`);
}

function checkAllUsed(oob: OutOfBand, what: string): void {
  if (oob.remaining) throw new DeserializationError(`the ${what} holds ${oob.remaining} out-of-band buffer(s) that no serializer used`);
}

function checkResultKey(result: SerializationResult, key: SigningKey): void {
  if (result.key === null) throw new SignatureError("the serialization result is not signed, but a key was given; serialize it with a key or deserialize without one");
  if (!timingSafeEqual(result.key.macKey, key.macKey)) throw new SignatureError("the serialization result was signed with another key");
}

function sameClasses(a: readonly Function[], b: readonly Function[]): boolean {
  return a.length === b.length && a.every((cls) => b.includes(cls));
}

function names(classes: readonly Function[]): string {
  return classes.length ? classes.map((c) => c.name).join(", ") : "(no class)";
}

/** Installers run by `new Registry()` (standard, numpy, Arrow), added by the package entry point. */
const STANDARD_INSTALLERS: ((registry: Registry) => void)[] = [];

export function addStandardInstaller(install: (registry: Registry) => void): void {
  STANDARD_INSTALLERS.push(install);
}
