/**
 * {@link OpaqueValue}: a value TypeScript cannot read (the Python fallback
 * `serreg.pickle5`, Python's implicit structs `serreg.pyobjects`, a `serreg.dataclass`,
 * or a class ID with no serializer here),
 * kept byte-identical: its serializer in-band and its out-of-band buffers, as
 * views of the frame it came from. Serializing it writes exactly those bytes back
 * under the same ClassIDHash (docs/FORMAT.md, sections 3 and 7).
 */
import { OpaqueValueError } from "../errors.js";
import { toHex } from "../classId.js";

export class OpaqueValue {
  /** The 8-byte ClassIDHash. */
  readonly classIdHash: Uint8Array;
  /** The class ID, or null when only its hash is known. */
  readonly classId: string | null;
  /** The serializer in-band bytes (without the ClassIDHash). */
  readonly inBand: Uint8Array;
  readonly buffers: readonly Uint8Array[];

  constructor(classIdHash: Uint8Array, classId: string | null, inBand: Uint8Array, buffers: readonly Uint8Array[]) {
    if (classIdHash.length !== 8) throw new TypeError("a ClassIDHash is 8 bytes");
    this.classIdHash = classIdHash;
    this.classId = classId;
    this.inBand = inBand;
    this.buffers = Object.freeze([...buffers]);
  }

  /** Always throws: the contents can only be read by another language. */
  contents(): never {
    throw new OpaqueValueError(`this value has ${this.describe()}, which TypeScript has no serializer for; it can be passed on and sent back unchanged, but not read here`);
  }

  describe(): string {
    return this.classId !== null ? `class ID '${this.classId}'` : `unknown ClassIDHash ${toHex(this.classIdHash)}`;
  }

  toString(): string {
    return `OpaqueValue(${this.describe()}, ${this.inBand.length} in-band bytes, ${this.buffers.length} buffers)`;
  }
}
