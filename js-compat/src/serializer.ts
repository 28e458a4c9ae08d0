/**
 * The serializer protocol: what a class ID is bound to (mirrors Python's
 * `serreg.Serializer` and Java's `serreg.Serializer`).
 *
 * `serialize` returns the value's in-band bytes (without the ClassIDHash, which
 * the registry adds) and its out-of-band buffers; `deserialize` gets the in-band
 * bytes and the frame's shared {@link OutOfBand} cursor and takes exactly the
 * buffers it wrote, in order. Both get the call's context, which packs and
 * unpacks msgpack value trees whose non-native values are nested serreg values
 * (ext 0), so a serializer can hold arbitrary serreg values.
 */
import type { Writer } from "./msgpack/writer.js";
import type { OutOfBand } from "./oob.js";
import type { SerializationResult } from "./result.js";

/**
 * What a serializer may use of the serialize call it serves (the codec's
 * `Encoder` in encode.ts implements it): the call's out-of-band buffers and
 * per-call extension state, and the packing of value trees.
 */
export interface Encoder {
  /** Out-of-band buffers of the call so far, in document order. */
  oob: Uint8Array[];
  /** Per-call state of extensions (ext types 1..127): one serialize call is one scope. */
  readonly scope: Map<unknown, unknown>;
  readonly crossLanguage: boolean;
  /** Packs a value tree into msgpack bytes plus the buffers of the nested values in it. */
  pack(value: unknown): SerializationResult;
  /** Writes `root` as one msgpack value into `w` (a list of struct instances of one definition as ext 2). */
  tree(w: Writer, root: unknown): void;
  /** Writes `items` as a msgpack array, whatever they hold (a tuple's in-band: never ext 2). */
  array(w: Writer, items: readonly unknown[]): void;
}

/**
 * What a serializer may use of the deserialize call it serves (decode.ts's
 * `Decoder` implements it).
 */
export interface DecodeContext {
  /** Per-call state of extensions (ext types 1..127): one deserialize call is one scope. */
  readonly scope: Map<unknown, unknown>;
  readonly trusted: boolean;
  readonly exactFloats: boolean;
  /**
   * True while the section being decoded is the frame's top-level value, which owns
   * every buffer left; read it before decoding anything nested (that changes it).
   */
  readonly topLevel: boolean;
  /**
   * Decodes one msgpack value tree; its ext 0 values are nested serreg values sharing `oob`.
   * `exactFloats` overrides the call's option for the tree's own floats.
   */
  unpack(bytes: Uint8Array, oob: OutOfBand, base: number | null, exactFloats?: boolean): unknown;
  /** Decodes one plain msgpack value (a serializer's own header: no nested values). */
  plain(bytes: Uint8Array, base: number | null): unknown;
  /** Decodes an in-band section (ClassIDHash + in-band); `topLevel`: it owns every buffer left. */
  section(section: Uint8Array, oob: OutOfBand, base: number | null, topLevel: boolean): unknown;
  /**
   * Counts `cost` bytes a serializer is about to build for `what` against the call's memory
   * budget (Limits `memoryAllowance + memoryPerByte x frame size`); LimitExceededError once spent.
   */
  charge(cost: number, what: string): void;
}

export interface Serializer<T = any> {
  /** In-band bytes (one msgpack value for the standard types) and out-of-band buffers. */
  serialize(value: T, context: Encoder): SerializationResult;
  /**
   * The value back from its in-band bytes; `base` is the frame offset of
   * `inBand[0]` (null when not from a frame), for error messages.
   */
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): T;
  /** Optional: false passes a value of the registered class on (it is then refused). */
  accepts?(value: T): boolean;
  /** Optional: true for values of other classes this serializer serves (duck typing). */
  matches?(value: unknown): boolean;
  /** Optional fast path: write the in-band straight into `w` (buffers go to `context.oob`). */
  write?(w: Writer, value: T, context: Encoder): void;
}

/**
 * A msgpack ext type other than 0 (1..127 are reserved by docs/FORMAT.md section 3
 * until defined), plugged into the codec: cross-language structs use it for ext 1
 * and ext 2 (docs/FORMAT.md 10.3). `context.scope` / `encoder.scope` hold per-call state
 * (the struct table whose indices hold for one serialize or deserialize call).
 * Ext values read through an extension count against `maxDepth` like ext 0.
 */
export interface ExtensionType {
  /** The value of one ext of this type, from its payload. */
  read(payload: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): unknown;
  /** True for the values this extension writes (asked before the class lookup). */
  writes(value: unknown): boolean;
  /** Writes `value` as one complete msgpack ext of this type (use w.beginExt/endExt). */
  write(w: Writer, value: unknown, context: Encoder): void;
  /**
   * Optional: offered every non-empty Array the codec is about to write as a msgpack
   * array; returns true when it wrote the whole list itself (as one ext of this type),
   * false to leave it to the codec. Struct lists use it for ext 2 (docs/FORMAT.md 10.3).
   */
  writeArray?(w: Writer, items: readonly unknown[], context: Encoder): boolean;
}

/** A class ID bound to a serializer and the classes it serves. */
export interface Registration {
  readonly classId: string;
  readonly hash: Uint8Array;
  /** The lookup key of the hash (its 8 bytes as char codes). */
  readonly key: string;
  readonly serializer: Serializer;
  readonly classes: readonly Function[];
}

/** What encoding and decoding need from a registry. */
export interface RegistryTables {
  byHash(key: string): Registration | undefined;
  /** The registration that writes `value` (exact class, then serializers' `matches`), or undefined. */
  forObject(value: object): Registration | undefined;
  /** The registration under a class ID (must exist). */
  byId(classId: string): Registration;
  /** Registered ext types other than 0, by type code. */
  readonly extensions: ReadonlyMap<number, ExtensionType>;
}
