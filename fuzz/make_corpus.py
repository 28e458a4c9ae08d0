"""Write the fuzzer's seed corpus: real frames of every standard, numpy and Arrow type.

Usage: python fuzz/make_corpus.py DIR

Each value gives up to three seeds per form (normal, and canonical where it
has one), one per input mode of fuzz/inputs.py: the whole frame (first byte
0), the in-band section plus buffers (1), and the class ID by index (3).
Values whose frame is larger than 16 KiB are left out (the fuzzer's -max_len).
Streams of two and three whole frames (and signed ones) are seeds too, for
fuzz_stream.py and fuzz_signed.py.
"""

from __future__ import annotations

import hashlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import serreg  # noqa: E402
from samples import all_values  # noqa: E402
from inputs import input_from_result  # noqa: E402

MAX_SEED = 16384


def results(values):
    """Each value's serialization result, and its canonical one where it has one (docs/FORMAT.md 9)."""
    for value in values:
        yield serreg.serialize(value)
        try:
            yield serreg.serialize(value, canonical=True)
        except serreg.SerregError:
            pass


def seeds(values) -> list:
    out = []
    frames = []
    for result in results(values):
        frame = result.to_bytes()
        if len(frame) + 1 > MAX_SEED:
            continue
        frames.append(frame)
        out.append(b"\x00" + frame)
        for by_index in (False, True):
            structured = input_from_result(result, by_index)
            if structured:
                out.append(structured)
                out.append(bytes([structured[0] | 0x10]) + structured[1:])  # fuzz_signed: signed by the harness
    small = [frame for frame in frames if len(frame) < 1024]
    for i in range(0, len(small) - 2, 3):
        out.append(b"\x00" + small[i] + small[i + 1])
        out.append(b"\x00" + small[i] + small[i + 1] + small[i + 2])
    for frame in small[:20]:
        out.append(b"\x00" + serreg.serialize(serreg.deserialize(frame), key=bytes(range(32))).to_bytes())
    return out


def main(directory: str) -> None:
    os.makedirs(directory, exist_ok=True)
    written = seeds(all_values())
    for seed in written:
        with open(os.path.join(directory, hashlib.sha1(seed).hexdigest()), "wb") as f:
            f.write(seed)
    distinct = len(set(written))  # files are named by content: a seed made twice is one file
    print(f"wrote {distinct} seeds to {directory}" + (f" ({len(written) - distinct} made twice)" if distinct < len(written) else ""))


if __name__ == "__main__":
    main(sys.argv[1])
