/**
 * Cross-language structs (docs/FORMAT.md section 10): the golden vectors of
 * tests/vectors/structs read and re-written byte for byte (through the carrier
 * and through the registered shapes), the same values built here written as
 * Python writes them, the evolution rules of 10.4, and the writer's checks.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import * as arrow from "apache-arrow";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  Decimal, DeserializationError, Float64, Limits, OpaqueValue, PyDate, PyDateTime, Registry, SerializationError, StructValue,
  TimeDelta, Tuple, UUID, defineStruct, ndarray, t,
} from "../src/index.js";
import { Color, Everything, Node, Pair, Point, Row, Widths, registerShapes } from "../fixture/structShapes.js";
import { VECTORS, hex } from "./helpers.js";

const DIR = join(VECTORS, "structs");
/** `legacy`: written before ext 2 (lists as arrays of ext 1): read, and written again as the vector `rewrites_to`. */
const MANIFEST: { name: string; file: string; digest: string; legacy?: boolean; rewrites_to?: string }[] = JSON.parse(readFileSync(join(DIR, "manifest.json"), "utf8"));
const bytesOf = (name: string): Uint8Array => new Uint8Array(readFileSync(join(DIR, MANIFEST.find((e) => e.name === name)!.file)));
const shapes = registerShapes(new Registry());

function tree(): Node {
  return new Node(1, [new Node(2, [], "two"), new Node(3, [new Node(4)])]);
}

/** The values of tests/vectors/make_struct_vectors.py, built in TypeScript. */
const VALUES: Record<string, () => unknown> = {
  point: () => new Point(1, -2, 3),
  points_3: () => [0, 1, 2].map((i) => new Point(i, i * 2, 0 - i)),
  widths: () => new Widths(-128, -32768, -(2 ** 31), -(2n ** 63n), 255, 65535, 2 ** 32 - 1, 2n ** 64n - 1n, 0.5, 1e300),
  everything: () => new Everything({
    flag: true, name: "h\u00e9llo", data: Uint8Array.of(0, 1), color: Color.GREEN, tags: ["a", "b"],
    scores: new Map([["x", 1.5], ["y", -0]]), members: new Set([3, 1, 2]), pair: [7, "seven"], maybe: null,
    when: new PyDateTime(2024, 5, 6, 7, 8, 9, 10), day: new PyDate(2024, 1, 2), span: new TimeDelta(1, 2),
    amount: new Decimal("1.50"), ident: new UUID("12345678-1234-5678-1234-567812345678"), anything: { k: [1, Tuple.of(2, 3)] },
    origin: new Point(1, 2, 3),
  }),
  tree,
  pair: () => new Pair("left", 2),
  mixed: () => ({ pair: new Pair("a"), points: Tuple.of(new Point(0, 0, 0)), tree: tree() }),
  columns: () => [
    new Row({ count: 0, delta: -(2n ** 63n), small: 0, ratio: 0.5, weight: Math.fround(0.1), flag: true, name: "a", tags: [], origin: new Point(1, 2, 3), path: [] }),
    new Row({
      count: 128, delta: 2n ** 63n - 1n, small: 127, ratio: -0, weight: -2.5, flag: false, name: "", tags: ["x"], origin: new Point(-1, 0, 1),
      path: [new Point(4, 5, 6), new Point(7, 8, -9)], maybe: new Pair("p", 1), extra: [new Point(9, 9, 9)],
    }),
    new Row({
      count: 2 ** 32 - 1, delta: 300n, small: 5, ratio: 1e300, weight: Infinity, flag: true, name: "h\u00e9llo", tags: ["y", "z"], origin: new Point(0, 0, 0),
      path: [new Point(0, -1, 2)], extra: { k: 1 },
    }),
  ],
};

for (const entry of MANIFEST) {
  const bytes = bytesOf(entry.name);
  // A legacy vector is written again as the ext 2 vector it rewrites to, with the same value.
  const target = entry.rewrites_to === undefined ? entry : MANIFEST.find((e) => e.file === entry.rewrites_to)!;
  const expected = bytesOf(target.name);
  assert.ok(entry.legacy === (entry.rewrites_to !== undefined) || (entry.legacy === undefined && entry.rewrites_to === undefined));
  test(`struct vector ${entry.name}: its digest, read and re-written ${entry.legacy ? `as ${target.name}` : "byte for byte"} through the carrier`, () => {
    assert.equal(createHash("sha256").update(bytes).digest("hex"), entry.digest);
    const relay = new Registry(); // no struct registered: every instance is a StructValue
    const value = relay.deserialize(bytes, { trusted: false });
    assert.ok(JSON.stringify(value, (_k, v) => (v instanceof StructValue ? "<carrier>" : typeof v === "bigint" ? String(v) : v)).includes("<carrier>"));
    assert.equal(hex(relay.serialize(value).toBytes()), hex(expected));
  });
  test(`struct vector ${entry.name}: read as the registered shapes and re-written ${entry.legacy ? `as ${target.name}` : "byte for byte"}`, () => {
    const value = shapes.deserialize(bytes, { trusted: false });
    assert.equal(hex(shapes.serialize(value).toBytes()), hex(expected));
    assert.deepEqual(value, VALUES[target.name]!());
  });
  if (entry.legacy) continue;
  test(`struct vector ${entry.name}: the same value built in TypeScript is written as Python writes it`, () => {
    assert.equal(hex(shapes.serialize(VALUES[entry.name]!()).toBytes()), hex(bytes));
  });
}

test("the struct vectors include ext 2 lists, and their legacy twins arrays of ext 1", () => {
  const ext2 = (name: string): boolean => /(c7..|d7)02(9[0-9a-f]|dc)/.test(hex(bytesOf(name)));
  assert.ok(["points_3", "tree", "mixed", "columns"].every(ext2));
  assert.ok(["legacy_points_3", "legacy_tree", "legacy_mixed"].every((name) => !ext2(name)));
});

test("the carrier: class ID, fields by name, plain values (int64 beyond 2^53 as bigint)", () => {
  const widths = new Registry().deserialize(bytesOf("widths")) as StructValue;
  assert.equal(widths.classId, "shapes.Widths");
  assert.equal(widths.get("i64"), -(2n ** 63n));
  assert.equal(widths.get("u32"), 2 ** 32 - 1);
  assert.deepEqual([...widths.fields.keys()].slice(0, 3), ["i8", "i16", "i32"]);
  assert.throws(() => widths.get("nope"), /no field 'nope'/);
  const everything = new Registry().deserialize(bytesOf("everything")) as StructValue;
  assert.equal(everything.get("color"), "GREEN");
  assert.ok(everything.get("origin") instanceof StructValue);
});

test("registered shapes read as their classes, constructors not run", () => {
  const value = shapes.deserialize(bytesOf("mixed")) as { pair: Pair; points: Tuple; tree: Node };
  assert.ok(value.pair instanceof Pair && value.tree instanceof Node && value.points.items[0] instanceof Point);
  const widths = shapes.deserialize(bytesOf("widths")) as Widths;
  assert.equal(widths.u64, 2n ** 64n - 1n);
  assert.equal(typeof widths.i8, "number");
});

// ---------------------------------------------------------------------------- evolution (10.4)

class SmallPoint {
  constructor(public x: number, public y: number, public z: number) {}
}
class PointV2 {
  constructor(public x: number, public y: number, public w = 1.0) {}
}
class PointWide {
  constructor(public x: bigint, public y: number, public w = 1.0) {}
}
class PointLoose {
  constructor(public x: number | null, public y: unknown, public w: number | null) {}
}
class BigPoint {
  constructor(public x: bigint, public y: number, public z: number) {}
}
class PointRenamed {
  constructor(public x: string, public y: number, public z: number) {}
}

function registryWith(register: (r: Registry) => void): Registry {
  const registry = new Registry();
  register(registry);
  return registry;
}

test("evolution: widening accepted, extra fields skipped, missing ones defaulted", () => {
  const small = registryWith((r) => r.registerStruct(SmallPoint, "shapes.Point", { x: "int8", y: "uint8", z: "int8" }));
  const frame = small.serialize([new SmallPoint(1, 200, -3)]).toBytes();
  const wide = registryWith((r) => r.registerStruct(PointWide, "shapes.Point", { x: "bigint64", y: "int16", w: "float64" }, { defaults: { w: 1.0 } }));
  const [p] = wide.deserialize(frame) as [PointWide];
  assert.ok(p instanceof PointWide);
  assert.deepEqual({ ...p }, { x: 1n, y: 200, w: 1.0 });
  const optional = registryWith((r) => r.registerStruct(PointLoose, "shapes.Point", { x: t.optional("int64"), y: "any", w: t.optional("float64") }));
  assert.deepEqual({ ...(optional.deserialize(frame) as [PointLoose])[0] }, { x: 1, y: 200, w: null });
});

test("evolution: a narrowing or a changed type names struct, field and both types; a missing field without default is refused", () => {
  const frame = shapes.serialize([new Point(1, 2, 3)]).toBytes();
  const narrow = registryWith((r) => r.registerStruct(PointV2, "shapes.Point", { x: "int32", y: "int32", w: "float64" }, { defaults: { w: 1 } }));
  assert.throws(() => narrow.deserialize(frame), (e: unknown) => e instanceof DeserializationError
    && /struct 'shapes.Point', field 'x': the writer's type is int64, this reader's is int32/.test(e.message));
  const changed = registryWith((r) => r.registerStruct(PointRenamed, "shapes.Point", { x: "str", y: "int64", z: "int64" }));
  assert.throws(() => changed.deserialize(frame), /field 'x': the writer's type is int64, this reader's is str/);
  const required = registryWith((r) => r.registerStruct(PointV2, "shapes.Point", { x: "int64", y: "int64", w: "float64" }));
  assert.throws(() => required.deserialize(frame), /no field 'w' and PointV2.w has no default/);
  // uint64 does not widen to int64; float64 does not narrow to float32
  const widths = registryWith((r) => r.registerStruct(Widths, "shapes.Widths", { u64: "bigint64" } as never));
  assert.throws(() => widths.deserialize(bytesOf("widths")), /field 'u64': the writer's type is uint64, this reader's is int64/);
});

test("int64 read as number: a value beyond 2^53 is refused, naming the field and the bigint64 way", () => {
  const big = registryWith((r) => r.registerStruct(BigPoint, "shapes.Point", { x: "bigint64", y: "int64", z: "int64" }));
  const frame = big.serialize(new BigPoint(2n ** 60n, 0, 0)).toBytes();
  assert.throws(() => shapes.deserialize(frame), /shapes.Point.x: 1152921504606846976 is beyond Number.MAX_SAFE_INTEGER; declare the field "bigint64"/);
  assert.deepEqual({ ...(big.deserialize(frame) as BigPoint) }, { x: 2n ** 60n, y: 0, z: 0 });
});

// ---------------------------------------------------------------------------- writing

test("the writer refuses values that do not fit, naming struct, field and path", () => {
  const fails = (value: unknown, pattern: RegExp): void =>
    assert.throws(() => shapes.serialize(value), (e: unknown) => e instanceof SerializationError && pattern.test(e.message), String(pattern));
  fails([new Widths(300, 0, 0, 0n, 0, 0, 0, 0n, 0, 0)], /shapes.Widths.i8: the number 300 does not fit the field's type int8 \(out of range\) \(at obj\[0\]\.i8\)/);
  fails(new Point(2 ** 53, 0, 0), /shapes.Point.x: the number 9007199254740992 does not fit .*not a safe integer: pass a bigint/);
  fails(new Point(0.5, 0, 0), /shapes.Point.x: the number 0.5 does not fit the field's type int64/);
  fails(new Widths(0, 0, 0, 0n, 0, 0, 0, -1n, 0, 0), /shapes.Widths.u64: the bigint -1n/);
  fails(new Widths(0, 0, 0, 0n, 0, 0, 0, 0n, 1e39, 0), /shapes.Widths.f32: the number 1e\+39 .*beyond float32's range/);
  fails(new Pair(7 as never), /shapes.Pair.left: the number 7 does not fit the field's type str/);
  fails(new Node(1, [new Point(0, 0, 0) as never]), /shapes.Node.children: a Point does not fit the field's type struct shapes.Node \(at obj.children\)/);
  const e = { ...(VALUES["everything"]!() as object) };
  fails(Object.assign(new Everything(e as never), { color: 7 }), /shapes.Everything.color: the number 7 .* \(members: RED, GREEN, BLUE\)/);
  fails(Object.assign(new Everything(e as never), { when: new PyDate(2024, 1, 2) }), /shapes.Everything.when: a PyDate does not fit the field's type datetime/);
});

test("float32 fields round to the nearest binary32, written as float 64", () => {
  const value = new Widths(0, 0, 0, 0n, 0, 0, 0, 0n, 0.1, 0.1);
  const back = shapes.deserialize(shapes.serialize(value).toBytes()) as Widths;
  assert.equal(back.f32, Math.fround(0.1));
  assert.equal(back.f64, 0.1);
});

test("a struct containing itself is refused, not a stack overflow", () => {
  const node = new Node(1);
  node.children.push(node);
  assert.throws(() => shapes.serialize(node), (e: unknown) => e instanceof SerializationError && /contains itself/.test(e.message));
});

test("defineStruct: a typed class, fields in declared order, defaults for an older writer", () => {
  const Reading = defineStruct("test.Reading", { sensor: "str", value: "float64", tags: t.list("str") });
  const NewReading = defineStruct("test.Reading", { sensor: "str", value: "float64", unit: "str" }, { defaults: { unit: "C" } });
  const writer = registryWith((r) => r.registerStruct(Reading));
  const reader = registryWith((r) => r.registerStruct(NewReading));
  const frame = writer.serialize(new Reading({ sensor: "s1", value: 21.0, tags: ["x"] })).toBytes();
  const back = reader.deserialize(frame) as InstanceType<typeof NewReading>;
  assert.ok(back instanceof NewReading);
  assert.deepEqual(Object.keys(back), ["sensor", "value", "unit"]);
  assert.deepEqual({ ...back }, { sensor: "s1", value: 21, unit: "C" });
  assert.equal(typeof back.value, "number", "a float64 field is a plain number, never a Float64");
});

test("`any` fields follow exactFloats; struct fields are exact either way", () => {
  const Holder = defineStruct("test.Holder", { f: "float64", a: "any" });
  const registry = registryWith((r) => r.registerStruct(Holder));
  const frame = registry.serialize(new Holder({ f: 2, a: [new Float64(1), 0.5] })).toBytes();
  const exact = registry.deserialize(frame) as { f: number; a: unknown[] };
  assert.ok(exact.a[0] instanceof Float64 && exact.f === 2);
  const plain = registry.deserialize(frame, { exactFloats: false }) as { f: number; a: unknown[] };
  assert.deepEqual(plain.a, [1, 0.5]);
  assert.equal(hex(registry.serialize(exact).toBytes()), hex(frame));
});

test("a struct table in front of a value of unknown class ID stays with it (opaque, written back whole)", () => {
  const frame = shapes.serialize(new Point(1, 2, 3)).toBytes();
  const inBand = frame.subarray(32);
  const at = Buffer.from(inBand).indexOf(Buffer.from("6e263859532fb60d", "hex")); // ClassIDHash(shapes.Point)
  const bytes = frame.slice();
  bytes[32 + at] ^= 0xff; // now a class ID nobody knows
  const value = new Registry().deserialize(bytes);
  assert.ok(value instanceof OpaqueValue && value.classId === "serreg.structs");
  assert.equal(hex(new Registry().serialize(value).toBytes()), hex(bytes));
});

test("untrusted mode reads registered structs and carriers; instances nested past maxDepth are refused", () => {
  const frame = shapes.serialize(tree()).toBytes();
  assert.deepEqual(shapes.deserialize(frame, { trusted: false }), tree());
  let deep = new Node(0);
  for (let i = 0; i < 50; i++) deep = new Node(i, [deep]);
  const deepFrame = shapes.serialize(deep).toBytes();
  assert.throws(() => new Registry().deserialize(deepFrame, { trusted: false, limits: new Limits({ maxDepth: 20 }) }), /maxDepth=20/);
  assert.ok(new Registry().deserialize(deepFrame, { trusted: false }) instanceof StructValue);
});

test("registerStruct checks field types against the class at compile time and names at run time", () => {
  const registry = new Registry();
  // @ts-expect-error: "str" reads a string, and Point.x is a number
  assert.doesNotThrow(() => registry.registerStruct(Point, "test.P1", { x: "str", y: "int64", z: "int64" }));
  // @ts-expect-error: Point has no property q
  assert.doesNotThrow(() => registry.registerStruct(PointV2, "test.P2", { q: "int64" }));
  assert.throws(() => registry.registerStruct(Pair, "test.P3", { left: "int128" as never, right: "int64" }), /unknown field type "int128"/);
  assert.throws(() => registry.registerStruct(Pair, "test.P1", { left: "str", right: "int64" }), /already/);
});

test("the README example compiles and runs as written", () => {
  class Point { constructor(public x: number, public y: number, public label: string | null = null) {} }
  const Route = defineStruct("example.Route", { name: "str", stops: t.list(t.struct(Point)), total: "bigint64" });

  const registry = new Registry();
  registry.registerStruct(Point, "example.Point", { x: "int64", y: "int64", label: t.optional("str") });
  registry.registerStruct(Route);
  const frame = registry.serialize(new Route({ name: "r1", stops: [new Point(1, 2)], total: 2n ** 60n })).toBytes();
  const back = registry.deserialize(frame) as InstanceType<typeof Route>;
  assert.ok(back instanceof Route && back.stops[0] instanceof Point);
  assert.deepEqual({ ...back.stops[0]! }, { x: 1, y: 2, label: null });
  assert.equal(back.total, 2n ** 60n);
});

test("unregistering a struct's class ID makes its instances carriers again", () => {
  const registry = registerShapes(new Registry());
  const frame = registry.serialize([new Point(1, 2, 3)]).toBytes();
  registry.unregisterSerializer("shapes.Point");
  const [carried] = registry.deserialize(frame) as [StructValue];
  assert.ok(carried instanceof StructValue && carried.get("z") === 3);
  assert.throws(() => registry.serialize([new Point(1, 2, 3)]), /no serializer is registered for a Point/);
  assert.equal(hex(registry.serialize([carried]).toBytes()), hex(frame));
});

test("evolution: widening inside containers (list, set, map, tuple, optional) and float32 to float64", () => {
  const Narrow = defineStruct("test.Evolve", {
    f: "float32", l: t.list("int8"), s: t.set("uint16"), m: t.map("str", "int32"), tu: t.tuple("uint8", "float32"), o: t.optional("int8"),
  });
  const Wide = defineStruct("test.Evolve", {
    f: "float64", l: t.list("int64"), s: t.set("int32"), m: t.map("str", t.optional("bigint64")), tu: t.tuple("int16", "float64"),
    o: t.optional("int64"),
  });
  const frame = registryWith((r) => r.registerStruct(Narrow)).serialize(
    new Narrow({ f: 0.1, l: [-1, 2], s: new Set([7]), m: new Map([["a", -5]]), tu: [255, 0.5], o: 3 })).toBytes();
  const back = registryWith((r) => r.registerStruct(Wide)).deserialize(frame) as InstanceType<typeof Wide>;
  assert.deepEqual({ ...back }, { f: Math.fround(0.1), l: [-1, 2], s: new Set([7]), m: new Map([["a", -5n]]), tu: [255, 0.5], o: 3 });
  const Narrower = defineStruct("test.Evolve", { l: t.list("uint8") });
  assert.throws(() => registryWith((r) => r.registerStruct(Narrower)).deserialize(frame),
    /field 'l': the writer's type is list\[int8\], this reader's is list\[uint8\]/);
});

test("the top README's TypeScript struct example compiles, and Python's definition is what it writes", () => {
  const Reading = defineStruct("example.Reading", { sensor: "str", value: "float64", count: "int32", tags: t.list("str") },
    { defaults: { tags: () => [] } });
  const registry = new Registry();
  registry.registerStruct(Reading);
  const frame = registry.serialize([new Reading({ sensor: "t1", value: 21.5, count: 3, tags: [] })]).toBytes();
  const definition = Buffer.from([0x92, 0xaf, ...Buffer.from("example.Reading"), 0x94]);
  assert.ok(Buffer.from(frame).includes(definition));
  assert.throws(() => registry.serialize(new Reading({ sensor: "t1", value: 1, count: 2 ** 31, tags: [] })), /example.Reading.count: the number 2147483648/);
});

test("defineStruct: fields that may be null can be left out of `new`; defaults fill what is left out", () => {
  const Tagged = defineStruct("test.Tagged", { id: "int32", note: t.optional("str"), extra: "any", tags: t.list("str") }, { defaults: { tags: () => ["x"] } });
  const made = new Tagged({ id: 1, tags: [] });
  assert.deepEqual({ ...made }, { id: 1, note: null, extra: null, tags: [] });
  // @ts-expect-error: id cannot be null, so it must be given
  assert.throws(() => registryWith((r) => r.registerStruct(Tagged)).serialize(new Tagged({ tags: [] })), /test.Tagged.id: null does not fit/);
  assert.deepEqual(new Tagged({ id: 2 } as never).tags, ["x"]);
});

test("every width round-trips exactly at any value in range, and one past either end is refused", () => {
  const RANGES: [keyof Widths, bigint, bigint][] = [
    ["i8", -(2n ** 7n), 2n ** 7n - 1n], ["i16", -(2n ** 15n), 2n ** 15n - 1n], ["i32", -(2n ** 31n), 2n ** 31n - 1n],
    ["i64", -(2n ** 63n), 2n ** 63n - 1n], ["u8", 0n, 255n], ["u16", 0n, 65535n], ["u32", 0n, 2n ** 32n - 1n], ["u64", 0n, 2n ** 64n - 1n],
  ];
  const zero = (): Widths => new Widths(0, 0, 0, 0n, 0, 0, 0, 0n, 0, 0);
  const set = (w: Widths, field: keyof Widths, v: bigint): Widths => Object.assign(w, { [field]: field === "i64" || field === "u64" ? v : Number(v) });
  fc.assert(fc.property(fc.nat(RANGES.length - 1), fc.bigInt(), fc.double(), (i, raw, f) => {
    const [field, low, high] = RANGES[i]!;
    const v = low + (((raw % (high - low + 1n)) + (high - low + 1n)) % (high - low + 1n));
    const value = set(zero(), field, v);
    value.f32 = f;
    value.f64 = f;
    if (Number.isFinite(f) && !Number.isFinite(Math.fround(f))) {
      assert.throws(() => shapes.serialize(value), /beyond float32's range/);
      return;
    }
    const back = shapes.deserialize(shapes.serialize(value).toBytes()) as Widths;
    assert.equal(back[field], value[field]);
    assert.ok(Object.is(back.f32, Math.fround(f)) && Object.is(back.f64, f));
  }), { numRuns: 500, seed: 21 });
  for (const [field, low, high] of RANGES) {
    for (const v of [low - 1n, high + 1n]) assert.throws(() => shapes.serialize(set(zero(), field, v)), SerializationError, `${field} = ${v}`);
  }
});

test("ndarray and Arrow fields travel out of band (ext 0 of exactly their class ID), views of the frame when read", () => {
  const Sample = defineStruct("test.Sample", { pixels: "numpy.ndarray", table: "ArrowTable", batch: t.optional("ArrowRecordBatch") });
  const registry = registryWith((r) => r.registerStruct(Sample));
  const pixels = new ndarray("float64", Float64Array.from({ length: 12 }, (_, i) => i), [3, 4], [4, 1], 0, "row-major");
  const table = arrow.tableFromArrays({ id: Int32Array.from([1, 2, 3]) });
  const frame = registry.serialize(new Sample({ pixels, table })).toBytes();
  assert.ok(new DataView(frame.buffer, frame.byteOffset).getUint32(8, true) >= 2, "the buffers are out of band");
  const back = registry.deserialize(frame) as InstanceType<typeof Sample>;
  assert.deepEqual([back.pixels.get(2, 3), back.table.getChild("id")!.toArray()[2], back.batch], [11, 3, null]);
  assert.equal(hex(registry.serialize(back).toBytes()), hex(frame));
  assert.throws(() => registry.serialize(new Sample({ pixels: table as never, table })), /test.Sample.pixels: a Table does not fit the field's type numpy.ndarray/);
});
