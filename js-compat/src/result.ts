/**
 * {@link SerializationResult}: a serializer's in-band bytes plus its ordered
 * out-of-band buffers (docs/FORMAT.md, section 1). A result returned by
 * `Registry.serialize` has an in-band *section* (ClassIDHash first) and turns
 * into one contiguous frame with `toBytes()`, or into the frame's pieces (for
 * a vectored write, nothing joined) with `pieces()`.
 */
import { framePieces, frameLength, smallFrame } from "./frame.js";
import { SigningKey } from "./signing.js";

export class SerializationResult {
  /** In-band bytes; for a registry's result, the in-band section (ClassIDHash + serializer in-band). */
  readonly inBand: Uint8Array;
  readonly buffers: readonly Uint8Array[];
  /** Set by `serialize(value, { key })`: frames made from this result are signed. */
  readonly key: SigningKey | null;

  constructor(inBand: Uint8Array, buffers: readonly Uint8Array[] = [], key: SigningKey | null = null) {
    if (!(inBand instanceof Uint8Array)) throw new TypeError("a SerializationResult's in-band is a Uint8Array");
    for (const b of buffers) if (!(b instanceof Uint8Array)) throw new TypeError("out-of-band buffers are Uint8Arrays");
    this.inBand = inBand;
    this.buffers = buffers;
    this.key = key;
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
