/**
 * Benchmark: a list of 1,000 struct points in serreg TypeScript, this build
 * (ext 2, the fields by columns, docs/FORMAT.md 10.3) beside an older build
 * (each point an ext 1 instance) and @msgpack/msgpack on the same points as
 * plain objects, in one run. Int points (int64 fields: i, -i, i*i) and float
 * points (float64 fields). Timed interleaved (the order rotating every
 * repeat); medians in microseconds per call, frame sizes in bytes.
 *
 *     node dist/bench/structPoints.js [--before <a built js-compat>] [--repeats N] [--only after|before] [--calls N ...]
 *
 * `--before` names the root of another js-compat build (its dist/src/index.js).
 * `--only X --calls N --payload ints|floats --op write|read` runs N writes or reads of one payload
 * with one build and nothing else (for callgrind: the instructions of N calls less those of 0 calls).
 */
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { join, resolve } from "node:path";
import * as msgpack from "@msgpack/msgpack";
import * as after from "../src/index.js";

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const REPEATS = Number(option("--repeats") ?? 15);
const BEFORE = option("--before");
const ONLY = option("--only");
const CALLS = args.includes("--calls") ? Number(option("--calls")) : null;

class Point {
  constructor(public x: number, public y: number, public z: number) {}
}
class FPoint {
  constructor(public x: number, public y: number, public z: number) {}
}

interface Lib {
  Registry: typeof after.Registry;
}

function registryOf(lib: Lib): after.Registry {
  const registry = new lib.Registry();
  registry.registerStruct(Point, "shapes.Point", { x: "int64", y: "int64", z: "int64" });
  registry.registerStruct(FPoint, "bench.FPoint", { x: "float64", y: "float64", z: "float64" });
  return registry;
}

const ints = Array.from({ length: 1000 }, (_, i) => new Point(i, -i, i * i));
const floats = Array.from({ length: 1000 }, (_, i) => new FPoint(i * 0.5, -i * 0.25, i * 1.125 + 0.1));
const plainInts = ints.map((p) => ({ x: p.x, y: p.y, z: p.z }));
const plainFloats = floats.map((p) => ({ x: p.x, y: p.y, z: p.z }));

const builds: [string, after.Registry][] = [];
if (ONLY !== "before") builds.push(["serreg (ext 2)", registryOf(after)]);
if (BEFORE !== undefined && ONLY !== "after") {
  const lib = (await import(pathToFileURL(join(resolve(BEFORE), "dist", "src", "index.js")).href)) as Lib;
  builds.push(["serreg before (ext 1)", registryOf(lib)]);
}

if (CALLS !== null) {
  // One build, one payload, N writes or N reads and nothing else: for instruction counts.
  const [, registry] = builds[0]!;
  const value = option("--payload") === "floats" ? floats : ints;
  const frame = registry.serialize(value).toBytes();
  if (option("--op") === "read") for (let i = 0; i < CALLS; i++) registry.deserialize(frame);
  else for (let i = 0; i < CALLS; i++) registry.serialize(value).toBytes();
  process.exit(0);
}

type Fn = () => unknown;
interface Case { payload: string; op: string; impl: string; fn: Fn }
const cases: Case[] = [];
const sizes: string[] = [];
for (const [payload, value, plain] of [["1,000 int points", ints, plainInts], ["1,000 float points", floats, plainFloats]] as const) {
  for (const [impl, registry] of builds) {
    const frame = registry.serialize(value).toBytes();
    const back = registry.deserialize(frame) as { x: number }[];
    if (back.length !== 1000 || back[999]!.x !== value[999]!.x) throw new Error(`${impl} did not round-trip ${payload}`);
    sizes.push(`${payload}, ${impl}: ${frame.length} B`);
    cases.push({ payload, op: "write", impl, fn: () => registry.serialize(value).toBytes() });
    cases.push({ payload, op: "read", impl, fn: () => registry.deserialize(frame) });
    cases.push({ payload, op: "round trip", impl, fn: () => registry.deserialize(registry.serialize(value).toBytes()) });
  }
  const packed = msgpack.encode(plain);
  sizes.push(`${payload}, @msgpack/msgpack (plain objects): ${packed.length} B`);
  cases.push({ payload, op: "write", impl: "@msgpack/msgpack", fn: () => msgpack.encode(plain) });
  cases.push({ payload, op: "read", impl: "@msgpack/msgpack", fn: () => msgpack.decode(packed) });
  cases.push({ payload, op: "round trip", impl: "@msgpack/msgpack", fn: () => msgpack.decode(msgpack.encode(plain)) });
}

const INNER = 40;
function time(fn: Fn): number {
  const t0 = performance.now();
  for (let i = 0; i < INNER; i++) fn();
  return ((performance.now() - t0) / INNER) * 1000;
}
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const samples = new Map<Case, number[]>(cases.map((c) => [c, []]));
for (const c of cases) time(c.fn); // warm up
for (let r = 0; r < REPEATS; r++) {
  for (let i = 0; i < cases.length; i++) {
    const c = cases[(i + r) % cases.length]!;
    samples.get(c)!.push(time(c.fn));
  }
}

console.log(`serreg TypeScript struct points: node ${process.version}, ${REPEATS} repeats of ${INNER} calls`);
for (const s of sizes) console.log(`frame: ${s}`);
console.log("payload              op          implementation            median µs   this build / it");
for (const c of cases) {
  const ours = cases.find((o) => o.payload === c.payload && o.op === c.op && o.impl === builds[0]![0])!;
  const t = median(samples.get(c)!);
  const ratio = c === ours ? "" : (median(samples.get(ours)!) / t).toFixed(3);
  console.log(`${c.payload.padEnd(21)}${c.op.padEnd(12)}${c.impl.padEnd(26)}${t.toFixed(1).padStart(10)}   ${ratio}`);
}
