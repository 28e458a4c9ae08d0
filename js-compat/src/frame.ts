/**
 * The contiguous frame (docs/FORMAT.md, section 4): one serialization result in
 * one byte string, every out-of-band buffer at a 64-byte-aligned offset from the
 * frame start, so readers can view buffers in place.
 *
 *     magic "SREG" | version 1 | flags | reserved | K | reserved | N | total length
 *     OOB table: K x (u64 offset, u64 length)
 *     in-band section (N bytes, ClassIDHash first)
 *     zero padding, buffer 0, zero padding, buffer 1, ... [32-byte signature]
 *
 * Reading checks the whole layout once, in the order of section 4.1, before any
 * in-band byte is decoded; each failure names the byte offset of the field at fault.
 */
import { CLASS_ID_HASH_SIZE } from "./classId.js";
import { DeserializationError, LimitExceededError } from "./errors.js";
import { Limits } from "./limits.js";
import { FLAG_SIGNED, FLAG_SIGNED_V1, SIGNATURE_SIZE, SigningKey, notSignedError, v1SignedError } from "./signing.js";

export const MAGIC = [0x53, 0x52, 0x45, 0x47];
export const FORMAT_VERSION = 1;
export const ALIGNMENT = 64;
export const HEADER_SIZE = 32;
export const TABLE_ENTRY_SIZE = 16;
const ZEROS = new Uint8Array(ALIGNMENT);

export function align64(n: number): number {
  return Math.ceil(n / ALIGNMENT) * ALIGNMENT;
}

/** Total frame length for an in-band section and buffers of these lengths. */
export function frameLength(inBandLength: number, bufferLengths: readonly number[], signed: boolean): number {
  let end = HEADER_SIZE + TABLE_ENTRY_SIZE * bufferLengths.length + inBandLength;
  for (const length of bufferLengths) end = align64(end) + length;
  return signed ? end + SIGNATURE_SIZE : end;
}

function setU64(view: DataView, at: number, value: number): void {
  view.setUint32(at, value >>> 0, true);
  view.setUint32(at + 4, Math.floor(value / 0x100000000), true);
}

/** The frame of an unsigned result without buffers, in one allocation. */
export function smallFrame(inBand: Uint8Array): Uint8Array {
  const out = new Uint8Array(HEADER_SIZE + inBand.length);
  out.set(inBand, HEADER_SIZE);
  writeHeaderInto(out);
  return out;
}

/** Writes the header of an unsigned frame without buffers into `frame[0, 32)` (its in-band follows). */
export function writeHeaderInto(frame: Uint8Array): void {
  frame.fill(0, 0, HEADER_SIZE);
  frame[0] = 0x53; frame[1] = 0x52; frame[2] = 0x45; frame[3] = 0x47; frame[4] = FORMAT_VERSION;
  putU64(frame, 16, frame.length - HEADER_SIZE);
  putU64(frame, 24, frame.length);
}

function putU64(b: Uint8Array, at: number, value: number): void {
  let lo = value >>> 0;
  let hi = Math.floor(value / 0x100000000);
  for (let i = 0; i < 4; i++, lo >>>= 8, hi >>>= 8) {
    b[at + i] = lo & 0xff;
    b[at + 4 + i] = hi & 0xff;
  }
}

function getU32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 0x1000000;
}

/** The pieces of a frame, in order; nothing is copied (buffers are the caller's views). */
export function framePieces(inBand: Uint8Array, buffers: readonly Uint8Array[], key: SigningKey | null): Uint8Array[] {
  const count = buffers.length;
  const head = new Uint8Array(HEADER_SIZE + TABLE_ENTRY_SIZE * count);
  const view = new DataView(head.buffer);
  let end = head.length + inBand.length;
  const pieces: Uint8Array[] = [head, inBand];
  for (let i = 0; i < count; i++) {
    const offset = align64(end);
    const length = buffers[i]!.length;
    setU64(view, HEADER_SIZE + TABLE_ENTRY_SIZE * i, offset);
    setU64(view, HEADER_SIZE + TABLE_ENTRY_SIZE * i + 8, length);
    if (offset > end) pieces.push(ZEROS.subarray(0, offset - end));
    pieces.push(buffers[i]!);
    end = offset + length;
  }
  head.set(MAGIC, 0);
  head[4] = FORMAT_VERSION;
  head[5] = key === null ? 0 : FLAG_SIGNED;
  view.setUint32(8, count, true);
  setU64(view, 16, inBand.length);
  setU64(view, 24, key === null ? end : end + SIGNATURE_SIZE);
  if (key !== null) pieces.push(key.sign(pieces));
  return pieces;
}

/** A parsed frame: views of its in-band section and buffers (no copies). */
export interface FrameView {
  readonly inBand: Uint8Array;
  readonly inBandOffset: number;
  readonly buffers: Uint8Array[];
  readonly bufferOffsets: number[];
  readonly signed: boolean;
}

function tooLarge(size: bigint, limits: Limits): LimitExceededError {
  return new LimitExceededError(`frame of ${size} bytes is larger than maxFrameSize=${limits.maxFrameSize}; raise it with new Limits({ maxFrameSize }) if such frames are expected`, 24);
}

/** The total length a frame header declares (for stream readers), after checking the magic and the size limit. */
export function declaredFrameLength(header: Uint8Array, limits: Limits): number {
  if (header.length < HEADER_SIZE) throw new DeserializationError(`not a serreg frame: ${header.length} bytes is shorter than the ${HEADER_SIZE}-byte header`, header.length);
  checkMagic(header);
  const total = new DataView(header.buffer, header.byteOffset, HEADER_SIZE).getBigUint64(24, true);
  if (limits.maxFrameSize !== null && total > BigInt(limits.maxFrameSize)) throw tooLarge(total, limits);
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) throw new DeserializationError(`frame header declares ${total} bytes, more than a JS program can address`, 24);
  return Number(total);
}

function checkMagic(frame: Uint8Array): void {
  if (frame[0] !== MAGIC[0] || frame[1] !== MAGIC[1] || frame[2] !== MAGIC[2] || frame[3] !== MAGIC[3]) {
    const got = Array.from(frame.subarray(0, 4), (b) => b.toString(16).padStart(2, "0")).join(" ");
    throw new DeserializationError(`not a serreg frame: starts with bytes ${got}, expected "SREG"`, 0);
  }
}

/** Checks the whole layout of `frame` (section 4.1) and returns views of its parts. */
/** A u64 little-endian as a number when below 2^53, else as a bigint. */
function u64(frame: Uint8Array, at: number): number | bigint {
  const hi = getU32(frame, at + 4);
  if (hi < 0x200000) return hi * 0x100000000 + getU32(frame, at);
  return (BigInt(hi) << 32n) | BigInt(getU32(frame, at));
}

export function readFrame(frame: Uint8Array, limits: Limits, key: SigningKey | null): FrameView {
  const size = frame.length;
  if (size < HEADER_SIZE) {
    throw new DeserializationError(`not a serreg frame: ${size} bytes is shorter than the ${HEADER_SIZE}-byte header`, size);
  }
  checkMagic(frame);
  const version = frame[4]!;
  if (version !== FORMAT_VERSION) {
    throw new DeserializationError(`unsupported frame format version ${version}; this serreg reads version ${FORMAT_VERSION}`, 4);
  }
  const flags = frame[5]!;
  if ((frame[6]! | frame[7]!) !== 0 || getU32(frame, 12) !== 0) {
    throw new DeserializationError("reserved header fields are not zero", (frame[6]! | frame[7]!) !== 0 ? 6 : 12);
  }
  const count = getU32(frame, 8);
  const inBandLength = u64(frame, 16);
  const total = u64(frame, 24);
  if (limits.maxFrameSize !== null && (total > limits.maxFrameSize || size > limits.maxFrameSize)) {
    throw tooLarge(BigInt(total > size ? total : size), limits);
  }
  if (total !== size) {
    throw new DeserializationError(`frame header says the frame is ${total} bytes, but ${size} bytes were given`, 24);
  }
  if (flags & ~(FLAG_SIGNED | FLAG_SIGNED_V1)) {
    throw new DeserializationError(`unknown frame flags 0x${(flags & ~(FLAG_SIGNED | FLAG_SIGNED_V1)).toString(16).padStart(2, "0")}; this serreg knows only 0x02 (signed)`, 5);
  }
  if (flags & FLAG_SIGNED_V1) throw v1SignedError();
  const signed = (flags & FLAG_SIGNED) !== 0;
  let end = size;
  if (key !== null && !signed) throw notSignedError();
  if (signed) {
    end = size - SIGNATURE_SIZE;
    if (end < HEADER_SIZE) {
      throw new DeserializationError(`a signed frame needs a ${SIGNATURE_SIZE}-byte signature after its header; ${size} bytes is too short`, size);
    }
    if (key !== null) key.verify(frame, end);
  }
  if (limits.maxBuffers !== null && count > limits.maxBuffers) {
    throw new LimitExceededError(`frame declares ${count} out-of-band buffers, more than maxBuffers=${limits.maxBuffers}; raise it with new Limits({ maxBuffers }) if such frames are expected`, 8);
  }
  const tableEnd = HEADER_SIZE + TABLE_ENTRY_SIZE * count;
  if (tableEnd > end) {
    throw new DeserializationError(`frame declares ${count} out-of-band buffers, but their table does not fit in ${end} bytes`, 8);
  }
  if (typeof inBandLength === "bigint" || inBandLength < CLASS_ID_HASH_SIZE || tableEnd + inBandLength > end) {
    throw new DeserializationError(`in-band section length ${inBandLength} is invalid for a frame whose table ends at ${tableEnd} and whose parts end at ${end}`, 16);
  }
  const inBandEnd = tableEnd + Number(inBandLength);
  let expected = inBandEnd;
  const buffers: Uint8Array[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < count; i++) {
    const entry = HEADER_SIZE + TABLE_ENTRY_SIZE * i;
    const offset = u64(frame, entry);
    const length = u64(frame, entry + 8);
    const aligned = align64(expected);
    if (offset !== aligned) {
      throw new DeserializationError(`out-of-band buffer ${i} starts at ${offset}, expected the 64-byte-aligned offset ${aligned} (buffers follow each other in order, without overlap)`, entry);
    }
    if (typeof length === "bigint" || length > end - aligned) {
      throw new DeserializationError(`out-of-band buffer ${i} (${length} bytes at offset ${offset}) runs past the end of the frame's parts at ${end}`, entry + 8);
    }
    for (let p = expected; p < aligned; p++) {
      if (frame[p] !== 0) throw new DeserializationError(`padding before out-of-band buffer ${i} is not zero`, p);
    }
    const n = Number(length);
    buffers.push(frame.subarray(aligned, aligned + n));
    offsets.push(aligned);
    expected = aligned + n;
  }
  if (expected !== end) {
    throw new DeserializationError(`frame has ${end - expected} bytes after its last part`, expected);
  }
  return { inBand: frame.subarray(tableEnd, inBandEnd), inBandOffset: tableEnd, buffers, bufferOffsets: offsets, signed };
}
