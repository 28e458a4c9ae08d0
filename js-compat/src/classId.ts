/**
 * ClassIDHash (docs/FORMAT.md, section 2): the first 8 bytes of SHA-256 of the
 * UTF-8 bytes of a class ID, written on the wire as those 8 bytes.
 *
 * Lookups key registrations by the hash as a string of 8 char codes (one per byte).
 */
import { createHash } from "node:crypto";
import { isWellFormed } from "./text.js";

export const CLASS_ID_HASH_SIZE = 8;

/** The 8-byte ClassIDHash of `classId`. */
export function classIdHash(classId: string): Uint8Array {
  if (typeof classId !== "string" || classId.length === 0) {
    throw new TypeError(`a class ID is a non-empty string, not ${String(classId)}`);
  }
  if (!isWellFormed(classId)) {
    throw new TypeError("a class ID must be valid Unicode text (it holds a lone surrogate)");
  }
  const digest = createHash("sha256").update(classId, "utf8").digest();
  return new Uint8Array(digest.buffer, digest.byteOffset, CLASS_ID_HASH_SIZE).slice();
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Lowercase hex of `bytes[start, start + length)`. */
export function toHex(bytes: Uint8Array, start = 0, length = bytes.length - start): string {
  let out = "";
  for (let i = start; i < start + length; i++) out += HEX[bytes[i]!];
  return out;
}

/** The lookup key of the ClassIDHash at `bytes[start, start + 8)`: its bytes as 8 char codes. */
export function hashKey(bytes: Uint8Array, start = 0): string {
  return String.fromCharCode(bytes[start]!, bytes[start + 1]!, bytes[start + 2]!, bytes[start + 3]!,
    bytes[start + 4]!, bytes[start + 5]!, bytes[start + 6]!, bytes[start + 7]!);
}
