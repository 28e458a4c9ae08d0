/**
 * {@link SerializationResult}: a serializer's in-band bytes plus its ordered
 * out-of-band buffers (docs/FORMAT.md, section 1). A result returned by
 * `Registry.serialize` has an in-band *section* (ClassIDHash first) and turns
 * into one contiguous frame with `toBytes()`, or into the frame's pieces (for
 * a vectored write, nothing joined) with `pieces()`.
 */
import { HEADER_SIZE, framePieces, frameLength, smallFrame, writeHeaderInto } from "./frame.js";
import { SigningKey } from "./signing.js";

const EMPTY = new Uint8Array(0);

export class SerializationResult {
  private ownInBand: Uint8Array | null;
  readonly buffers: readonly Uint8Array[];
  /** Set by `serialize(value, { key })`: frames made from this result are signed. */
  readonly key: SigningKey | null;

  /** A registry's result without buffers: its in-band sits 32 bytes into this, room for the header. */
  private framed: Uint8Array | null = null;

  /** A result whose in-band is `prefixed[32:]` (the registry writes it there to frame it without a copy). */
  static withHeaderRoom(prefixed: Uint8Array, buffers: readonly Uint8Array[], key: SigningKey | null): SerializationResult {
    if (buffers.length !== 0 || key !== null) return new SerializationResult(prefixed.subarray(HEADER_SIZE), buffers, key);
    const result = new SerializationResult(EMPTY, buffers, key);
    result.ownInBand = null; // made from `framed` when asked for
    result.framed = prefixed;
    return result;
  }

  constructor(inBand: Uint8Array, buffers: readonly Uint8Array[] = [], key: SigningKey | null = null) {
    if (!(inBand instanceof Uint8Array)) throw new TypeError("a SerializationResult's in-band is a Uint8Array");
    for (const b of buffers) if (!(b instanceof Uint8Array)) throw new TypeError("out-of-band buffers are Uint8Arrays");
    this.ownInBand = inBand;
    this.buffers = buffers;
    this.key = key;
  }

  /** In-band bytes; for a registry's result, the in-band section (ClassIDHash + serializer in-band). */
  get inBand(): Uint8Array {
    return (this.ownInBand ??= this.framed!.subarray(HEADER_SIZE));
  }

  /** The frame's pieces, in order (header, table, in-band, padding, buffers, signature). */
  pieces(): Uint8Array[] {
    return framePieces(this.inBand, this.buffers, this.key);
  }

  /** Length of the frame `toBytes()` returns. */
  get frameLength(): number {
    return frameLength(this.inBand.length, this.buffers.map((b) => b.length), this.key !== null);
  }

  /** One contiguous frame (every buffer at a 64-byte-aligned offset). */
  toBytes(): Uint8Array {
    if (this.framed !== null) {
      // The first call hands out the memory the in-band already sits in (header written in front).
      const frame = this.framed;
      this.ownInBand ??= frame.subarray(HEADER_SIZE);
      this.framed = null;
      writeHeaderInto(frame);
      return frame;
    }
    if (this.buffers.length === 0 && this.key === null) return smallFrame(this.inBand);
    const pieces = this.pieces();
    let total = 0;
    for (const p of pieces) total += p.length;
    const out = new Uint8Array(total);
    let at = 0;
    for (const p of pieces) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}
