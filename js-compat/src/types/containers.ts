/**
 * Value classes for the Python containers and byte types JS has no exact
 * twin for (docs/FORMAT.md, section 7, TypeScript column): {@link Tuple},
 * {@link FrozenSet}, {@link PyByteArray} (bytearray, always out-of-band) and
 * {@link PyMemoryView} (format + shape + bytes). `Uint8Array` is `bytes`,
 * `Array` is `list`, `Set` is `set`.
 */

/** Python tuple: an immutable sequence, written as a msgpack array under ext 0 `tuple`. */
export class Tuple implements Iterable<unknown> {
  readonly items: readonly unknown[];
  constructor(items: Iterable<unknown> = []) {
    this.items = Object.freeze([...items]);
  }
  static of(...items: unknown[]): Tuple {
    return new Tuple(items);
  }
  get length(): number {
    return this.items.length;
  }
  at(i: number): unknown {
    return this.items.at(i);
  }
  [Symbol.iterator](): Iterator<unknown> {
    return this.items[Symbol.iterator]();
  }
}

/** Python frozenset: members in the order they were read (writers sort them by their bytes). */
export class FrozenSet implements Iterable<unknown> {
  readonly items: readonly unknown[];
  constructor(items: Iterable<unknown> = []) {
    this.items = Object.freeze([...items]);
  }
  get size(): number {
    return this.items.length;
  }
  [Symbol.iterator](): Iterator<unknown> {
    return this.items[Symbol.iterator]();
  }
}

/** Python bytearray: mutable bytes, always sent as one out-of-band buffer (a view of the frame when read). */
export class PyByteArray {
  constructor(readonly bytes: Uint8Array) {
    if (!(bytes instanceof Uint8Array)) throw new TypeError("PyByteArray wraps a Uint8Array");
  }
}

/** One-character struct formats a memoryview may carry, with their item sizes (x86-64/aarch64 Linux). */
export const MEMORYVIEW_ITEM_SIZES: Readonly<Record<string, number>> = Object.freeze({
  c: 1, b: 1, B: 1, "?": 1, h: 2, H: 2, i: 4, I: 4, l: 8, L: 8, q: 8, Q: 8, n: 8, N: 8,
  e: 2, f: 4, d: 8, P: 8,
});

/** Python memoryview: a struct format character, a shape, and the bytes in C order. */
export class PyMemoryView {
  readonly format: string;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
  constructor(format: string, shape: readonly number[], bytes: Uint8Array) {
    const size = MEMORYVIEW_ITEM_SIZES[format];
    if (size === undefined) throw new TypeError(`memoryview format ${JSON.stringify(format)} is not a single native struct character`);
    if (!(bytes instanceof Uint8Array)) throw new TypeError("PyMemoryView bytes are a Uint8Array");
    let count = 1;
    for (const n of shape) {
      if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`invalid memoryview shape ${JSON.stringify(shape)}`);
      count *= n;
    }
    if (shape.length > 64) throw new TypeError(`memoryview shape has ${shape.length} dimensions; at most 64`);
    if (count * size !== bytes.length) {
      throw new TypeError(`memoryview of format ${format} and shape [${shape.join(", ")}] needs ${count * size} bytes, not ${bytes.length}`);
    }
    this.format = format;
    this.shape = Object.freeze([...shape]);
    this.bytes = bytes;
  }
}
