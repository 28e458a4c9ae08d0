/**
 * The read side: one deserialize call's context. It decodes in-band sections
 * (ClassIDHash + serializer in-band) through the registry, checks trust and
 * depth before a serializer sees a byte (docs/FORMAT.md, sections 4.3 and 4.4),
 * keeps values of unknown class IDs opaque where the buffers they own are
 * certain (section 3), and turns every failure into a DeserializationError
 * that names the class IDs around it and the byte offset.
 */
import { CLASS_ID_HASH_SIZE, hashKey, toHex } from "./classId.js";
import { DeserializationError, LimitExceededError, RemoteError, SerregError, UntrustedClassIDError } from "./errors.js";
import { Limits } from "./limits.js";
import { readDocument, type ExtReader } from "./msgpack/reader.js";
import { OutOfBand } from "./oob.js";
import type { DecodeContext, ExtensionType, RegistryTables } from "./serializer.js";
import { OpaqueValue } from "./types/opaque.js";
import { PYOBJECTS_CLASS_ID, PYTHON_ONLY_CLASS_IDS, pythonOnlyClassId } from "./pythonOnly.js";

/** Class IDs whose decoding runs code in Python: never decoded in untrusted mode. */
export const CODE_LOADING_CLASS_IDS: ReadonlySet<string> = PYTHON_ONLY_CLASS_IDS;

export class Decoder implements DecodeContext {
  private depth = 0;
  /** True while the section being decoded is the frame's top-level value (read it before decoding anything nested). */
  topLevel = false;
  private extensionScope: Map<unknown, unknown> | null = null;

  /** Per-call state of extensions (ext types 1..127): one deserialize call is one scope. */
  get scope(): Map<unknown, unknown> {
    return (this.extensionScope ??= new Map());
  }

  /** Bytes serializers may still build (null: no budget), and the budget's size. */
  private budget: number | null;
  private readonly budgetSize: number;

  constructor(
    readonly tables: RegistryTables,
    readonly limits: Limits,
    /** ClassIDHash keys untrusted mode decodes, or null in trusted mode. */
    readonly allowed: ReadonlySet<string> | null,
    readonly exactFloats: boolean,
    readonly dicts: "auto" | "map",
    /** The size of the frame being read (what the memory budget grows with). */
    private readonly frameSize: number,
  ) {
    const { memoryPerByte, memoryAllowance } = limits;
    this.budgetSize = memoryPerByte === null || memoryAllowance === null ? 0 : memoryAllowance + memoryPerByte * frameSize;
    this.budget = memoryPerByte === null || memoryAllowance === null ? null : this.budgetSize;
  }

  charge(cost: number, what: string): void {
    if (this.budget === null) return;
    this.budget -= cost;
    if (this.budget < 0) {
      throw new LimitExceededError(`decoding would build more than ${this.budgetSize.toLocaleString("en-US")} bytes of ${what} and other charged values for a frame of ${this.frameSize.toLocaleString("en-US")} bytes (memoryAllowance + memoryPerByte x frame size); raise it with new Limits({ memoryPerByte }) if such frames are expected`);
    }
  }

  get trusted(): boolean {
    return this.allowed === null;
  }

  /**
   * Decodes one msgpack value tree; its ext 0 values are nested serreg values sharing `oob`.
   * `exactFloats` overrides the call's option for this tree's own floats (struct fields need it).
   */
  unpack(bytes: Uint8Array, oob: OutOfBand, base: number | null, exactFloats?: boolean): unknown {
    // The ext readers are made once per call; they read the document being decoded from
    // docOob / docBase, which nested unpack calls set and restore (ext values are read synchronously).
    const savedOob = this.docOob;
    const savedBase = this.docBase;
    this.docOob = oob;
    this.docBase = base;
    try {
      return readDocument(bytes, {
        extTypes: this.extReaders ??= this.makeExtReaders(),
        ext: this.nestedReader,
        maxNesting: this.limits.maxMsgpackNesting,
        exactFloats: exactFloats ?? this.exactFloats,
        dicts: this.dicts,
        base,
      });
    } finally {
      this.docOob = savedOob;
      this.docBase = savedBase;
    }
  }

  private docOob: OutOfBand | null = null;
  private docBase: number | null = null;
  private extReaders: Map<number, ExtReader> | null | undefined = undefined;
  private readonly nestedReader: ExtReader = (buf, start, length) =>
    this.section(buf.subarray(start, start + length), this.docOob!, this.docBase === null ? null : this.docBase + start, false);

  private makeExtReaders(): Map<number, ExtReader> | null {
    const extensions = this.tables.extensions;
    if (!extensions.size) return null;
    const readers = new Map<number, ExtReader>();
    for (const [type, extension] of extensions) {
      readers.set(type, (buf, start, length) => this.extension(extension, buf.subarray(start, start + length), this.docOob!, this.docBase === null ? null : this.docBase + start));
    }
    return readers;
  }

  /** An ext value of a registered extension type: counts against maxDepth like a nested value (ext 0). */
  private extension(extension: ExtensionType, payload: Uint8Array, oob: OutOfBand, base: number | null): unknown {
    const depth = this.depth + 1;
    if (this.limits.maxDepth !== null && depth > this.limits.maxDepth) {
      throw located(new LimitExceededError(`values are nested more than maxDepth=${this.limits.maxDepth} deep; raise it with new Limits({ maxDepth }) if such values are expected`, base));
    }
    this.depth = depth;
    this.topLevel = false;
    try {
      return extension.read(payload, oob, this, base);
    } finally {
      this.depth = depth - 1;
    }
  }

  /** Decodes one plain msgpack value (a serializer's own header: no nested values). */
  plain(bytes: Uint8Array, base: number | null): unknown {
    return readDocument(bytes, { ext: null, maxNesting: this.limits.maxMsgpackNesting, exactFloats: true, dicts: "auto", base });
  }

  /**
   * Decodes an in-band section. `topLevel`: the value owns every buffer left
   * (so a value of unknown class ID can be kept opaque with them).
   */
  section(section: Uint8Array, oob: OutOfBand, base: number | null, topLevel: boolean): unknown {
    if (section.length < CLASS_ID_HASH_SIZE) {
      throw new DeserializationError(`in-band section of ${section.length} bytes is too short to hold a ClassIDHash`, base);
    }
    const key = hashKey(section);
    const registration = this.tables.byHash(key);
    if (this.allowed !== null && !this.allowed.has(key)) throw refusal(toHex(section, 0, CLASS_ID_HASH_SIZE), registration?.classId ?? pythonOnlyClassId(section), base);
    const depth = this.depth + 1;
    if (this.limits.maxDepth !== null && depth > this.limits.maxDepth) {
      throw located(new LimitExceededError(`values are nested more than maxDepth=${this.limits.maxDepth} deep; raise it with new Limits({ maxDepth }) if such values are expected`, base));
    }
    const inBand = section.subarray(CLASS_ID_HASH_SIZE);
    const inBase = base === null ? null : base + CLASS_ID_HASH_SIZE;
    if (registration === undefined) return this.opaque(section, inBand, oob, topLevel, base);
    this.depth = depth;
    this.topLevel = topLevel;
    try {
      return registration.serializer.deserialize(inBand, oob, this, inBase);
    } catch (error) {
      throw explain(error, registration.classId, base);
    } finally {
      this.depth = depth - 1;
    }
  }

  private opaque(section: Uint8Array, inBand: Uint8Array, oob: OutOfBand, topLevel: boolean, base: number | null): OpaqueValue {
    const hash = section.subarray(0, CLASS_ID_HASH_SIZE);
    // serreg.pyobjects has no serializer here but is named, as serreg.pickle5 is.
    const classId = pythonOnlyClassId(hash);
    if (topLevel) return new OpaqueValue(hash, classId, inBand, oob.takeAll());
    if (oob.remaining > 0) {
      throw located(new DeserializationError(`a nested value of unknown ClassIDHash ${toHex(section, 0, CLASS_ID_HASH_SIZE)} is followed by out-of-band buffers, and without its serializer TypeScript cannot tell how many of them it owns; register a serializer for its class ID`, base));
    }
    return new OpaqueValue(hash, classId, inBand, []);
  }
}

function located<E extends DeserializationError>(error: E): E {
  error.located = true;
  return error;
}

/** Gives an error the class ID and offset of the value that failed, or adds this value to its nesting. */
function explain(error: unknown, classId: string, base: number | null): unknown {
  if (error instanceof RemoteError) return error;
  if (error instanceof DeserializationError) {
    if (error.located) error.nesting.unshift(classId);
    else {
      error.located = true;
      error.classId ??= classId;
      error.offset ??= base;
    }
    error.refresh();
    return error;
  }
  if (error instanceof SerregError) return error;
  const e = error as Error;
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return located(new DeserializationError("nested values are too deep to decode (the JS stack ran out first); lower new Limits({ maxDepth })", base, classId));
  }
  // A catch-all: the cause says a check is missing (the check fixture reports such refusals as escapes).
  const wrapped = located(new DeserializationError(`could not decode the value: ${e?.name ?? "Error"}: ${e?.message ?? String(error)}`, base, classId));
  wrapped.cause = error;
  return wrapped;
}

function refusal(key: string, classId: string | null, base: number | null): UntrustedClassIDError {
  let message: string;
  if (classId === "serreg.pickle5") {
    message = "the frame holds a pickled value (class ID 'serreg.pickle5'), and this is an untrusted deserialize: unpickling runs code chosen by whoever wrote the frame. TypeScript never unpickles, but untrusted mode refuses such frames outright; pass trusted: true only for frames from a sender you trust (it is then carried as an opaque value)";
  } else if (classId === PYOBJECTS_CLASS_ID) {
    message = "the frame holds Python objects whose classes are pickled (class ID 'serreg.pyobjects'), and this is an untrusted deserialize: unpickling those classes runs code chosen by whoever wrote the frame. TypeScript never unpickles, but untrusted mode refuses such frames outright; pass trusted: true only for frames from a sender you trust (it is then carried as an opaque value)";
  } else if (classId === "serreg.dataclass") {
    message = "the frame holds a 'serreg.dataclass' value, and this is an untrusted deserialize: decoding it in Python imports the module the frame names. Pass trusted: true only for frames from a sender you trust (it is then carried as an opaque value)";
  } else if (classId === null) {
    message = `ClassIDHash ${key} is not on the allow-list for untrusted data (and no serializer is registered for it); register the writer's class ID and allow it with registry.allowClassIds(classId) if its serializer is safe on hostile bytes`;
  } else {
    message = `class ID '${classId}' is not on the allow-list for untrusted data; if its serializer is safe on hostile bytes, allow it with registry.allowClassIds('${classId}'), or deserialize with trusted: true for a sender you trust`;
  }
  return located(new UntrustedClassIDError(message, base, classId));
}
