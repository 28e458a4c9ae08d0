/**
 * Big ints (class ID `int` beyond 64 bits, docs/FORMAT.md section 6.1): written and read in time
 * linear in their bytes, the same bytes Python writes, and never turned into decimal digits to be
 * named in a refusal (a big int where a struct's int field was).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtData, encode } from "@msgpack/msgpack";
import { DeserializationError, Registry, SerializationResult, classIdHash, deserialize, serialize } from "../src/index.js";
import { bigintToBytes, bytesToBigint } from "../src/standard/core.js";

/** Python's int.to_bytes(size, "little", signed=True) with the minimal size, written out independently. */
function reference(v: bigint): Uint8Array {
  let size = 1;
  while (v < -(1n << BigInt(8 * size - 1)) || v >= 1n << BigInt(8 * size - 1)) size++;
  const out = new Uint8Array(size);
  let u = v < 0n ? (1n << BigInt(8 * size)) + v : v;
  for (let i = 0; i < size; i++) {
    out[i] = Number(u % 256n);
    u /= 256n;
  }
  return out;
}

test("a big int's bytes are the minimal two's complement, little-endian, as Python writes them", () => {
  const values = [2n ** 64n, -(2n ** 63n) - 1n, 2n ** 71n - 1n, -(2n ** 71n), 2n ** 71n, -(2n ** 72n) + 1n, 255n, -256n, 0n, -1n];
  for (let k = 60; k < 140; k += 7) values.push(3n ** BigInt(k), -(3n ** BigInt(k)));
  for (const v of values) {
    assert.deepEqual(bigintToBytes(v), reference(v), `${v}`);
    assert.equal(bytesToBigint(bigintToBytes(v)), v, `${v}`);
  }
});

test("a big int of a megabyte is written and read in linear time", () => {
  const v = -(1n << BigInt(8 * 1_000_000 - 9)) + 12345n;
  const started = performance.now();
  const frame = serialize(v).toBytes();
  assert.equal(deserialize(frame), v);
  // Shifting the bigint 8 bits at a time copied it each time: 100 KB took about 1 s, 1 MB about 100 s.
  assert.ok(performance.now() - started < 2000, `${performance.now() - started} ms`);
});

test("a big int where a struct's int field was is named by its size, not its digits", () => {
  const registry = new Registry();
  class Pair {
    left = "";
    right = 0;
  }
  registry.registerStruct(Pair, "x.Pair", { left: "str", right: "int64" });
  const big = -(1n << BigInt(8 * 1_000_000 - 9)) + 12345n;
  const nested = new ExtData(0, new Uint8Array([...classIdHash("int"), ...encode(bigintToBytes(big))]));
  const inner = encode([new ExtData(1, encode([0, "a", nested]))]);
  const table = encode([["x.Pair", [["left", "str"], ["right", "int64"]]]]);
  const section = new Uint8Array([...classIdHash("serreg.structs"), ...table, ...classIdHash("list"), ...inner]);
  const frame = new SerializationResult(section).toBytes();
  const started = performance.now();
  assert.throws(() => registry.deserialize(frame), (error: unknown) =>
    error instanceof DeserializationError && /x\.Pair\.right: the frame holds a bigint of 7999991 bits in a field of type int64/.test(error.message));
  // Its decimal digits took 1.7 s (and made a message of 2.4 million characters).
  assert.ok(performance.now() - started < 1000, `${performance.now() - started} ms`);
});
