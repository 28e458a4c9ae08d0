/** Shared test helpers: the golden vector files of tests/vectors/ and byte comparison. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const VECTORS = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "tests", "vectors");

export interface Vector {
  producer: string;
  name: string;
  file: string;
  class_id: string;
  bytes: Uint8Array;
  entry: Record<string, unknown>;
}

export function vectors(producer: "python" | "java" | "canonical" | "signed"): Vector[] {
  const manifest = JSON.parse(readFileSync(join(VECTORS, producer, "manifest.json"), "utf8"));
  const entries: Record<string, unknown>[] = Array.isArray(manifest) ? manifest : manifest.vectors;
  const top = Array.isArray(manifest) ? {} : manifest;
  return entries.map((entry) => ({
    producer,
    name: entry["name"] as string,
    file: entry["file"] as string,
    class_id: entry["class_id"] as string,
    bytes: new Uint8Array(readFileSync(join(VECTORS, producer, entry["file"] as string))),
    entry: { ...top, vectors: undefined, ...entry },
  }));
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** The struct golden vectors (tests/vectors/structs, docs/FORMAT.md 10.8). */
export function structVectors(): { name: string; bytes: Uint8Array; digest: string }[] {
  const dir = join(VECTORS, "structs");
  const manifest: { name: string; file: string; digest: string }[] = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  return manifest.map((e) => ({ name: e.name, digest: e.digest, bytes: new Uint8Array(readFileSync(join(dir, e.file))) }));
}
