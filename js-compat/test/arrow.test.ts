/** Arrow: frames read into apache-arrow Tables over the frame's buffers; JS-built tables written and read back. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as arrow from "apache-arrow";
import { encode } from "@msgpack/msgpack";
import { DeserializationError, LimitExceededError, Limits, SerializationResult, classIdHash, deserialize, serialize } from "../src/index.js";
import { vectors } from "./helpers.js";

const rows = (t: arrow.Table | arrow.RecordBatch): unknown => JSON.stringify(t.toArray().map((r) => r?.toJSON()), (_k, v) => (typeof v === "bigint" ? `${v}n` : v));

test("Python's Arrow table reads as a Table whose vectors are views of the frame", () => {
  const frame = vectors("python").find((v) => v.name === "arrow_table")!.bytes;
  const table = deserialize(frame) as arrow.Table;
  assert.ok(table instanceof arrow.Table);
  assert.equal(rows(table), JSON.stringify([{ a: "1n", s: "x" }, { a: null, s: "yy" }, { a: "3n", s: null }]));
  assert.equal(table.getChild("a")!.data[0]!.values.buffer, frame.buffer, "no copy");
});

test("a JS-built table of many types is written and read back equal (several batches)", () => {
  const batch = arrow.tableFromArrays({
    i: Int32Array.from([1, 2, 3]),
    f: Float64Array.from([0.5, NaN, -1]),
    big: BigInt64Array.from([1n, -2n, 3n]),
  }).batches[0]!;
  const s = arrow.vectorFromArray(["x", null, "zz"], new arrow.Utf8());
  const l = arrow.vectorFromArray([[1, 2], null, []], new arrow.List(new arrow.Field("item", new arrow.Int32(), true)));
  const table = new arrow.Table({ ...Object.fromEntries(batch.schema.fields.map((f) => [f.name, batch.getChild(f.name as "i")!])), s, l });
  const twice = new arrow.Table([...table.batches, ...table.batches]);
  const back = deserialize(serialize(twice).toBytes()) as arrow.Table;
  assert.equal(back.batches.length, 2);
  assert.equal(rows(back), rows(twice));
  const rb = deserialize(serialize(table.batches[0]!).toBytes()) as arrow.RecordBatch;
  assert.ok(rb instanceof arrow.RecordBatch);
  assert.equal(rows(rb), rows(table.batches[0]!));
});

test("a sliced column is compacted before it is written", () => {
  const table = arrow.tableFromArrays({ x: Int32Array.from({ length: 10 }, (_, i) => i) });
  const sliced = table.slice(3, 6);
  const back = deserialize(serialize(sliced).toBytes()) as arrow.Table;
  assert.deepEqual(Array.from(back.getChild("x")!.toArray() as Int32Array), [3, 4, 5]);
});

test("hostile Arrow nodes are refused clearly", () => {
  const frame = vectors("python").find((v) => v.name === "arrow_record_batch")!.bytes;
  // The node [2, 0, 2] of column f: claim more rows than the buffer holds.
  const bad = frame.slice();
  const at = Buffer.from(bad).indexOf(Buffer.from([0x91, 0x93, 0x02, 0x00, 0x02]));
  assert.ok(at > 0);
  bad[at + 2] = 0x7f;
  bad[at - 1] = 0x7f; // the batch's row count too
  assert.throws(() => deserialize(bad), (e: unknown) => e instanceof DeserializationError && /values of column 0/.test(e.message));
});

/** An ArrowTable frame of `schema` (a JS-built Schema, written by apache-arrow) and `batches` [rows, nodes] parts. */
function tableFrame(schema: arrow.Schema, batches: unknown[]): Uint8Array {
  const stream = arrow.tableToIPC(new arrow.Table(schema), "stream");
  const message = stream.slice(0, 8 + new DataView(stream.buffer, stream.byteOffset).getInt32(4, true));
  return new SerializationResult(Uint8Array.from([...classIdHash("ArrowTable"), ...encode([message, batches])])).toBytes();
}

test("many empty batches are charged against the memory budget, one batch at a time, as in Python", () => {
  const schema = new arrow.Schema([new arrow.Field("n", new arrow.Null())]);
  const frame = tableFrame(schema, Array.from({ length: 60_000 }, () => [0, [[0, 0, 0]]]));
  assert.throws(() => deserialize(frame), (e: unknown) => e instanceof LimitExceededError
    && /^decoding would build more than 40,277,088 bytes of Arrow batches and arrays and other charged values for a frame of 420,166 bytes \(memoryAllowance \+ memoryPerByte x frame size\); raise it with new Limits\(\{ memoryPerByte \}\)/.test(e.message)
    && /class ID 'ArrowTable', byte offset 32/.test(e.message));
  const table = deserialize(frame, { limits: new Limits({ memoryPerByte: null }) }) as arrow.Table;
  assert.equal(table.batches.length, 60_000);
  assert.equal(table.numRows, 0);
});

test("a batch is made with the table's schema (apache-arrow's constructor matched and cloned every field by name)", () => {
  const fields = Array.from({ length: 300 }, (_, i) => new arrow.Field(`c${i}`, new arrow.Null()));
  const frame = tableFrame(new arrow.Schema(fields), [[2, fields.map(() => [2, 2, 0])], [1, fields.map(() => [1, 1, 0])]]);
  const table = deserialize(frame) as arrow.Table;
  assert.equal(table.numRows, 3);
  assert.equal(table.numCols, 300);
  for (const batch of table.batches) assert.equal(batch.schema, table.schema);
  assert.equal(table.getChild("c299")!.get(2), null);
  assert.deepEqual(serialize(table).toBytes(), frame);
});

test("bytes after the Arrow batches are refused", () => {
  const schema = new arrow.Schema([new arrow.Field("n", new arrow.Null())]);
  const frame = tableFrame(schema, [[0, [[0, 0, 0]]]]);
  const longer = new SerializationResult(Uint8Array.from([...frame.subarray(32), 0xc0])).toBytes();
  assert.throws(() => deserialize(longer), (e: unknown) => e instanceof DeserializationError && /Arrow in-band has 1 bytes after its batches/.test(e.message));
});

test("a string column is UTF-8 value by value: a character split between two values is refused, a null slot's bytes are not read", () => {
  const column = (bytes: number[], offsets: number[], nulls: number[] = []): Uint8Array => {
    const length = offsets.length - 1;
    const nullBitmap = nulls.length ? Uint8Array.of(Array.from({ length }, (_, i) => (nulls.includes(i) ? 0 : 1 << i)).reduce((a, b) => a | b, 0)) : undefined;
    const data = arrow.makeData({ type: new arrow.Utf8(), length, nullCount: nulls.length, nullBitmap, valueOffsets: Int32Array.from(offsets), data: Uint8Array.from(bytes) });
    return serialize(new arrow.Table({ s: arrow.makeVector(data) })).toBytes();
  };
  assert.throws(() => deserialize(column([0xc3, 0xa9], [0, 1, 2])), (e: unknown) => e instanceof DeserializationError
    && /invalid Arrow string column: column 0 \("s"\) has an invalid UTF-8 sequence at string index 0/.test(e.message));
  assert.throws(() => deserialize(column([0x61, 0xff], [0, 1, 2])), (e: unknown) => e instanceof DeserializationError && /at string index 1/.test(e.message));
  const nullFirst = deserialize(column([0xff, 0x61], [0, 1, 2], [0])) as arrow.Table;
  assert.deepEqual(nullFirst.getChild("s")!.toArray(), [null, "a"]);
  assert.deepEqual((deserialize(column([0xc3, 0xa9, 0x61], [0, 2, 3])) as arrow.Table).getChild("s")!.toArray(), ["é", "a"]);
});
