/**
 * Reads one msgpack document into JS values, without recursion: arrays and maps
 * are filled through an explicit stack of open containers, bounded by
 * `maxNesting`, so nesting costs no JS stack. Ext values are handed to a hook
 * (serreg's ext 0, docs/FORMAT.md section 3); float 32 and every ext type other
 * than 0 are refused, as are declared lengths beyond the bytes that follow.
 * Memory grows only with the items actually present (no pre-sizing from a
 * declared count).
 *
 * Value mapping (docs/FORMAT.md, section 7, TypeScript column): nil -> null;
 * int -> number when it is a safe integer (|v| <= 2^53 - 1), else bigint;
 * float 64 -> number, or {@link Float64} when it holds a safe integer (1.0, -0.0),
 * which a number would be written back as an int; str -> string (strict UTF-8);
 * bin -> Uint8Array (a view of the input, no copy); array -> Array;
 * map -> plain object when every key is a string that a JS object keeps in
 * insertion order (not an array index, not `__proto__`), else Map.
 */
import { DeserializationError, LimitExceededError } from "../errors.js";
import { Float64 } from "../types/numbers.js";
import { decodeKey, decodeUtf8 } from "../text.js";

export interface ReadOptions {
  /** Called for ext type 0 with the payload range; returns the nested value. */
  ext?: ExtReader | null;
  /** Readers of other ext types (1..127) registered as extensions (e.g. cross-language structs). */
  extTypes?: ReadonlyMap<number, ExtReader> | null;
  /** Most arrays and maps open at once (1,024); null: unbounded. */
  maxNesting: number | null;
  /** Whole-valued floats come back as Float64 (true, exact) or as plain numbers (false). */
  exactFloats: boolean;
  /** "auto": plain objects where order-safe, else Map; "map": always Map. */
  dicts: "auto" | "map";
  /** Absolute offset of bytes[0] in the frame, for error messages (null: unknown). */
  base: number | null;
}

/** Reads the ext payload at bytes[start, start + length) into a value. */
export type ExtReader = (bytes: Uint8Array, start: number, length: number) => unknown;

export const PLAIN_READ: ReadOptions = { ext: null, maxNesting: 1024, exactFloats: true, dicts: "auto", base: null };

class OpenArray {
  constructor(readonly items: unknown[], public left: number) {}
}

class OpenMap {
  obj: Record<string, unknown> | null;
  map: Map<unknown, unknown> | null;
  key: unknown = undefined;
  haveKey = false;
  constructor(public left: number, asMap: boolean) {
    this.obj = asMap ? null : {};
    this.map = asMap ? new Map() : null;
  }

  put(value: unknown): void {
    const key = this.key;
    const obj = this.obj;
    if (obj !== null) {
      if (typeof key === "string" && objectSafeKey(key)) {
        obj[key] = value;
        return;
      }
      const map = (this.map = new Map());
      for (const k of Object.keys(obj)) map.set(k, obj[k]);
      this.obj = null;
    }
    this.map!.set(key, value);
  }

  value(): unknown {
    return this.obj !== null ? this.obj : this.map;
  }
}

/** True if a plain object keeps `key` as written and in insertion order. */
export function objectSafeKey(key: string): boolean {
  const c = key.charCodeAt(0);
  if (c >= 48 && c <= 57) {
    // Canonical array indexes ("0", "17", below 2^32 - 1) are ordered first by JS objects.
    if (key === "0") return false;
    if (c === 48) return true;
    for (let i = 1; i < key.length; i++) {
      const d = key.charCodeAt(i);
      if (d < 48 || d > 57) return true;
    }
    return Number(key) >= 4294967295;
  }
  return key !== "__proto__";
}

function fail(message: string, at: number, options: ReadOptions): DeserializationError {
  return new DeserializationError(message, options.base === null ? null : options.base + at);
}

/**
 * Reads the value at `bytes[start]`; returns it and sets `cursor.pos` past it.
 * The document must lie in `bytes[start, end)`.
 */
export function readValue(bytes: Uint8Array, start: number, end: number, options: ReadOptions, cursor: { pos: number }): unknown {
  let view: DataView | null = null;
  const stack: (OpenArray | OpenMap)[] = [];
  const maxNesting = options.maxNesting ?? Infinity;
  let pos = start;
  let value: unknown;
  let opened: OpenArray | OpenMap | null;
  for (;;) {
    const at = pos;
    if (pos >= end) throw fail("the in-band ends before the msgpack value is complete", at, options);
    const b = bytes[pos++]!;
    if (b < 0x80) value = b;
    else if (b >= 0xe0) value = b - 256;
    else if (b < 0x90) {
      opened = open(stack, b & 0x0f, true, end - pos, maxNesting, at, options);
      if (opened !== null) {
        stack.push(opened);
        continue;
      }
      value = options.dicts === "map" ? new Map() : {};
    } else if (b < 0xa0) {
      opened = open(stack, b & 0x0f, false, end - pos, maxNesting, at, options);
      if (opened !== null) {
        stack.push(opened);
        continue;
      }
      value = [];
    } else if (b < 0xc0) {
      const n = b & 0x1f;
      if (n > end - pos) throw tooShort(n, "str", at, end - pos, options);
      const top = stack[stack.length - 1];
      value = top instanceof OpenMap && !top.haveKey ? key(bytes, pos, n, at, options) : str(bytes, pos, n, at, options);
      pos += n;
    } else {
      switch (b) {
        case 0xc0: value = null; break;
        case 0xc2: value = false; break;
        case 0xc3: value = true; break;
        case 0xcc: if (1 > end - pos) throw tooShort(1, "uint 8", at, end - pos, options); value = bytes[pos]; pos += 1; break;
        case 0xcd: if (2 > end - pos) throw tooShort(2, "uint 16", at, end - pos, options); value = u16(bytes, pos); pos += 2; break;
        case 0xce: if (4 > end - pos) throw tooShort(4, "uint 32", at, end - pos, options); value = u32(bytes, pos); pos += 4; break;
        case 0xcf: {
          if (8 > end - pos) throw tooShort(8, "uint 64", at, end - pos, options);
          const hi = u32(bytes, pos);
          value = hi < 0x200000 ? hi * 0x100000000 + u32(bytes, pos + 4) : (view ??= makeView(bytes)).getBigUint64(pos);
          pos += 8;
          break;
        }
        case 0xd0: if (1 > end - pos) throw tooShort(1, "int 8", at, end - pos, options); value = ((bytes[pos]! << 24) >> 24); pos += 1; break;
        case 0xd1: if (2 > end - pos) throw tooShort(2, "int 16", at, end - pos, options); value = ((u16(bytes, pos) << 16) >> 16); pos += 2; break;
        case 0xd2: if (4 > end - pos) throw tooShort(4, "int 32", at, end - pos, options); value = (u32(bytes, pos) | 0); pos += 4; break;
        case 0xd3: {
          if (8 > end - pos) throw tooShort(8, "int 64", at, end - pos, options);
          const v = (view ??= makeView(bytes)).getBigInt64(pos);
          value = v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
          pos += 8;
          break;
        }
        case 0xca:
          throw fail("msgpack float 32 is not a serreg value here (it appears only inside numpy.float32 and numpy.complex64 in-bands)", at, options);
        case 0xcb: {
          if (8 > end - pos) throw tooShort(8, "float 64", at, end - pos, options);
          const v = f64(bytes, pos);
          pos += 8;
          value = options.exactFloats && Number.isSafeInteger(v) ? new Float64(v) : v;
          break;
        }
        case 0xd9: case 0xda: case 0xdb: {
          const width = b === 0xd9 ? 1 : b === 0xda ? 2 : 4;
          if (width > end - pos) throw tooShort(width, "str header", at, end - pos, options);
          const n = width === 1 ? bytes[pos]! : width === 2 ? u16(bytes, pos) : u32(bytes, pos);
          pos += width;
          if (n > end - pos) throw tooShort(n, "str", at, end - pos, options);
          value = str(bytes, pos, n, at, options);
          pos += n;
          break;
        }
        case 0xc4: case 0xc5: case 0xc6: {
          const width = b === 0xc4 ? 1 : b === 0xc5 ? 2 : 4;
          if (width > end - pos) throw tooShort(width, "bin header", at, end - pos, options);
          const n = width === 1 ? bytes[pos]! : width === 2 ? u16(bytes, pos) : u32(bytes, pos);
          pos += width;
          if (n > end - pos) throw tooShort(n, "bin", at, end - pos, options);
          value = bytes.subarray(pos, pos + n);
          pos += n;
          break;
        }
        case 0xdc: case 0xdd: case 0xde: case 0xdf: {
          const width = b === 0xdc || b === 0xde ? 2 : 4;
          if (width > end - pos) throw tooShort(width, "container header", at, end - pos, options);
          const n = width === 2 ? u16(bytes, pos) : u32(bytes, pos);
          pos += width;
          opened = open(stack, n, b >= 0xde, end - pos, maxNesting, at, options);
          if (opened !== null) {
            stack.push(opened);
            continue;
          }
          value = b < 0xde ? [] : options.dicts === "map" ? new Map() : {};
          break;
        }
        case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
        case 0xc7: case 0xc8: case 0xc9: {
          let n: number;
          if (b >= 0xd4) n = 1 << (b - 0xd4);
          else {
            const width = b === 0xc7 ? 1 : b === 0xc8 ? 2 : 4;
            if (width > end - pos) throw tooShort(width, "ext header", at, end - pos, options);
            n = width === 1 ? bytes[pos]! : width === 2 ? u16(bytes, pos) : u32(bytes, pos);
            pos += width;
          }
          if (1 > end - pos) throw tooShort(1, "ext type", at, end - pos, options);
          const type = ((bytes[pos]! << 24) >> 24);
          pos += 1;
          if (n > end - pos) throw tooShort(n, "ext", at, end - pos, options);
          const extension = type !== 0 ? options.extTypes?.get(type) : undefined;
          if (extension !== undefined) {
            value = extension(bytes, pos, n);
            pos += n;
            break;
          }
          if (type !== 0) {
            throw fail(type === -1
              ? "msgpack ext type -1 (timestamp) is not used by serreg"
              : `msgpack ext type ${type} is not used by serreg (only ext type 0, nested value)`, at, options);
          }
          if (!options.ext) throw fail("a nested value (msgpack ext 0) is not allowed in this in-band", at, options);
          value = options.ext(bytes, pos, n);
          pos += n;
          break;
        }
        default:
          throw fail(`byte 0x${b.toString(16)} is not a msgpack value (msgpack never uses it)`, at, options);
      }
    }
    // Hand the finished value to the containers it completes.
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) {
        cursor.pos = pos;
        return value;
      }
      if (top instanceof OpenArray) {
        top.items.push(value);
        if (--top.left !== 0) break;
        stack.pop();
        value = top.items;
      } else {
        if (!top.haveKey) {
          top.key = value;
          top.haveKey = true;
          break;
        }
        top.put(value);
        top.haveKey = false;
        if (--top.left !== 0) break;
        stack.pop();
        value = top.value();
      }
    }
  }
}

const SCRATCH = new Float64Array(1);
const SCRATCH_BYTES = new Uint8Array(SCRATCH.buffer);
const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function u16(b: Uint8Array, p: number): number {
  return (b[p]! << 8) | b[p + 1]!;
}

function u32(b: Uint8Array, p: number): number {
  return b[p]! * 0x1000000 + ((b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!);
}

/** A big-endian float 64 without a DataView (bit pattern kept). */
function f64(b: Uint8Array, p: number): number {
  if (LITTLE_ENDIAN_HOST) {
    for (let i = 0; i < 8; i++) SCRATCH_BYTES[i] = b[p + 7 - i]!;
  } else {
    for (let i = 0; i < 8; i++) SCRATCH_BYTES[i] = b[p + i]!;
  }
  return SCRATCH[0]!;
}

function makeView(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function tooShort(n: number, what: string, at: number, left: number, options: ReadOptions): DeserializationError {
  return fail(`msgpack ${what} declares ${n} bytes but only ${left} follow in the in-band`, at, options);
}

/** A container for `n` items (checked against the bytes left and the nesting limit), or null when empty. */
function open(stack: unknown[], n: number, isMap: boolean, left: number, maxNesting: number, at: number, options: ReadOptions): OpenArray | OpenMap | null {
  if ((isMap ? 2 * n : n) > left) {
    throw fail(`msgpack ${isMap ? "map" : "array"} declares ${n} ${isMap ? "entries" : "items"} but only ${left} bytes follow in the in-band`, at, options);
  }
  // An empty container counts too (as msgpack's own limit in Python and Java counts it).
  if (stack.length >= maxNesting) {
    throw new LimitExceededError(`msgpack arrays and maps are nested more than ${maxNesting} deep in one in-band (maxMsgpackNesting); raise it with new Limits({ maxMsgpackNesting }) if such values are expected`, options.base === null ? null : options.base + at);
  }
  if (n === 0) return null;
  return isMap ? new OpenMap(n, options.dicts === "map") : new OpenArray([], n);
}

function key(bytes: Uint8Array, pos: number, n: number, at: number, options: ReadOptions): string {
  try {
    return decodeKey(bytes, pos, pos + n);
  } catch {
    throw fail("msgpack str is not valid UTF-8", at, options);
  }
}

function str(bytes: Uint8Array, pos: number, n: number, at: number, options: ReadOptions): string {
  try {
    return decodeUtf8(bytes, pos, pos + n);
  } catch {
    throw fail("msgpack str is not valid UTF-8", at, options);
  }
}

/** Reads `bytes` as exactly one msgpack value (trailing bytes are an error). */
const CURSOR = { pos: 0 };

export function readDocument(bytes: Uint8Array, options: ReadOptions): unknown {
  const cursor = CURSOR; // readValue sets it just before returning: safe to share
  cursor.pos = 0;
  const value = readValue(bytes, 0, bytes.length, options, cursor);
  if (cursor.pos !== bytes.length) {
    throw fail(`${bytes.length - cursor.pos} unexpected bytes after the msgpack value`, cursor.pos, options);
  }
  return value;
}

/** A document with no nested values (a serializer's own header): plain msgpack only. */
export function readPlain(bytes: Uint8Array, base: number | null = null, maxNesting: number | null = 1024): unknown {
  return readDocument(bytes, { ext: null, maxNesting, exactFloats: true, dicts: "auto", base });
}
