/**
 * Bounds-checked reads of one Arrow IPC flatbuffer (the Schema message): tables,
 * their vtables and slots, vectors and strings, each claimed once, so a message
 * whose parts overlap or are reached twice (a DAG) is refused. A failure throws a
 * DeserializationError naming the field being read (`describe`) and the byte of
 * the message. `ipcCheck.ts` walks the message with these reads and `ipcTypes.ts`
 * checks the type tables; both import from here.
 */
import { DeserializationError } from "../errors.js";

/** A little-endian scalar of a table slot. */
export interface Scalar { readonly size: number; read(view: DataView, at: number): number }

export const U8: Scalar = { size: 1, read: (v, at) => v.getUint8(at) };
export const I16: Scalar = { size: 2, read: (v, at) => v.getInt16(at, true) };
export const I32: Scalar = { size: 4, read: (v, at) => v.getInt32(at, true) };
export const I64: Scalar = { size: 8, read: (v, at) => Number(v.getBigInt64(at, true)) };

/** Where a field is: its parent (null for a column), its index there, its name once read. */
export interface Where { readonly parent: Where | null; readonly index: number; readonly name: Uint8Array | null }

const utf8 = new TextDecoder("utf-8", { fatal: false });

/** What Python's `repr` of a short str looks like (the quotes it picks, its escapes). */
function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "\\" || ch === quote) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += "\\x" + code.toString(16).padStart(2, "0");
    else out += ch;
  }
  return out + quote;
}

/** 'column 2 ('b') > child 0 ('item')', as Python describes a field; "the message" outside any field. */
function describe(where: Where | null): string {
  if (where === null) return "the message";
  const parts: string[] = [];
  for (let w: Where | null = where; w !== null; w = w.parent) {
    let label = w.parent === null ? `column ${w.index}` : `child ${w.index}`;
    if (w.name !== null) label += ` (${pyRepr([...utf8.decode(w.name)].slice(0, 60).join(""))})`;
    parts.push(label);
  }
  return parts.reverse().join(" > ");
}

/** Bounds-checked reads of one flatbuffer; every object reached is claimed once. */
export class Flatbuffer {
  readonly view: DataView;
  readonly size: number;
  private readonly claimed = new Set<number>();
  private reached = 0;
  where: Where | null = null;
  readonly shape: SchemaShape = { fields: 0, metadataEntries: 0, stringBytes: 0 };
  /** The first field apache-arrow for JS cannot read, refused after the walk. */
  unreadable: { problem: string; where: Where; position: number } | null = null;

  constructor(readonly bytes: Uint8Array, readonly base: number) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.size = bytes.length;
  }

  fail(problem: string, position: number): never {
    throw new DeserializationError(`invalid Arrow schema message: ${problem} (in ${describe(this.where)}, at byte ${this.base + position} of the message)`);
  }

  private claim(position: number, nbytes: number, what: string): void {
    if (this.claimed.has(position)) {
      this.fail(`the ${what} at byte ${this.base + position} is reached a second time; Arrow would copy it once per reference, so shared parts (a DAG) are refused`, position);
    }
    this.claimed.add(position);
    this.reached += nbytes;
    if (this.reached > this.size) this.fail(`its tables, strings and vectors add up to more than its ${this.size} bytes: parts overlap`, position);
  }

  /** The object a uoffset at `position` points to (forward only, never at itself). */
  target(position: number): number {
    const offset = this.view.getUint32(position, true);
    if (offset === 0) this.fail("an offset of 0 points at itself", position);
    const target = position + offset;
    if (target >= this.size) this.fail(`an offset points to byte ${this.base + target}, past the end`, position);
    return target;
  }

  table(position: number, what: string): Table {
    if (position % 4 || position + 4 > this.size) this.fail(`a ${what} table at byte ${this.base + position} is misaligned or past the end`, position);
    const vtable = position - this.view.getInt32(position, true);
    if (vtable < 0 || vtable % 2 || vtable + 4 > this.size) this.fail(`the vtable of a ${what} table lies outside the message`, position);
    const vtableSize = this.view.getUint16(vtable, true);
    const tableSize = this.view.getUint16(vtable + 2, true);
    if (vtableSize < 4 || vtableSize % 2 || vtable + vtableSize > this.size) this.fail(`the vtable of a ${what} table has an invalid size ${vtableSize}`, vtable);
    if (tableSize < 4 || position + tableSize > this.size) this.fail(`a ${what} table of ${tableSize} bytes runs past the end`, position);
    this.claim(position, tableSize, `${what} table`);
    return new Table(this, position, vtable, vtableSize, tableSize, what);
  }

  /** [first element, count] of the vector at `position`. */
  vector(position: number, elementSize: number, what: string): [number, number] {
    if (position % 4 || position + 4 > this.size) this.fail(`the ${what} vector is misaligned or past the end`, position);
    const count = this.view.getUint32(position, true);
    const nbytes = 4 + count * elementSize;
    if (nbytes > this.size - position) this.fail(`the ${what} vector declares ${count} elements, more than the message holds`, position);
    this.claim(position, nbytes, `${what} vector`);
    return [position + 4, count];
  }

  string(position: number, what: string): Uint8Array {
    if (position % 4 || position + 4 > this.size) this.fail(`the ${what} string is misaligned or past the end`, position);
    const length = this.view.getUint32(position, true);
    if (length + 5 > this.size - position) this.fail(`the ${what} string declares ${length} bytes, more than the message holds`, position);
    if (this.bytes[position + 4 + length] !== 0) this.fail(`the ${what} string is not NUL-terminated`, position + 4 + length);
    this.claim(position, length + 5, `${what} string`);
    return this.bytes.subarray(position + 4, position + 4 + length);
  }
}

export class Table {
  private readonly slots: number[] = [];

  constructor(readonly buffer: Flatbuffer, readonly position: number, vtable: number, vtableSize: number, private readonly tableSize: number, readonly what: string) {
    for (let i = 0; i < (vtableSize - 4) >> 1; i++) this.slots.push(buffer.view.getUint16(vtable + 4 + 2 * i, true));
  }

  private slot(index: number, size: number): number | null {
    const offset = this.slots[index];
    if (offset === undefined || offset === 0) return null;
    const position = this.position + offset;
    if (offset + size > this.tableSize || position % size) this.buffer.fail(`field ${index} of a ${this.what} table is misaligned or outside the table`, position);
    return position;
  }

  present(index: number): boolean {
    return (this.slots[index] ?? 0) !== 0;
  }

  scalar(index: number, kind: Scalar, fallback: number): number {
    const position = this.slot(index, kind.size);
    return position === null ? fallback : kind.read(this.buffer.view, position);
  }

  table(index: number, what: string): Table | null {
    const position = this.slot(index, 4);
    return position === null ? null : this.buffer.table(this.buffer.target(position), what);
  }

  string(index: number, what: string): Uint8Array | null {
    const position = this.slot(index, 4);
    return position === null ? null : this.buffer.string(this.buffer.target(position), what);
  }

  int32Vector(index: number, what: string): number[] | null {
    const position = this.slot(index, 4);
    if (position === null) return null;
    const [first, count] = this.buffer.vector(this.buffer.target(position), 4, what);
    return Array.from({ length: count }, (_, i) => this.buffer.view.getInt32(first + 4 * i, true));
  }

  tables(index: number, what: string): Table[] {
    const position = this.slot(index, 4);
    if (position === null) return [];
    const buffer = this.buffer;
    const [first, count] = buffer.vector(buffer.target(position), 4, what);
    const out: Table[] = [];
    for (let i = 0; i < count; i++) out.push(buffer.table(buffer.target(first + 4 * i), what));
    return out;
  }

  vector(index: number, elementSize: number, what: string): void {
    const position = this.slot(index, 4);
    if (position !== null) this.buffer.vector(this.buffer.target(position), elementSize, what);
  }
}

/** What a checked Schema message holds, for the memory budget: fields (children included), metadata entries, bytes of names and metadata. */
export interface SchemaShape { fields: number; metadataEntries: number; stringBytes: number }
