/**
 * A growable msgpack byte writer that always uses the shortest encoding of
 * every integer and every str/bin/array/map/ext length (docs/FORMAT.md,
 * sections 5 and 9.2), `str` for text and `bin` for bytes.
 *
 * It writes primitives and headers only; walking a value tree is the codec's job.
 */
import { ENCODER, isWellFormed } from "../text.js";

/** A JS string holding a lone surrogate: not Unicode text, so it has no UTF-8 form. */
export class LoneSurrogateError extends Error {
  constructor() {
    super("str is not valid Unicode text (it holds a lone surrogate); encode it or pass bytes");
  }
}

const INT64_MIN = -(2n ** 63n);
const UINT64_END = 2n ** 64n;

export class Writer {
  buf: Uint8Array;
  view: DataView;
  pos = 0;

  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }

  /** A copy of the bytes written so far. */
  bytes(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  reset(): void {
    this.pos = 0;
  }

  u8(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  nil(): void {
    this.u8(0xc0);
  }

  bool(v: boolean): void {
    this.u8(v ? 0xc3 : 0xc2);
  }

  /** A safe integer (|v| < 2^53), shortest form. */
  int(v: number): void {
    this.ensure(9);
    const buf = this.buf;
    let p = this.pos;
    if (v >= 0) {
      if (v < 128) buf[p++] = v;
      else if (v < 0x100) {
        buf[p++] = 0xcc;
        buf[p++] = v;
      } else if (v < 0x10000) {
        buf[p++] = 0xcd;
        buf[p++] = v >>> 8;
        buf[p++] = v & 0xff;
      } else if (v < 0x100000000) {
        buf[p] = 0xce;
        this.view.setUint32(p + 1, v);
        p += 5;
      } else {
        buf[p] = 0xcf;
        this.view.setUint32(p + 1, Math.floor(v / 0x100000000));
        this.view.setUint32(p + 5, v >>> 0);
        p += 9;
      }
    } else if (v >= -32) {
      buf[p++] = v & 0xff;
    } else if (v >= -128) {
      buf[p++] = 0xd0;
      buf[p++] = v & 0xff;
    } else if (v >= -32768) {
      buf[p] = 0xd1;
      this.view.setInt16(p + 1, v);
      p += 3;
    } else if (v >= -2147483648) {
      buf[p] = 0xd2;
      this.view.setInt32(p + 1, v);
      p += 5;
    } else {
      buf[p] = 0xd3;
      this.view.setBigInt64(p + 1, BigInt(v));
      p += 9;
    }
    this.pos = p;
  }

  /** An integer in [-2^63, 2^64), shortest form (the caller checks the range). */
  bigint(v: bigint): void {
    if (v >= -9007199254740991n && v <= 9007199254740991n) {
      this.int(Number(v));
      return;
    }
    if (v < INT64_MIN || v >= UINT64_END) throw new RangeError(`integer ${v} does not fit in msgpack int`);
    this.ensure(9);
    if (v >= 0n) {
      this.buf[this.pos] = 0xcf;
      this.view.setBigUint64(this.pos + 1, v);
    } else {
      this.buf[this.pos] = 0xd3;
      this.view.setBigInt64(this.pos + 1, v);
    }
    this.pos += 9;
  }

  f64(v: number): void {
    this.ensure(9);
    this.buf[this.pos] = 0xcb;
    this.view.setFloat64(this.pos + 1, v);
    this.pos += 9;
  }

  f32(v: number): void {
    this.ensure(5);
    this.buf[this.pos] = 0xca;
    this.view.setFloat32(this.pos + 1, v);
    this.pos += 5;
  }

  /** A float 32 from its IEEE binary32 bit pattern (keeps NaN payloads). */
  f32bits(bits: number): void {
    this.ensure(5);
    this.buf[this.pos] = 0xca;
    this.view.setUint32(this.pos + 1, bits >>> 0);
    this.pos += 5;
  }

  /** A str; throws LoneSurrogateError if `s` is not well-formed Unicode. */
  str(s: string): void {
    const n = s.length;
    if (n < 32) {
      // At most 3 bytes per UTF-16 unit: reserve the biggest header the bytes could need,
      // encode by hand, and move the bytes left if a shorter header fits.
      const max = n * 3;
      const headerSize = max < 32 ? 1 : 2;
      this.ensure(headerSize + max);
      const buf = this.buf;
      const start = this.pos + headerSize;
      let p = start;
      for (let i = 0; i < n; i++) {
        let c = s.charCodeAt(i);
        if (c < 0x80) buf[p++] = c;
        else if (c < 0x800) {
          buf[p++] = 0xc0 | (c >> 6);
          buf[p++] = 0x80 | (c & 0x3f);
        } else if (c >= 0xd800 && c <= 0xdfff) {
          const d = s.charCodeAt(++i);
          if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) throw new LoneSurrogateError();
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          buf[p++] = 0xf0 | (c >> 18);
          buf[p++] = 0x80 | ((c >> 12) & 0x3f);
          buf[p++] = 0x80 | ((c >> 6) & 0x3f);
          buf[p++] = 0x80 | (c & 0x3f);
        } else {
          buf[p++] = 0xe0 | (c >> 12);
          buf[p++] = 0x80 | ((c >> 6) & 0x3f);
          buf[p++] = 0x80 | (c & 0x3f);
        }
      }
      const length = p - start;
      if (length < 32) {
        if (headerSize === 2) buf.copyWithin(this.pos + 1, start, p);
        buf[this.pos] = 0xa0 | length;
        this.pos += 1 + length;
      } else {
        buf[this.pos] = 0xd9;
        buf[this.pos + 1] = length;
        this.pos = p;
      }
      return;
    }
    if (!isWellFormed(s)) throw new LoneSurrogateError();
    const max = n * 3;
    this.ensure(5 + max);
    const headerSize = max < 256 ? 2 : max < 0x10000 ? 3 : 5;
    const start = this.pos + headerSize;
    const { written } = ENCODER.encodeInto(s, this.buf.subarray(start, start + max));
    const length = written;
    const needed = length < 32 ? 1 : length < 256 ? 2 : length < 0x10000 ? 3 : 5;
    if (needed !== headerSize) this.buf.copyWithin(this.pos + needed, start, start + length);
    this.strHeaderAt(this.pos, length);
    this.pos += needed + length;
  }

  private strHeaderAt(p: number, length: number): void {
    const buf = this.buf;
    if (length < 32) buf[p] = 0xa0 | length;
    else if (length < 256) {
      buf[p] = 0xd9;
      buf[p + 1] = length;
    } else if (length < 0x10000) {
      buf[p] = 0xda;
      this.view.setUint16(p + 1, length);
    } else {
      buf[p] = 0xdb;
      this.view.setUint32(p + 1, length);
    }
  }

  bin(bytes: Uint8Array): void {
    this.binHeader(bytes.length);
    this.raw(bytes);
  }

  /** The header of a bin of `n` bytes (shortest form); the caller writes the bytes next. */
  binHeader(n: number): void {
    this.ensure(5);
    if (n < 256) {
      this.buf[this.pos++] = 0xc4;
      this.buf[this.pos++] = n;
    } else if (n < 0x10000) {
      this.buf[this.pos] = 0xc5;
      this.view.setUint16(this.pos + 1, n);
      this.pos += 3;
    } else {
      this.buf[this.pos] = 0xc6;
      this.view.setUint32(this.pos + 1, n);
      this.pos += 5;
    }
  }

  arrayHeader(n: number): void {
    if (n < 16) this.u8(0x90 | n);
    else this.header16or32(0xdc, n);
  }

  mapHeader(n: number): void {
    if (n < 16) this.u8(0x80 | n);
    else this.header16or32(0xde, n);
  }

  private header16or32(code16: number, n: number): void {
    this.ensure(5);
    if (n < 0x10000) {
      this.buf[this.pos] = code16;
      this.view.setUint16(this.pos + 1, n);
      this.pos += 3;
    } else {
      this.buf[this.pos] = code16 + 1;
      this.view.setUint32(this.pos + 1, n);
      this.pos += 5;
    }
  }

  /** Ext of `type` whose payload is `payload` (fixext when the length allows). */
  ext(type: number, payload: Uint8Array): void {
    const start = this.beginExt();
    this.raw(payload);
    this.endExt(start, type);
  }

  /** Reserves room for an ext header; write the payload, then call endExt with the value returned. */
  beginExt(): number {
    this.ensure(6);
    const start = this.pos;
    this.pos += 6;
    return start;
  }

  /** Writes the shortest ext header in front of the payload written since beginExt. */
  endExt(start: number, type: number): void {
    const payloadStart = start + 6;
    const length = this.pos - payloadStart;
    let header: number;
    let code: number;
    switch (length) {
      case 1: code = 0xd4; header = 2; break;
      case 2: code = 0xd5; header = 2; break;
      case 4: code = 0xd6; header = 2; break;
      case 8: code = 0xd7; header = 2; break;
      case 16: code = 0xd8; header = 2; break;
      default:
        if (length < 256) { code = 0xc7; header = 3; }
        else if (length < 0x10000) { code = 0xc8; header = 4; }
        else { code = 0xc9; header = 6; }
    }
    const buf = this.buf;
    buf[start] = code;
    if (header === 3) buf[start + 1] = length;
    else if (header === 4) this.view.setUint16(start + 1, length);
    else if (header === 6) this.view.setUint32(start + 1, length);
    buf[start + header - 1] = type & 0xff;
    if (header !== 6) {
      buf.copyWithin(start + header, payloadStart, this.pos);
      this.pos -= 6 - header;
    }
  }
}
