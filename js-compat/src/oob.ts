/**
 * {@link OutOfBand}: the one cursor over a frame's out-of-band buffers that every
 * serializer of the frame shares, in document order (docs/FORMAT.md, section 3).
 */
import { DeserializationError } from "./errors.js";

export class OutOfBand {
  private index = 0;
  constructor(private readonly buffers: readonly Uint8Array[]) {}

  /** The next buffer; DeserializationError naming `what` when none is left. */
  take(what = "a value"): Uint8Array {
    if (this.index >= this.buffers.length) {
      throw new DeserializationError(`the frame has no out-of-band buffer left for ${what} (it holds ${this.buffers.length})`);
    }
    return this.buffers[this.index++]!;
  }

  /** Buffers not taken yet. */
  get remaining(): number {
    return this.buffers.length - this.index;
  }

  /** Takes every buffer left (a value of unknown class ID at the top level owns them all). */
  takeAll(): Uint8Array[] {
    const rest = this.buffers.slice(this.index);
    this.index = this.buffers.length;
    return rest;
  }

  /** Position of the next buffer (used to find the buffers a value consumed). */
  get position(): number {
    return this.index;
  }

  slice(from: number, to: number): Uint8Array[] {
    return this.buffers.slice(from, to);
  }
}
