/**
 * The Arrow in-band `[schema, batches]` (docs/FORMAT.md, section 6.4) read one part
 * at a time: the schema, then each batch `[row count, field nodes]` only when the
 * reader asks for it, so each batch is charged against the memory budget before the
 * next one is decoded (a frame of many empty batches would otherwise build its
 * whole msgpack tree, a few arrays per 7 bytes of frame, before the first charge).
 */
import { DeserializationError } from "../errors.js";
import { PLAIN_READ, readValue, type ReadOptions } from "../msgpack/reader.js";

export class ArrowInBand {
  private readonly cursor = { pos: 0 };
  private readonly options: ReadOptions;
  /** The schema part: an IPC Schema message (bin) or a schema description (array). */
  readonly schemaPart: unknown;

  constructor(private readonly bytes: Uint8Array, private readonly base: number | null) {
    this.options = { ...PLAIN_READ, base };
    if (this.header("the Arrow in-band") !== 2) throw this.fail("Arrow in-band must be [schema, batches]", 0);
    this.schemaPart = readValue(bytes, this.cursor.pos, bytes.length, this.options, this.cursor);
  }

  /** Each batch part, decoded when asked for; then the in-band must end. */
  *batches(): Generator<unknown> {
    const count = this.header("the Arrow batches");
    for (let i = 0; i < count; i++) yield readValue(this.bytes, this.cursor.pos, this.bytes.length, this.options, this.cursor);
    if (this.cursor.pos !== this.bytes.length) throw this.fail(`Arrow in-band has ${this.bytes.length - this.cursor.pos} bytes after its batches`, this.cursor.pos);
  }

  private fail(message: string, at: number): DeserializationError {
    return new DeserializationError(message, this.base === null ? null : this.base + at);
  }

  /** A msgpack array header's item count (checked against the bytes that follow). */
  private header(what: string): number {
    const b = this.bytes;
    const at = this.cursor.pos;
    const first = b[at];
    let n: number | null = null;
    let size = 1;
    if (first !== undefined && first >= 0x90 && first <= 0x9f) n = first & 0x0f;
    else if (first === 0xdc && at + 3 <= b.length) [n, size] = [(b[at + 1]! << 8) | b[at + 2]!, 3];
    else if (first === 0xdd && at + 5 <= b.length) [n, size] = [b[at + 1]! * 0x1000000 + ((b[at + 2]! << 16) | (b[at + 3]! << 8) | b[at + 4]!), 5];
    if (n === null) throw this.fail(`${what} must be a msgpack array`, at);
    this.cursor.pos = at + size;
    if (n > b.length - this.cursor.pos) throw this.fail(`msgpack array of ${what} declares ${n} items but only ${b.length - this.cursor.pos} bytes follow in the in-band`, at);
    return n;
  }
}
