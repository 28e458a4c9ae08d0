/**
 * What reading an Arrow table costs: serreg's `deserialize` of a frame beside
 * apache-arrow's `tableFromIPC` of the same table as an IPC stream (both files
 * written by Python: see docs/BENCHMARKS.md), interleaved, medians of seconds per read.
 *
 *     node dist/bench/arrowRead.js FRAME STREAM [--reads N] [--repeats R] [--dist DIR] [--only serreg|apache-arrow]
 *
 * `--dist DIR` reads with another build of this package (its dist/, say of an
 * older commit); `--reads 0` loads everything and reads nothing (a baseline for
 * instruction counts under callgrind); `--only` times one reader (one count each).
 */
import { readFileSync } from "node:fs";
import * as arrow from "apache-arrow";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at > 0 && at + 1 < process.argv.length ? process.argv[at + 1]! : fallback;
}

const [framePath, streamPath] = process.argv.slice(2);
if (framePath === undefined || streamPath === undefined) {
  process.stderr.write("usage: node dist/bench/arrowRead.js FRAME STREAM [--reads N] [--repeats R] [--dist DIR] [--only serreg|apache-arrow]\n");
  process.exit(2);
}
const reads = Number(option("--reads", "5"));
const repeats = Number(option("--repeats", "9"));
const dist = option("--dist", new URL("..", import.meta.url).pathname);
const only = option("--only", "");
const { deserialize } = (await import(`${dist}/src/index.js`)) as { deserialize: (frame: Uint8Array) => unknown };
const frame = new Uint8Array(readFileSync(framePath));
const stream = new Uint8Array(readFileSync(streamPath));

const times: Record<string, number[]> = { serreg: [], "apache-arrow tableFromIPC": [] };
for (let r = 0; r < repeats && reads > 0; r++) {
  for (const [name, read] of [["serreg", () => deserialize(frame)], ["apache-arrow tableFromIPC", () => arrow.tableFromIPC(stream)]] as const) {
    if (only !== "" && !name.startsWith(only)) continue;
    const start = process.hrtime.bigint();
    for (let i = 0; i < reads; i++) read();
    times[name]!.push(Number(process.hrtime.bigint() - start) / 1e9 / reads);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(times).filter(([, v]) => v.length).map(([k, v]) => [k, Math.round(median(v) * 1e7) / 10]))) + " (microseconds per read, medians)\n");
