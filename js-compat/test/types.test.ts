/** The TypeScript column of docs/FORMAT.md section 7: which JS value each class ID gives, and back. */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Complex, Decimal, Float32, Float64, FixedOffset, FrozenSet, Limits, NumpyScalar, OpaqueValue, PyByteArray, PyDate,
  PyDateTime, Registry, SerializationError, TimeDelta, Tuple, UUID, UntrustedClassIDError, LimitExceededError,
  CrossLanguageError, classIdHash, deserialize, serialize, toHex, type DecodeContext, type Encoder, type OutOfBand, Writer,
} from "../src/index.js";
import { hex, vectors } from "./helpers.js";

const back = (value: unknown, options = {}): unknown => deserialize(serialize(value).toBytes(), options);

test("ClassIDHash is the first 8 bytes of SHA-256 of the class ID", () => {
  assert.equal(toHex(classIdHash("dict")), "6ab47d70854a8c69");
  assert.equal(toHex(classIdHash("ArrowTable")), "cc11f08d1d3a3138");
});

test("FORMAT.md section 8 worked example: {a: 1, t: (1, 'x')}", () => {
  const frame = serialize({ a: 1, t: Tuple.of(1, "x") }).toBytes();
  assert.equal(hex(frame), "5352454701000000000000000000000" + "01d000000000000003d000000000000006ab47d70854a8c6982a16101a174c70c00fb2c3dcbe52aa28792" + "01a178");
});

test("numbers: a safe integer is an int, anything else a float; whole floats come back as Float64", () => {
  assert.equal(back(5), 5);
  assert.equal(back(0.5), 0.5);
  assert.ok(Object.is((back(-0) as Float64).value, -0));
  assert.deepEqual(back(new Float64(2)), new Float64(2));
  assert.equal(back(2 ** 53), 2 ** 53, "beyond the safe range a number is a float and stays one");
  assert.equal(back(new Float64(2), {}) instanceof Float64, true);
  assert.equal(deserialize(serialize(new Float64(2)).toBytes(), { exactFloats: false }), 2);
  assert.equal(back(2n ** 53n), 2n ** 53n);
  assert.equal(back(2n ** 53n - 1n), 2 ** 53 - 1, "a bigint in the safe range comes back a number");
  assert.equal(back(-(2n ** 63n)), -(2n ** 63n));
  assert.equal(back(2n ** 64n - 1n), 2n ** 64n - 1n);
  assert.equal(back(2n ** 200n), 2n ** 200n);
  assert.deepEqual(back([2n ** 100n, -(2n ** 70n)]), [2n ** 100n, -(2n ** 70n)]);
});

test("maps: plain objects where the keys keep their order, Map otherwise", () => {
  assert.deepEqual(back({ b: 1, a: 2 }), { b: 1, a: 2 });
  const m = back(new Map<unknown, unknown>([["b", 1], ["0", 2], [3, "x"]])) as Map<unknown, unknown>;
  assert.ok(m instanceof Map);
  assert.deepEqual([...m.keys()], ["b", "0", 3]);
  assert.ok(back(new Map([["__proto__", 1]])) instanceof Map);
  assert.ok(deserialize(serialize({ a: 1 }).toBytes(), { dicts: "map" }) instanceof Map);
});

test("the standard value classes round-trip", () => {
  const values = [
    new Tuple([1, "x", new Tuple()]), new Set([1, "a"]), new FrozenSet(["a"]), new PyByteArray(new Uint8Array([1, 2])),
    new Complex(1.5, -2), new PyDateTime(2024, 2, 29, 13, 45, 30, 123456, 0, new FixedOffset(19_800_000_000)),
    new PyDateTime(2021, 11, 7, 1, 30, 0, 0, 1, "America/New_York"), new PyDate(1999, 12, 31), new TimeDelta(-1, 1, 5),
    new Decimal("-12.340"), new Decimal("1E+3"), new Decimal("NaN"), new Decimal("-0"), new UUID("12345678-1234-5678-1234-567812345678"),
    new Float32(1.25), new NumpyScalar("int8", -5), new NumpyScalar("uint64", 2n ** 64n - 1n), new NumpyScalar("float16", 1),
    new NumpyScalar("complex64", new Complex(1.5, -2)),
  ];
  for (const v of values) {
    const again = back(v);
    assert.equal(again?.constructor, v.constructor);
    assert.equal(hex(serialize(again).toBytes()), hex(serialize(v).toBytes()));
  }
});

test("decimals are written as Python's str() writes them", () => {
  const cases: [string, string][] = [["1.50", "1.50"], ["001.5", "1.5"], ["1e3", "1E+3"], ["0.0000001", "1E-7"], ["-0.000", "-0.000"],
    ["123456789e-15", "1.23456789E-7"], ["nan", "NaN"], ["-sNaN07", "-sNaN7"], ["inf", "Infinity"], ["100", "100"], ["1E+2", "1E+2"]];
  for (const [input, text] of cases) assert.equal(String(new Decimal(input)), text, input);
  assert.throws(() => new Decimal("1.2.3"), RangeError);
});

test("a JS Date is written as an aware UTC datetime", () => {
  const d = new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 123));
  const frame = serialize(d).toBytes();
  const python = vectors("python").find((v) => v.name === "datetime_utc")!;
  assert.deepEqual(back(d), new PyDateTime(2024, 5, 6, 7, 8, 9, 123000, 0, FixedOffset.UTC));
  assert.equal((back(d) as PyDateTime).toDate().getTime(), d.getTime());
  assert.equal(hex(serialize(new Date(Date.UTC(2024, 4, 6, 7, 8, 9))).toBytes()), hex(python.bytes));
  assert.ok(frame.length > 0);
});

test("values with no serreg form are refused with their path", () => {
  assert.throws(() => serialize({ rows: [1, undefined] }), (e: unknown) => e instanceof SerializationError && e.path === 'obj["rows"][1]');
  assert.throws(() => serialize([new (class Thing {})()]), (e: unknown) => e instanceof SerializationError && /Thing/.test(e.message) && e.path === "obj[0]");
  assert.throws(() => serialize(["\ud800"]), (e: unknown) => e instanceof SerializationError && /lone surrogate/.test(e.message));
  const cycle: unknown[] = [];
  cycle.push(cycle);
  assert.throws(() => serialize(cycle), (e: unknown) => e instanceof SerializationError && /contains itself/.test(e.message));
});

test("untrusted mode refuses pickles, dataclasses and class IDs off the allow-list; trusted mode carries them opaque", () => {
  const pickled = vectors("python").find((v) => v.name === "pickle5_in_list")!.bytes;
  assert.throws(() => deserialize(pickled, { trusted: false }), (e: unknown) => e instanceof UntrustedClassIDError && /pickled value/.test(e.message));
  const list = deserialize(pickled) as unknown[];
  assert.ok(list[1] instanceof OpaqueValue && list[1].classId === "serreg.pickle5");
  assert.throws(() => (list[1] as OpaqueValue).contents(), /no serializer/);
  const unknown = vectors("python").find((v) => v.name === "unknown_class_id")!.bytes;
  assert.throws(() => deserialize(unknown, { trusted: false }), UntrustedClassIDError);
  assert.ok(deserialize(unknown) instanceof OpaqueValue);
  assert.throws(() => new Registry().allowClassIds("serreg.pickle5"), /cannot be allowed/);
  assert.throws(() => serialize(list, { crossLanguage: true }), /only be read by Python/);
  assert.deepEqual(deserialize(serialize({ a: [1, Tuple.of(2)] }).toBytes(), { trusted: false }), { a: [1, Tuple.of(2)] });
});

/** The frame Python writes for `shop.Point(1, 2)`, a plain class of a module `shop`: implicit structs (docs/FORMAT.md 10.9). */
const PYOBJECTS_FRAME = Buffer.from(
  "5352454701000000000000000000000069000000000000008900000000000000"
  + "353e9ef6194f852ec41f80059514000000000000008c0473686f70948c05506f696e7494939485942e989b856529bd77a0"
  + "9192ba7365727265672e70796f626a6563743a73686f703a506f696e749292a178a3616e7992a179a3616e79472fe6d27f"
  + "65476193000102", "hex");

test("implicit structs (serreg.pyobjects) are refused untrusted by name, as pickles, and carried opaque when trusted", () => {
  const frame = new Uint8Array(PYOBJECTS_FRAME);
  const byName = (e: unknown): boolean => e instanceof UntrustedClassIDError && e.classId === "serreg.pyobjects"
    && e.message.includes("(class ID 'serreg.pyobjects')") && /unpickling/.test(e.message);
  assert.throws(() => deserialize(frame, { trusted: false }), byName);
  const value = deserialize(frame);
  assert.ok(value instanceof OpaqueValue && value.classId === "serreg.pyobjects");
  assert.throws(() => value.contents(), /class ID 'serreg\.pyobjects'/);
  assert.equal(hex(serialize(value).toBytes()), hex(frame));
  const inList = serialize([1, value]).toBytes();
  assert.throws(() => deserialize(inList, { trusted: false }), byName);
  assert.ok((deserialize(inList) as unknown[])[1] instanceof OpaqueValue);
});

test("serreg.pyobjects can never be allowed in untrusted mode, as serreg.pickle5", () => {
  const registry = new Registry();
  assert.throws(() => registry.allowClassIds("serreg.pyobjects"), /class ID 'serreg\.pyobjects' runs code.*cannot be allowed/);
  assert.ok(!registry.allowedClassIds.has("serreg.pyobjects"));
});

test("crossLanguage: true refuses an opaque serreg.pyobjects value, as an opaque pickle", () => {
  const value = deserialize(new Uint8Array(PYOBJECTS_FRAME)) as OpaqueValue;
  const refused = (e: unknown): boolean => e instanceof CrossLanguageError && /opaque serreg\.pyobjects value can only be read by Python/.test(e.message);
  assert.throws(() => serialize(value, { crossLanguage: true }), refused);
  assert.throws(() => serialize({ v: [value] }, { crossLanguage: true }), refused);
  // One built from the hash alone (no class ID) is refused too.
  assert.throws(() => serialize(new OpaqueValue(value.classIdHash, null, value.inBand, []), { crossLanguage: true }), refused);
});

test("limits: depth, msgpack nesting, buffers and frame size", () => {
  let nested: unknown = 1;
  for (let i = 0; i < 150; i++) nested = Tuple.of(nested);
  const registry = new Registry({ limits: new Limits({ maxDepth: 200 }) });
  const deep = registry.serialize(nested).toBytes();
  assert.throws(() => deserialize(deep), (e: unknown) => e instanceof LimitExceededError && /maxDepth=100/.test(e.message));
  assert.ok(registry.deserialize(deep) instanceof Tuple);
  let list: unknown = [];
  for (let i = 0; i < 1000; i++) list = [list];
  const frame = serialize(list).toBytes();
  assert.throws(() => deserialize(frame, { limits: new Limits({ maxMsgpackNesting: 100 }) }), LimitExceededError);
  assert.ok(Array.isArray(deserialize(frame)));
  assert.throws(() => deserialize(frame, { limits: new Limits({ maxFrameSize: 100 }) }), /maxFrameSize=100/);
  const buffers = serialize([new PyByteArray(new Uint8Array(1)), new PyByteArray(new Uint8Array(1))]).toBytes();
  assert.throws(() => deserialize(buffers, { limits: new Limits({ maxBuffers: 1 }) }), /maxBuffers=1/);
});

test("a registered class ID and an ext-type extension (the struct extension point)", () => {
  class Point { constructor(readonly x: number, readonly y: number) {} }
  const registry = new Registry();
  registry.registerSerializer("example.Pair", [Point], {
    write(w: Writer, p: Point) { w.arrayHeader(2); w.f64(p.x); w.f64(p.y); },
    serialize() { throw new Error("write is used"); },
    deserialize(inBand: Uint8Array, _oob: OutOfBand, context: DecodeContext, base: number | null) {
      const [x, y] = context.plain(inBand, base) as number[];
      return new Point(Number(x), Number(y));
    },
  });
  assert.deepEqual(registry.deserialize(registry.serialize([new Point(1.5, 2)]).toBytes()), [new Point(1.5, 2)]);
  assert.throws(() => registry.registerSerializer("example.Pair", [Map], { serialize() { return null as never; }, deserialize() { return null; } }), /already bound/);
  class Marker { constructor(readonly n: number) {} }
  registry.registerExtensionType(5, {
    writes: (v) => v instanceof Marker,
    write(w: Writer, v: unknown, context: Encoder) { const s = w.beginExt(); w.int((v as Marker).n); w.endExt(s, 5); context.scope.set("seen", true); },
    read(payload: Uint8Array, _oob: OutOfBand, context: DecodeContext) { context.scope.set("read", true); return new Marker(payload[0]!); },
  });
  assert.deepEqual(registry.deserialize(registry.serialize({ m: new Marker(7) }).toBytes()), { m: new Marker(7) });
  assert.throws(() => deserialize(registry.serialize([new Marker(1)]).toBytes()), /ext type 5 is not used by serreg/);
  assert.throws(() => registry.registerExtensionType(0, null as never), /nested value/);
});
