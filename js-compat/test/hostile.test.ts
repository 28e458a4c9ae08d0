/**
 * Hostile frames: fast-check property tests over mutated golden frames. Whatever the
 * bytes, deserialize returns a value or throws a SerregError (with what and where),
 * never another exception from deep inside a library; a value that decodes can be
 * written again (or is refused with a SerregError). Trusted and untrusted modes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Limits, Registry, SerregError } from "../src/index.js";
import { register } from "../fixture/examplePoint.js";
import { vectors } from "./helpers.js";

const registry = new Registry();
register(registry);
const FRAMES = [...vectors("python"), ...vectors("java"), ...vectors("canonical")].map((v) => v.bytes);
const RUNS = Number(process.env["SERREG_FUZZ_RUNS"] ?? 1500);
const LIMITS = new Limits({ maxFrameSize: 64 * 2 ** 20 });

type Mutation =
  | { kind: "flip"; at: number; bit: number }
  | { kind: "set"; at: number; byte: number }
  | { kind: "truncate"; at: number }
  | { kind: "insert"; at: number; bytes: number[] }
  | { kind: "delete"; at: number; count: number }
  | { kind: "u32"; at: number; value: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), bit: fc.nat(7) }),
  fc.record({ kind: fc.constant("set" as const), at: fc.nat(), byte: fc.nat(255) }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), bytes: fc.array(fc.nat(255), { minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), count: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant("u32" as const), at: fc.nat(), value: fc.oneof(fc.constantFrom(0, 1, 0x7fffffff, 0xffffffff, 64, 65536), fc.nat()) }),
);

/** Mutations land mostly in the header, table and in-band, where the structure is. */
function apply(frame: Uint8Array, mutations: Mutation[]): Uint8Array {
  let bytes = frame.slice();
  const total = new DataView(frame.buffer, frame.byteOffset).getUint32(16, true) + 32 + 16 * new DataView(frame.buffer, frame.byteOffset).getUint32(8, true);
  const hot = Math.max(1, Math.min(bytes.length, total + 64));
  for (const m of mutations) {
    const at = m.at % (m.at % 4 === 0 ? Math.max(1, bytes.length) : hot);
    switch (m.kind) {
      case "flip": if (at < bytes.length) bytes[at]! ^= 1 << m.bit; break;
      case "set": if (at < bytes.length) bytes[at] = m.byte; break;
      case "truncate": bytes = bytes.slice(0, at); break;
      case "insert": bytes = Uint8Array.from([...bytes.subarray(0, at), ...m.bytes, ...bytes.subarray(at)]); break;
      case "delete": bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + m.count)]); break;
      case "u32": if (at + 4 <= bytes.length) new DataView(bytes.buffer).setUint32(at, m.value, true); break;
    }
  }
  // Keep the header's total length true to the bytes more often than not, so the in-band gets explored.
  if (bytes.length >= 32 && mutations.length % 2 === 0) new DataView(bytes.buffer).setBigUint64(24, BigInt(bytes.length), true);
  return bytes;
}

function check(bytes: Uint8Array, trusted: boolean): void {
  let value: unknown;
  try {
    value = registry.deserialize(bytes, { trusted, limits: LIMITS });
  } catch (error) {
    if (error instanceof SerregError) {
      assert.ok(error.message.length > 10);
      return;
    }
    throw new Error(`not a SerregError: ${(error as Error)?.stack ?? String(error)}`);
  }
  try {
    registry.serialize(value);
  } catch (error) {
    if (!(error instanceof SerregError)) throw new Error(`writing a decoded value failed outside serreg: ${(error as Error)?.stack}`);
  }
}

for (const trusted of [true, false]) {
  test(`mutated golden frames give a value or a SerregError (${trusted ? "trusted" : "untrusted"}, ${RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.nat(FRAMES.length - 1), fc.array(mutation, { minLength: 1, maxLength: 4 }), (i, mutations) => {
        check(apply(FRAMES[i]!, mutations), trusted);
      }),
      { numRuns: RUNS, seed: Number(process.env["SERREG_FUZZ_SEED"] ?? (trusted ? 17 : 18)) },
    );
  });
}

test(`random bytes after a valid header give a SerregError (${RUNS} runs)`, () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), fc.nat(3), (tail, count) => {
      const frame = new Uint8Array(32 + tail.length);
      frame.set([0x53, 0x52, 0x45, 0x47, 1]);
      const view = new DataView(frame.buffer);
      view.setUint32(8, count, true);
      view.setBigUint64(16, BigInt(Math.max(0, tail.length - 16 * count)), true);
      view.setBigUint64(24, BigInt(frame.length), true);
      frame.set(tail, 32);
      check(frame, false);
    }),
    { numRuns: RUNS, seed: 19 },
  );
});

test("an Arrow schema message claiming huge flatbuffer vectors is refused without allocating for them", () => {
  // Regression: a child count of 2^31 - 1 made the field walk push that many entries (out of memory).
  const frame = vectors("python").find((v) => v.name === "arrow_table")!.bytes;
  const start = Buffer.from(frame).indexOf(Buffer.from([0xff, 0xff, 0xff, 0xff]), 32);
  assert.ok(start > 0);
  let refused = 0;
  for (let at = start + 8; at < start + 400 && at + 4 <= frame.length; at += 4) {
    const bad = frame.slice();
    new DataView(bad.buffer).setUint32(at, 0x7fffffff, true);
    try {
      registry.deserialize(bad, { limits: LIMITS });
    } catch (error) {
      assert.ok(error instanceof SerregError, String((error as Error)?.stack));
      refused++;
    }
  }
  assert.ok(refused > 10);
});
