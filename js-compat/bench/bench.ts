/**
 * Benchmark: serreg (TypeScript) beside @msgpack/msgpack and apache-arrow IPC on the
 * payloads of issue 17 (a small map, 1,000 records, a 100 MB float64 array, a
 * 1M-row table). Each case is timed interleaved with its peers (their order rotating
 * every repeat), and medians are reported with serreg's time over each peer's.
 *
 *     npm run bench [-- --repeats N] [-- --scale 0.01]
 *
 * Times: "write" = value to one contiguous frame (serreg: serialize().toBytes();
 * msgpack: encode; Arrow: tableToIPC), "read" = frame to value, "result" = serreg's
 * serialize() alone (in-band + buffer views, what a vectored write sends).
 */
import { performance } from "node:perf_hooks";
import { createRequire } from "node:module";
import * as msgpack from "@msgpack/msgpack";
import * as arrow from "apache-arrow";
import { deserialize, serialize } from "../src/index.js";

const require = createRequire(import.meta.url);
const ndarray = require("@stdlib/ndarray/ctor");

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const REPEATS = option("--repeats", 15);
const SCALE = option("--scale", 1);

type Fn = () => unknown;
interface Case { payload: string; op: string; impl: string; fn: Fn; inner: number }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: Fn, inner: number): number {
  const t0 = performance.now();
  for (let i = 0; i < inner; i++) fn();
  return ((performance.now() - t0) / inner) * 1000; // microseconds per call
}

const cases: Case[] = [];
function add(payload: string, op: string, impl: string, fn: Fn, inner: number): void {
  cases.push({ payload, op, impl, fn, inner });
}

// Small map and 1,000 records: plain values.
const small = { name: "run-7", id: 12345, ok: true, score: 0.75, tags: ["a", "b"], nested: { x: 1, y: null } };
const records = Array.from({ length: Math.max(1, Math.round(1000 * Math.min(1, SCALE * 10))) }, (_, i) => ({
  id: i, name: `row${i}`, value: i * 0.5 + 0.25, active: i % 2 === 0, tags: ["t", String(i % 7)],
}));
for (const [payload, value, inner] of [["small map", small, 20000], ["1,000 records", records, 50]] as const) {
  const frame = serialize(value).toBytes();
  const packed = msgpack.encode(value);
  add(payload, "write", "serreg", () => serialize(value).toBytes(), inner);
  add(payload, "write", "@msgpack/msgpack", () => msgpack.encode(value), inner);
  add(payload, "read", "serreg", () => deserialize(frame), inner);
  add(payload, "read", "@msgpack/msgpack", () => msgpack.decode(packed), inner);
}

// 100 MB of float64: serreg's frame holds it out-of-band; msgpack as one bin; Arrow IPC as one column.
const n = Math.round(12_500_000 * SCALE);
const floats = new Float64Array(n).map((_, i) => i * 0.5);
const array = new ndarray("float64", floats, [n], [1], 0, "row-major");
const arrayFrame = serialize(array).toBytes();
const floatBytes = new Uint8Array(floats.buffer);
const floatPacked = msgpack.encode(floatBytes);
const floatTable = new arrow.Table({ x: arrow.makeVector(floats) });
const floatIpc = arrow.tableToIPC(floatTable, "stream");
add("100 MB float64 array", "result", "serreg", () => serialize(array), 200);
add("100 MB float64 array", "write", "serreg", () => serialize(array).toBytes(), 3);
add("100 MB float64 array", "write", "@msgpack/msgpack", () => msgpack.encode(floatBytes), 3);
add("100 MB float64 array", "write", "arrow IPC", () => arrow.tableToIPC(floatTable, "stream"), 3);
add("100 MB float64 array", "read", "serreg", () => deserialize(arrayFrame), 200);
add("100 MB float64 array", "read", "@msgpack/msgpack", () => new Float64Array((msgpack.decode(floatPacked) as Uint8Array).slice().buffer), 3);
add("100 MB float64 array", "read", "arrow IPC", () => arrow.tableFromIPC(floatIpc), 200);

// A 1M-row table (int64, float64, utf8).
const rows = Math.round(1_000_000 * SCALE);
const table = new arrow.Table({
  id: arrow.makeVector(BigInt64Array.from({ length: rows }, (_, i) => BigInt(i))),
  x: arrow.makeVector(Float64Array.from({ length: rows }, (_, i) => i / rows)),
  name: arrow.vectorFromArray(Array.from({ length: rows }, (_, i) => `row${i % 1000}`), new arrow.Utf8()),
});
const tableFrame = serialize(table).toBytes();
const tableIpc = arrow.tableToIPC(table, "stream");
add("1M-row table", "result", "serreg", () => serialize(table), 200);
add("1M-row table", "write", "serreg", () => serialize(table).toBytes(), 3);
add("1M-row table", "write", "arrow IPC", () => arrow.tableToIPC(table, "stream"), 3);
add("1M-row table", "read", "serreg", () => deserialize(tableFrame), 200);
add("1M-row table", "read", "arrow IPC", () => arrow.tableFromIPC(tableIpc), 200);

const samples = new Map<Case, number[]>(cases.map((c) => [c, []]));
for (const c of cases) time(c.fn, Math.min(c.inner, 3)); // warm up
for (let r = 0; r < REPEATS; r++) {
  const order = cases.map((_, i) => cases[(i + r) % cases.length]!);
  for (const c of order) samples.get(c)!.push(time(c.fn, c.inner));
}

console.log(`serreg TypeScript benchmark: node ${process.version}, ${REPEATS} repeats, scale ${SCALE}`);
console.log(`frame sizes: small map ${serialize(small).toBytes().length} B (msgpack ${msgpack.encode(small).length} B), ` +
  `1,000 records ${serialize(records).toBytes().length} B (msgpack ${msgpack.encode(records).length} B), ` +
  `float64 array ${arrayFrame.length} B, table ${tableFrame.length} B (IPC ${tableIpc.length} B)`);
console.log("payload                 op      implementation       median µs     serreg/peer");
const groups = new Map<string, Case[]>();
for (const c of cases) {
  const key = `${c.payload}|${c.op}`;
  groups.set(key, [...(groups.get(key) ?? []), c]);
}
for (const group of groups.values()) {
  const ours = group.find((c) => c.impl === "serreg")!;
  const oursTime = median(samples.get(ours)!);
  for (const c of group) {
    const t = median(samples.get(c)!);
    const ratio = c === ours ? "" : (oursTime / t).toFixed(3);
    console.log(`${c.payload.padEnd(24)}${c.op.padEnd(8)}${c.impl.padEnd(21)}${t.toFixed(2).padStart(12)}     ${ratio}`);
  }
}
