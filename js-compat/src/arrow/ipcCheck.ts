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
import { Flatbuffer, I16, I64, U8, type SchemaShape, type Table, type Where } from "./flatbuffer.js";
import { MAP, STRUCT, TYPES, checkDictionary, checkType, refusedType, refusedInJs } from "./ipcTypes.js";

/** Fields nest at most this deep (as Python and Java). */
export const MAX_DEPTH = 64;

const EXTENSION_NAME = "ARROW:extension:name";
/** What Python's reader turns an extension name key into; a frame may not use it itself. */
const HIDDEN_EXTENSION_NAME = "\u0000" + EXTENSION_NAME.slice(1);
const SCHEMA_HEADER = 1;
const VERSIONS = [3, 4]; // MetadataVersion V4, V5

const latin = new TextDecoder("latin1");

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

