/**
 * Class IDs only Python reads (docs/FORMAT.md, sections 4.4, 6.1 and 10.9):
 * decoding them in Python runs code chosen by whoever wrote the frame (it
 * unpickles, or imports a module the frame names). TypeScript carries them as
 * opaque values in trusted mode, refuses them in untrusted mode (they can never
 * be allowed), and `crossLanguage: true` refuses to write them.
 */
import { classIdHash, hashKey } from "./classId.js";

/** Implicit structs (section 10.9): no serializer here; a frame of it is kept opaque under this name. */
export const PYOBJECTS_CLASS_ID = "serreg.pyobjects";

export const PYTHON_ONLY_CLASS_IDS: ReadonlySet<string> = new Set(["serreg.pickle5", PYOBJECTS_CLASS_ID, "serreg.dataclass"]);

const BY_HASH: ReadonlyMap<string, string> = new Map([...PYTHON_ONLY_CLASS_IDS].map((id) => [hashKey(classIdHash(id)), id]));

/** The Python-only class ID whose ClassIDHash is the 8 bytes at `start`, or null. */
export function pythonOnlyClassId(bytes: Uint8Array, start = 0): string | null {
  return BY_HASH.get(hashKey(bytes, start)) ?? null;
}
