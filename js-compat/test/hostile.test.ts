/**
 * Hostile frames: fast-check property tests over mutated golden frames. Whatever the
 * bytes, deserialize returns a value or throws a SerregError (with what and where),
 * never another exception from deep inside a library; a value that decodes can be
 * written again (or is refused with a SerregError). Trusted and untrusted modes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ExtData, encode } from "@msgpack/msgpack";
import { DeserializationError, LimitExceededError, Limits, Registry, SerializationResult, SerregError, classIdHash } from "../src/index.js";
import { register } from "../fixture/examplePoint.js";
import { registerShapes } from "../fixture/structShapes.js";
import { structVectors, vectors } from "./helpers.js";

const registry = new Registry();
register(registry);
const shapes = registerShapes(new Registry());
const STRUCT_FRAMES = structVectors().map((v) => v.bytes);
const FRAMES = [...vectors("python"), ...vectors("java"), ...vectors("canonical")].map((v) => v.bytes).concat(STRUCT_FRAMES);
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

function check(bytes: Uint8Array, trusted: boolean, reader = registry): void {
  let value: unknown;
  try {
    value = reader.deserialize(bytes, { trusted, limits: LIMITS });
  } catch (error) {
    if (error instanceof SerregError) {
      assert.ok(error.message.length > 10);
      // A catch-all's error around a TypeError or RangeError means a check is missing.
      const cause = (error as { cause?: unknown }).cause;
      if (cause !== undefined && !(cause instanceof SerregError)) throw new Error(`a catch-all's refusal: ${error.message}\ncause: ${(cause as Error)?.stack}`);
      return;
    }
    throw new Error(`not a SerregError: ${(error as Error)?.stack ?? String(error)}`);
  }
  try {
    reader.serialize(value);
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

test(`mutated struct frames give a value or a SerregError, read as carriers and as the registered shapes (${RUNS} runs)`, () => {
  fc.assert(
    fc.property(fc.nat(STRUCT_FRAMES.length - 1), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.boolean(), (i, mutations, typed) => {
      check(apply(STRUCT_FRAMES[i]!, mutations), false, typed ? shapes : registry);
    }),
    { numRuns: RUNS, seed: Number(process.env["SERREG_FUZZ_SEED"] ?? 20) },
  );
});

// ---------------------------------------------------------------------------- hostile struct frames (FORMAT 10.4)

const STRUCTS = classIdHash("serreg.structs");
const LIST = classIdHash("list");
const POINT = ["shapes.Point", [["x", "int64"], ["y", "int64"], ["z", "int64"]]];

function structFrame(table: Uint8Array, inner: Uint8Array, innerHash = LIST): Uint8Array {
  const section = new Uint8Array(8 + table.length + 8 + inner.length);
  section.set(STRUCTS, 0);
  section.set(table, 8);
  section.set(innerHash, 8 + table.length);
  section.set(inner, 16 + table.length);
  return new SerializationResult(section).toBytes();
}

const ext1 = (items: unknown[]): ExtData => new ExtData(1, encode(items));
const listOf = (...items: unknown[]): Uint8Array => encode(items);
let nestedType: unknown = "int8";
for (let i = 0; i < 33; i++) nestedType = ["list", nestedType];
const manyFields = Array.from({ length: 65536 }, (_, i) => [`f${i}`, "bool"]);

/** [name, frame, error class, what the message says, only for a registry where shapes.Point is registered]. */
const HOSTILE: [string, Uint8Array, Function, RegExp, boolean?][] = [
  ["index outside the table", structFrame(encode([POINT]), listOf(ext1([3, 1, 2, 3]))), DeserializationError, /names definition 3, but the table holds 1/],
  ["index not an int", structFrame(encode([POINT]), listOf(ext1(["0", 1, 2, 3]))), DeserializationError, /must be an array \[definition index/],
  ["too few values", structFrame(encode([POINT]), listOf(ext1([0, 1]))), DeserializationError, /'shapes.Point': an instance array holds 1 field value\(s\), its definition declares 3/],
  ["too many values", structFrame(encode([["x.Y", [["a", "str"]]]]), listOf(ext1([0, "a", "b"]))), DeserializationError, /holds 2 field value\(s\), its definition declares 1/],
  ["int8 holding 1000", structFrame(encode([["x.Y", [["a", "int8"]]]]), listOf(ext1([0, 1000]))), DeserializationError, /x.Y.a: the frame holds the number 1000 in a field of type int8/],
  ["str holding an int", structFrame(encode([["x.Y", [["a", "str"]]]]), listOf(ext1([0, 5]))), DeserializationError, /x.Y.a: the frame holds the number 5 in a field of type str/],
  ["wrong definition in a struct field", structFrame(encode([["x.A", [["b", ["struct", "x.B"]]]], ["x.C", []]]), listOf(ext1([0, ext1([1])]))), DeserializationError, /x.A.b: the frame holds a StructValue in a field of type struct x.B/],
  ["unknown type name", structFrame(encode([["x.Y", [["a", "int128"]]]]), listOf()), DeserializationError, /x.Y.a: unknown field type "int128"/],
  ["field names repeat", structFrame(encode([["x.Y", [["a", "str"], ["a", "str"]]]]), listOf()), DeserializationError, /struct definition 0 \('x.Y'\): field names repeat/],
  ["empty field name", structFrame(encode([["x.Y", [["", "str"]]]]), listOf()), DeserializationError, /every field must be \[name: non-empty str, type\]/],
  ["definition not [class ID, fields]", structFrame(encode([["x.Y"]]), listOf()), DeserializationError, /struct definition 0 must be \[class ID/],
  ["type nested 33 deep", structFrame(encode([["x.Y", [["a", nestedType]]]]), listOf()), DeserializationError, /x.Y.a: field type nested more than 32 deep/],
  ["65,536 fields", structFrame(encode([["x.Y", manyFields]]), listOf()), LimitExceededError, /declares 65536 fields; at most 65535/],
  ["65,536 definitions", structFrame(Uint8Array.of(0xdd, 0, 1, 0, 0, ...new Uint8Array(70000).fill(0x90)), listOf()), LimitExceededError, /declares 65536 definitions; at most 65535/],
  ["2^31 - 1 definitions", structFrame(Uint8Array.of(0xdd, 0x7f, 0xff, 0xff, 0xff), listOf()), LimitExceededError, /declares 2147483647 definitions/],
  ["more definitions than bytes", structFrame(Uint8Array.of(0xdc, 0x01, 0x00, 0x90), listOf()), DeserializationError, /declares 256 definitions but only 10 bytes follow/],
  ["table not an array", structFrame(encode("x"), listOf()), DeserializationError, /must start with a msgpack array of definitions/],
  ["ext 1 outside any table", new SerializationResult(Uint8Array.from([...LIST, ...listOf(ext1([0, 1]))])).toBytes(), DeserializationError, /outside any struct table/],
  ["ext 2 of the wrong length", structFrame(encode([POINT]), listOf(new ExtData(2, encode([0, 1, 2, 3])))), DeserializationError, /struct 'shapes.Point': a list of its instances \(msgpack ext 2\) is an array of 4 items; its definition's 3 field\(s\) make 5/],
  ["ext 3 (reserved)", structFrame(encode([POINT]), listOf(new ExtData(3, encode([0, 1, 2, 3])))), DeserializationError, /msgpack ext type 3 is not used by serreg/],
  ["top-level hash of another definition", structFrame(encode([POINT, ["x.Q", []]]), encode([1]), classIdHash("shapes.Point")), DeserializationError, /top-level struct's ClassIDHash is not the class ID of the definition it names/],
  ["a struct's section holding another definition", structFrame(encode([POINT, ["x.Q", []]]), listOf(new ExtData(0, Uint8Array.from([...classIdHash("shapes.Point"), ...encode([1])])))), DeserializationError, /a 'shapes.Point' section holds an instance of definition 1 \('x.Q'\)/, true],
  ["nothing after the table", new SerializationResult(Uint8Array.from([...STRUCTS, ...encode([POINT])])).toBytes(), DeserializationError, /too short to hold a ClassIDHash/],
];

for (const [name, frame, errorClass, message, onlyShapes] of HOSTILE) {
  test(`hostile struct frame (${name}) is refused with a clear error and its offset`, () => {
    for (const [reader, trusted] of [[registry, false], [shapes, false], [shapes, true]] as const) {
      if (onlyShapes && reader !== shapes) continue;
      assert.throws(() => reader.deserialize(frame, { trusted }), (e: unknown) => {
        assert.ok(e instanceof errorClass, `${name}: ${(e as Error)?.stack}`);
        assert.match((e as Error).message, message);
        const offset = (e as DeserializationError).offset;
        assert.ok(offset === null || (offset >= 32 && offset <= frame.length), `${name}: offset ${offset}`);
        assert.match((e as Error).message, /byte offset \d+/);
        return true;
      });
    }
  });
}

test("struct instances nested past maxDepth are refused, not a stack overflow", () => {
  let payload = encode([0, null]);
  for (let i = 0; i < 500; i++) payload = encode([0, new ExtData(1, payload)]);
  const frame = structFrame(encode([["x.Rec", [["next", ["optional", ["struct", "x.Rec"]]]]]]), listOf(new ExtData(1, payload)));
  assert.throws(() => registry.deserialize(frame, { trusted: false }), (e: unknown) => e instanceof LimitExceededError && /maxDepth=100/.test(e.message));
  assert.ok(registry.deserialize(frame, { limits: new Limits({ maxDepth: null }) }) !== null);
  // Without maxDepth, 20,000 levels run out of JS stack first: still a SerregError.
  const deep = structFrame(encode([["x.Rec", [["next", ["optional", ["struct", "x.Rec"]]]]]]), listOf(new ExtData(1, nestedInstances(20_000))));
  assert.throws(() => registry.deserialize(deep, { limits: new Limits({ maxDepth: null, maxFrameSize: null }) }), (e: unknown) => e instanceof SerregError);
});

/** The payload of `levels` instances of x.Rec nested in each other (ext 32 headers), built in one pass. */
function nestedInstances(levels: number): Uint8Array {
  const innermost = [0x92, 0x00, 0xc0]; // [0, nil]
  const out = new Uint8Array(levels * 8 + innermost.length);
  for (let i = 0; i < levels; i++) {
    const length = (levels - 1 - i) * 8 + innermost.length; // of the payload this level's ext holds
    out.set([0x92, 0x00, 0xc9, length >>> 24, (length >>> 16) & 0xff, (length >>> 8) & 0xff, length & 0xff, 0x01], i * 8);
  }
  out.set(innermost, levels * 8);
  return out;
}

// ---------------------------------------------------------------------------- refusals that are checks, not catch-alls

test("msgpack nesting counts an empty innermost container, as Python and Java: 1,024 deep reads, 1,025 is refused", () => {
  const LIST_HASH = classIdHash("list");
  const nested = (depth: number, empty: number): Uint8Array => {
    const bytes = new Uint8Array(depth);
    bytes.fill(0x91, 0, depth - 1);
    bytes[depth - 1] = empty;
    return new SerializationResult(Uint8Array.from([...LIST_HASH, ...bytes])).toBytes();
  };
  for (const empty of [0x90, 0x80]) {
    assert.doesNotThrow(() => registry.deserialize(nested(1024, empty)));
    assert.throws(() => registry.deserialize(nested(1025, empty)), (e: unknown) => e instanceof LimitExceededError && /nested more than 1024 deep/.test(e.message) && /byte offset 1064/.test(e.message));
  }
});

test("a date, time, timedelta or decimal its type refuses is a check's refusal (no catch-all, no cause)", () => {
  const frame = (classId: string, value: unknown): Uint8Array => new SerializationResult(Uint8Array.from([...classIdHash(classId), ...encode(value)])).toBytes();
  const cases: [Uint8Array, RegExp][] = [
    [frame("datetime", [2024, 13, 1, 0, 0, 0, 0, 0, null]), /month must be an integer in \[1, 12\], not 13 \(class ID 'datetime', byte offset 32\)/],
    [frame("date", [2024, 2, 30]), /class ID 'date', byte offset 32/],
    [frame("time", [1, 2, 3, 4, 2, null]), /fold must be an integer in \[0, 1\], not 2/],
    [frame("timedelta", [1_000_000_000, 0, 0]), /days must be an integer in \[-999999999, 999999999\]/],
    [frame("decimal", "zz"), /invalid decimal text "zz" \(class ID 'decimal', byte offset 32\)/],
  ];
  for (const [bytes, words] of cases) {
    for (const trusted of [true, false]) {
      assert.throws(() => registry.deserialize(bytes, { trusted }), (e: unknown) => {
        assert.ok(e instanceof DeserializationError, String(e));
        assert.match(e.message, words);
        assert.doesNotMatch(e.message, /could not decode the value/);
        assert.equal((e as { cause?: unknown }).cause, undefined);
        return true;
      });
    }
  }
});
