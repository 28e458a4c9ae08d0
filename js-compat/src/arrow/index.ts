/**
 * `ArrowTable` and `ArrowRecordBatch` (docs/FORMAT.md, section 6.4) as apache-arrow
 * `Table` and `RecordBatch`. In-band: [schema, batches], schema an IPC Schema
 * message (or the canonical description of 9.5), each batch [row count, field
 * nodes]; the buffers are out-of-band. Reading builds the vectors over the
 * frame's buffers without copying; writing hands out the vectors' own memory.
 */
import * as arrow from "apache-arrow";
import type { DecodeContext, Encoder } from "../serializer.js";
import { DeserializationError } from "../errors.js";
import { Writer } from "../msgpack/writer.js";
import type { OutOfBand } from "../oob.js";
import type { Registry } from "../registry.js";
import { InlineSerializer, asArray, asInt } from "../standard/core.js";
import { schemaFromDescription } from "./description.js";
import { ArrowInBand } from "./inBand.js";
import { NodeReader } from "./read.js";
import { adoptSchemaBytes, checkField, readSchemaMessage, writeSchemaMessage } from "./schema.js";
import { writeBatch } from "./write.js";

/** What one batch and one field node's Data cost in memory (measured as FIELD_COST), charged before they are built. */
const BATCH_COST = 1024;
const NODE_COST = 512;

function writeBatches(w: Writer, schema: arrow.Schema, batches: readonly arrow.RecordBatch[], context: Encoder): void {
  w.arrayHeader(2);
  w.bin(writeSchemaMessage(schema));
  w.arrayHeader(batches.length);
  for (const batch of batches) {
    const [rows, nodes] = writeBatch(batch, context.oob);
    w.arrayHeader(2);
    w.int(rows);
    w.arrayHeader(nodes.length);
    for (const node of nodes) {
      w.arrayHeader(3);
      for (const n of node) w.int(n);
    }
  }
}

/**
 * The RecordBatch of `schema` over `data`, whose children all have its length (checked before).
 * apache-arrow's constructor would match each field to the schema's by name and clone them all
 * (time quadratic in the columns: 13 s for 60,000 null columns, and a Schema per batch); the
 * batch is made with the schema it was read with instead, as that constructor's result would be.
 */
function batchOver(schema: arrow.Schema, data: arrow.Data<arrow.Struct>): arrow.RecordBatch {
  const batch = Object.create(arrow.RecordBatch.prototype) as { schema: arrow.Schema; data: arrow.Data<arrow.Struct>; _metadata: Map<string, string> };
  batch.schema = schema;
  batch.data = data;
  batch._metadata = new Map();
  return batch as unknown as arrow.RecordBatch;
}

function readBatches(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): [arrow.Schema, arrow.RecordBatch[]] {
  const parts = new ArrowInBand(inBand, base);
  const schemaPart = parts.schemaPart;
  let schema: arrow.Schema;
  const charge = (cost: number, what: string): void => context.charge(cost, what);
  if (schemaPart instanceof Uint8Array) schema = readSchemaMessage(schemaPart, charge);
  else if (Array.isArray(schemaPart)) schema = schemaFromDescription(schemaPart, charge);
  else throw new DeserializationError("Arrow in-band must be [schema, batches]");
  schema.fields.forEach((field, i) => checkField(field, `column ${i}`));
  const batches: arrow.RecordBatch[] = [];
  const structType = new arrow.Struct(schema.fields);
  for (const batchPart of parts.batches()) {
    const [rowsPart, nodes] = asArray(batchPart, "an Arrow batch", 2);
    const rows = asInt(rowsPart, "an Arrow row count");
    const nodeList = asArray(nodes, "Arrow field nodes");
    context.charge(BATCH_COST + NODE_COST * nodeList.length, "Arrow batches and arrays");
    const reader = new NodeReader(nodeList, oob);
    const children = schema.fields.map((field, i) => reader.read(field, `column ${i} (${JSON.stringify(field.name)})`));
    reader.finish();
    children.forEach((child, i) => {
      if (child.length !== rows) throw new DeserializationError(`Arrow column ${i} has ${child.length} rows, the batch ${rows}`);
    });
    batches.push(batchOver(schema, arrow.makeData({ type: structType, length: rows, nullCount: 0, children })));
  }
  return [schema, batches];
}

export class ArrowTableSerializer extends InlineSerializer<arrow.Table> {
  write(w: Writer, table: arrow.Table, context: Encoder): void {
    writeBatches(w, table.schema, table.batches, context);
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): arrow.Table {
    const [schema, batches] = readBatches(inBand, oob, context, base);
    const table = batches.length ? new arrow.Table(schema, batches) : new arrow.Table(schema);
    adoptSchemaBytes(schema, table.schema);
    return table;
  }
}

export class ArrowRecordBatchSerializer extends InlineSerializer<arrow.RecordBatch> {
  write(w: Writer, batch: arrow.RecordBatch, context: Encoder): void {
    writeBatches(w, batch.schema, [batch], context);
  }
  deserialize(inBand: Uint8Array, oob: OutOfBand, context: DecodeContext, base: number | null): arrow.RecordBatch {
    const [, batches] = readBatches(inBand, oob, context, base);
    if (batches.length !== 1) throw new DeserializationError(`an ArrowRecordBatch holds exactly one batch, not ${batches.length}`);
    return batches[0]!;
  }
}

export function installArrow(registry: Registry): void {
  registry.registerSerializer("ArrowTable", [arrow.Table], new ArrowTableSerializer());
  registry.registerSerializer("ArrowRecordBatch", [arrow.RecordBatch], new ArrowRecordBatchSerializer());
}
