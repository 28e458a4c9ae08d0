/**
 * Counts the out-of-band buffers a pickle (protocol 5) refers to, by walking its
 * opcodes and counting NEXT_BUFFER (0x97), without unpickling anything
 * (docs/FORMAT.md, section 3). TypeScript needs the count only to know how many
 * of a frame's buffers a nested `serreg.pickle5` value owns. Argument sizes are
 * those of the pickle protocol as documented by CPython's pickletools.
 */
import { DeserializationError } from "../errors.js";

const NEXT_BUFFER = 0x97;
const STOP = 0x2e;

const NO_ARGUMENT = new Set([..."N]ael)tu}dso0(12RbQ"].map((c) => c.charCodeAt(0)).concat(
  [0x88, 0x89, 0x85, 0x86, 0x87, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x94, 0x81, 0x97, 0x98]));
const FIXED: ReadonlyMap<number, number> = new Map([
  ["K", 1], ["h", 1], ["q", 1], ["M", 2], ["J", 4], ["j", 4], ["r", 4], ["G", 8],
].map(([c, n]) => [(c as string).charCodeAt(0), n as number] as [number, number]).concat(
  [[0x80, 1], [0x82, 1], [0x83, 2], [0x84, 4], [0x95, 8]]));
const LENGTH1 = new Set([0x55 /* U */, 0x43 /* C */, 0x8c, 0x8a]);
const LENGTH4 = new Set([0x54 /* T */, 0x42 /* B */, 0x58 /* X */, 0x8b]);
const LENGTH8 = new Set([0x8d, 0x8e, 0x96]);
const ONE_LINE = new Set([..."ILSVFgpP"].map((c) => c.charCodeAt(0)));
const TWO_LINES = new Set([..."ci"].map((c) => c.charCodeAt(0)));

/** Number of NEXT_BUFFER opcodes before STOP; DeserializationError for a malformed pickle. */
export function countPickleBuffers(pickle: Uint8Array): number {
  const view = new DataView(pickle.buffer, pickle.byteOffset, pickle.byteLength);
  const end = pickle.length;
  let pos = 0;
  let buffers = 0;
  const skip = (n: number, at: number, op: number): void => {
    if (n < 0 || n > end - pos) throw malformed(op, at, `argument of ${n} bytes runs past the end`);
    pos += n;
  };
  while (pos < end) {
    const at = pos;
    const op = pickle[pos++]!;
    if (op === STOP) return buffers;
    if (op === NEXT_BUFFER) buffers++;
    if (NO_ARGUMENT.has(op)) continue;
    const fixed = FIXED.get(op);
    if (fixed !== undefined) skip(fixed, at, op);
    else if (LENGTH1.has(op)) {
      skip(1, at, op);
      skip(pickle[pos - 1]!, at, op);
    } else if (LENGTH4.has(op)) {
      skip(4, at, op);
      const n = op === 0x54 || op === 0x8b ? view.getInt32(pos - 4, true) : view.getUint32(pos - 4, true);
      skip(n, at, op);
    } else if (LENGTH8.has(op)) {
      skip(8, at, op);
      const n = view.getBigUint64(pos - 8, true);
      if (n > BigInt(end - pos)) throw malformed(op, at, `argument of ${n} bytes runs past the end`);
      pos += Number(n);
    } else if (ONE_LINE.has(op) || TWO_LINES.has(op)) {
      for (let lines = TWO_LINES.has(op) ? 2 : 1; lines > 0; lines--) {
        const newline = pickle.indexOf(0x0a, pos);
        if (newline < 0) throw malformed(op, at, "text argument has no newline");
        pos = newline + 1;
      }
    } else throw malformed(op, at, "unknown opcode");
  }
  throw new DeserializationError("malformed pickle: no STOP opcode");
}

function malformed(op: number, at: number, why: string): DeserializationError {
  return new DeserializationError(`malformed pickle: opcode 0x${op.toString(16)} at pickle offset ${at}: ${why}`);
}
