/**
 * The errors serreg raises. Every one is a {@link SerregError}; the names and
 * fields mirror Python's `serreg.errors` and Java's exceptions.
 *
 * Serialization errors carry the path of the offending value inside the object
 * given to `serialize` (for example `obj["rows"][3]`); deserialization errors carry
 * the byte offset in the frame and the class ID being decoded, where known, and
 * `nesting`: the class IDs of the values around the one that failed, outermost first.
 */

export class SerregError extends Error {
  override name = "SerregError";
}

export class SerializationError extends SerregError {
  override name = "SerializationError";
  /** Where the value sits in the object given to serialize (`obj` for the object itself). */
  path: string | null;
  readonly reason: string;

  constructor(message: string, path: string | null = null) {
    super(message);
    this.reason = message;
    this.path = path;
    this.refresh();
  }

  /** Prefixes a path step (used as the error travels out of nested containers). */
  within(step: string): this {
    this.path = this.path === null ? `obj${step}` : `obj${step}${this.path.slice(3)}`;
    this.refresh();
    return this;
  }

  private refresh(): void {
    this.message = this.path === null ? this.reason : `${this.reason} (at ${this.path})`;
  }
}

/** `crossLanguage: true` met a value that only Python can read (an opaque pickle, implicit structs or dataclass). */
export class CrossLanguageError extends SerializationError {
  override name = "CrossLanguageError";
}

export class DeserializationError extends SerregError {
  override name = "DeserializationError";
  readonly reason: string;
  offset: number | null;
  classId: string | null;
  readonly nesting: string[] = [];
  /** Set once the registry gave the error the class ID of the value that failed. */
  located = false;

  constructor(message: string, offset: number | null = null, classId: string | null = null) {
    super(message);
    this.reason = message;
    this.offset = offset;
    this.classId = classId;
    this.refresh();
  }

  /** Recomputes `message` from the reason, class ID, offset and nesting. */
  refresh(): void {
    const details: string[] = [];
    if (this.classId !== null) details.push(`class ID '${this.classId}'`);
    if (this.offset !== null) details.push(`byte offset ${this.offset}`);
    if (this.nesting.length) details.push(`inside ${this.nesting.join(" > ")}`);
    this.message = details.length ? `${this.reason} (${details.join(", ")})` : this.reason;
  }
}

/** The frame goes beyond one of the configured {@link Limits}. */
export class LimitExceededError extends DeserializationError {
  override name = "LimitExceededError";
}

/** Untrusted mode met `serreg.pickle5`, `serreg.pyobjects`, `serreg.dataclass` or a class ID outside the allow-list. */
export class UntrustedClassIDError extends DeserializationError {
  override name = "UntrustedClassIDError";
}

/** A key was given and the frame is unsigned, signed with another key, altered, or signed the v1 way. */
export class SignatureError extends DeserializationError {
  override name = "SignatureError";
}

/** No serializer is registered under a class ID or ClassIDHash. */
export class UnknownClassIDError extends DeserializationError {
  override name = "UnknownClassIDError";
}

/** The frame is an error frame (class ID `serreg.error`) sent by a peer. */
export class RemoteError extends DeserializationError {
  override name = "RemoteError";
  readonly remoteMessage: string;

  constructor(message: string) {
    super(message);
    this.remoteMessage = message;
  }
}

/** Asking an opaque value (a Python-only value carried unread) for its contents. */
export class OpaqueValueError extends SerregError {
  override name = "OpaqueValueError";
}

/** Registration refused (class ID bound elsewhere, ClassIDHash collision, bad arguments). */
export class RegistrationError extends SerregError {
  override name = "RegistrationError";
}
