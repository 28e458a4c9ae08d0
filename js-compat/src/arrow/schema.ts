/**
 * The schema part of the Arrow in-band (docs/FORMAT.md, sections 6.4 and 9.5):
 * an Arrow IPC encapsulated Schema message (bin), or the canonical msgpack
 * schema description (array). Reading walks the whole message first, table by
 * table, with Python's and Java's checks and words (`ipcCheck.ts`), then has
 * apache-arrow decode it, and refuses types outside section 6.4 again on the
 * decoded fields. Writing uses apache-arrow's own IPC writer;
 * a schema read from a frame is written back with the bytes it came with.
 */
import * as arrow from "apache-arrow";
import { Message } from "apache-arrow/ipc/metadata/message";
import { DeserializationError } from "../errors.js";
import { MAX_DEPTH, checkSchemaMessage } from "./ipcCheck.js";

/** Fields nest at most this deep (as Python and Java). */
export const MAX_FIELD_DEPTH = MAX_DEPTH;

/** Schema objects read from frames (or written once), with their message bytes (written back unchanged). */
const ORIGINAL_BYTES = new WeakMap<arrow.Schema, Uint8Array>();

/**
 * What reading costs in memory (apache-arrow 21 on Node 20, measured with
 * bench/worstInputs.ts and rounded up), charged against the deserialize call's budget
 * before it is built: a Field and its type, one metadata entry (each plus twice its bytes).
 */
export const FIELD_COST = 1024;
export const METADATA_COST = 256;

/** Counts bytes about to be built against the call's memory budget (DecodeContext.charge). */
export type Charge = (cost: number, what: string) => void;

/** Reads an encapsulated IPC Schema message. */
export function readSchemaMessage(message: Uint8Array, charge: Charge): arrow.Schema {
  let schema: arrow.Schema | null;
  try {
    const shape = checkSchemaMessage(message);
    charge(FIELD_COST * shape.fields + METADATA_COST * shape.metadataEntries + 2 * shape.stringBytes, "Arrow schema fields");
    // apache-arrow views int vectors of the flatbuffer as typed arrays: read from an aligned copy.
    const decoded = Message.decode(message.slice(8));
    schema = decoded.isSchema() ? (decoded.header() as arrow.Schema) : null;
    if (schema !== null) nameUnnamedFields(schema);
  } catch (error) {
    if (error instanceof DeserializationError) throw error;
    const wrapped = new DeserializationError(`invalid Arrow schema message: ${(error as Error)?.message ?? String(error)}`);
    wrapped.cause = error; // apache-arrow's own failure: a check is missing
    throw wrapped;
  }
  if (schema === null || schema === undefined) throw new DeserializationError("invalid Arrow schema message: it does not hold a schema");
  ORIGINAL_BYTES.set(schema, message);
  return schema;
}

/**
 * A field whose table has no name reads as "" in Python (and Arrow C++); apache-arrow reads it as
 * null, and a batch made with such a schema then names it "null" and no longer matches it. The
 * fields were just decoded (nothing else holds them): their name is set to "" in place.
 */
function nameUnnamedFields(schema: arrow.Schema): void {
  const pending: arrow.Field[] = [...schema.fields];
  while (pending.length) {
    const field = pending.pop()!;
    if (typeof field.name !== "string") (field as { name: string }).name = "";
    for (const child of field.type.children ?? []) pending.push(child);
  }
}

/** `copy` (a Schema apache-arrow made from `schema`, as RecordBatch does) writes the same bytes as `schema`. */
export function adoptSchemaBytes(schema: arrow.Schema, copy: arrow.Schema): void {
  const original = ORIGINAL_BYTES.get(schema);
  if (original !== undefined && copy !== schema) ORIGINAL_BYTES.set(copy, original);
}

/** The encapsulated IPC Schema message of `schema` (the bytes it was read with, if any). */
export function writeSchemaMessage(schema: arrow.Schema): Uint8Array {
  const original = ORIGINAL_BYTES.get(schema);
  if (original !== undefined) return original;
  const stream = arrow.tableToIPC(new arrow.Table(schema), "stream");
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const length = view.getInt32(4, true);
  const bytes = stream.slice(0, 8 + length);
  ORIGINAL_BYTES.set(schema, bytes); // a Schema is not changed once made: write it once
  return bytes;
}

/** Refuses a field whose type is not one of section 6.4 (before any array is built). */
export function checkField(field: arrow.Field, where: string, depth = 1): void {
  const type = field.type;
  const name = `${where} (${JSON.stringify(field.name)})`;
  if (depth > MAX_FIELD_DEPTH) throw new DeserializationError(`Arrow schema fields nest more than ${MAX_FIELD_DEPTH} deep`);
  switch (type.typeId) {
    case arrow.Type.Null: case arrow.Type.Bool: case arrow.Type.Int: case arrow.Type.Float: case arrow.Type.Date:
    case arrow.Type.Time: case arrow.Type.Timestamp: case arrow.Type.Duration: case arrow.Type.Binary: case arrow.Type.Utf8:
    case arrow.Type.LargeBinary: case arrow.Type.LargeUtf8: case arrow.Type.FixedSizeBinary:
      return;
    case arrow.Type.Decimal:
      if ((type as arrow.Decimal).bitWidth !== 128 && (type as arrow.Decimal).bitWidth !== 256) {
        throw new DeserializationError(`Arrow schema: ${name} is a ${(type as arrow.Decimal).bitWidth}-bit decimal, which apache-arrow for JS does not read`);
      }
      return;
    case arrow.Type.List: case arrow.Type.LargeList: case arrow.Type.FixedSizeList: case arrow.Type.Struct: case arrow.Type.Map:
      type.children.forEach((child: arrow.Field, i: number) => checkField(child, `child ${i} of ${name}`, depth + 1));
      return;
    default:
      throw new DeserializationError(`Arrow schema: ${name} has type ${String(type)}, which is not a standard serreg Arrow type (docs/FORMAT.md, section 6.4)`);
  }
}
