/**
 * Checks an Arrow IPC Schema message before apache-arrow reads it (the twin of
 * Python's `serreg/serializers/arrow_ipc_check.py` and Java's `IpcFlatbuffer`,
 * table for table, with their words and byte of the message).
 *
 * apache-arrow turns the flatbuffer into fields without asking where a table,
 * its vtable or its fields lie: a vtable outside the message reads as an empty
 * table, a field outside its table reads the bytes of another one, a misaligned
 * vector throws a RangeError, and a flatbuffer may point many times at one table
 * (a DAG), each pointer a copy. This walk reads the message in time linear in
 * its size and throws a DeserializationError naming the byte and the field
 * unless every offset, table, vtable, vector and string lies inside the message
 * (scalars aligned), nothing is reached twice and what is reached adds up to no
 * more than the message's bytes, fields nest at most {@link MAX_DEPTH} deep with
 * the children their type needs, and only the types of docs/FORMAT.md section
 * 6.4 occur with parameters that go together (`ipcTypes.ts`). Then, once the
 * whole message passes those (so a broken message gets Python's answer), the
 * first field of a type apache-arrow for JS has no reader for is refused
 * (`refusedInJs`). The layout is Arrow's Message.fbs and Schema.fbs.
 */
import { DeserializationError } from "../errors.js";
import { I16, I64, MAP, STRUCT, TYPES, U8, checkDictionary, checkType, refusedType, refusedInJs, type Scalar } from "./ipcTypes.js";

/** Fields nest at most this deep (as Python and Java). */
export const MAX_DEPTH = 64;

const EXTENSION_NAME = "ARROW:extension:name";
/** What Python's reader turns an extension name key into; a frame may not use it itself. */
const HIDDEN_EXTENSION_NAME = "\u0000" + EXTENSION_NAME.slice(1);
const SCHEMA_HEADER = 1;
const VERSIONS = [3, 4]; // MetadataVersion V4, V5

/** Where a field is: its parent (null for a column), its index there, its name once read. */
interface Where { readonly parent: Where | null; readonly index: number; readonly name: Uint8Array | null }

const latin = new TextDecoder("latin1");
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

/** Why `bytes` are not UTF-8, in the words of Python's decoder; null if they are. */
export function utf8Problem(bytes: Uint8Array): string | null {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) { i++; continue; }
    let need: number, lo = 0x80, hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) { need = 2; if (b === 0xe0) lo = 0xa0; if (b === 0xed) hi = 0x9f; }
    else if (b >= 0xf0 && b <= 0xf4) { need = 3; if (b === 0xf0) lo = 0x90; if (b === 0xf4) hi = 0x8f; }
    else return "invalid start byte";
    for (let k = 1; k <= need; k++) {
      if (i + k >= bytes.length) return "unexpected end of data";
      const c = bytes[i + k]!;
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return "invalid continuation byte";
    }
    i += need + 1;
  }
  return null;
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

/** Checks an encapsulated IPC Schema message (continuation marker, length, flatbuffer); returns its shape. */
export function checkSchemaMessage(message: Uint8Array): SchemaShape {
  const size = message.length;
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  if (size < 8 || view.getUint32(0, true) !== 0xffffffff) {
    throw new DeserializationError("invalid Arrow schema message: it does not start with the IPC continuation marker 0xFFFFFFFF (the pre-1.0 IPC format is not read)");
  }
  const length = view.getInt32(4, true);
  if (length < 8 || 8 + length !== size) {
    throw new DeserializationError(`invalid Arrow schema message: its flatbuffer is said to be ${length} bytes, but ${size - 8} follow`);
  }
  const body = message.subarray(8);
  const buffer: Flatbuffer = new Flatbuffer(body, 8);
  const messageTable = buffer.table(buffer.target(0), "Message");
  const version = messageTable.scalar(0, I16, 0);
  if (!VERSIONS.includes(version)) buffer.fail(`metadata version ${version} is not V4 or V5`, 0);
  const headerType = messageTable.scalar(1, U8, 0);
  if (headerType !== SCHEMA_HEADER) buffer.fail(`the message is not a Schema message (header type ${headerType})`, 0);
  if (messageTable.scalar(3, I64, 0) !== 0) buffer.fail("a Schema message has no body, but this one declares one", 0);
  metadata(buffer, messageTable, 4, false);
  const schema = messageTable.table(2, "Schema");
  if (schema === null) buffer.fail("the message has no schema", 0);
  if (schema.scalar(0, I16, 0) !== 0) buffer.fail("the schema is big-endian; serreg's Arrow buffers are little-endian", schema.position);
  metadata(buffer, schema, 2, false);
  schema.vector(3, 8, "features");
  if (!schema.present(1)) buffer.fail("the schema has no fields vector", schema.position);
  const columns = schema.tables(1, "Field");
  // Depth-first without recursion: [field table, depth, where it is, type tag of its parent].
  const stack: [Table, number, Where, number][] = [];
  for (let i = columns.length - 1; i >= 0; i--) stack.push([columns[i]!, 1, { parent: null, index: i, name: null }, 0]);
  while (stack.length) {
    for (const child of checkField(buffer, ...stack.pop()!)) stack.push(child);
  }
  const unreadable = buffer.unreadable;
  if (unreadable !== null) {
    buffer.where = unreadable.where;
    buffer.fail(unreadable.problem, unreadable.position);
  }
  return buffer.shape;
}

function metadata(buffer: Flatbuffer, table: Table, index: number, field: boolean): void {
  for (const entry of table.tables(index, "KeyValue")) {
    const key = entry.string(0, "metadata key");
    const value = entry.string(1, "metadata value");
    if (key === null || value === null) buffer.fail(`a metadata entry has no ${key === null ? "key" : "value"}`, entry.position);
    buffer.shape.metadataEntries++;
    buffer.shape.stringBytes += key.length + value.length;
    const text = latin.decode(key);
    if (text === HIDDEN_EXTENSION_NAME) buffer.fail(`the metadata key b'\\x00${EXTENSION_NAME.slice(1)}' is reserved (docs/FORMAT.md, section 6.4)`, entry.position);
    if (text === EXTENSION_NAME && !field) buffer.fail("only a field's metadata may name an extension type", entry.position);
  }
}

function checkField(buffer: Flatbuffer, field: Table, depth: number, at: Where, parentTag: number): [Table, number, Where, number][] {
  buffer.where = at;
  const name = field.string(0, "field name") ?? new Uint8Array(0);
  const problem = utf8Problem(name);
  if (problem !== null) buffer.fail(`the field name is not UTF-8 (${problem})`, field.position);
  const where: Where = buffer.where = { parent: at.parent, index: at.index, name };
  buffer.shape.fields++;
  buffer.shape.stringBytes += name.length;
  if (depth > MAX_DEPTH) buffer.fail(`fields are nested more than ${MAX_DEPTH} deep`, field.position);
  field.scalar(1, U8, 0); // nullable: any byte is read as a bool
  const tag = field.scalar(2, U8, 0);
  const refused = refusedType(tag);
  if (refused !== null) buffer.fail(`the field has ${refused} (docs/FORMAT.md, section 6.4)`, field.position);
  const [typeName, childCount] = TYPES.get(tag)!;
  const typeTable = field.table(3, typeName);
  if (typeTable === null) buffer.fail("the field has no type table", field.position);
  const children = field.tables(5, "Field");
  checkType(buffer, tag, typeTable, children.length);
  const encoding = field.table(4, "DictionaryEncoding");
  if (encoding !== null) checkDictionary(buffer, encoding);
  metadata(buffer, field, 6, true);
  if (childCount !== null && children.length !== childCount) {
    buffer.fail(`a ${typeName} field needs ${childCount} child field(s), this one has ${children.length}`, field.position);
  }
  if (parentTag === MAP && (tag !== STRUCT || children.length !== 2)) buffer.fail("the child of a Map field must be a struct of key and value", field.position);
  // What apache-arrow for JS cannot read is refused once the whole walk has passed (Python's checks first).
  const js = refusedInJs(tag, typeTable, encoding !== null);
  if (js !== null) buffer.unreadable ??= { problem: js, where, position: field.position };
  const out: [Table, number, Where, number][] = [];
  for (let i = children.length - 1; i >= 0; i--) out.push([children[i]!, depth + 1, { parent: where, index: i, name: null }, tag]);
  return out;
}

