"""Python against the TypeScript reader (js-compat/) over byte mutants of golden frames: the same answer, or a finding.

Seeds: the golden vectors Python, Java and the canonical writer made (tests/vectors/{python,java,canonical,
arrow,structs}). Each gets N mutants: one to four changes (one in two cases a single one) (a byte set or flipped, a little-endian u32
written, bytes inserted or deleted, the frame cut), three in four inside the header, table and in-band
where the structure is, and for an Arrow frame one in two inside its schema message; the header's total
length is set true to the bytes four times in five, so the in-band gets read. Each mutant is read by Python
and by the TypeScript check fixture, trusted and untrusted, and sorted as tests/typescript_differential.py
sorts the hostile corpora: a finding is an escape (not a SerregError, a catch-all's refusal around a
TypeError or RangeError, no answer in 20 s, the process died), a frame Python refuses that TypeScript
reads (beyond what a JS value can hold and a Python one cannot), values that differ, a value TypeScript
cannot write back.

    python fuzz/typescript_mutants.py SEED MUTANTS_PER_FRAME [--keep DIR] [--buffers]   # from the root, nice -n 10

``--buffers`` changes only bytes inside the out-of-band buffers of frames that have some (Arrow values,
offsets and validity bitmaps, ndarray data), keeping the frame's layout, so the checks of values are
what is reached. ``--keep DIR`` writes each finding as a fuzz input (a 0 byte, then the frame: tests/fuzz_regressions/
holds them so). Exits 1 if there was a finding.
"""

from __future__ import annotations

import random
import struct
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from typescript_differential import FINDINGS, compare  # noqa: E402
from typescript_fixture import TypeScriptCheck, build  # noqa: E402

__all__ = ["mutant", "seeds"]

PRODUCERS = ("python", "java", "canonical", "arrow", "structs")


def seeds() -> dict[str, bytes]:
    """The golden frames by producer and file name."""
    out = {}
    for producer in PRODUCERS:
        for path in sorted((ROOT / "tests" / "vectors" / producer).glob("*.frame")):
            out[f"{producer}/{path.name}"] = path.read_bytes()
    return out


def _hot_end(frame: bytes) -> int:
    """Where the header, the table and the in-band end (the whole frame if the header says nonsense)."""
    if len(frame) < 32:
        return len(frame)
    count, in_band = struct.unpack_from("<I", frame, 8)[0], struct.unpack_from("<Q", frame, 16)[0]
    return max(1, min(len(frame), 32 + 16 * count + in_band + 64))


def _buffers(frame: bytes) -> list[tuple[int, int]]:
    """(offset, length) of each non-empty out-of-band buffer of a well-formed ``frame``."""
    count = struct.unpack_from("<I", frame, 8)[0]
    spans = [struct.unpack_from("<QQ", frame, 32 + 16 * i) for i in range(count)]
    return [(offset, length) for offset, length in spans if length and offset + length <= len(frame)]


def mutant(frame: bytes, rng: random.Random, buffers: bool = False) -> bytes:
    """One mutant of ``frame``; ``buffers``: bytes of its out-of-band buffers only (values, offsets,
    validity bitmaps), the frame's length kept."""
    data = bytearray(frame)
    if buffers:
        spans = _buffers(frame)
        if not spans:
            return frame
        for _ in range(rng.choice((1, 1, 2, 3))):
            offset, length = rng.choice(spans)
            at = offset + rng.randrange(length)
            if rng.random() < 0.5:
                data[at] ^= 1 << rng.randrange(8)
            elif at + 4 <= len(data):
                data[at:at + 4] = rng.choice([0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, rng.randrange(1 << 32)]).to_bytes(4, "little")
        return bytes(data)
    schema = frame.find(b"\xff\xff\xff\xff", 32)
    schema_end = schema + 8 + int.from_bytes(frame[schema + 4: schema + 8], "little") if schema > 0 else -1
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        if not data:
            break
        if 0 < schema and schema + 8 < schema_end <= len(data) and rng.random() < 0.5:
            at = rng.randrange(schema + 8, schema_end)
        elif rng.random() < 0.75:
            at = rng.randrange(min(len(data), _hot_end(bytes(data))))
        else:
            at = rng.randrange(len(data))
        kind = rng.randrange(6)
        if kind == 0:
            data[at] = rng.choice([0, 0xFF, 0x7F, 0x80, rng.randrange(256)])
        elif kind == 1:
            data[at] ^= 1 << rng.randrange(8)
        elif kind == 2 and at + 4 <= len(data):
            value = rng.choice([0, 1, 4, 8, 64, 0x7FFFFFFF, 0xFFFFFFFF, 0x80000000, rng.randrange(1 << 32)])
            data[at:at + 4] = value.to_bytes(4, "little")
        elif kind == 3:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif kind == 4:
            del data[at:at + rng.randint(1, 8)]
        else:
            del data[at:]
    if len(data) >= 32 and rng.random() < 0.8:
        struct.pack_into("<Q", data, 24, len(data))
    return bytes(data)


def main(seed: int, count: int, keep: Path | None, buffers: bool = False) -> int:
    build()
    rng = random.Random(seed)
    check = TypeScriptCheck()
    kinds: Counter[str] = Counter()
    printed = 0
    for name, frame in seeds().items():
        if buffers and not _buffers(frame):
            continue  # no out-of-band buffers
        mutants = {f"{name} mutant {i} (seed {seed}{', buffers' if buffers else ''})": mutant(frame, rng, buffers)
                   for i in range(count)}
        for answer in compare(mutants, check):
            kinds[answer.kind] += 1
            if answer.kind not in FINDINGS:
                continue
            if printed < 30:
                print(answer)
                printed += 1
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                label = answer.name.replace("/", "-").replace(" ", "-").replace("(", "").replace(")", "")
                (keep / f"{label}.bin").write_bytes(b"\x00" + mutants[answer.name])
    check.close()
    print(f"seed {seed}, {count} mutants per frame{' (buffers)' if buffers else ''}: {dict(sorted(kinds.items()))}")
    return 1 if any(kinds[k] for k in FINDINGS) else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    keep_dir = None
    only_buffers = "--buffers" in args
    if only_buffers:
        args.remove("--buffers")
    if "--keep" in args:
        at = args.index("--keep")
        keep_dir = Path(args[at + 1])
        del args[at:at + 2]
    sys.exit(main(int(args[0]), int(args[1]), keep_dir, only_buffers))
