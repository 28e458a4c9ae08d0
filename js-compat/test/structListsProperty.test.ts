/**
 * Lists of struct instances (ext 2, docs/FORMAT.md 10.3) over random values of
 * every column kind (shapes.Row): what is written reads back equal through the
 * registered classes, and a relay that knows no class (the carrier) writes the
 * same bytes again; a list cut into two lists, or mixed with another value,
 * still reads back equal.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Registry, StructValue } from "../src/index.js";
import { Pair, Point, Row, registerShapes } from "../fixture/structShapes.js";
import { hex } from "./helpers.js";

const shapes = registerShapes(new Registry());
const relay = new Registry();

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const point = fc.tuple(fc.maxSafeInteger(), fc.integer(), fc.integer({ min: -1000, max: 1000 })).map(([x, y, z]) => new Point(x, y, z));
const plain: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null), fc.boolean(), fc.string(), fc.integer(), fc.double({ noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
  fc.array(fc.integer(), { maxLength: 3 }), fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }).filter((k) => !/^\d+$/.test(k) && k !== "__proto__"), fc.integer(), { maxKeys: 2 }).map((d) => ({ ...d })),
);
const extra = fc.oneof(plain, fc.array(point, { minLength: 1, maxLength: 3 }), point);
const row = fc.record({
  count: fc.integer({ min: 0, max: 2 ** 32 - 1 }), delta: int64, small: fc.integer({ min: -128, max: 127 }),
  ratio: fc.double(), weight: fc.double().map(Math.fround), flag: fc.boolean(), name: fc.string(),
  tags: fc.array(fc.string(), { maxLength: 3 }), origin: point, path: fc.array(point, { maxLength: 3 }),
  maybe: fc.option(fc.tuple(fc.string(), fc.integer()).map(([l, r]) => new Pair(l, r)), { nil: null }), extra,
}).map((fields) => new Row(fields));

test("random lists of every column kind read back equal, and a carrier relay writes the same bytes", () => {
  fc.assert(fc.property(fc.array(row, { minLength: 1, maxLength: 8 }), (rows) => {
    const frame = shapes.serialize(rows).toBytes();
    assert.deepEqual(shapes.deserialize(frame, { trusted: false }), rows);
    const carried = relay.deserialize(frame, { trusted: false }) as StructValue[];
    assert.ok(carried.every((c) => c instanceof StructValue));
    assert.equal(hex(relay.serialize(carried).toBytes()), hex(frame));
  }), { numRuns: 300, seed: 11 });
});

test("lists split, nested and mixed with other values read back equal", () => {
  fc.assert(fc.property(fc.array(row, { minLength: 2, maxLength: 6 }), fc.nat(5), (rows, cut) => {
    const at = 1 + (cut % (rows.length - 1));
    const value = { head: rows.slice(0, at), tail: [rows.slice(at)], mixed: [...rows.slice(0, 1), 7], points: rows.map((r) => r.origin) };
    assert.deepEqual(shapes.deserialize(shapes.serialize(value).toBytes()), value);
  }), { numRuns: 150, seed: 12 });
});
