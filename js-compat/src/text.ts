/**
 * UTF-8 text helpers shared by the msgpack writer and reader: strict decoding
 * (invalid UTF-8 is an error, never replaced), and the lone-surrogate check
 * that keeps a JS string that is not valid Unicode from being written as str.
 */

const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
export const ENCODER = new TextEncoder();

// Short strings repeat (map keys above all): a small cache, keyed by a hash of the bytes,
// hands out the same string without decoding it again.
const CACHE_SIZE = 2048;
const cachedBytes: (Uint8Array | null)[] = new Array(CACHE_SIZE).fill(null);
const cachedText: string[] = new Array(CACHE_SIZE).fill("");

function cached(bytes: Uint8Array, start: number, end: number): string {
  let h = end - start;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  const slot = (h >>> 0) & (CACHE_SIZE - 1);
  const known = cachedBytes[slot];
  if (known !== null && known !== undefined && known.length === end - start) {
    let same = true;
    for (let i = 0; i < known.length; i++) {
      if (known[i] !== bytes[start + i]) {
        same = false;
        break;
      }
    }
    if (same) return cachedText[slot]!;
  }
  const text = decodeShort(bytes, start, end);
  cachedBytes[slot] = bytes.slice(start, end);
  cachedText[slot] = text;
  return text;
}

function decodeShort(bytes: Uint8Array, start: number, end: number): string {
  let out = "";
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    if (b >= 0x80) return STRICT.decode(bytes.subarray(start, end));
    out += String.fromCharCode(b);
  }
  return out;
}

/** Decodes a map key: as decodeUtf8, through the cache of short strings. */
export function decodeKey(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= 16) return end === start ? "" : cached(bytes, start, end);
  return decodeUtf8(bytes, start, end);
}

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
