/**
 * The UTF-8 check of an Arrow string column read from a frame (Utf8, LargeUtf8):
 * apache-arrow decodes its values only when they are read, replacing invalid bytes
 * with U+FFFD, so a column of bytes that are not UTF-8 would read as other strings.
 * Python refuses such a column (Arrow's full validation); so does this check, with
 * whole-buffer passes: the bytes between the first and the last offset are valid
 * UTF-8 and no value starts inside a character, which is each value being valid.
 * Only when that fails are the values looked at one by one, to name the first
 * invalid one that is not null (Arrow does not validate the bytes of null slots).
 */
import * as nodeBuffer from "node:buffer";
import { DeserializationError } from "../errors.js";

const strict = new TextDecoder("utf-8", { fatal: true });
// Node's own checks (Node 18.14 and later): whole-buffer passes that build no string.
const nodeIsUtf8 = (nodeBuffer as { isUtf8?: (input: Uint8Array) => boolean }).isUtf8;
const nodeIsAscii = (nodeBuffer as { isAscii?: (input: Uint8Array) => boolean }).isAscii;

function ascii(bytes: Uint8Array): boolean {
  if (nodeIsAscii !== undefined) return nodeIsAscii(bytes);
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! & 0x80) return false;
  return true;
}

function valid(bytes: Uint8Array): boolean {
  if (nodeIsUtf8 !== undefined) return nodeIsUtf8(bytes);
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Whether a value starts inside a character (at a continuation byte); 32-bit offsets in a loop of their own. */
function startsInside(data: Uint8Array, offsets: ArrayLike<number | bigint>, length: number, last: number): boolean {
  if (offsets instanceof Int32Array) {
    for (let i = 1; i < length; i++) {
      const o = offsets[i]!;
      if (o < last && (data[o]! & 0xc0) === 0x80) return true;
    }
    return false;
  }
  for (let i = 1; i < length; i++) {
    const o = Number(offsets[i]);
    if (o < last && (data[o]! & 0xc0) === 0x80) return true;
  }
  return false;
}

/** Throws unless every non-null value of the column (offsets already checked against `data`) is UTF-8. */
export function checkUtf8(data: Uint8Array, offsets: ArrayLike<number | bigint>, length: number, validity: Uint8Array | undefined, where: string): void {
  const first = Number(offsets[0]);
  const last = Number(offsets[length]);
  const bytes = data.subarray(first, last);
  if (ascii(bytes)) return; // no value can start inside a character
  if (valid(bytes) && !startsInside(data, offsets, length, last)) return;
  for (let i = 0; i < length; i++) {
    if (validity !== undefined && !((validity[i >> 3]! >> (i & 7)) & 1)) continue;
    if (!valid(data.subarray(Number(offsets[i]), Number(offsets[i + 1])))) {
      throw new DeserializationError(`invalid Arrow string column: ${where} has an invalid UTF-8 sequence at string index ${i}`);
    }
  }
}
