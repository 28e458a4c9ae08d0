/**
 * Struct field types (docs/FORMAT.md 10.2): how a TypeScript program declares
 * them (`"int32"`, `t.list("str")`, `t.struct(Point)`...), the resolved
 * {@link FieldType} the codec uses, the wire grammar parsed back from a frame,
 * and the evolution rule of 10.4 ({@link widens}).
 *
 * TypeScript has no runtime annotations, so every field is declared with its
 * wire type. Integers are `number` (checked to be safe integers in range),
 * except `"bigint64"` and `"biguint64"` (wire `int64` / `uint64`, values
 * `bigint`), named after JS's `BigInt64Array`. The static type of each spec
 * ({@link TsOf}) is what a reader builds.
 */
import type * as arrow from "apache-arrow";
import { DeserializationError } from "../errors.js";
import type { Writer } from "../msgpack/writer.js";
import type { StdlibNdarray } from "../numpy/ndarray.js";
import type { Decimal, UUID } from "../types/decimalUuid.js";
import type { PyDate, PyDateTime, PyTime, TimeDelta } from "../types/time.js";

/** Static type of each atom spec: what a reader builds for it. */
export interface AtomTypes {
  bool: boolean;
  int8: number; int16: number; int32: number; int64: number;
  uint8: number; uint16: number; uint32: number; uint64: number;
  bigint64: bigint; biguint64: bigint;
  float32: number; float64: number;
  str: string; bytes: Uint8Array; enum: string; any: unknown;
  datetime: PyDateTime; date: PyDate; time: PyTime; timedelta: TimeDelta; decimal: Decimal; uuid: UUID;
  "numpy.ndarray": StdlibNdarray; ArrowTable: arrow.Table; ArrowRecordBatch: arrow.RecordBatch;
}
export type Atom = keyof AtomTypes;

/** A composite field type built with {@link t}; `T` is the value type a reader builds. */
export class TypeNode<T> {
  declare readonly __value?: T;
  /** @internal */
  constructor(
    readonly kind: "optional" | "list" | "set" | "map" | "tuple" | "struct" | "enum",
    readonly items: readonly FieldSpec[],
    /** struct: the class (or its class ID); enum: name -> value. */
    readonly target: Function | string | ReadonlyMap<string, unknown> | null = null,
  ) {}
}

export type FieldSpec = Atom | TypeNode<unknown>;
export type TsOf<S> = S extends Atom ? AtomTypes[S] : S extends TypeNode<infer T> ? T : never;
/** A struct's fields: name -> type, in wire order. */
export type Fields = Readonly<Record<string, FieldSpec>>;
/** The object a struct of these fields reads as. */
export type StructOf<F extends Fields> = { -readonly [K in keyof F]: TsOf<F[K]> };

type EnumObject = Readonly<Record<string, string | number>>;

/** Builders of composite field types (docs/FORMAT.md 10.2). */
export const t = {
  /** `["optional", T]`: null (undefined is written as null too), or a T. */
  optional<S extends FieldSpec>(item: S): TypeNode<TsOf<S> | null> {
    return new TypeNode("optional", [item]);
  },
  /** `["list", T]`: an Array (a `Tuple` is written too). */
  list<S extends FieldSpec>(item: S): TypeNode<TsOf<S>[]> {
    return new TypeNode("list", [item]);
  },
  /** `["set", T]`: a Set (members written sorted by their bytes, as `set`). */
  set<S extends FieldSpec>(item: S): TypeNode<Set<TsOf<S>>> {
    return new TypeNode("set", [item]);
  },
  /** `["map", K, V]`: a Map (a plain object is written too when K is "str"). */
  map<K extends FieldSpec, V extends FieldSpec>(key: K, value: V): TypeNode<Map<TsOf<K>, TsOf<V>>> {
    return new TypeNode("map", [key, value]);
  },
  /** `["tuple", [T1, ..., Tn]]`: an Array of exactly n values. */
  tuple<S extends FieldSpec[]>(...items: S): TypeNode<{ -readonly [I in keyof S]: TsOf<S[I]> }> {
    return new TypeNode("tuple", items);
  },
  /** `["struct", C]`: an instance of a registered struct class (or a `StructValue` of class ID C). */
  struct<C extends abstract new (...args: any[]) => any>(target: C | string): TypeNode<InstanceType<C>> {
    if (typeof target !== "function" && (typeof target !== "string" || !target)) throw new TypeError("t.struct takes a struct class or a non-empty class ID");
    return new TypeNode("struct", [], target);
  },
  /**
   * `"enum"`, written as the member's name: a TypeScript enum object (numeric or
   * string; its keys are the names) or the list of names (values are then the names).
   */
  enum<E extends EnumObject | readonly string[]>(members: E): TypeNode<E extends readonly string[] ? E[number] : E[keyof E]> {
    const byName = new Map<string, unknown>();
    if (Array.isArray(members)) for (const name of members) byName.set(String(name), name);
    else for (const [name, value] of Object.entries(members)) if (!/^\d+$/.test(name)) byName.set(name, value);
    if (!byName.size) throw new TypeError("t.enum needs at least one member");
    return new TypeNode("enum", [], byName);
  },
};

const INT_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n], int16: [-(2n ** 15n), 2n ** 15n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n], int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 2n ** 8n - 1n], uint16: [0n, 2n ** 16n - 1n], uint32: [0n, 2n ** 32n - 1n], uint64: [0n, 2n ** 64n - 1n],
};
/** Atoms written as ext 0 of exactly that class ID. */
export const EXT0_ATOMS: ReadonlySet<string> = new Set(["datetime", "date", "time", "timedelta", "decimal", "uuid", "numpy.ndarray", "ArrowTable", "ArrowRecordBatch"]);
const WIRE_ATOMS: ReadonlySet<string> = new Set(["bool", "float32", "float64", "str", "bytes", "enum", "any", ...Object.keys(INT_RANGES), ...EXT0_ATOMS]);
const ARITY: Readonly<Record<string, number>> = { optional: 1, list: 1, set: 1, map: 2 };
export const MAX_TYPE_DEPTH = 32;

/** One resolved node of a field type: its wire kind, item types and, for readers, how values are built. */
export class FieldType {
  /** The wire form as JSON: equal types have equal keys. */
  readonly key: string;
  constructor(
    readonly kind: string,
    readonly args: readonly FieldType[] = [],
    /** struct: the class ID. */
    readonly classId: string | null = null,
    /** int64 / uint64 read as bigint. */
    readonly big = false,
    /** enum: name -> value (null: the names themselves). */
    readonly members: ReadonlyMap<string, unknown> | null = null,
  ) {
    this.key = JSON.stringify(this.wire());
  }

  /** The msgpack form of this type, as JS values. */
  wire(): unknown {
    if (WIRE_ATOMS.has(this.kind)) return this.kind;
    if (this.kind === "struct") return ["struct", this.classId];
    if (this.kind === "tuple") return ["tuple", this.args.map((a) => a.wire())];
    return [this.kind, ...this.args.map((a) => a.wire())];
  }

  /** The integer range of an int kind, or null. */
  get range(): readonly [bigint, bigint] | null {
    return INT_RANGES[this.kind] ?? null;
  }

  toString(): string {
    return describeType(this);
  }
}

/** A type as people read it: `list[int32]`, `optional[struct example.Point]`. */
export function describeType(type: FieldType): string {
  if (WIRE_ATOMS.has(type.kind)) return type.kind;
  if (type.kind === "struct") return `struct ${type.classId}`;
  return `${type.kind}[${type.args.map(describeType).join(", ")}]`;
}

/** Writes a type's wire form (10.2) into `w`. */
export function writeType(w: Writer, type: FieldType): void {
  if (WIRE_ATOMS.has(type.kind)) return w.str(type.kind);
  if (type.kind === "struct") {
    w.arrayHeader(2);
    w.str("struct");
    w.str(type.classId!);
    return;
  }
  if (type.kind === "tuple") {
    w.arrayHeader(2);
    w.str("tuple");
    w.arrayHeader(type.args.length);
    for (const a of type.args) writeType(w, a);
    return;
  }
  w.arrayHeader(1 + type.args.length);
  w.str(type.kind);
  for (const a of type.args) writeType(w, a);
}

/** Resolves a declared spec; `classIdOf` names the class ID of a struct class (throws if unregistered). */
export function resolve(spec: FieldSpec, where: string, classIdOf: (cls: Function) => string, depth = 0): FieldType {
  if (depth > MAX_TYPE_DEPTH) throw new TypeError(`${where}: field type nested more than ${MAX_TYPE_DEPTH} deep`);
  if (typeof spec === "string") {
    if (spec === "bigint64") return new FieldType("int64", [], null, true);
    if (spec === "biguint64") return new FieldType("uint64", [], null, true);
    if (!WIRE_ATOMS.has(spec)) throw new TypeError(`${where}: unknown field type ${JSON.stringify(spec)}`);
    return new FieldType(spec);
  }
  if (!(spec instanceof TypeNode)) throw new TypeError(`${where}: a field type is a type name ("int64", "str"...) or built with t.list(...), t.struct(...)...`);
  switch (spec.kind) {
    case "struct":
      return new FieldType("struct", [], typeof spec.target === "string" ? spec.target : classIdOf(spec.target as Function));
    case "enum":
      return new FieldType("enum", [], null, false, spec.target as ReadonlyMap<string, unknown>);
    default:
      return new FieldType(spec.kind, spec.items.map((s) => resolve(s, where, classIdOf, depth + 1)));
  }
}

/** The FieldType of a type read from a frame (10.2); DeserializationError naming `where` if malformed. */
export function parseType(value: unknown, where: string, depth = 0): FieldType {
  if (depth > MAX_TYPE_DEPTH) throw new DeserializationError(`${where}: field type nested more than ${MAX_TYPE_DEPTH} deep`);
  if (typeof value === "string") {
    if (!WIRE_ATOMS.has(value)) throw new DeserializationError(`${where}: unknown field type ${JSON.stringify(value)}`);
    return new FieldType(value);
  }
  if (!Array.isArray(value) || typeof value[0] !== "string") {
    throw new DeserializationError(`${where}: a field type must be a str or an array starting with a str`);
  }
  const kind = value[0];
  if (kind === "struct") {
    if (value.length !== 2 || typeof value[1] !== "string" || !value[1]) throw new DeserializationError(`${where}: a struct field type is ["struct", class ID]`);
    return new FieldType("struct", [], value[1]);
  }
  if (kind === "tuple") {
    if (value.length !== 2 || !Array.isArray(value[1])) throw new DeserializationError(`${where}: a tuple field type is ["tuple", [types]]`);
    return new FieldType("tuple", (value[1] as unknown[]).map((v) => parseType(v, where, depth + 1)));
  }
  const arity = ARITY[kind];
  if (arity === undefined) throw new DeserializationError(`${where}: unknown field type ${JSON.stringify(kind)}`);
  if (value.length !== arity + 1) throw new DeserializationError(`${where}: a ${kind} field type has ${arity} type argument(s), got ${value.length - 1}`);
  return new FieldType(kind, value.slice(1).map((v) => parseType(v, where, depth + 1)));
}

/** How an ext 2 column of this type is packed (10.3): LEB128 ints, little-endian floats, bool bytes, or null (an array of values). */
export function packedColumn(type: FieldType): "int" | "float64" | "float32" | "bool" | null {
  if (type.range !== null) return "int";
  return type.kind === "float64" || type.kind === "float32" || type.kind === "bool" ? type.kind : null;
}

/** True if values of the writer's type read as the reader's: equal, or a widening of 10.4. */
export function widens(writer: FieldType, reader: FieldType): boolean {
  if (writer.key === reader.key || reader.kind === "any") return true;
  if (reader.kind === "optional") return widens(writer.kind === "optional" ? writer.args[0]! : writer, reader.args[0]!);
  const w = writer.range;
  const r = reader.range;
  if (w !== null && r !== null) return r[0] <= w[0] && w[1] <= r[1];
  if (writer.kind === "float32" && reader.kind === "float64") return true;
  if (writer.kind !== reader.kind || writer.args.length !== reader.args.length) return false;
  if (["list", "set", "map", "tuple"].includes(writer.kind)) return writer.args.every((a, i) => widens(a, reader.args[i]!));
  return false;
}
