/**
 * Signed frames, version 2 (team decision 2, issue 11; docs/FORMAT.md section 4.2).
 *
 * The HMAC key is derived so that keys are never interchangeable with other uses:
 * `mac_key = SHA-256("serreg-frame-key-v2" || u64 big-endian byte length of key || key)`,
 * and the 32-byte trailer is `HMAC-SHA256(mac_key, frame[0 : total - 32])`. Such frames
 * set header flag 0x02. Flag 0x01 (v1: HMAC with the raw key) is refused.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { SignatureError } from "./errors.js";

export const FLAG_SIGNED_V1 = 0x01;
export const FLAG_SIGNED = 0x02;
export const SIGNATURE_SIZE = 32;
export const MIN_KEY_SIZE = 16;
const KEY_CONTEXT = new TextEncoder().encode("serreg-frame-key-v2");

/** A signing key checked (at least 16 bytes) and derived into the 32-byte HMAC key. */
export class SigningKey {
  /** The derived HMAC key (never the raw key). */
  readonly macKey: Uint8Array;
  constructor(key: Uint8Array) {
    if (!(key instanceof Uint8Array)) throw new TypeError(`a signing key is a Uint8Array, not ${typeof key}`);
    if (key.length < MIN_KEY_SIZE) {
      throw new RangeError(`a signing key must be at least ${MIN_KEY_SIZE} bytes (it is ${key.length}); use 32 random bytes, e.g. crypto.getRandomValues(new Uint8Array(32))`);
    }
    const length = new Uint8Array(8);
    new DataView(length.buffer).setBigUint64(0, BigInt(key.length));
    const digest = createHash("sha256").update(KEY_CONTEXT).update(length).update(key).digest();
    this.macKey = new Uint8Array(digest);
  }

  /** The HMAC-SHA256 of the concatenation of `pieces` (fed one by one, never joined). */
  sign(pieces: readonly Uint8Array[]): Uint8Array {
    const mac = createHmac("sha256", this.macKey);
    for (const piece of pieces) mac.update(piece);
    return new Uint8Array(mac.digest());
  }

  /** Throws SignatureError unless `frame[signedEnd, signedEnd + 32)` is the HMAC of `frame[0, signedEnd)`. */
  verify(frame: Uint8Array, signedEnd: number): void {
    const expected = this.sign([frame.subarray(0, signedEnd)]);
    const trailer = frame.subarray(signedEnd, signedEnd + SIGNATURE_SIZE);
    if (trailer.length !== SIGNATURE_SIZE || !timingSafeEqual(expected, trailer)) {
      throw new SignatureError("the frame's signature does not match: it was signed with another key or altered after signing; nothing was decoded", signedEnd);
    }
  }
}

/** Accepts a raw key or an already derived SigningKey. */
export function toSigningKey(key: Uint8Array | SigningKey): SigningKey {
  return key instanceof SigningKey ? key : new SigningKey(key);
}

export function notSignedError(): SignatureError {
  return new SignatureError("the frame is not signed, but a key was given: refusing to decode it. Have the writer serialize with the shared key, or deserialize without a key if unsigned frames are acceptable", 5);
}

export function v1SignedError(): SignatureError {
  return new SignatureError("the frame is signed the version 1 way (flag 0x01: HMAC with the raw key), which serreg no longer accepts; have the writer sign it again with a serreg that writes version 2 signatures (flag 0x02, derived key)", 5);
}
