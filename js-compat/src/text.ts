/**
 * UTF-8 text helpers shared by the msgpack writer and reader: strict decoding
 * (invalid UTF-8 is an error, never replaced), and the lone-surrogate check
 * that keeps a JS string that is not valid Unicode from being written as str.
 */

const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
export const ENCODER = new TextEncoder();

/** Decodes `bytes[start, end)` as UTF-8; throws TypeError on invalid bytes. */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  // Short ASCII runs are decoded by hand: TextDecoder's call overhead dominates them.
  if (end - start < 24) {
    let out = "";
    for (let i = start; i < end; i++) {
      const b = bytes[i]!;
      if (b >= 0x80) return STRICT.decode(bytes.subarray(start, end));
      out += String.fromCharCode(b);
    }
    return out;
  }
  return STRICT.decode(bytes.subarray(start, end));
}

type WellFormed = { isWellFormed?: () => boolean };

/** True if `s` holds no lone surrogate (it can be encoded as UTF-8 exactly). */
export function isWellFormed(s: string): boolean {
  const method = (s as unknown as WellFormed).isWellFormed;
  if (method !== undefined) return method.call(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}
