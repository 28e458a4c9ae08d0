/** Signed frames version 2 (team decision 2): derived key, flag 0x02, trailer over every byte before it. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { DeserializationError, SerializationResult, SignatureError, deserialize, serialize } from "../src/index.js";
import { hex } from "./helpers.js";

const key = Uint8Array.from({ length: 32 }, (_, i) => i);
const value = { a: [1, 2, 3], t: new Uint8Array(70000).fill(7) };

test("a signed frame sets flag 0x02 and ends with HMAC-SHA256(derived key, frame before the trailer)", () => {
  const frame = serialize(value, { key }).toBytes();
  assert.equal(frame[5], 0x02);
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(32n);
  const macKey = createHash("sha256").update("serreg-frame-key-v2").update(length).update(key).digest();
  const expected = createHmac("sha256", macKey).update(frame.subarray(0, frame.length - 32)).digest();
  assert.equal(hex(frame.subarray(frame.length - 32)), expected.toString("hex"));
  const total = new DataView(frame.buffer).getBigUint64(24, true);
  assert.equal(total, BigInt(frame.length));
  // The raw key (v1) does not verify it: keys are not interchangeable.
  assert.notEqual(createHmac("sha256", key).update(frame.subarray(0, frame.length - 32)).digest("hex"), expected.toString("hex"));
});

test("the unsigned frame is unchanged by signing: same layout, trailer appended", () => {
  const plain = serialize(value).toBytes();
  const signed = serialize(value, { key }).toBytes();
  assert.equal(signed.length, plain.length + 32);
  assert.equal(hex(signed.subarray(32, plain.length)), hex(plain.subarray(32)));
});

test("signed frames decode with the key and without it", () => {
  const frame = serialize(value, { key }).toBytes();
  assert.deepEqual((deserialize(frame, { key }) as { a: number[] }).a, [1, 2, 3]);
  assert.deepEqual((deserialize(frame) as { a: number[] }).a, [1, 2, 3]);
});

test("unsigned, other-key and altered frames are refused before decoding", () => {
  const frame = serialize(value, { key }).toBytes();
  assert.throws(() => deserialize(serialize(value).toBytes(), { key }), (e: unknown) => e instanceof SignatureError && /not signed/.test(e.message));
  const other = serialize(value, { key: key.map((b) => b ^ 1) }).toBytes();
  assert.throws(() => deserialize(other, { key }), (e: unknown) => e instanceof SignatureError && /another key or altered/.test(e.message));
  for (const at of [5, 40, 200, frame.length - 1]) {
    const altered = frame.slice();
    altered[at]! ^= 1;
    assert.throws(() => deserialize(altered, { key }), (e: unknown) => e instanceof DeserializationError);
  }
});

test("with a key, the frame is copied before it is verified: values do not alias the caller's bytes", () => {
  const frame = serialize({ b: new Uint8Array(70000).fill(1) }, { key }).toBytes();
  const back = deserialize(frame, { key }) as { b: Uint8Array };
  frame.fill(0);
  assert.equal(back.b[0], 1);
});

test("short keys are refused; in-process results are checked by key", () => {
  assert.throws(() => serialize(1, { key: new Uint8Array(15) }), RangeError);
  const result = serialize([1], { key });
  assert.ok(result instanceof SerializationResult);
  assert.deepEqual(deserialize(result, { key }), [1]);
  assert.throws(() => deserialize(result, { key: new Uint8Array(32) }), SignatureError);
  assert.throws(() => deserialize(serialize([1]), { key }), SignatureError);
});
