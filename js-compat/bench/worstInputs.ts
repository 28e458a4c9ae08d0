/**
 * What one of the worst known inputs costs the TypeScript reader (the twin of
 * fuzz/worst_inputs.py and Java's WorstInputs), measured in a fresh process:
 *
 *     node dist/bench/worstInputs.js FILE [--untrusted]
 *
 * prints one JSON line: the frame's size, the outcome (value or the refusal),
 * the growth of the process's peak resident set while deserializing (V8's heap,
 * array buffers and apache-arrow's objects included; the frame is read and the
 * package loaded before the baseline is taken) and the seconds it took.
 * `python fuzz/worst_inputs.py --write DIR` writes the inputs.
 */
import { readFileSync } from "node:fs";
import { Limits, Registry, SerregError } from "../src/index.js";

const [file, mode] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write("usage: node dist/bench/worstInputs.js FILE [--untrusted]\n");
  process.exit(2);
}
const frame = new Uint8Array(readFileSync(file));
const registry = new Registry();
registry.deserialize(new Registry().serialize([1, "a"]).toBytes()); // load and compile the read path first
const before = process.resourceUsage().maxRSS;
const start = process.hrtime.bigint();
let outcome = "value";
let value: unknown;
try {
  value = registry.deserialize(frame, { trusted: mode !== "--untrusted", limits: new Limits() });
} catch (error) {
  outcome = error instanceof SerregError ? `refused: ${error.message.slice(0, 160)}` : `ESCAPED: ${String(error).slice(0, 160)}`;
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const growth = (process.resourceUsage().maxRSS - before) / 1024;
process.stdout.write(JSON.stringify({ file, bytes: frame.length, outcome, peakGrowthMiB: Math.round(growth * 10) / 10, seconds: Math.round(seconds * 1000) / 1000, kept: value === undefined ? 0 : 1 }) + "\n");
