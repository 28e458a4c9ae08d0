/**
 * The schema part of the Arrow in-band (docs/FORMAT.md, sections 6.4 and 9.5):
 * an Arrow IPC encapsulated Schema message (bin), or the canonical msgpack
 * schema description (array). Reading checks the message's field tree with a
 * budget before apache-arrow decodes it (a flatbuffer can share a table between
 * many parents, so a small message can describe an exponential tree), and
 * refuses types outside section 6.4. Writing uses apache-arrow's own IPC writer;
 * a schema read from a frame is written back with the bytes it came with.
 */
import * as arrow from "apache-arrow";
import { ByteBuffer } from "flatbuffers";
import { Message as FbMessage } from "apache-arrow/fb/message";
import { Schema as FbSchema } from "apache-arrow/fb/schema";
import { Field as FbField } from "apache-arrow/fb/field";
import { MessageHeader } from "apache-arrow/fb/message-header";
import { Message } from "apache-arrow/ipc/metadata/message";
import { DeserializationError } from "../errors.js";

/** Fields nest at most this deep (as Java). */
export const MAX_FIELD_DEPTH = 64;

/** Schema objects read from frames (or written once), with their message bytes (written back unchanged). */
const ORIGINAL_BYTES = new WeakMap<arrow.Schema, Uint8Array>();

/** The flatbuffer of an encapsulated message: after the continuation marker and length (or the legacy length). */
function messageBody(message: Uint8Array): Uint8Array {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const start = message.length >= 8 && view.getUint32(0, true) === 0xffffffff ? 8 : 4;
  if (message.length < start) throw new DeserializationError(`Arrow schema message of ${message.length} bytes is too short`);
  const length = view.getInt32(start - 4, true);
  if (length < 0 || length > message.length - start) {
    throw new DeserializationError(`Arrow schema message declares ${length} bytes of metadata, but ${message.length - start} follow`);
  }
  return message.subarray(start, start + length);
}

/** Walks the flatbuffer field tree with a budget of one field per 8 message bytes, depth at most 64. */
function checkFieldTree(message: Uint8Array, body: Uint8Array): void {
  const bb = new ByteBuffer(body);
  const fb = FbMessage.getRootAsMessage(bb);
  if (fb.headerType() !== MessageHeader.Schema) throw new DeserializationError("Arrow schema message does not hold a Schema");
  const schema = fb.header(new FbSchema()) as FbSchema | null;
  if (schema === null) throw new DeserializationError("Arrow schema message has no header");
  // A flatbuffer vector of n tables takes at least 4n bytes: longer claims are corrupt (and a
  // decoder that trusted them would allocate for them).
  const maxVector = Math.floor(message.length / 4);
  const vector = (n: number, what: string): number => {
    if (!(n >= 0 && n <= maxVector)) throw new DeserializationError(`Arrow schema message claims ${n} ${what}, more than its ${message.length} bytes can hold`);
    return n;
  };
  vector(schema.customMetadataLength(), "schema metadata entries");
  let budget = Math.ceil(message.length / 8) + 16;
  const pending: [FbField, number][] = [];
  for (let i = 0; i < vector(schema.fieldsLength(), "fields"); i++) {
    const field = schema.fields(i);
    if (field === null) throw new DeserializationError(`Arrow schema field ${i} is missing`);
    pending.push([field, 1]);
  }
  while (pending.length) {
    const [field, depth] = pending.pop()!;
    if (--budget < 0) throw new DeserializationError("Arrow schema message describes more fields than its bytes can hold (shared flatbuffer tables)");
    if (depth > MAX_FIELD_DEPTH) throw new DeserializationError(`Arrow schema fields nest more than ${MAX_FIELD_DEPTH} deep`);
    vector(field.customMetadataLength(), "field metadata entries");
    const children = vector(field.childrenLength(), "child fields");
    if (children > budget) throw new DeserializationError("Arrow schema message describes more fields than its bytes can hold");
    for (let j = 0; j < children; j++) {
      const child = field.children(j);
      if (child === null) throw new DeserializationError("Arrow schema field child is missing");
      pending.push([child, depth + 1]);
    }
  }
}

/** Reads an encapsulated IPC Schema message. */
export function readSchemaMessage(message: Uint8Array): arrow.Schema {
  let schema: arrow.Schema | null;
  try {
    const body = messageBody(message);
    checkFieldTree(message, body);
    const decoded = Message.decode(body);
    schema = decoded.isSchema() ? (decoded.header() as arrow.Schema) : null;
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
