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
import { DeserializationError } from "../errors.js";

const strict = new TextDecoder("utf-8", { fatal: true });

function valid(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i]! & 0x80) {
      try {
        strict.decode(bytes.subarray(i));
        return true;
      } catch {
        return false;
      }
    }
  }
  return true;
}

/** Throws unless every non-null value of the column (offsets already checked against `data`) is UTF-8. */
export function checkUtf8(data: Uint8Array, offsets: ArrayLike<number | bigint>, length: number, validity: Uint8Array | undefined, where: string): void {
  const first = Number(offsets[0]);
  const last = Number(offsets[length]);
  let whole = valid(data.subarray(first, last));
  for (let i = 1; whole && i < length; i++) {
    const o = Number(offsets[i]);
    if (o < last && (data[o]! & 0xc0) === 0x80) whole = false;
  }
  if (whole) return;
  for (let i = 0; i < length; i++) {
    if (validity !== undefined && !((validity[i >> 3]! >> (i & 7)) & 1)) continue;
    if (!valid(data.subarray(Number(offsets[i]), Number(offsets[i + 1])))) {
      throw new DeserializationError(`invalid Arrow string column: ${where} has an invalid UTF-8 sequence at string index ${i}`);
    }
  }
}
